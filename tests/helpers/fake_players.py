"""Fault-injecting fake players for the manager's tests: tiny real aiohttp apps.

Each answers START with ``ready``, STOP with ``done`` and ABORT with ``aborted``; ``reply`` decides the
answer to PLAY from the message count, so a test can script late, garbage, illegal or dropped replies.
Every received message is kept in ``FakePlayer.messages``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.manager.runner import Deadlines, Seat

PlayReply = Callable[[int], Awaitable[str | None]]
"""Given the 1-based PLAY count, the reply text, or ``None`` to drop the connection."""


def constant(text: str) -> PlayReply:
    async def reply(_: int) -> str:
        return text

    return reply


def late(text: str, delay_s: float, from_play: int = 1) -> PlayReply:
    async def reply(count: int) -> str:
        if count >= from_play:
            await asyncio.sleep(delay_s)
        return text

    return reply


def dropping(text: str, from_play: int = 1) -> PlayReply:
    async def reply(count: int) -> str | None:
        return None if count >= from_play else text

    return reply


class FakePlayer:
    """A scripted player; ``app()`` builds its aiohttp application."""

    def __init__(self, play: PlayReply, start_delay_s: float = 0.0, start_headers: Mapping[str, str] | None = None) -> None:
        self.play = play
        self.start_delay_s = start_delay_s
        self.start_headers = dict(start_headers or {})
        """Headers of the ``ready`` to START (e.g. ``X-GGP-Configuration``)."""
        self.messages: list[str] = []
        self.plays = 0

    def kinds(self) -> list[str]:
        return [m.strip("( ").split()[0].upper() for m in self.messages]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        text = await request.text()
        self.messages.append(text)
        kind = text.strip("( ").split()[0].upper()
        if kind == "START":
            await asyncio.sleep(self.start_delay_s)
            return web.Response(text="ready", content_type="text/acl", headers=self.start_headers)
        if kind == "PLAY":
            self.plays += 1
            reply = await self.play(self.plays)
            if reply is None:
                assert request.transport is not None
                request.transport.abort()
                return web.Response(text="")
            return web.Response(text=reply, content_type="text/acl")
        if kind == "STOP":
            return web.Response(text="done", content_type="text/acl")
        return web.Response(text="aborted", content_type="text/acl")

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/", self.handle)
        return app


FAST = Deadlines(start_s=0.5, play_s=0.3, stop_s=0.3, abort_s=0.3, connect_s=0.3)
"""Short deadlines for matches against fake players on loopback."""

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]
"""pytest-aiohttp's ``aiohttp_server`` fixture."""


async def seat_for(aiohttp_server: ServerFactory, player: FakePlayer, name: str) -> Seat:
    """A remote seat for ``player``, served on loopback."""
    server = await aiohttp_server(player.app())
    return Seat(name, str(server.make_url("/")), "remote")
