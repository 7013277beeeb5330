"""The aiohttp player server: one GGP match at a time, anytime replies, never down because of one match.

:func:`create_player_app` builds the web application; :class:`PlayerHost` holds the match state and
answers the typed messages. Requests are ``POST /`` (what managers send), ``GET /<url-encoded
message>`` and ``OPTIONS`` preflights; every response carries the CORS headers ggp-base players send
and replies use ``Content-Type: text/acl``. A message that does not parse gets HTTP 400 with a one-line
reason and the server keeps serving.

Match flow (protocol.md §3-4):

- START builds the state machine and calls ``player.start`` in the search thread during the start
  clock and answers ``ready`` by ``startclock - 0.5 s`` even if setup is still running (the first
  PLAY waits for it). Rules that cannot be turned into a machine, or a role the game lacks, get the
  reply ``error: <reason>`` (logged) instead of ``ready``.
- PLAY applies the previous joint move (NIL: the initial state) to the host's own state, then runs
  ``player.choose`` in the search thread. At ``playclock - 0.5 s`` the host answers with the best move
  so far (``best_move()`` of an :class:`~ggp.player.AnytimePlayer`, else the first legal move) and
  cancels the search. A joint move that is not legal in the host's state is logged and, where a
  recent earlier state accepts it, the host resynchronises from there.
- GDL-II (protocol.md §8): for a game that defines ``sees`` the host needs a
  :class:`~ggp.player.Gdl2Player`; any other player gets ``error: this player does not support
  GDL-II`` at START (logged). ``(PLAY id turn lastmove percepts)`` is passed to the player's
  ``observe`` (the host never knows the state), then ``choose_hidden`` runs like ``choose`` does,
  with the player's ``own_legal_moves`` as fallback and legality check.
- STOP answers ``done`` and ABORT ``aborted`` at once; clean-up runs in the background.
- Messages for another match get ``busy``; a match that has heard nothing for
  ``startclock + 10 * playclock`` seconds (Tiltyard's "wedged" rule) is dropped when a new START comes.

Machine calls and searches run one at a time in a single worker thread, so players and state
machines need not be thread-safe.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import unquote_plus, urlsplit

from aiohttp import web

from ggp.errors import GgpError, IllegalMoveError, ProtocolError
from ggp.gdl.terms import Description
from ggp.player import NO_GDL2, SAFETY_MARGIN, AnytimePlayer, Budget, Gdl2Player, Player
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
from ggp.reasoner.machine import Move, Role, State, StateMachine

log = logging.getLogger(__name__)

PlayerFactory = Callable[[], Player]
MachineFactory = Callable[[Description], StateMachine]

REPLY_MARGIN = SAFETY_MARGIN
"""Seconds before a clock runs out at which the host answers (protocol.md §4 decision)."""

SEARCH_SLACK = 0.15
"""The player's own deadline ends this much before the reply deadline, so it usually returns by itself."""

RESYNC_DEPTH = 3
"""How many earlier states are tried when a joint move is not legal in the current one."""

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


@dataclass(slots=True, eq=False)
class _Match:
    """What the host knows about the match it is playing."""

    match_id: str
    role: Role
    start_clock: int
    play_clock: int
    player: Player
    last_seen: float
    machine: StateMachine | None = None
    state: State | None = None
    history: list[State] = field(default_factory=list)
    setup: asyncio.Future[None] | None = None
    failed: str | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    steps: int = 0
    gdl2: bool = False
    spellings: dict[str, str] = field(default_factory=dict)
    """The rules' own spelling of each name written with capitals: replies use it (ggp-base compares
    moves case-sensitively)."""
    pending: list[Play | PlayII] = field(default_factory=list)
    """PLAY messages whose updates (joint moves, percepts) are not applied yet, oldest first: a PLAY that
    arrives while the setup still runs gets no move, but its update is kept and applied in order."""

    def wedged(self, now: float) -> bool:
        """True when nothing arrived for ``startclock + 10 * playclock`` seconds."""
        return now - self.last_seen > self.start_clock + 10 * self.play_clock


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _consume(future: asyncio.Future[_T]) -> None:
    """Done-callback for work nobody awaits any more: log its failure instead of losing it."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None:
        log.warning("background work failed: %s", _one_line(exc))


class PlayerHost:
    """Plays one match at a time with players from ``player_factory`` (a new player per match)."""

    def __init__(
        self,
        player_factory: PlayerFactory,
        name: str,
        machine_factory: MachineFactory,
        species: str | None = None,
    ) -> None:
        self.name = name
        self.species = species or name
        self._player_factory = player_factory
        self._machine_factory = machine_factory
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-search")
        self._match: _Match | None = None
        self._lock = asyncio.Lock()

    @property
    def match_id(self) -> str | None:
        """The id of the match being played, if any."""
        return self._match.match_id if self._match else None

    def close(self) -> None:
        """Cancel any search and stop the worker thread (called at application shutdown)."""
        if self._match is not None:
            self._match.cancel.set()
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _run(self, fn: Callable[..., _T], *args: object) -> asyncio.Future[_T]:
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._executor, fn, *args)

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
        setup = self._run(self._setup, match, message.description, deadline - SEARCH_SLACK)
        match.setup = setup
        try:
            await self._until(setup, deadline)
        except TimeoutError:
            log.warning("match %s: setup still running at the start clock; answering ready", match.match_id)
            return READY
        except (GgpError, ValueError, RecursionError) as exc:
            match.failed = _one_line(exc)
            log.warning("match %s: cannot play these rules: %s", match.match_id, match.failed)
            return f"error: {match.failed}"
        except Exception as exc:  # a bug in an engine or player must not take the server down
            match.failed = _one_line(exc)
            log.exception("match %s: setup failed", match.match_id)
            return f"error: {match.failed}"
        return READY

    def _setup(self, match: _Match, description: Description, deadline: float) -> None:
        """Worker thread: build the machine, check the role, start the player."""
        machine = self._machine_factory(description)
        if match.role not in machine.roles:
            roles = " ".join(str(role) for role in machine.roles)
            raise ProtocolError(f"role {str(match.role)!r} is not a role of this game (roles: {roles})")
        state = machine.initial_state()
        match.machine, match.state, match.history = machine, state, [state]
        match.player.start(machine, match.role, Budget(deadline=deadline, cancel=match.cancel))

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
                log.warning("match %s: no move ready by the deadline; answering nil", match.match_id)
                return NIL
            except Exception:  # one bad match must not take the server down
                log.exception("match %s: PLAY failed", match.match_id)
                return NIL

    async def _play_locked(self, match: _Match, message: Play | PlayII, deadline: float) -> str:
        hidden = isinstance(message, PlayII) or match.gdl2
        if hidden and not isinstance(match.player, Gdl2Player):
            log.warning("match %s: a GDL-II PLAY for a player without GDL-II support; answering nil", match.match_id)
            return NIL
        match.pending.append(message)
        if match.setup is not None and not match.setup.done():
            try:
                await self._until(match.setup, deadline)
            except (GgpError, ValueError) as exc:
                match.failed = _one_line(exc)
        if match.setup is not None and match.setup.done() and not match.setup.cancelled():
            error = match.setup.exception()
            if error is not None and match.failed is None:
                match.failed = _one_line(error)
        if match.failed is not None:
            log.warning("match %s: cannot play (%s); answering nil", match.match_id, match.failed)
            return NIL
        legal = await self._until(self._run(self._catch_up, match, hidden), deadline)
        if not legal:
            log.warning("match %s: %s has no legal move in this state; answering nil", match.match_id, match.role)
            return NIL
        match.cancel = threading.Event()
        budget = Budget(deadline=deadline - SEARCH_SLACK, cancel=match.cancel)
        search = self._run(self._choose_hidden if hidden else self._choose, match, budget)
        try:
            move = await self._until(search, deadline)
        except TimeoutError:
            match.cancel.set()
            best = match.player.best_move() if isinstance(match.player, AnytimePlayer) else None
            move = best if best is not None else legal[0]
            log.warning("match %s: search overran the play clock; answering %s", match.match_id, move)
        except Exception as exc:
            log.warning("match %s: the player failed (%s); answering %s", match.match_id, _one_line(exc), legal[0])
            move = legal[0]
        if move not in legal:
            log.warning("match %s: the player chose illegal %s; answering %s", match.match_id, move, legal[0])
            move = legal[0]
        log.debug("match %s: step %d plays %s", match.match_id, match.steps, move)
        return format_move(move, match.spellings)

    def _catch_up(self, match: _Match, hidden: bool) -> tuple[Move, ...]:
        """Worker thread: apply every pending update in arrival order; the role's legal moves after them.

        Runs on the one worker thread, so a catch-up that outlasts its PLAY's clock finishes before the
        next PLAY's catch-up starts (or takes that PLAY's update along, leaving nothing for it to do):
        no update is ever skipped or applied twice.
        """
        while match.pending:
            message = match.pending.pop(0)
            if isinstance(message, PlayII):
                self._observe(match, message)
            elif hidden:
                log.warning("match %s: a GDL PLAY in a GDL-II match; its joint move is ignored", match.match_id)
            else:
                self._advance(match, message.moves)
        if hidden:
            return self._own_legal(match)
        machine, state = match.machine, match.state
        assert machine is not None and state is not None
        return () if machine.is_terminal(state) else machine.legal_moves(state, match.role)

    def _observe(self, match: _Match, message: PlayII) -> tuple[Move, ...]:
        """Worker thread (GDL-II): give the player its last move and percepts; its legal moves now."""
        assert isinstance(match.player, Gdl2Player)
        match.player.observe(message.turn, message.last_move, frozenset(message.percepts))
        match.steps = message.turn
        return match.player.own_legal_moves()

    def _own_legal(self, match: _Match) -> tuple[Move, ...]:
        assert isinstance(match.player, Gdl2Player)
        return match.player.own_legal_moves()

    def _choose_hidden(self, match: _Match, budget: Budget) -> Move:
        assert isinstance(match.player, Gdl2Player)
        return match.player.choose_hidden(budget)

    def _choose(self, match: _Match, budget: Budget) -> Move:
        assert match.state is not None
        return match.player.choose(match.state, budget)

    def _advance(self, match: _Match, moves: tuple[Move, ...] | None) -> tuple[Move, ...]:
        """Worker thread: apply the previous joint move; the role's legal moves in the new state."""
        machine, state = match.machine, match.state
        assert machine is not None and state is not None
        if moves is None:
            if match.steps:
                log.warning("match %s: PLAY NIL after %d steps; back to the initial state", match.match_id, match.steps)
                state = match.history[0]
                match.history, match.steps = [state], 0
        else:
            state = self._apply(match, machine, moves)
        match.state = state
        if machine.is_terminal(state):
            return ()
        return machine.legal_moves(state, match.role)

    def _apply(self, match: _Match, machine: StateMachine, moves: tuple[Move, ...]) -> State:
        shown = " ".join(map(str, moves))
        if len(moves) != len(machine.roles):
            log.warning(
                "match %s: joint move (%s) has %d moves for %d roles; keeping the current state",
                match.match_id, shown, len(moves), len(machine.roles),
            )
            return match.history[-1]
        candidates = list(reversed(match.history[-(RESYNC_DEPTH + 1):]))
        for back, state in enumerate(candidates):
            try:
                after = machine.next_state(state, moves)
            except (IllegalMoveError, GgpError, ValueError) as exc:
                if back == 0:
                    log.warning("match %s: joint move (%s) is not legal here (%s); resynchronising",
                                match.match_id, shown, _one_line(exc))
                continue
            if back:
                log.warning("match %s: resynchronised %d step(s) back", match.match_id, back)
                del match.history[len(match.history) - back:]
            match.history.append(after)
            match.steps += 1
            return after
        log.error("match %s: cannot resynchronise with (%s); playing on from the last known state", match.match_id, shown)
        return match.history[-1]

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
        """Forget the match now; apply the last moves (for the log) and stop the player in the background."""
        match.cancel.set()
        if self._match is match:
            self._match = None
        self._run(self._wrap_up, match, moves, how).add_done_callback(_consume)

    def _wrap_up(self, match: _Match, moves: tuple[Move, ...] | None, how: str) -> None:
        try:
            if moves is not None and match.machine is not None and match.state is not None and not match.failed:
                final = self._apply(match, match.machine, moves)
                if match.machine.is_terminal(final):
                    log.info("match %s: %s, goals %s", match.match_id, how, match.machine.goals(final))
                    return
            log.info("match %s: %s", match.match_id, how)
        finally:
            match.player.stop()


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
) -> web.Application:
    """The player's web application.

    ``player_factory`` makes a fresh player for every match; ``machine_factory`` makes the state
    machine of each START's rules (the command wires the engine, e.g.
    ``ggp.reasoner.engines.engine_factory("auto")``; tests pass pure-Python games), so this module
    never loads a reasoner itself. ``name`` and ``species`` are what INFO reports. Raises
    :class:`ProtocolError` for a name that is not one word.
    """
    info_reply(name, species or name)  # fail now, not at the first INFO
    app = web.Application(client_max_size=MAX_BODY)
    app[PLAYER_HOST] = PlayerHost(player_factory, name, machine_factory, species)
    cap_connections(app)
    app.router.add_route("OPTIONS", "/{tail:.*}", _handle_options)
    app.router.add_post("/{tail:.*}", _handle_post)
    app.router.add_get("/{tail:.*}", _handle_get)
    app.on_response_prepare.append(_add_cors)
    app.cleanup_ctx.append(_close_host)
    return app




async def _close_host(app: web.Application) -> AsyncIterator[None]:
    yield
    app[PLAYER_HOST].close()


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
        reason = _one_line(exc)
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
        return web.Response(status=500, text=f"internal error: {_one_line(exc)}")
    log.debug("to %s: %s", request.remote, reply)
    return web.Response(body=reply.encode("ascii", errors="replace"), content_type="text/acl")
