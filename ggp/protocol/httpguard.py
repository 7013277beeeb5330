"""One guard for every HTTP server of the project (the manager and each player server): open
connections, slow clients and the log lines they cause.

A request goes through three stages. Its headers arrive under aiohttp's keep-alive timer
(:data:`IDLE_TIMEOUT_S` from the connection's start or its previous reply). Then :class:`ConnectionCap`'s
middleware reads the whole body before any handler runs, within :data:`REQUEST_READ_S`: a client that
sends a body one byte every two seconds is cut when the time is up, and the handlers find the body
already read (``request.read()``, ``.text()`` and ``.json()`` return it). Only then is the request
*answering*, and a request that is answering is never cut.

Which connections give way:

- at :data:`MAX_CONNECTIONS` open connections a new one closes the oldest connection that has no
  request (idle, or its headers still coming), else the oldest one whose body is still coming, else it
  is answered 503 and closed;
- one client address may have :data:`MAX_UNFINISHED_PER_CLIENT` requests whose bodies are still coming:
  one more cuts the oldest of them. Real clients send a body at once, so only slow ones are cut.

Every cut is logged as one WARNING line, at most :attr:`RateLimitedLog.burst` lines per
:attr:`RateLimitedLog.every_s` seconds, then one line counting the ones left out: 500 slow clients
cost a handful of lines, not 500 tracebacks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

log = logging.getLogger(__name__)

IDLE_TIMEOUT_S = 10.0
"""A connection that sends no (complete) request headers for this long is closed: idle or slow clients
(1,100 idle connections made a player deaf at a 1,024-descriptor limit) cannot hold the server."""

REQUEST_READ_S = 10.0
"""A request's body must have arrived this long after its headers (a 1 MiB START at 1 Mbit/s takes 8 s)."""

MAX_CONNECTIONS = 512
"""Open connections a server keeps (the manager and every player server): beyond it, a new connection
closes the oldest one that is not answering a request, or is itself closed at once when every one is.
Well under the usual 1,024-descriptor limit, so accepting never fails."""

MAX_UNFINISHED_PER_CLIENT = 32
"""Requests one client address may have whose bodies are still arriving; one more cuts the oldest."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class RateLimitedLog:
    """WARNING lines of one kind, at most ``burst`` per ``every_s`` seconds; the rest are counted and the
    count is logged with the next line that goes out.

    >>> limited = RateLimitedLog(logging.getLogger("demo"), every_s=60, burst=1)
    >>> limited.warning("cut %s", "a"), limited.warning("cut %s", "b"), limited.left_out
    (True, False, 1)
    """

    def __init__(self, logger: logging.Logger, every_s: float = 10.0, burst: int = 5) -> None:
        self.logger = logger
        self.every_s = every_s
        self.burst = burst
        self.left_out = 0
        self._window = -every_s
        self._sent = 0

    def warning(self, message: str, *args: object) -> bool:
        """Log one line unless this window's ``burst`` is spent; True when it went out."""
        now = time.monotonic()
        if now - self._window >= self.every_s:
            self._window, self._sent = now, 0
        if self._sent >= self.burst:
            self.left_out += 1
            return False
        self._sent += 1
        if self.left_out:
            message += " (and %d similar line(s) left out)"
            args = (*args, self.left_out)
            self.left_out = 0
        self.logger.warning(message, *args)
        return True


@dataclass(slots=True, eq=False)
class _Receiving:
    """A request whose headers arrived and whose body is still being read."""

    handler: web.RequestHandler
    peer: str


class ConnectionCap:
    """Keeps a server's open connections under ``limit`` and cuts slow or surplus requests (module doc).

    ``read_s`` is the body deadline and ``per_client`` the unfinished requests one address may have.
    :attr:`shed` counts connections closed or refused at the limit, :attr:`cut` requests cut while
    their body was still coming (slow, or one too many of their address).
    """

    LOG_EVERY_S = 10.0

    def __init__(self, limit: int = MAX_CONNECTIONS, read_s: float = REQUEST_READ_S,
                 per_client: int = MAX_UNFINISHED_PER_CLIENT) -> None:
        self.limit = limit
        self.read_s = read_s
        self.per_client = per_client
        self.busy: set[int] = set()  # id() of the connections answering a request (they take no weak references)
        self.receiving: dict[int, _Receiving] = {}  # id() of the handler -> its request, oldest first
        self.shed = 0
        self.cut = 0
        self._logged_at = 0.0
        self._unlogged = 0
        self._cuts = RateLimitedLog(log, self.LOG_EVERY_S)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        key = id(request.protocol)
        if request.content.is_eof():  # the whole body is here already (every real client): nothing to wait for
            await request.read()
        else:
            refused = await self._receive(request)
            if refused is not None:
                return refused
        self.busy.add(key)
        try:
            return await handler(request)
        finally:
            self.busy.discard(key)

    async def _receive(self, request: web.Request) -> web.Response | None:
        """Read a body that is still coming, as an unfinished request of its address; a response when it
        was cut (too slow, or one too many) or the client went away."""
        key = id(request.protocol)
        peer = request.remote or "?"
        self._make_room_for(peer)
        self.receiving[key] = _Receiving(request.protocol, peer)
        try:
            await asyncio.wait_for(request.read(), self.read_s)
        except TimeoutError:
            self._cut(key, f"its request body was not complete {self.read_s:g} s after the headers")
            return web.Response(status=408, text="request body too slow")
        except web.HTTPException:
            raise  # a body over the size limit: answered 413 by aiohttp
        except Exception as exc:  # the client went away (or was cut) mid-body: nobody to answer
            if key in self.receiving:
                self._cuts.warning("connection from %s closed mid-request: %s", peer, type(exc).__name__)
            return web.Response(status=400, text="incomplete request body")
        finally:
            self.receiving.pop(key, None)
        return None

    def _make_room_for(self, peer: str) -> None:
        """Cut the oldest unfinished request of ``peer`` when it has :attr:`per_client` already."""
        mine = [key for key, receiving in self.receiving.items() if receiving.peer == peer]
        if len(mine) >= self.per_client:
            self._cut(mine[0], f"{len(mine)} unfinished requests from its address (the limit)")

    def _cut(self, key: int, why: str) -> None:
        receiving = self.receiving.pop(key, None)
        if receiving is None:
            return
        self.cut += 1
        self._cuts.warning("cut a connection from %s: %s", receiving.peer, why)
        receiving.handler.force_close()

    def admit(self, server: web.Server) -> bool:
        """Make room for one more connection: True when there is (now) room, False to refuse it."""
        if len(server.connections) < self.limit:  # the common case, without a pass over every connection
            return True
        # A shed connection stays listed until its closing is processed: count only those still open.
        connections = [handler for handler in server.connections if handler.transport is not None]
        if len(connections) < self.limit:
            return True
        idle = next((handler for handler in connections
                     if id(handler) not in self.busy and id(handler) not in self.receiving), None)
        if idle is not None:
            idle.force_close()  # the oldest idle one: a request in progress is never cut
            self._note_shed()
            return True
        slow = next(iter(self.receiving), None)
        if slow is not None:
            self._cut(slow, f"its request body was still coming with {self.limit} connections open (the limit)")
            return True
        self._note_shed()
        return False

    def _note_shed(self) -> None:
        self.shed += 1
        self._unlogged += 1
        now = time.monotonic()
        if now - self._logged_at >= self.LOG_EVERY_S:
            log.warning("%d connection(s) shed at the limit of %d open connections", self._unlogged, self.limit)
            self._logged_at, self._unlogged = now, 0


def cross_site(request: web.Request) -> bool:
    """Whether a browser sent this request from another site (a foreign ``Origin``, or ``Sec-Fetch-Site``
    saying so: an ``<img>`` or form on any page). Non-browser clients send neither. Used by the player
    server and the manager alike."""
    if request.headers.get("Sec-Fetch-Site", "") in ("cross-site", "same-site"):
        return True
    origin = request.headers.get("Origin")
    return bool(origin) and urlsplit(origin).netloc != request.host


CONNECTIONS = web.AppKey("connections", ConnectionCap)


class _Refused(asyncio.Protocol):
    """A connection over the cap: answered 503 and closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        transport.close()


LISTEN_BACKLOG = 1024
"""Connections the kernel queues before the server accepts them (aiohttp's default is 128). When hundreds
of cut slow clients reconnect at once, a full queue drops the next client's SYN and it retries after 1 s:
the one 1.0 s answer per slow-body attack in ``benchmarks/hostile.py`` on a quiet machine."""

ACCEPT_BATCH = 64
"""Connections the event loop accepts in one turn before the cap sees any of them. asyncio accepts as many
as the ``backlog`` it was given, so a queue of :data:`LISTEN_BACKLOG` accepted at once would open 1,024
descriptors before one idle connection is shed (a player at the usual 1,024 limit then fails every accept
with a traceback each). The queue is deepened to :data:`LISTEN_BACKLOG` after the server starts."""


class CappedSite(web.TCPSite):
    """A :class:`aiohttp.web.TCPSite` that applies the app's :class:`ConnectionCap` (if it has one), with a
    listen queue of :data:`LISTEN_BACKLOG`."""

    def __init__(self, runner: web.BaseRunner, host: str | None = None, port: int | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("backlog", LISTEN_BACKLOG)
        super().__init__(runner, host, port, **kwargs)

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

        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            protocol, self._host, self._port, ssl=self._ssl_context, backlog=min(self._backlog, ACCEPT_BATCH),
            reuse_address=self._reuse_address, reuse_port=self._reuse_port)
        for listening in self._server.sockets:
            with listening.dup() as same:  # the same listening socket: deepen its queue, not the batch
                same.listen(self._backlog)
        self._bound_port = self._server.sockets[0].getsockname()[1] if self._server.sockets else self._port
        _report_descriptor_shortage_once_in_a_while(loop)


_SHORTAGE = "socket.accept() out of system resource"


def _report_descriptor_shortage_once_in_a_while(loop: asyncio.AbstractEventLoop) -> None:
    """asyncio reports each accept that fails for want of descriptors with a traceback (and retries after
    a second): pass those through a :class:`RateLimitedLog` line, every other report as before."""
    previous = loop.get_exception_handler()
    if getattr(previous, "limits_shortage", False):
        return
    shortage = RateLimitedLog(log, every_s=10.0, burst=1)

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == _SHORTAGE:
            shortage.warning("accepting paused for 1 s: %s", context.get("exception"))
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler.limits_shortage = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handler)


def cap_connections(app: web.Application, limit: int = MAX_CONNECTIONS, read_s: float = REQUEST_READ_S,
                    per_client: int = MAX_UNFINISHED_PER_CLIENT) -> ConnectionCap:
    """Give ``app`` a :class:`ConnectionCap` (its middleware first; served through :class:`CappedSite`);
    call before it starts. Returns the cap (also ``app[CONNECTIONS]``)."""
    cap = ConnectionCap(limit, read_s, per_client)
    app[CONNECTIONS] = cap
    app.middlewares.insert(0, cap.middleware)
    return cap
