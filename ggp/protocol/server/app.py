"""The player server's aiohttp application: routes, CORS headers, request checks, replies as ``text/acl``.

:func:`create_player_app` builds the application around a :class:`~ggp.protocol.server.host.PlayerHost`.
Each request's message is size-checked, parsed (large ones off the event loop), refused when a browser on
another site sends anything but INFO or PREVIEW, and handed to the host; the host's reply goes back as
``text/acl``; a ``ready`` to START carries what the player chose for the match by itself in an
``X-GGP-Configuration`` header (:data:`~ggp.protocol.messages.CONFIGURATION_HEADER`) when it chose
anything. The package docstring (:mod:`ggp.protocol.server`) describes the server as a whole.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from urllib.parse import unquote_plus

from aiohttp import web

from ggp.errors import ProtocolError
from ggp.protocol.httpguard import cap_connections, cross_site
from ggp.protocol.limits import MAX_RULES_CHARS, clock_problem, size_problem
from ggp.protocol.messages import (
    CONFIGURATION_HEADER,
    READY,
    Info,
    Preview,
    Start,
    info_reply,
    message_type,
    parse_message,
)
from ggp.protocol.parsing import ParseLane
from ggp.protocol.seat import MachineFactory, one_line
from ggp.protocol.server.bounds import PlayerLimits
from ggp.protocol.server.host import PlayerFactory, PlayerHost

log = logging.getLogger(__name__)


MAX_BODY = MAX_RULES_CHARS
"""Largest request body accepted: a START with its rules (:data:`~ggp.protocol.limits.MAX_RULES_CHARS`);
every other message is refused over :data:`~ggp.protocol.limits.MAX_MESSAGE_CHARS`."""

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Allow-Age": "86400",
}


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
    response = _acl(reply)
    if isinstance(message, Start) and reply == READY:
        configuration = request.app[PLAYER_HOST].configuration(message.match_id)
        if configuration:  # one clean line of printable ASCII: a valid header value
            response.headers[CONFIGURATION_HEADER] = configuration
    return response


def _acl(reply: str) -> web.Response:
    return web.Response(body=reply.encode("ascii", errors="replace"), content_type="text/acl")
