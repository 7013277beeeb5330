"""Run one match: START, PLAY until terminal, STOP, with deadlines, fallbacks and error codes.

The runner is the protocol.md §4-§6 lifecycle in one coroutine, :func:`run_match`. It computes every
state itself from a :class:`~ggp.reasoner.machine.StateMachine` and reaches players only through a
:class:`Transport` (HTTP in production, :class:`HttpTransport`). A late reply (``TO``), an I/O failure
(``CE``) or an unparseable or illegal move (``IL null`` / ``IL <move>``) is replaced by a random legal
move drawn from the match's seeded RNG before the request is sent, so a seed fixes the fallbacks.
A seat with no URL (the built-in ``random`` player) is played by the runner from the same RNG and
never contacted; so is a role named ``random`` (the chance player of GDL-II and ggp-base), which
must have such a seat.

GDL-II mode (protocol.md §8) is used for games that define ``sees``: each role is sent
``(PLAY id turn lastmove percepts)`` with its own executed move and its own percepts, never the
other roles' moves; the record keeps every role's percepts per step (``x-percepts``). A player that
answers START with ``error: ...`` (e.g. ``this player does not support GDL-II``) ends such a match
with ``x-endReason: error``. A game that breaks (a role without a legal move, a terminal state
without exactly one goal per role) also ends with ``x-endReason: error``, its state in the log.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, Self

import aiohttp

from ggp.errors import GgpError, InputError, ReasonerError
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description, Term
from ggp.manager import wire
from ggp.manager.records import EndReason, MatchRecord, state_text
from ggp.protocol.messages import uses_sees
from ggp.reasoner.gdl2 import PerceptMachine
from ggp.reasoner.machine import Move, State, StateMachine

log = logging.getLogger(__name__)

DEFAULT_STEP_CAP = 1000
"""Joint moves after which a match ends with ``x-endReason: step_cap`` (see :data:`StepCapOutcome`)."""

StepCapOutcome = Literal["draw", "abort"]
"""What a match that reaches the step cap becomes (protocol.md §4 aborts; issue 10 asks for a draw):

- ``draw`` (the default): completed, every role scores :data:`STEP_CAP_DRAW_GOAL`, so ratings and
  tournament tables count it as a draw (games with no length bound, like the seed games, need this);
- ``abort``: aborted with no goal values, as protocol.md §4 describes.

Either way the record says ``x-endReason: step_cap`` and the players get ABORT, not STOP (the state is
not terminal, so STOP's "the game ended" would be false)."""
STEP_CAP_OUTCOMES: tuple[StepCapOutcome, ...] = ("draw", "abort")
DEFAULT_STEP_CAP_OUTCOME: StepCapOutcome = "draw"
STEP_CAP_DRAW_GOAL = 50
"""The goal value of every role in a step-cap draw: equal for all (a draw), and the usual GGP draw
value. The rules' own goals at the cap are not used: they may be undefined in a non-terminal state,
and where defined (the seed games' running point totals) they would turn the cap into a win."""


@dataclass(frozen=True, slots=True)
class Seat:
    """Who plays one role: a display name, the player's URL, and its kind.

    ``url=None`` means the manager itself plays uniformly at random (kind ``random``).
    """

    name: str
    url: str | None = None
    kind: str = "remote"

    @property
    def contacted(self) -> bool:
        return self.url is not None


RANDOM_SEAT = Seat("random", None, "random")

CHANCE_ROLE = "random"
"""The role played by the manager itself as chance (GDL-II; ggp-base uses the same name)."""

Percepts = tuple[frozenset[Term], ...]


class _GameBroken(GgpError):
    """The game itself failed (no legal move, no goal); the match ends with ``x-endReason: error``."""


@dataclass(frozen=True, slots=True)
class Deadlines:
    """Total wall-clock seconds allowed per request kind (protocol.md §4)."""

    start_s: float
    play_s: float
    stop_s: float
    abort_s: float = 1.0
    connect_s: float = 5.0

    @classmethod
    def from_clocks(cls, start_clock: int, play_clock: int) -> Deadlines:
        """START = startclock, PLAY = playclock + 1 s grace, STOP = playclock, ABORT = 1 s."""
        return cls(float(start_clock), play_clock + 1.0, float(play_clock))


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Everything that fixes a match before it starts; ``description`` is sent in START.

    ``step_cap_outcome`` says whether reaching ``step_cap`` joint moves is a draw or an abort
    (:data:`StepCapOutcome`). ``wedge_s`` (default startclock + 10·playclock) aborts a match in which no step completed for that
    long; ``deadlines`` overrides the clock-derived deadlines (tests use fractions of a second).
    """

    match_id: str
    game_key: str
    description: Description
    seats: tuple[Seat, ...]
    start_clock: int = 10
    play_clock: int = 5
    seed: int = 0
    game_meta_url: str = ""
    step_cap: int = DEFAULT_STEP_CAP
    step_cap_outcome: StepCapOutcome = DEFAULT_STEP_CAP_OUTCOME
    wedge_s: float | None = None
    deadlines: Deadlines | None = None
    tournament: str = ""

    def effective_deadlines(self) -> Deadlines:
        return self.deadlines or Deadlines.from_clocks(self.start_clock, self.play_clock)

    def effective_wedge_s(self) -> float:
        return self.wedge_s if self.wedge_s is not None else self.start_clock + 10.0 * self.play_clock


Event = Literal["created", "start", "step", "end"]


class MatchObserver(Protocol):
    """Told about every change of a running match (the store persists, the web UI streams).

    Events: ``created`` (initial state, no error row yet), ``start`` (START replies in: error row 0),
    ``step`` (one more joint move and state), ``end`` (completed or aborted).
    """

    def match_event(self, record: MatchRecord, event: Event) -> None: ...


class Transport(Protocol):
    """Sends one message to a player and returns its reply text.

    Raises ``TimeoutError`` when the deadline passes and ``ConnectionError`` for any I/O failure.
    """

    async def send(self, url: str, body: str, timeout_s: float, connect_s: float, receiver: str) -> str: ...


class HttpTransport:
    """A :class:`Transport` over aiohttp: one fresh HTTP/1.0 connection per message, POST ``/``.

    Owns its :class:`aiohttp.ClientSession`; use ``async with`` or call :meth:`close`.
    """

    def __init__(self) -> None:
        connector = aiohttp.TCPConnector(force_close=True, limit=0)
        self._session = aiohttp.ClientSession(connector=connector, version=aiohttp.HttpVersion10)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._session.close()

    async def send(self, url: str, body: str, timeout_s: float, connect_s: float, receiver: str) -> str:
        headers = {
            "Content-Type": "text/acl",
            "Accept": "text/delim",
            "Sender": "GAMESERVER",
            "Receiver": receiver.encode("ascii", "replace").decode("ascii"),
        }
        timeout_s = max(timeout_s, 0.001)  # aiohttp reads a zero timeout as "no timeout"
        timeout = aiohttp.ClientTimeout(total=timeout_s, connect=min(connect_s, timeout_s))
        try:
            async with self._session.post(url, data=body.encode("ascii", "replace"), headers=headers,
                                          timeout=timeout) as response:
                if response.status != 200:
                    raise ConnectionError(f"HTTP status {response.status}")
                data = bytearray()
                while len(data) <= wire.MAX_REPLY_CHARS:  # a longer reply is not a move: stop reading
                    chunk = await response.content.read(wire.MAX_REPLY_CHARS + 1 - len(data))
                    if not chunk:
                        break
                    data += chunk
                return data.decode("ascii", "replace")
        except TimeoutError:
            raise
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            raise ConnectionError(str(exc) or type(exc).__name__) from exc


def rules_hash(description: Description) -> str:
    """A short hash of the canonical rules text, for ``x-rulesHash`` (comments and layout ignored)."""
    return hashlib.sha256(to_kif(description).encode()).hexdigest()[:16]


def check_roles(machine: StateMachine, seats: Sequence[Seat]) -> None:
    """Raise :class:`InputError` unless there is one seat per role and the ``random`` role's seat is
    the manager's own (``url=None``): chance is never a remote player."""
    roles = [str(role) for role in machine.roles]
    if len(seats) != len(roles):
        raise InputError(f"the game has {len(roles)} roles {roles} but {len(seats)} players were given")
    for role, seat in zip(roles, seats):
        if role == CHANCE_ROLE and seat.contacted:
            raise InputError(f"role 'random' is chance, played by the manager; seat the built-in 'random' "
                             f"player there, not {seat.name!r}")


def with_chance_seat(roles: Sequence[str], seats: Sequence[Seat]) -> tuple[Seat, ...]:
    """The seats with :data:`RANDOM_SEAT` inserted for a ``random`` role when exactly that seat is missing.

    >>> [seat.name for seat in with_chance_seat(["first", "random"], [Seat("p", "http://h:1/")])]
    ['p', 'random']
    """
    if CHANCE_ROLE in roles and len(seats) == len(roles) - 1:
        index = list(roles).index(CHANCE_ROLE)
        return (*seats[:index], RANDOM_SEAT, *seats[index:])
    return tuple(seats)


def _now_ms() -> int:
    return int(time.time() * 1000)


class MatchRun:
    """One match, created (and announced to the observer) but not yet played; call :meth:`run`.

    Raises :class:`InputError` when the seats do not fit the game's roles.
    """

    def __init__(self, machine: StateMachine, config: MatchConfig, transport: Transport,
                 observer: MatchObserver | None) -> None:
        check_roles(machine, config.seats)
        self.machine = machine
        self.config = config
        self.transport = transport
        self.observer = observer
        self.deadlines = config.effective_deadlines()
        self.rng = random.Random(config.seed)
        self.roles = tuple(str(role) for role in machine.roles)
        self.state: State = machine.initial_state()
        self.last_joint: tuple[Move, ...] | None = None
        self.gdl2 = uses_sees(config.description)
        self.last_percepts: Percepts | None = None
        self._percepts: PerceptMachine | None = None
        if self.gdl2:
            if not callable(getattr(machine, "next_state_and_percepts", None)):
                raise InputError("this game uses 'sees' (GDL-II) but the reasoner cannot compute percepts")
            self._percepts = machine  # type: ignore[assignment]
        self.record = MatchRecord(
            match_id=config.match_id,
            start_time_ms=_now_ms(),
            random_token=secrets.token_hex(16),
            start_clock=config.start_clock,
            play_clock=config.play_clock,
            game_meta_url=config.game_meta_url,
            roles=self.roles,
            player_names=tuple(seat.name for seat in config.seats),
            player_types=tuple(seat.kind for seat in config.seats),
            seed=config.seed,
            game_key=config.game_key,
            rules_hash=rules_hash(config.description),
            states=(state_text(self.state.sorted_texts()),),
            state_times=(_now_ms(),),
            tournament=config.tournament,
            gdl2=self.gdl2,
        )
        self._emit("created")

    def _emit(self, event: Event) -> None:
        if self.observer is not None:
            self.observer.match_event(self.record, event)

    async def _request(self, index: int, body: str, timeout_s: float) -> str:
        """Send ``body`` to seat ``index``; returns the reply or raises TimeoutError/ConnectionError."""
        seat = self.config.seats[index]
        assert seat.url is not None
        log.debug("match %s -> %s (%s): %s", self.config.match_id, self.roles[index], seat.name, body[:200])
        reply = await self.transport.send(seat.url, body, timeout_s, self.deadlines.connect_s, seat.name)
        log.debug("match %s <- %s: %s", self.config.match_id, self.roles[index], reply[:200])
        return reply

    async def _error_code(self, index: int, body: str, timeout_s: float) -> tuple[str, str]:
        """(error code, reply): ``TO``/``CE`` with an empty reply, or ``""`` and the reply."""
        try:
            return "", await self._request(index, body, timeout_s)
        except TimeoutError:
            log.warning("match %s: role %s (%s) timed out", self.config.match_id, self.roles[index],
                        self.config.seats[index].name)
            return "TO", ""
        except ConnectionError as exc:
            log.warning("match %s: role %s (%s) connection error: %s", self.config.match_id,
                        self.roles[index], self.config.seats[index].name, exc)
            return "CE", ""

    async def _broadcast(self, bodies: Sequence[str | None], timeout_s: float) -> list[tuple[str, str]]:
        """Send one message per contacted seat in parallel; ``None`` bodies are skipped as ``("", "")``."""

        async def one(index: int, body: str | None) -> tuple[str, str]:
            if body is None or not self.config.seats[index].contacted:
                return "", ""
            return await self._error_code(index, body, timeout_s)

        return list(await asyncio.gather(*(one(i, body) for i, body in enumerate(bodies))))

    async def start(self) -> None:
        cfg = self.config
        bodies = [wire.start_text(cfg.match_id, role, cfg.description, cfg.start_clock, cfg.play_clock)
                  for role in self.roles]
        results = await self._broadcast(bodies, self.deadlines.start_s)
        self.record = replace(self.record, errors=(tuple(code for code, _ in results),))
        log.info("match %s started: %s", cfg.match_id, ", ".join(s.name for s in cfg.seats))
        self._emit("start")
        if self.gdl2:
            for index, (_, reply) in enumerate(results):
                if reply.strip().lower().startswith("error:"):
                    reason = " ".join(reply.strip()[6:].split())[:200]
                    raise _GameBroken(f"player {cfg.seats[index].name!r} (role {self.roles[index]}) refused "
                                      f"the game: {reason}")

    def _play_bodies(self) -> list[str]:
        """One PLAY per role: the joint move (GDL), or each role's own move and percepts (GDL-II)."""
        match_id = self.config.match_id
        if not self.gdl2:
            return [wire.play_text(match_id, self.last_joint)] * len(self.roles)
        return [wire.play2_text(match_id, self.record.step, *self._own_view(index)) for index in range(len(self.roles))]

    def _own_view(self, index: int) -> tuple[Move | None, tuple[Term, ...]]:
        """Role ``index``'s last executed move and its percepts, sorted by text (``None``/empty at first)."""
        if self.last_joint is None or self.last_percepts is None:
            return None, ()
        return self.last_joint[index], tuple(sorted(self.last_percepts[index], key=str))

    async def step(self) -> None:
        legal = [self.machine.legal_moves(self.state, role) for role in self.machine.roles]
        for role, moves in zip(self.roles, legal):
            if not moves:
                raise _GameBroken(f"role {role!r} has no legal move in a non-terminal state")
        # Fallbacks are drawn before the requests go out, so the seed alone fixes them (and the chance moves).
        fallback: list[Move] = [self.rng.choice(moves) for moves in legal]
        results = await self._broadcast(self._play_bodies(), self.deadlines.play_s)
        joint: list[Move] = []
        errors: list[str] = []
        for index, (code, reply) in enumerate(results):
            seat = self.config.seats[index]
            move = fallback[index]
            if seat.contacted and not code:
                parsed = wire.parse_reply_move(reply)
                if parsed is None:
                    code = "IL null"
                elif parsed not in legal[index]:
                    code = f"IL {parsed}"
                else:
                    move = parsed
                if code:
                    log.warning("match %s: role %s (%s) illegal reply %r", self.config.match_id,
                                self.roles[index], seat.name, reply[:80])
            joint.append(move)
            errors.append(code)
        seen: list[list[str]] | None = None
        if self._percepts is not None:
            self.state, self.last_percepts = self._percepts.next_state_and_percepts(self.state, tuple(joint))
            seen = [sorted(str(p) for p in percepts) for percepts in self.last_percepts]
        else:
            self.state = self.machine.next_state(self.state, tuple(joint))
        self.last_joint = tuple(joint)
        self.record = self.record.with_step([str(move) for move in joint], state_text(self.state.sorted_texts()), _now_ms(),
                                            errors, seen)
        self._emit("step")

    async def finish(self) -> None:
        try:
            goals = self.machine.goals(self.state)
        except (GgpError, ValueError) as exc:
            raise _GameBroken(f"no goal values at the terminal state: {exc}") from exc
        if len(goals) != len(self.roles):
            raise _GameBroken(f"{len(goals)} goal values for {len(self.roles)} roles at the terminal state")
        self.record = replace(self.record, is_completed=True, goal_values=tuple(goals), end_reason="terminal")
        log.info("match %s completed after %d steps: goals %s", self.config.match_id, self.record.step, goals)
        self._emit("end")
        match_id = self.config.match_id
        if self.gdl2:
            bodies = [wire.stop2_text(match_id, self.record.step, *self._own_view(i)) for i in range(len(self.roles))]
        else:
            bodies = [wire.stop_text(match_id, self.last_joint)] * len(self.roles)
        await self._broadcast(bodies, self.deadlines.stop_s)

    async def cap(self) -> None:
        """End a match at the step cap: a draw or an abort (``config.step_cap_outcome``), ABORT to players."""
        detail = f"step cap of {self.config.step_cap} joint moves reached"
        if self.config.step_cap_outcome == "abort":
            await self.abort("step_cap", detail)
            return
        goals = (STEP_CAP_DRAW_GOAL,) * len(self.roles)
        self.record = replace(self.record, is_completed=True, goal_values=goals, end_reason="step_cap")
        log.info("match %s: %s; a draw", self.config.match_id, detail)
        self._emit("end")
        body = wire.abort_text(self.config.match_id)
        await self._broadcast([body] * len(self.roles), self.deadlines.abort_s)

    async def abort(self, reason: EndReason, detail: str) -> None:
        self.record = replace(self.record, is_aborted=True, end_reason=reason, abort_detail=detail)
        log.info("match %s aborted after %d steps: %s", self.config.match_id, self.record.step, detail)
        self._emit("end")
        body = wire.abort_text(self.config.match_id)
        await self._broadcast([body] * len(self.roles), self.deadlines.abort_s)

    async def run(self) -> MatchRecord:
        """Play the match to its end; see :func:`run_match`."""
        try:
            await self.start()
            last_change = time.monotonic()
            while not self.machine.is_terminal(self.state):
                if self.record.step >= self.config.step_cap:
                    await self.cap()
                    return self.record
                await self.step()
                now = time.monotonic()
                if now - last_change > self.config.effective_wedge_s():
                    await self.abort("aborted", f"wedged: a step took {now - last_change:.1f} s")
                    return self.record
                last_change = now
            await self.finish()
        except asyncio.CancelledError:
            if not self.record.finished:
                await asyncio.shield(self.abort("aborted", "cancelled"))
            raise
        except _GameBroken as exc:
            log.error("match %s: game error after %d steps: %s; state: %s", self.config.match_id,
                      self.record.step, exc, state_text(self.state.sorted_texts()))
            if not self.record.finished:
                await self.abort("error", f"game error: {exc}")
        except GgpError as exc:
            log.error("match %s: %s; state: %s", self.config.match_id, exc, state_text(self.state.sorted_texts()))
            if not self.record.finished:
                await self.abort("error" if isinstance(exc, ReasonerError) else "aborted", f"game error: {exc}")
        except Exception as exc:  # a bug or a failing store must not leave the match running
            log.exception("match %s: internal error", self.config.match_id)
            if not self.record.finished:
                await self.abort("aborted", f"internal error: {type(exc).__name__}: {exc}")
        return self.record


async def run_match(machine: StateMachine, config: MatchConfig, transport: Transport,
                    observer: MatchObserver | None = None) -> MatchRecord:
    """Play one match to its end and return the final record.

    The observer sees the record after START, after every step and at the end. Cancelling the task
    sends ABORT to every player, reports an aborted record to the observer and re-raises. A reasoner
    error aborts the match (``x-abortDetail`` says why). Raises :class:`InputError` when the seats do
    not fit the game's roles.
    """
    return await MatchRun(machine, config, transport, observer).run()
