"""Fixtures of the reliability suite (issue 31): a player server and a manager served on loopback port 0
through :class:`~ggp.protocol.httpguard.CappedSite`, as ``ggp player`` and ``ggp serve`` serve them,
and hostile clients written with raw sockets (what no well-behaved HTTP library would send)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from ggp.manager.app import create_app
from ggp.manager.runner import Deadlines
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from ggp.players.legal_player import LegalPlayer
from ggp.protocol.httpguard import IDLE_TIMEOUT_S, CappedSite
from ggp.protocol.server import create_player_app
from tests.helpers.manager_machines import machine_for_description
from tests.unit.protocol.test_server import nim_factory

FAST = Deadlines(start_s=1.0, play_s=1.0, stop_s=0.5, abort_s=0.5, connect_s=0.5)


async def serve(app: web.Application) -> tuple[web.AppRunner, int]:
    """Serve ``app`` on a free loopback port as the commands do; returns the runner and the port."""
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=IDLE_TIMEOUT_S)
    await runner.setup()
    site = CappedSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site.port


@pytest.fixture
async def player_app() -> AsyncIterator[tuple[web.Application, int]]:
    """A legal player's app (nim), served; ``(app, port)``."""
    app = create_player_app(LegalPlayer, "legal", machine_factory=nim_factory)
    runner, port = await serve(app)
    yield app, port
    await runner.cleanup()


@pytest.fixture
async def manager() -> AsyncIterator[Manager]:
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=FAST))
    yield manager
    await manager.close()
    store.close()


@pytest.fixture
async def manager_app(manager: Manager) -> AsyncIterator[tuple[web.Application, int]]:
    """The manager's app (no token), served; ``(app, port)``."""
    app = create_app(manager)
    runner, port = await serve(app)
    yield app, port
    await runner.cleanup()


async def slow_body(port: int, path: str = "/") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A POST that announces 100,000 bytes of body and sends one (the rest never comes)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: text/acl\r\n"
                 "Content-Length: 100000\r\n\r\n(".encode())
    await writer.drain()
    return reader, writer


async def closed_by_server(reader: asyncio.StreamReader, within_s: float = 20.0) -> bool:
    """True when the server closes the connection (whatever it answers first) within ``within_s``."""
    try:
        while await asyncio.wait_for(reader.read(65536), within_s):
            pass
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return True
