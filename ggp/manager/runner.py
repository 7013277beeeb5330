"""Manager matches: the one match loop (:mod:`ggp.match`) over HTTP, with clocks, records and observers.

:func:`run_match` plays a match with :func:`ggp.match.loop.play`, the loop every caller uses (its
rules: docs/matches.md): each remote seat is an :class:`HttpSeat` that formats the protocol.md §3
messages, sends them through a :class:`Transport` within the §4 deadlines and parses the replies;
a seat with no URL (the built-in ``random`` player, and always the chance role ``random``) is played
by the loop from the match's seeded RNG and never contacted. :class:`MatchRun` turns what the loop
reports into a :class:`~ggp.manager.records.MatchRecord` and tells a :class:`MatchObserver`. What a player
reports choosing for the match by itself (the ``X-GGP-Configuration`` header of its ``ready``: the default
``mcts``'s self-configuration) is read by :class:`HttpTransport` into a :class:`PlayerReply` and recorded per
role (``x-configurations``); the built-in seats are HTTP players too, so theirs is recorded the same way.

GDL-II mode (protocol.md §8) is used for games that define ``sees``: each role is sent
``(PLAY id turn lastmove percepts)`` with its own executed move and its own percepts, never the
other roles' moves; the record keeps every role's percepts per step (``x-percepts``). A player that
answers START with ``error: ...`` (e.g. ``this player does not support GDL-II``) ends such a match
with ``x-endReason: error``.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, Self

from ggp.errors import InputError
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description
from ggp.manager import http_client, wire
from ggp.manager.human import HUMAN_KIND
from ggp.manager.records import MatchRecord, state_text
from ggp.match import loop
from ggp.match.loop import Answer, Ending, MatchInfo, StepInfo, View, check_seats
from ggp.match.referee import Referee
from ggp.match.rules import (
    CHANCE_ROLE,
    DEFAULT_STEP_CAP,
    STEP_CAP_DRAW_GOAL,
    STEP_CAP_OUTCOMES,
    MatchRules,
    StepCapOutcome,
)
from ggp.player import clean_configuration
from ggp.protocol.messages import CONFIGURATION_HEADER, uses_sees
from ggp.reasoner.machine import PerceptMachine, Role, State, StateMachine

__all__ = [
    "CHANCE_ROLE", "DEFAULT_STEP_CAP", "DEFAULT_STEP_CAP_OUTCOME", "PING_S", "RANDOM_SEAT", "STEP_CAP_DRAW_GOAL",
    "STEP_CAP_OUTCOMES", "Deadlines", "Event", "HttpSeat", "HttpTransport", "MatchConfig", "MatchObserver",
    "MatchRun", "PlayerReply", "Seat", "StepCapOutcome", "Transport", "check_roles", "ping_url", "rules_hash", "run_match",
    "with_chance_seat",
]

log = logging.getLogger(__name__)

DEFAULT_STEP_CAP_OUTCOME: StepCapOutcome = MatchRules().step_cap_outcome


@dataclass(frozen=True, slots=True)
class Seat:
    """Who plays one role: a display name, the player's URL, and its kind.

    ``url=None`` means the match loop plays it uniformly at random (kind ``random``; docs/matches.md),
    unless the kind is ``human``: a person in the browser (:mod:`ggp.manager.human`), whose seat the
    manager passes to :class:`MatchRun` as a local seat.
    """

    name: str
    url: str | None = None
    kind: str = "remote"

    @property
    def contacted(self) -> bool:
        return self.url is not None

    @property
    def played_by_loop(self) -> bool:
        """True for the seats the loop plays itself from the match seed (no URL, not a person)."""
        return self.url is None and self.kind != HUMAN_KIND


RANDOM_SEAT = Seat("random", None, "random")
"""The manager's own seat: the match loop plays it uniformly at random from the match seed."""


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

    def __post_init__(self) -> None:
        MatchRules(self.step_cap, self.step_cap_outcome)  # InputError for a step cap below 1

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


class PlayerReply(str):
    """A player's reply text (a ``str``, as :class:`Transport` promises) with what its HTTP reply said besides:
    ``configuration``, the ``X-GGP-Configuration`` header of a ``ready`` to START (what the player chose for
    the match by itself, cleaned and bounded by :func:`~ggp.player.clean_configuration`; ``""`` when absent)."""

    configuration: str

    def __new__(cls, text: str, configuration: str = "") -> PlayerReply:
        reply = super().__new__(cls, text)
        reply.configuration = clean_configuration(configuration)
        return reply


class HttpTransport:
    """A :class:`Transport` over HTTP: one fresh HTTP/1.0 connection per message, POST to the player's URL
    (:mod:`ggp.manager.http_client`). Holds nothing between messages; ``async with`` and :meth:`close`
    are kept for the callers that scope it.
    """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Nothing to release: every message has its own connection, closed with its reply."""

    async def send(self, url: str, body: str, timeout_s: float, connect_s: float, receiver: str) -> PlayerReply:
        headers = {
            "Content-Type": "text/acl",
            "Accept": "text/delim",
            "Sender": "GAMESERVER",
            "Receiver": receiver.encode("ascii", "replace").decode("ascii"),
        }
        timeout_s = max(timeout_s, 0.001)
        # Never follow a redirect: a player URL that points elsewhere (a 307 re-POSTs the message)
        # would make the manager talk to, and publish the replies of, a host nobody registered.
        # A reply longer than MAX_REPLY_CHARS is not a move: nothing past it is read.
        reply = await http_client.exchange(url, body.encode("ascii", "replace"), headers, timeout_s,
                                           min(connect_s, timeout_s), wire.MAX_REPLY_CHARS + 1, (_CONFIGURATION,))
        if reply.status != 200:
            raise ConnectionError(f"HTTP status {reply.status}")
        return PlayerReply(reply.body.decode("ascii", "replace"), reply.headers.get(_CONFIGURATION, ""))


_CONFIGURATION = CONFIGURATION_HEADER.lower()


PING_S = 1.0
"""How long a ping (INFO) waits for its answer, connecting included."""


async def ping_url(transport: Transport, url: str, receiver: str) -> dict[str, str]:
    """Send INFO to the player at ``url`` (:data:`PING_S`), as a GGP host pings before a match:
    ``{"status": available|busy|TO|CE|bad reply, ...}`` with ``name``/``species`` or a ``note``.
    Never raises for the player's faults."""
    try:
        reply = await transport.send(url, wire.info_text(), PING_S, PING_S, receiver)
    except TimeoutError:
        return {"status": "TO"}
    except ConnectionError as exc:
        return {"status": "CE", "note": str(exc)[:200]}
    info = wire.parse_info(reply)
    if info is None:  # the reply itself is not shown: the ping must not fetch any page for its caller
        return {"status": "bad reply", "note": f"not an INFO reply ({len(reply)} characters)"}
    return {"status": info.status, "name": info.name or "", "species": info.species or ""}


def rules_hash(description: Description) -> str:
    """A short hash of the canonical rules text, for ``x-rulesHash`` (comments and layout ignored)."""
    return hashlib.sha256(to_kif(description).encode()).hexdigest()[:16]


def check_roles(roles: Sequence[Role], seats: Sequence[Seat]) -> None:
    """Raise :class:`InputError` unless there is one seat per role and the ``random`` role's seat is
    the manager's own (``url=None``): chance is never a remote player."""
    check_seats([str(role) for role in roles], [None if seat.played_by_loop else seat for seat in seats],
                [seat.name for seat in seats])


def with_chance_seat(roles: Sequence[str], seats: Sequence[Seat]) -> tuple[Seat, ...]:
    """The seats with :data:`RANDOM_SEAT` inserted for a ``random`` role when exactly that seat is missing.

    >>> [seat.name for seat in with_chance_seat(["first", "random"], [Seat("p", "http://h:1/")])]
    ['p', 'random']
    """
    return loop.with_chance_seat(roles, seats, RANDOM_SEAT)


def _now_ms() -> int:
    return int(time.time() * 1000)


class HttpSeat:
    """A remote player as a :class:`ggp.match.loop.Seat`: protocol.md messages through a :class:`Transport`.

    Timeouts answer ``TO``, I/O failures ``CE``; a reply that is no move answers ``move=None``.
    """

    def __init__(self, seat: Seat, transport: Transport, deadlines: Deadlines, match_id: str) -> None:
        assert seat.url is not None
        self.name = seat.name
        self.url = seat.url
        self.transport = transport
        self.deadlines = deadlines
        self.match_id = match_id
        self.role = ""
        self.gdl2 = False
        self.spellings: tuple[tuple[str, str], ...] = ()
        """The rules' own spelling of names: ggp-base's players compare names case-sensitively."""
        self.configuration = ""
        """What the player reported choosing for this match by itself, in its ``ready`` to START
        (:class:`PlayerReply`); ``""`` when it reported nothing, refused or did not answer."""

    async def _send(self, body: str, timeout_s: float) -> tuple[str, str]:
        """(error code, reply): ``TO``/``CE`` with an empty reply, or ``""`` and the reply."""
        log.debug("match %s -> %s (%s): %s", self.match_id, self.role, self.name, body[:200])
        try:
            reply = await self.transport.send(self.url, body, timeout_s, self.deadlines.connect_s, self.name)
        except TimeoutError:  # INFO: the match loop logs one WARNING per match with the counts
            log.info("match %s: role %s (%s) timed out", self.match_id, self.role, self.name)
            return "TO", ""
        except ConnectionError as exc:
            log.info("match %s: role %s (%s) connection error: %s", self.match_id, self.role, self.name, exc)
            return "CE", ""
        log.debug("match %s <- %s: %s", self.match_id, self.role, reply[:200])
        return "", reply

    async def start(self, info: MatchInfo, role: int) -> Answer:
        self.role = info.roles[role]
        self.gdl2 = info.gdl2
        assert info.description is not None
        self.spellings = info.description.spellings
        body = wire.start_text(self.match_id, self.role, info.description, info.start_clock, info.play_clock)
        code, reply = await self._send(body, self.deadlines.start_s)
        refusal = ""
        if reply.strip().lower().startswith("error:"):  # the player refuses the game: the match stops
            refusal = " ".join(reply.strip()[6:].split())[:200]
        elif isinstance(reply, PlayerReply):
            self.configuration = reply.configuration
        return Answer(code, refusal=refusal)

    async def play(self, view: View) -> Answer:
        if self.gdl2:
            body = wire.play2_text(self.match_id, view.turn, view.last_move, view.percepts, self.spellings)
        else:
            body = wire.play_text(self.match_id, view.last_joint, self.spellings)
        code, reply = await self._send(body, self.deadlines.play_s)
        if code:
            return Answer(code)
        move = wire.parse_reply_move(reply)
        if move is None:
            log.info("match %s: role %s (%s) unparseable reply %r", self.match_id, self.role, self.name,
                        reply[:80])
        return Answer(move=move)

    async def stop(self, view: View) -> None:
        if self.gdl2:
            body = wire.stop2_text(self.match_id, view.turn, view.last_move, view.percepts, self.spellings)
        else:
            body = wire.stop_text(self.match_id, view.last_joint, self.spellings)
        await self._send(body, self.deadlines.stop_s)

    async def abort(self) -> None:
        await self._send(wire.abort_text(self.match_id), self.deadlines.abort_s)


class MatchRun:
    """One match, created (and announced to the observer) but not yet played; call :meth:`run`.

    ``local_seats`` are loop seats by role index for the seats of kind ``human`` (a person's
    :class:`ggp.manager.human.HumanSeat`). Raises :class:`InputError` when the seats do not fit the
    game's roles, a person's seat has no local seat, or the game uses ``sees`` and the machine cannot
    compute percepts.
    """

    def __init__(self, machine: StateMachine | Referee, config: MatchConfig, transport: Transport,
                 observer: MatchObserver | None, local_seats: Mapping[int, loop.Seat] | None = None) -> None:
        self.local_seats = dict(local_seats or {})
        self._seats: list[loop.Seat | None] = []
        """The loop's seats by role, once :meth:`run` made them."""
        for index, seat in enumerate(config.seats):
            if not seat.played_by_loop and not seat.contacted and index not in self.local_seats:
                raise InputError(f"seat {index} ({seat.name}) is a person but has no local seat")
        self.config = config
        self.transport = transport
        self.observer = observer
        self.deadlines = config.effective_deadlines()
        self.gdl2 = uses_sees(config.description)
        if isinstance(machine, Referee):
            self.referee = machine  # reasons elsewhere (the manager's worker process)
        else:
            if self.gdl2 and not isinstance(machine, PerceptMachine):
                raise InputError("this game uses 'sees' (GDL-II) but the reasoner cannot compute percepts")
            self.referee = Referee(machine, gdl2=self.gdl2)
        check_roles(self.referee.roles, config.seats)
        self.roles = tuple(str(role) for role in self.referee.roles)
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
            states=(self._state_text(self.referee.state),),
            state_times=(_now_ms(),),
            tournament=config.tournament,
            gdl2=self.gdl2,
        )
        self._emit("created")

    def _emit(self, event: Event) -> None:
        if self.observer is not None:
            self.observer.match_event(self.record, event)

    # The loop's listener: each report becomes a record and an observer event.
    def started(self, errors: tuple[str, ...]) -> None:
        """START is answered: its error row, and what each contacted player reported choosing for the match
        by itself (:attr:`HttpSeat.configuration`; built-in seats are HTTP players too, so theirs comes alike)."""
        chosen = tuple(seat.configuration if isinstance(seat, HttpSeat) else "" for seat in self._seats)
        self.record = replace(self.record, errors=(errors,),
                              configurations=chosen if any(chosen) else self.record.configurations)
        self._emit("start")

    def _state_text(self, state: State) -> str:
        return state_text([self.config.description.spelled(fact) for fact in state.facts])

    def stepped(self, step: StepInfo) -> None:
        # Records use the rules' own spelling, so ggp-base (case-sensitive) replays them as they are.
        spelled = self.config.description.spelled
        seen = None if step.percepts is None else [sorted(spelled(p) for p in seen) for seen in step.percepts]
        self.record = self.record.with_step([spelled(move) for move in step.joint], self._state_text(step.after),
                                            _now_ms(), step.errors, seen)
        self._emit("step")

    def ended(self, ending: Ending) -> None:
        if ending.goals is not None:
            self.record = replace(self.record, is_completed=True, goal_values=ending.goals,
                                  end_reason=ending.reason)
        else:
            self.record = replace(self.record, is_aborted=True, end_reason=ending.reason, abort_detail=ending.detail)
        self._emit("end")

    async def run(self) -> MatchRecord:
        """Play the match to its end; see :func:`run_match`."""
        cfg = self.config
        self._seats = seats = [
            self.local_seats[index] if index in self.local_seats
            else HttpSeat(seat, self.transport, self.deadlines, cfg.match_id) if seat.contacted else None
            for index, seat in enumerate(cfg.seats)]
        info = MatchInfo(cfg.match_id, self.referee.machine, cfg.description, cfg.start_clock, cfg.play_clock,
                         self.gdl2, self.roles)
        rules = MatchRules(cfg.step_cap, cfg.step_cap_outcome)
        await loop.play(self.referee, seats, info, cfg.seed, rules, self, cfg.effective_wedge_s())
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
