"""The aiohttp player server: one GGP match at a time, anytime replies, never down because of one match.

:func:`create_player_app` builds the web application; :class:`PlayerHost` holds the match state and
answers the typed messages. Requests are ``POST /`` (what managers send), ``GET /<url-encoded
message>`` and ``OPTIONS`` preflights; every response carries the CORS headers ggp-base players send
and replies use ``Content-Type: text/acl``. A message that does not parse gets HTTP 400 with a one-line
reason and the server keeps serving. A message over its kind's size (:mod:`ggp.protocol.limits`: a START
carries the rules, anything else is small) gets 413; a large one is parsed off the event loop
(:class:`~ggp.protocol.parsing.ParseLane`). A browser on another site (``Origin``, ``Sec-Fetch-Site``)
may send INFO and PREVIEW only: anything else gets 403, as on the manager. Connections, slow clients and
their log lines are :mod:`ggp.protocol.httpguard`'s.

The reasoning of a match (building the state machine, the player's search) is done by a
:class:`~ggp.protocol.seat.Seat`, never on the event loop. Without :class:`PlayerLimits` the seat runs
in one search thread of this process (tests, players embedded in another program); with them (``ggp
player``) it runs in a worker process whose address space is bounded and whose every call is bounded
in time, relative to the match's clocks (see :class:`PlayerLimits`). A call over a bound kills the
worker (one WARNING line says which bound) and a fresh worker is started. Meanwhile the event loop stays
free: INFO, ABORT and STOP are answered, and SIGTERM stops the server.

**A legal move at any clock.** Besides the player's seat, every GDL match has a *standby* seat in this
process (its own thread) on a cheap engine that builds at once (``standby_factory``, by default the
top-down prover: :func:`~ggp.protocol.seat.standby_machine`); it follows every joint move. Whenever the
player's seat has no move by the reply deadline (its setup is still building the engines, applying the
moves or the search overran, its worker died or was killed over a bound), the reply is the player's
best move so far, else the first legal move its seat knows, else the standby's first legal move. A
player's seat that hits a bound, dies or cannot build its engine is started again, in a fresh worker,
with a fresh player on ``recovery_factory`` (the standby engine unless the command wires one that also
upgrades to the compiled circuit), and replays the match's joint moves from the initial state; after
:data:`MAX_RESTARTS` restarts, or when even the recovery engine cannot play the rules, the standby seat
plays the rest of the match alone (one WARNING line). ``nil`` is answered only when no engine knows a
legal move (or the role has none).

Match flow (protocol.md §3-4):

- START starts the standby seat, builds the state machine and calls ``player.start`` during the start
  clock, and answers ``ready`` by ``startclock - 0.5 s`` even if setup is still running (the standby
  answers meanwhile). Rules the validator rejects, or a role the game lacks, get the reply ``error:
  <reason>`` (logged) instead of ``ready``; rules the player's engine cannot build (grounding over its
  limits, say) get ``ready`` when the standby engine plays them, and the player starts again on the
  recovery engine.
- PLAY applies the previous joint move (NIL: the initial state) to both seats' states, then runs
  ``player.choose``. At ``playclock - 0.5 s`` the host answers with the best move so far
  (``best_move()`` of an :class:`~ggp.player.AnytimePlayer`, else the first legal move) and the search
  is cancelled; a hand-back that is late waits :data:`LATE_GRACE` more before the first legal move
  goes; when the player's seat does not even know the legal moves by then, the standby's first legal
  move goes. A joint move that is not legal in a seat's state is logged and, where a recent earlier
  state accepts it, the seat resynchronises from there.
- GDL-II (protocol.md §8): for a game that defines ``sees`` the host needs a
  :class:`~ggp.player.Gdl2Player`; any other player gets ``error: this player does not support
  GDL-II`` at START (logged). ``(PLAY id turn lastmove percepts)`` is passed to the player's
  ``observe`` (the host never knows the state), then ``choose_hidden`` runs like ``choose`` does,
  with the player's ``own_legal_moves`` as fallback and legality check.
- STOP answers ``done`` and ABORT ``aborted`` at once; clean-up runs in the background (a worker
  still busy with the match is killed and replaced instead).
- A START whose clocks are outside :func:`~ggp.protocol.limits.clock_problem`'s bounds gets ``error:``
  naming the bound; a START refused with ``error:`` gets the same answer when it is sent again.
- Messages for another match get ``busy``; a PLAY while no match is played gets ``error: unknown match
  <id>``; a match that has heard nothing for
  ``startclock + 10 * playclock`` seconds (Tiltyard's "wedged" rule) is dropped when a new START comes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote_plus

from aiohttp import web

from ggp.errors import GgpError, ProtocolError, ReasonerError
from ggp.gdl.terms import Description
from ggp.logtally import Tally
from ggp.player import NO_GDL2, SAFETY_MARGIN, Gdl2Player, Player
from ggp.protocol.httpguard import CONNECTIONS as CONNECTIONS
from ggp.protocol.httpguard import IDLE_TIMEOUT_S as IDLE_TIMEOUT_S
from ggp.protocol.httpguard import MAX_CONNECTIONS as MAX_CONNECTIONS
from ggp.protocol.httpguard import CappedSite as CappedSite
from ggp.protocol.httpguard import ConnectionCap as ConnectionCap
from ggp.protocol.httpguard import cap_connections
from ggp.protocol.httpguard import cross_site as cross_site
from ggp.protocol.limits import MAX_RULES_CHARS, clock_problem, size_problem
from ggp.protocol.messages import (
    ABORTED,
    BUSY,
    DONE,
    NIL,
    READY,
    Abort,
    Info,
    Message,
    Play,
    PlayII,
    Preview,
    Start,
    Stop,
    StopII,
    format_move,
    info_reply,
    message_type,
    parse_message,
    uses_sees,
)
from ggp.protocol.parsing import ParseLane
from ggp.protocol.seat import (
    MachineFactory,
    Seat,
    StandbyPlayer,
    Update,
    one_line,
    standby_legal,
    standby_machine,
    worker_call,
    worker_ready,
)
from ggp.reasoner.isolation import IsolationError, Worker, limit_message
from ggp.reasoner.machine import Move

log = logging.getLogger(__name__)

PlayerFactory = Callable[[], Player]

REPLY_MARGIN = SAFETY_MARGIN
"""Seconds before a clock runs out at which the host answers (protocol.md §4 decision)."""

SEARCH_SLACK = 0.15
"""The player's own deadline ends this much before the reply deadline, so it usually returns by itself."""

LATE_GRACE = 0.25
"""Seconds past the reply deadline (still :data:`REPLY_MARGIN` minus this before the play clock) that the
host waits for a search's move on its way back: on a loaded machine the worker's hand-back missed the
deadline by a scheduling slice now and then (chineseCheckers3, load 7 on 2 cores: 2 moves of 15), and the
fallback, the first legal move, can throw a game."""

STANDBY_RESERVE = 0.2
"""Seconds before the reply deadline at which the host stops waiting for the player's seat to be set up
or to apply the moves, and takes the standby seat's legal moves (computed meanwhile) instead."""

STANDBY_MAX_RULES = 20_000
"""Rules (sentences) above which a match gets no standby seat: the standby runs in the server's own
process, so rules this large (35x the largest corpus game, alexChess's 579; a hostile 1 MiB START has
500,000) would hold its memory and, being pure Python, share its time with the event loop."""

MAX_RESTARTS = 3
"""How often one match's player is started again (a fresh worker, the recovery engine) before the
standby seat plays the rest of the match alone."""

MAX_BODY = MAX_RULES_CHARS
"""Largest request body accepted: a START with its rules (:data:`~ggp.protocol.limits.MAX_RULES_CHARS`);
every other message is refused over :data:`~ggp.protocol.limits.MAX_MESSAGE_CHARS`."""

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Allow-Age": "86400",
}

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class PlayerLimits:
    """Bounds on a player server's reasoning, which then runs in a worker process; seconds and megabytes.

    ``memory_mb``: the worker's address space. A setup (building the machine, ``player.start``) may
    run through the start clock and ``setup_play_clocks`` play clocks (the standby seat answers PLAYs
    meanwhile; a player started again mid-match gets a play clock instead of the start clock);
    each reasoner call of a PLAY (applying the joint move, the search) through ``play_clocks`` play
    clocks, and at least ``min_call_s`` (the reply goes at the play clock either way); no call beyond
    ``max_call_s``, whatever the clocks.

    >>> limits = PlayerLimits()
    >>> limits.setup_s(start_clock=10, play_clock=5), limits.play_s(5), limits.play_s(0.5)
    (25.0, 10.0, 2.0)
    >>> PlayerLimits(max_call_s=60).setup_s(3600, 10)
    60.0
    """

    memory_mb: int = 2048
    max_call_s: float = 300.0
    setup_play_clocks: int = 3
    play_clocks: int = 2
    min_call_s: float = 2.0

    def setup_s(self, start_clock: float, play_clock: float) -> float:
        """The time bound of a match's setup."""
        return float(min(self.max_call_s, max(self.min_call_s, start_clock + self.setup_play_clocks * play_clock)))

    def play_s(self, play_clock: float) -> float:
        """The time bound of each reasoner call of a PLAY (and of the clean-up after STOP or ABORT)."""
        return float(min(self.max_call_s, max(self.min_call_s, self.play_clocks * play_clock)))


class LimitHit(ReasonerError):
    """A call of a match's reasoning went over a :class:`PlayerLimits` bound (its worker was replaced)."""


@dataclass(slots=True, eq=False)
class _Match:
    """What the host knows about the match it is playing."""

    match_id: str
    role: Move
    start_clock: int
    play_clock: int
    player: Player
    last_seen: float
    seat: Seat | None = None
    """The match's reasoning, when it runs in this process (no limits)."""
    setup: asyncio.Future[Any] | None = None
    """The player's seat's setup (the last one, when it was started again)."""
    failed: str | None = None
    """Why the match was refused at START (every PLAY of it is answered ``nil``)."""
    description: Description | None = None
    history: list[Update] = field(default_factory=list)
    """Every update since START, oldest first: a player started again replays them all."""
    standby: Seat | None = None
    """The standby seat (GDL matches, when the host has a standby engine)."""
    standby_started: asyncio.Future[Any] | None = None
    restarts: int = 0
    recovering: bool = False
    """True once the player's seat runs on the recovery engine."""
    given_up: str | None = None
    """Why the player's seat is no longer asked (the standby seat plays alone)."""
    start_reply: str | None = None
    """What START was answered (``ready`` or ``error: ...``): a repeated START gets the same answer."""
    gdl2: bool = False
    spellings: dict[str, str] = field(default_factory=dict)
    """The rules' own spelling of each name written with capitals: replies use it (ggp-base compares
    moves case-sensitively)."""
    pending: list[Update] = field(default_factory=list)
    """Updates of PLAY messages (joint moves, percepts) not sent to the seat yet, oldest first: a PLAY that
    arrives while the setup still runs gets no move, but its update is kept and applied in order."""
    troubles: Tally = field(default_factory=Tally)
    """Moves answered without the player's own choice, by reason: logged once, when the match ends."""

    def trouble(self, why: str, answer: object) -> None:
        """A move answered without the player's choice: one INFO line now, counted for the match's summary."""
        self.troubles.add(why)
        log.info("match %s: %s; answering %s", self.match_id, why, answer)

    def wedged(self, now: float) -> bool:
        """True when nothing arrived for ``startclock + 10 * playclock`` seconds."""
        return now - self.last_seen > self.start_clock + 10 * self.play_clock


def _consume(future: asyncio.Future[Any]) -> None:
    """Done-callback for work nobody awaits any more: log its failure instead of losing it."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None and not isinstance(exc, LimitHit):  # a limit hit is logged where it happens
        log.warning("background work failed: %s", one_line(exc))


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Done-callback for work whose failure is examined (and logged) where it is awaited, if at all."""
    if not future.cancelled():
        future.exception()


def _update(message: Play | PlayII) -> Update:
    if isinstance(message, PlayII):
        return None, (message.turn, message.last_move, frozenset(message.percepts))
    return message.moves, None


class PlayerHost:
    """Plays one match at a time with players from ``player_factory`` (a new player per match).

    With ``limits`` every match's reasoning runs in a worker process under them (``player_factory``'s
    players, ``machine_factory`` and ``recovery_factory`` must then pickle: module-level functions,
    :func:`functools.partial`); without, in one search thread here. ``standby_factory`` builds the
    standby seat's machine in this process (None: no standby seat); ``recovery_factory`` the machine of a
    player started again (default: ``standby_factory``'s, else the prover). Call :meth:`aclose` at shutdown.
    """

    def __init__(
        self,
        player_factory: PlayerFactory,
        name: str,
        machine_factory: MachineFactory,
        species: str | None = None,
        limits: PlayerLimits | None = None,
        standby_factory: MachineFactory | None = standby_machine,
        recovery_factory: MachineFactory | None = None,
    ) -> None:
        self.name = name
        self.species = species or name
        self.limits = limits
        self._player_factory = player_factory
        self._machine_factory = machine_factory
        self._standby_factory = standby_factory
        self._recovery_factory = recovery_factory or standby_factory or standby_machine
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-search")
        self._standby_executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-standby")
        self._worker: Worker | None = None
        self._retired: set[Worker] = set()
        self._background: set[asyncio.Future[Any]] = set()
        self.replaced = 0
        """How many workers were killed over a limit (or with an aborted match) and replaced."""
        self._match: _Match | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def match_id(self) -> str | None:
        """The id of the match being played, if any."""
        return self._match.match_id if self._match else None

    @property
    def worker_pid(self) -> int | None:
        """The process id of the current worker (None without limits or before it started)."""
        return self._worker.pid if self._worker is not None else None

    async def warm_up(self) -> None:
        """Start the worker ahead of the first START (with limits; nothing without)."""
        if self.limits is not None:
            self._keep(asyncio.ensure_future(self._current_worker().call(worker_ready, (), self.limits.max_call_s)))

    async def aclose(self) -> None:
        """Cancel any search, kill the worker (with limits) and stop the search thread (at shutdown)."""
        self._closed = True
        if self._match is not None and self._match.seat is not None:
            self._match.seat.cancel.set()
        workers = [w for w in (self._worker, *self._retired) if w is not None]
        self._worker = None
        for worker in workers:
            worker.kill()
        for worker in workers:
            await worker.close()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._standby_executor.shutdown(wait=False, cancel_futures=True)

    def _keep(self, future: asyncio.Future[Any]) -> None:
        """Hold a reference to background work until it ends (the loop keeps only weak ones)."""
        self._background.add(future)
        future.add_done_callback(self._background.discard)
        future.add_done_callback(_consume)

    def _current_worker(self) -> Worker:
        if self._closed:
            raise ReasonerError("the player server is shutting down")
        if self._worker is None:
            assert self.limits is not None
            self._worker = Worker(self.limits.memory_mb)
        return self._worker

    def _replace(self, worker: Worker) -> None:
        """Retire ``worker`` (killed) and start a fresh one for what comes next."""
        worker.kill()
        if self._worker is worker:
            self._worker = None
            self.replaced += 1
            if not self._closed:
                self._keep(asyncio.ensure_future(self.warm_up()))
        self._retired.add(worker)

        async def reap() -> None:
            await worker.close()
            self._retired.discard(worker)

        self._keep(asyncio.ensure_future(reap()))

    def _submit(self, match: _Match, method: str, args: tuple[Any, ...], phase: str, seconds: float
                ) -> asyncio.Future[Any]:
        """Run ``Seat.method(*args)`` of ``match`` where its reasoning runs; the future of its result."""
        if self.limits is None:
            if method == "start":
                match.seat = Seat(match.match_id, match.role)
            assert match.seat is not None
            loop = asyncio.get_running_loop()
            return loop.run_in_executor(self._executor, getattr(match.seat, method), *args)
        if method == "start":
            args = (match.match_id, match.role, *args)
        # The worker is picked now: one replaced before this call starts fails it ("stopped").
        return asyncio.ensure_future(self._in_worker(self._current_worker(), match, method, args, phase, seconds))

    async def _in_worker(self, worker: Worker, match: _Match, method: str, args: tuple[Any, ...], phase: str,
                         seconds: float) -> Any:
        assert self.limits is not None
        level = logging.getLogger("ggp").getEffectiveLevel()
        try:
            result, records = await worker.call(worker_call, (method, args, level), seconds)
        except IsolationError as exc:
            if exc.kind == "failed":  # the seat raised: bad rules, a missing role, a bug
                raise ReasonerError(exc.detail) from None
            message = limit_message(f"match {match.match_id}", phase, exc, seconds, self.limits.memory_mb)
            current = worker is self._worker  # not one killed already (an aborted match, a restart, shutdown)
            if current:
                log.warning("%s; worker %s replaced", message, worker.pid)
            self._replace(worker)
            if current and method != "wrap_up":
                self._recover(match, message.removeprefix(f"match {match.match_id}: "), limit_hit=True)
            raise LimitHit(message) from None
        for name, record_level, text in records:
            logging.getLogger(name).log(record_level, "%s", text)
        return result

    async def _until(self, future: asyncio.Future[_T], deadline: float) -> _T:
        """Await ``future`` until the monotonic ``deadline``; raises TimeoutError and lets it run on."""
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            future.add_done_callback(_consume)
            raise

    def _current(self, match_id: str) -> _Match | None:
        match = self._match
        if match is not None and match.match_id.lower() == match_id.lower():
            return match
        return None

    async def reply(self, message: Message, received: float | None = None) -> str:
        """The reply text to a message; ``received`` is when it arrived (monotonic, default now)."""
        now = time.monotonic() if received is None else received
        if isinstance(message, Info):
            match = self._match
            busy = match is not None and match.failed is None and not match.wedged(now)
            return info_reply(self.name, self.species, busy=busy)
        if isinstance(message, Preview):
            return READY
        if isinstance(message, Start):
            return await self._start(message, now)
        if isinstance(message, Play):
            return await self._play(message, now)
        if isinstance(message, PlayII):
            return await self._play(message, now)
        if isinstance(message, Stop):
            return self._finish(message.match_id, message.moves, DONE, "stopped")
        if isinstance(message, StopII):
            return self._finish(message.match_id, None, DONE, f"stopped at turn {message.turn}")
        if isinstance(message, Abort):
            return self._finish(message.match_id, None, ABORTED, "aborted")
        raise AssertionError(f"unhandled message {message_type(message)}")  # pragma: no cover

    # --- START ---------------------------------------------------------------------------------

    async def _start(self, message: Start, now: float) -> str:
        current = self._match
        if current is not None:
            if current.match_id.lower() == message.match_id.lower():
                log.info("match %s: START repeated; answered as before", message.match_id)
                return current.start_reply or READY  # a refused START stays refused
            if not (current.failed or current.wedged(now)):
                log.info("match %s: refused START, still playing %s", message.match_id, current.match_id)
                return BUSY
            log.warning("match %s: dropped (failed or silent too long) for new match %s", current.match_id, message.match_id)
            self._drop(current, None, "dropped")
        match = _Match(
            message.match_id, message.role, message.start_clock, message.play_clock,
            self._player_factory(), now,
        )
        self._match = match
        match.spellings = dict(message.description.spellings)
        try:
            match.start_reply = await self._start_registered(match, message, now)
            return match.start_reply
        except BaseException:
            if self._match is match and match.setup is None:
                self._match = None  # a START that failed before its setup began never leaves the host busy
            raise

    async def _start_registered(self, match: _Match, message: Start, now: float) -> str:
        if uses_sees(message.description):
            match.gdl2 = True
            if not isinstance(match.player, Gdl2Player):
                match.failed = NO_GDL2
                log.warning("match %s: refused a GDL-II game (%s): %s", match.match_id,
                            getattr(match.player, "name", "player"), NO_GDL2)
                return f"error: {NO_GDL2}"
        deadline = now + max(0.0, message.start_clock - REPLY_MARGIN)
        log.info(
            "match %s: START as %s (start clock %ds, play clock %ds)",
            match.match_id, match.role, match.start_clock, match.play_clock,
        )
        match.description = message.description
        self._start_standby(match, deadline)
        bound = self.limits.setup_s(match.start_clock, match.play_clock) if self.limits else 0.0
        setup = self._submit(match, "start", (match.player, message.description, self._machine_factory,
                                              deadline - SEARCH_SLACK), "setup", bound)
        match.setup = setup
        try:
            await self._until(setup, deadline)
        except TimeoutError:
            log.warning("match %s: setup still running at the start clock; answering ready%s", match.match_id,
                        " (the standby engine answers meanwhile)" if match.standby else "")
            return READY
        except LimitHit:
            return READY  # logged; the player starts again on the recovery engine
        except (GgpError, ValueError, RecursionError) as exc:
            reason = one_line(exc)
            if await self._standby_fails(match, deadline) is None:
                self._recover(match, f"its engine cannot play these rules ({reason})")
                return READY
            match.failed = reason
            log.warning("match %s: cannot play these rules: %s", match.match_id, match.failed)
            return f"error: {match.failed}"
        except Exception as exc:  # a bug in an engine or player must not take the server down
            match.failed = one_line(exc)
            log.exception("match %s: setup failed", match.match_id)
            return f"error: {match.failed}"
        return READY

    # --- the standby seat and restarts ----------------------------------------------------------

    def _start_standby(self, match: _Match, deadline: float) -> None:
        """Start the match's standby seat in its thread (GDL matches, when the host has a standby engine)."""
        if self._standby_factory is None or match.gdl2 or match.description is None:
            return
        if len(match.description.rules) > STANDBY_MAX_RULES:
            log.info("match %s: no standby engine for %d rules (over %d)", match.match_id,
                     len(match.description.rules), STANDBY_MAX_RULES)
            return
        seat = match.standby = Seat(match.match_id, match.role)
        player: Player = StandbyPlayer()
        started = asyncio.get_running_loop().run_in_executor(
            self._standby_executor, seat.start, player, match.description, self._standby_factory, deadline)
        started.add_done_callback(_retrieve)
        match.standby_started = started

    async def _standby_fails(self, match: _Match, deadline: float) -> str | None:
        """None when the standby seat started (waiting for it until ``deadline``), else why not (logged;
        "" when there is none or it is still starting)."""
        if match.standby_started is None:
            return ""
        try:
            await self._until(match.standby_started, deadline)
        except TimeoutError:
            return ""
        except Exception as exc:
            log.info("match %s: the standby engine cannot play these rules either: %s", match.match_id, one_line(exc))
            return one_line(exc)
        return None

    def _standby_step(self, match: _Match, update: Update) -> asyncio.Future[tuple[Move, ...]] | None:
        """Apply ``update`` to the standby seat (in its thread, in arrival order); the future of its legal moves."""
        if match.standby is None:
            return None
        future = asyncio.get_running_loop().run_in_executor(
            self._standby_executor, standby_legal, match.standby, (update,))
        future.add_done_callback(_retrieve)
        return future

    def _recover(self, match: _Match, why: str, limit_hit: bool = False) -> None:
        """Start the match's player again (a fresh player, the recovery engine, in the current worker), to
        replay the match's updates; after :data:`MAX_RESTARTS`, or when the recovery engine itself failed
        (not over a limit: ``limit_hit``, a starved or killed worker, may pass next time), give the player's
        seat up (the standby plays on alone)."""
        if self._closed or self._match is not match or match.given_up is not None or match.description is None:
            return
        if match.restarts >= MAX_RESTARTS:
            match.given_up = f"{why}; {match.restarts} restarts already"
        elif match.recovering and not limit_hit:
            match.given_up = why  # the recovery engine cannot play these rules: another try would fail alike
        if match.given_up is not None:
            log.warning("match %s: the player is given up (%s); %s", match.match_id, match.given_up,
                        "the standby engine plays its first legal move each step from now on" if match.standby
                        else "no standby engine: answering nil")
            return
        match.restarts += 1
        match.recovering = True
        match.player = self._player_factory()
        match.pending = list(match.history)
        deadline = time.monotonic() + max(0.0, match.play_clock - REPLY_MARGIN)
        bound = self.limits.setup_s(match.play_clock, match.play_clock) if self.limits else 0.0
        log.warning("match %s: %s; the player starts again on the recovery engine (restart %d, %d step(s) to replay)",
                    match.match_id, why, match.restarts, len(match.history))
        setup = self._submit(match, "start", (match.player, match.description, self._recovery_factory,
                                              deadline - SEARCH_SLACK), "setup", bound)
        setup.add_done_callback(_retrieve)
        match.setup = setup

    # --- PLAY ----------------------------------------------------------------------------------

    async def _play(self, message: Play | PlayII, now: float) -> str:
        match = self._current(message.match_id)
        if match is None:
            if self._match is None:  # not "busy": nothing is being played, this match is simply unknown
                log.info("match %s: PLAY for an unknown match", message.match_id)
                return f"error: unknown match {message.match_id}"
            log.info("match %s: PLAY refused, current match is %s", message.match_id, self.match_id)
            return BUSY
        match.last_seen = now
        deadline = now + max(0.05, match.play_clock - REPLY_MARGIN)
        async with self._lock:
            try:
                return await self._play_locked(match, message, deadline)
            except TimeoutError:
                match.trouble("no move ready by the deadline", NIL)
                return NIL
            except LimitHit:
                return NIL  # logged where the limit was hit
            except Exception:  # one bad match must not take the server down
                log.exception("match %s: PLAY failed", match.match_id)
                return NIL

    async def _play_locked(self, match: _Match, message: Play | PlayII, deadline: float) -> str:
        hidden = isinstance(message, PlayII) or match.gdl2
        if hidden and not isinstance(match.player, Gdl2Player):
            log.warning("match %s: a GDL-II PLAY for a player without GDL-II support; answering nil", match.match_id)
            return NIL
        if match.failed is not None:
            match.trouble(f"cannot play ({match.failed})", NIL)
            return NIL
        update = _update(message)
        match.pending.append(update)
        match.history.append(update)
        standby = None if hidden else self._standby_step(match, update)
        legal, move, why = await self._player_move(match, hidden, deadline)
        if move is None:
            if not legal and standby is not None:
                try:
                    legal = await self._until(standby, deadline)
                except Exception as exc:  # a standby that failed or is too slow: nothing to answer
                    why = f"{why}; the standby engine has no move ({one_line(exc)})"
            if not legal:
                match.trouble(f"{why or 'the player was given up'}; no legal move known", NIL)
                return NIL
            move = legal[0]
        if why is not None:
            match.trouble(why, move)
        log.debug("match %s: plays %s", match.match_id, move)
        return format_move(move, match.spellings)

    async def _player_move(self, match: _Match, hidden: bool, deadline: float
                           ) -> tuple[tuple[Move, ...] | None, Move | None, str | None]:
        """The player's seat's legal moves (None: not known) and its move (None: none by the deadline, with
        why); ``(legal, move, why)``, where ``why`` says what went wrong even when a move came."""
        if match.given_up is not None:
            return None, None, None  # said once, when it was given up: the standby's moves are expected now
        handoff = deadline - (STANDBY_RESERVE if match.standby is not None else 0.0)
        setup = match.setup
        if setup is None:
            return None, None, "the player has no setup"
        if not setup.done():
            with contextlib.suppress(Exception):
                await self._until(setup, handoff)
        if match.setup is not setup:
            return None, None, "the player is starting again"
        if not setup.done():
            return None, None, "the player's setup is still running"
        error = setup.exception()
        if error is not None:
            if not isinstance(error, LimitHit):  # a limit hit started the player again already
                self._recover(match, f"its setup failed ({one_line(error)})")
            return None, None, f"the player's setup failed ({one_line(error)})"
        bound = self.limits.play_s(match.play_clock) if self.limits else 0.0
        updates, match.pending = match.pending, []
        try:
            legal: tuple[Move, ...] = await self._until(
                self._submit(match, "catch_up", (updates, hidden), "applying the moves", bound), handoff)
        except TimeoutError:
            return None, None, "applying the moves overran"
        except LimitHit:
            return None, None, "applying the moves was stopped"
        except Exception as exc:
            log.warning("match %s: applying the moves failed", match.match_id, exc_info=True)
            return None, None, f"applying the moves failed ({one_line(exc)})"
        if not legal:
            return legal, None, f"{match.role} has no legal move in the player's state"
        search = self._submit(match, "choose", (hidden, deadline - SEARCH_SLACK, deadline), "the search", bound)
        try:
            move, why = await self._until(search, deadline + LATE_GRACE)
        except TimeoutError:
            return legal, None, "no move from the search by the play clock"
        except LimitHit:
            return legal, None, "the search was stopped"
        except Exception as exc:
            return legal, None, f"the player failed ({one_line(exc)})"
        if move is not None and move not in legal:
            return legal, None, f"the player chose illegal {move}"
        return legal, move, why

    # --- STOP and ABORT ------------------------------------------------------------------------

    def _finish(self, match_id: str, moves: tuple[Move, ...] | None, answer: str, how: str) -> str:
        match = self._current(match_id)
        if match is None:
            if self._match is not None:
                log.info("match %s: %s refused, current match is %s", match_id, how, self._match.match_id)
                return BUSY
            return answer
        self._drop(match, moves, how)
        return answer

    def _drop(self, match: _Match, moves: tuple[Move, ...] | None, how: str) -> None:
        """Forget the match now; apply the last moves (for the log) and stop the player in the background.

        In a worker that is still busy (a setup, a search past its deadline) nothing is waited for: the
        worker is killed and replaced, so the next match starts at once.
        """
        if self._match is match:
            self._match = None
        if match.troubles.counts:
            log.warning("match %s: %s not the player's own choice (%s)", match.match_id, match.troubles.summary(), how)
        if match.seat is not None:
            match.seat.cancel.set()
        if match.setup is None or (self.limits is not None and match.failed is not None):
            log.info("match %s: %s", match.match_id, how)  # nothing of it left to clean up
            return
        if self.limits is not None:
            worker = self._worker
            if worker is not None and worker.busy:
                log.info("match %s: %s; its worker %s was busy and is replaced", match.match_id, how, worker.pid)
                match.failed = how
                self._replace(worker)
                return
        bound = self.limits.play_s(match.play_clock) if self.limits else 0.0
        self._keep(self._submit(match, "wrap_up", (moves, how, match.failed is not None), "the clean-up", bound))


PLAYER_HOST = web.AppKey("player_host", PlayerHost)
PARSE_LANE = web.AppKey("parse_lane", ParseLane)


def create_player_app(
    player_factory: PlayerFactory,
    name: str,
    machine_factory: MachineFactory,
    *,
    species: str | None = None,
    limits: PlayerLimits | None = None,
    recovery_factory: MachineFactory | None = None,
) -> web.Application:
    """The player's web application.

    ``player_factory`` makes a fresh player for every match; ``machine_factory`` makes the state
    machine of each START's rules (the command wires the engine, e.g.
    ``ggp.reasoner.engines.engine_factory("auto")``; tests pass pure-Python games), so this module
    never loads a reasoner itself. ``name`` and ``species`` are what INFO reports. With ``limits``
    the reasoning runs in a worker process under them (see :class:`PlayerHost`); ``recovery_factory``
    builds the machine of a player started again mid-match (default: the standby engine). Raises
    :class:`ProtocolError` for a name that is not one word.
    """
    info_reply(name, species or name)  # fail now, not at the first INFO
    app = web.Application(client_max_size=MAX_BODY)
    app[PLAYER_HOST] = PlayerHost(player_factory, name, machine_factory, species, limits,
                                  recovery_factory=recovery_factory)
    app[PARSE_LANE] = ParseLane()
    cap_connections(app)
    app.router.add_route("OPTIONS", "/{tail:.*}", _handle_options)
    app.router.add_post("/{tail:.*}", _handle_post)
    app.router.add_get("/{tail:.*}", _handle_get)
    app.on_response_prepare.append(_add_cors)
    app.cleanup_ctx.append(_close_host)
    app.on_shutdown.append(_stop_reasoning)
    return app


async def _stop_reasoning(app: web.Application) -> None:
    """At shutdown, before open requests are waited for: kill the worker, so that a request waiting for
    it (a START during a heavy setup) is answered at once rather than held until the shutdown timeout."""
    await app[PLAYER_HOST].aclose()


async def _close_host(app: web.Application) -> AsyncIterator[None]:
    await app[PLAYER_HOST].warm_up()
    yield
    await app[PLAYER_HOST].aclose()
    app[PARSE_LANE].close()


async def _add_cors(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(CORS_HEADERS)


async def _handle_options(request: web.Request) -> web.Response:
    return web.Response(status=200)


async def _handle_post(request: web.Request) -> web.Response:
    received = time.monotonic()
    body = await request.read()
    return await _respond(request, body.decode("utf-8", errors="replace"), received)


async def _handle_get(request: web.Request) -> web.Response:
    received = time.monotonic()
    return await _respond(request, unquote_plus(request.raw_path[1:], errors="replace"), received, via_get=True)


async def _respond(request: web.Request, text: str, received: float, via_get: bool = False) -> web.Response:
    log.debug("from %s: %s", request.remote, text[:500])
    too_large = size_problem(text)
    if too_large is not None:
        log.warning("refused a message of %d characters from %s: %s", len(text), request.remote, too_large)
        return web.Response(status=413, text=too_large)
    try:
        message = await request.app[PARSE_LANE].parse(text, parse_message)
    except ProtocolError as exc:
        reason = one_line(exc)
        log.warning("bad message from %s: %s", request.remote, reason)
        return web.Response(status=400, text=reason)
    if not isinstance(message, Info | Preview) and cross_site(request):
        # A web page must not START (and so lock up), PLAY, STOP or ABORT this player: not with an image
        # (a GET needs no preflight), nor with a form's text/plain POST (no preflight either).
        log.warning("refused a cross-site %s %s from %s", request.method, message_type(message), request.remote)
        return web.Response(status=403, text="state-changing messages from another site are refused")
    if isinstance(message, Start):
        problem = clock_problem(message.start_clock, message.play_clock)
        if problem is not None:  # refused before the host sees it: the same START is refused every time
            log.warning("match %s: refused START from %s: %s", message.match_id, request.remote, problem)
            return _acl(f"error: {problem}")
    try:
        reply = await request.app[PLAYER_HOST].reply(message, received)
    except Exception as exc:  # keep serving whatever one message did
        log.exception("failed to answer a %s message", message_type(message))
        return web.Response(status=500, text=f"internal error: {one_line(exc)}")
    log.debug("to %s: %s", request.remote, reply)
    return _acl(reply)


def _acl(reply: str) -> web.Response:
    return web.Response(body=reply.encode("ascii", errors="replace"), content_type="text/acl")
