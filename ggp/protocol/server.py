"""The aiohttp player server: one GGP match at a time, anytime replies, never down because of one match.

:func:`create_player_app` builds the web application; :class:`PlayerHost` holds the match state and
answers the typed messages. Requests are ``POST /`` (what managers send), ``GET /<url-encoded
message>`` and ``OPTIONS`` preflights; every response carries the CORS headers ggp-base players send
and replies use ``Content-Type: text/acl``. A message that does not parse gets HTTP 400 with a one-line
reason and the server keeps serving.

The reasoning of a match (building the state machine, the player's search) is done by a
:class:`~ggp.protocol.seat.Seat`, never on the event loop. Without :class:`PlayerLimits` the seat runs
in one search thread of this process (tests, players embedded in another program); with them (``ggp
player``) it runs in a worker process whose address space is bounded and whose every call is bounded
in time, relative to the match's clocks (see :class:`PlayerLimits`). A call over a bound kills the
worker (one WARNING line says which bound), a fresh worker is started for the next match, and the
match is marked failed: the server answers every later PLAY of it with ``nil`` at once and INFO with
``available``. Meanwhile the event loop stays free: INFO, ABORT and STOP are answered, and SIGTERM
stops the server.

Match flow (protocol.md §3-4):

- START builds the state machine and calls ``player.start`` during the start clock and answers
  ``ready`` by ``startclock - 0.5 s`` even if setup is still running (the first PLAY waits for it).
  Rules that cannot be turned into a machine, or a role the game lacks, get the reply ``error:
  <reason>`` (logged) instead of ``ready``; a setup that hits a limit gets ``ready`` (then ``nil``).
- PLAY applies the previous joint move (NIL: the initial state) to the seat's own state, then runs
  ``player.choose``. At ``playclock - 0.5 s`` the host answers with the best move so far
  (``best_move()`` of an :class:`~ggp.player.AnytimePlayer`, else the first legal move) and the search
  is cancelled; a hand-back that is late waits :data:`LATE_GRACE` more before the first legal move
  goes. When not even the legal moves are known by then (the reasoner is too slow for this game) the
  answer is ``nil``, as a ggp-base player whose move selection fails answers: the manager
  plays a random legal move for it (protocol.md §4). A joint move that is not legal in the seat's
  state is logged and, where a recent earlier state accepts it, the seat resynchronises from there.
- GDL-II (protocol.md §8): for a game that defines ``sees`` the host needs a
  :class:`~ggp.player.Gdl2Player`; any other player gets ``error: this player does not support
  GDL-II`` at START (logged). ``(PLAY id turn lastmove percepts)`` is passed to the player's
  ``observe`` (the host never knows the state), then ``choose_hidden`` runs like ``choose`` does,
  with the player's ``own_legal_moves`` as fallback and legality check.
- STOP answers ``done`` and ABORT ``aborted`` at once; clean-up runs in the background (a worker
  still busy with the match is killed and replaced instead).
- Messages for another match get ``busy``; a match that has heard nothing for
  ``startclock + 10 * playclock`` seconds (Tiltyard's "wedged" rule) is dropped when a new START comes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote_plus, urlsplit

from aiohttp import web

from ggp.errors import GgpError, ProtocolError, ReasonerError
from ggp.logtally import Tally
from ggp.player import NO_GDL2, SAFETY_MARGIN, Gdl2Player, Player
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
from ggp.protocol.seat import MachineFactory, Seat, Update, one_line, worker_call, worker_ready
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

IDLE_TIMEOUT_S = 10.0
"""A connection that sends no (complete) request for this long is closed: idle or slow clients
(1,100 idle connections made a player deaf at a 1,024-descriptor limit) cannot hold the server."""

MAX_CONNECTIONS = 512
"""Open connections a server keeps (the manager and every player server): beyond it, a new connection
closes the oldest one that is not in the middle of a request, or is itself closed at once when every
one is. Well under the usual 1,024-descriptor limit, so accepting never fails."""

MAX_BODY = 32 * 1024 * 1024
"""Largest request body accepted (the largest real games are well under 1 MB)."""

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
    run through the start clock and ``setup_play_clocks`` play clocks (PLAYs meanwhile answer ``nil``);
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
    failed: str | None = None
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


def _update(message: Play | PlayII) -> Update:
    if isinstance(message, PlayII):
        return None, (message.turn, message.last_move, frozenset(message.percepts))
    return message.moves, None


class PlayerHost:
    """Plays one match at a time with players from ``player_factory`` (a new player per match).

    With ``limits`` every match's reasoning runs in a worker process under them (``player_factory``'s
    players and ``machine_factory`` must then pickle: module-level functions, :func:`functools.partial`);
    without, in one search thread here. Call :meth:`aclose` at shutdown.
    """

    def __init__(
        self,
        player_factory: PlayerFactory,
        name: str,
        machine_factory: MachineFactory,
        species: str | None = None,
        limits: PlayerLimits | None = None,
    ) -> None:
        self.name = name
        self.species = species or name
        self.limits = limits
        self._player_factory = player_factory
        self._machine_factory = machine_factory
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-search")
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
            if worker is self._worker:  # not one this host killed already (with an aborted match, at shutdown)
                log.warning("%s; worker %s replaced%s", message, worker.pid,
                            "" if match.failed else "; the match is answered nil from now on")
            if match.failed is None:
                match.failed = message.removeprefix(f"match {match.match_id}: ")
            self._replace(worker)
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
                log.info("match %s: START repeated; still ready", message.match_id)
                return READY
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
            return await self._start_registered(match, message, now)
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
        bound = self.limits.setup_s(match.start_clock, match.play_clock) if self.limits else 0.0
        setup = self._submit(match, "start", (match.player, message.description, self._machine_factory,
                                              deadline - SEARCH_SLACK), "setup", bound)
        match.setup = setup
        try:
            await self._until(setup, deadline)
        except TimeoutError:
            log.warning("match %s: setup still running at the start clock; answering ready", match.match_id)
            return READY
        except LimitHit:
            return READY  # logged; every PLAY of this match is answered nil
        except (GgpError, ValueError, RecursionError) as exc:
            match.failed = one_line(exc)
            log.warning("match %s: cannot play these rules: %s", match.match_id, match.failed)
            return f"error: {match.failed}"
        except Exception as exc:  # a bug in an engine or player must not take the server down
            match.failed = one_line(exc)
            log.exception("match %s: setup failed", match.match_id)
            return f"error: {match.failed}"
        return READY

    # --- PLAY ----------------------------------------------------------------------------------

    async def _play(self, message: Play | PlayII, now: float) -> str:
        match = self._current(message.match_id)
        if match is None:
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
        match.pending.append(_update(message))
        if match.setup is not None and not match.setup.done():
            try:
                await self._until(match.setup, deadline)
            except (GgpError, ValueError) as exc:
                match.failed = match.failed or one_line(exc)
        if match.setup is not None and match.setup.done() and not match.setup.cancelled():
            error = match.setup.exception()
            if error is not None and match.failed is None:
                match.failed = one_line(error)
        if match.failed is not None:
            match.trouble(f"cannot play ({match.failed})", NIL)
            return NIL
        bound = self.limits.play_s(match.play_clock) if self.limits else 0.0
        updates, match.pending = match.pending, []
        legal: tuple[Move, ...] = await self._until(
            self._submit(match, "catch_up", (updates, hidden), "applying the moves", bound), deadline)
        if not legal:
            log.warning("match %s: %s has no legal move in this state; answering nil", match.match_id, match.role)
            return NIL
        search = self._submit(match, "choose", (hidden, deadline - SEARCH_SLACK, deadline), "the search", bound)
        why: str | None
        try:
            move, why = await self._until(search, deadline + LATE_GRACE)
        except TimeoutError:
            move, why = None, "no move from the search by the play clock"
        except LimitHit:
            move, why = None, "the search was stopped"
        except Exception as exc:
            move, why = None, f"the player failed ({one_line(exc)})"
        if move is None:
            move = legal[0]
        if why is not None:
            match.trouble(why, move)
        if move not in legal:
            match.trouble(f"the player chose an illegal move ({move})", legal[0])
            move = legal[0]
        log.debug("match %s: plays %s", match.match_id, move)
        return format_move(move, match.spellings)

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


class ConnectionCap:
    """Keeps a server's open connections under ``limit`` (see :data:`MAX_CONNECTIONS`).

    :attr:`middleware` marks the connections that are answering a request; :class:`CappedSite` asks
    :meth:`admit` before each new connection. Shed connections are logged once per ``LOG_EVERY_S``.
    """

    LOG_EVERY_S = 10.0

    def __init__(self, limit: int = MAX_CONNECTIONS) -> None:
        self.limit = limit
        self.busy: set[int] = set()  # id() of the connections answering a request (they take no weak references)
        self.shed = 0
        self._logged_at = 0.0
        self._unlogged = 0

    @web.middleware
    async def middleware(self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                         ) -> web.StreamResponse:
        self.busy.add(id(request.protocol))
        try:
            return await handler(request)
        finally:
            self.busy.discard(id(request.protocol))

    def admit(self, server: web.Server) -> bool:
        """Make room for one more connection: True when there is (now) room, False to refuse it."""
        # A shed connection stays listed until its closing is processed: count only those still open.
        connections = [handler for handler in server.connections if handler.transport is not None]
        if len(connections) < self.limit:
            return True
        idle = next((handler for handler in connections if id(handler) not in self.busy), None)
        if idle is not None:
            idle.force_close()  # the oldest idle one: a request in progress is never cut
        self._note_shed()
        return idle is not None

    def _note_shed(self) -> None:
        self.shed += 1
        self._unlogged += 1
        now = time.monotonic()
        if now - self._logged_at >= self.LOG_EVERY_S:
            log.warning("%d connection(s) shed at the limit of %d open connections", self._unlogged, self.limit)
            self._logged_at, self._unlogged = now, 0


CONNECTIONS = web.AppKey("connections", ConnectionCap)


class _Refused(asyncio.Protocol):
    """A connection over the cap: answered 503 and closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        transport.close()


class CappedSite(web.TCPSite):
    """A :class:`aiohttp.web.TCPSite` that applies the app's :class:`ConnectionCap` (if it has one)."""

    async def start(self) -> None:
        server = self._runner.server
        app = getattr(self._runner, "app", None)
        cap = app.get(CONNECTIONS) if isinstance(app, web.Application) else None
        if server is None or cap is None:
            await super().start()
            return
        await web.BaseSite.start(self)

        def protocol() -> asyncio.Protocol:
            assert server is not None and cap is not None
            return server() if cap.admit(server) else _Refused()

        self._server = await asyncio.get_running_loop().create_server(
            protocol, self._host, self._port, ssl=self._ssl_context, backlog=self._backlog,
            reuse_address=self._reuse_address, reuse_port=self._reuse_port)
        self._bound_port = self._server.sockets[0].getsockname()[1] if self._server.sockets else self._port


def cap_connections(app: web.Application, limit: int = MAX_CONNECTIONS) -> None:
    """Give ``app`` a :class:`ConnectionCap` (served through :class:`CappedSite`); call before it starts."""
    cap = ConnectionCap(limit)
    app[CONNECTIONS] = cap
    app.middlewares.insert(0, cap.middleware)


PLAYER_HOST = web.AppKey("player_host", PlayerHost)


def create_player_app(
    player_factory: PlayerFactory,
    name: str,
    machine_factory: MachineFactory,
    *,
    species: str | None = None,
    limits: PlayerLimits | None = None,
) -> web.Application:
    """The player's web application.

    ``player_factory`` makes a fresh player for every match; ``machine_factory`` makes the state
    machine of each START's rules (the command wires the engine, e.g.
    ``ggp.reasoner.engines.engine_factory("auto")``; tests pass pure-Python games), so this module
    never loads a reasoner itself. ``name`` and ``species`` are what INFO reports. With ``limits``
    the reasoning runs in a worker process under them (see :class:`PlayerHost`). Raises
    :class:`ProtocolError` for a name that is not one word.
    """
    info_reply(name, species or name)  # fail now, not at the first INFO
    app = web.Application(client_max_size=MAX_BODY)
    app[PLAYER_HOST] = PlayerHost(player_factory, name, machine_factory, species, limits)
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


async def _add_cors(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(CORS_HEADERS)


async def _handle_options(request: web.Request) -> web.Response:
    return web.Response(status=200)


async def _handle_post(request: web.Request) -> web.Response:
    received = time.monotonic()
    body = await request.read()
    return await _respond(request, body.decode("utf-8", errors="replace"), received)


def cross_site(request: web.Request) -> bool:
    """Whether a browser sent this request from another site (a foreign ``Origin``, or ``Sec-Fetch-Site``
    saying so: an ``<img>`` or form on any page). Non-browser clients send neither. Used by the player
    server and the manager alike."""
    if request.headers.get("Sec-Fetch-Site", "") in ("cross-site", "same-site"):
        return True
    origin = request.headers.get("Origin")
    return bool(origin) and urlsplit(origin).netloc != request.host


async def _handle_get(request: web.Request) -> web.Response:
    received = time.monotonic()
    return await _respond(request, unquote_plus(request.raw_path[1:], errors="replace"), received, via_get=True)


async def _respond(request: web.Request, text: str, received: float, via_get: bool = False) -> web.Response:
    log.debug("from %s: %s", request.remote, text[:500])
    try:
        message = parse_message(text)
    except ProtocolError as exc:
        reason = one_line(exc)
        log.warning("bad message from %s: %s", request.remote, reason)
        return web.Response(status=400, text=reason)
    if via_get and not isinstance(message, Info | Preview) and cross_site(request):
        # A GET needs no preflight: any web page could START (and so lock up) this player with an image.
        log.warning("refused a cross-site GET %s from %s", message_type(message), request.remote)
        return web.Response(status=403, text="state-changing messages from another site must be POSTed")
    try:
        reply = await request.app[PLAYER_HOST].reply(message, received)
    except Exception as exc:  # keep serving whatever one message did
        log.exception("failed to answer a %s message", message_type(message))
        return web.Response(status=500, text=f"internal error: {one_line(exc)}")
    log.debug("to %s: %s", request.remote, reply)
    return web.Response(body=reply.encode("ascii", errors="replace"), content_type="text/acl")
