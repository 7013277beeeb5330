"""1000 idle connections do not make a server deaf (issue 20): the manager and the player server cap
their open connections, shed the oldest idle ones, and keep answering real requests."""

from __future__ import annotations

import asyncio
import resource
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from ggp.manager.app import create_app
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.players.legal_player import LegalPlayer
from ggp.protocol.server import CONNECTIONS, IDLE_TIMEOUT_S, MAX_CONNECTIONS, CappedSite, create_player_app
from tests.helpers.manager_machines import machine_for_description
from tests.unit.protocol.test_server import nim_factory

IDLE = 1000


@pytest.fixture(autouse=True)
def enough_descriptors() -> None:
    """Both ends of every connection live in this process: raise the soft limit where the hard one allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 2 * IDLE + 200
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"needs {needed} file descriptors, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=IDLE_TIMEOUT_S)
    await runner.setup()
    site = CappedSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site.port}/"


async def still_answers(app: web.Application, ask: Callable[[aiohttp.ClientSession, str], AsyncIterator[int]]) -> int:
    """Open ``IDLE`` idle connections, then ask a real request; returns how many idle ones were shed."""
    runner, url = await serve(app)
    writers: list[asyncio.StreamWriter] = []
    readers: list[asyncio.StreamReader] = []
    try:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        for _ in range(IDLE):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            readers.append(reader)
            writers.append(writer)
        await asyncio.sleep(0.2)
        assert runner.server is not None and len(runner.server.connections) <= MAX_CONNECTIONS
        async with aiohttp.ClientSession() as session:
            async for status in ask(session, url):
                assert status == 200
        shed = 0
        for reader in readers:
            shed += reader.at_eof() or await _closed(reader)
    finally:
        for writer in writers:
            writer.close()
        await runner.cleanup()
    assert app[CONNECTIONS].shed >= IDLE + 1 - MAX_CONNECTIONS
    return shed


async def _closed(reader: asyncio.StreamReader) -> bool:
    try:
        await asyncio.wait_for(reader.read(4096), 0.01)
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return reader.at_eof()


async def test_the_manager_answers_with_a_thousand_idle_connections_open() -> None:
    store = Store(":memory:")
    manager = Manager(store, machine_for_description)

    async def ask(session: aiohttp.ClientSession, url: str) -> AsyncIterator[int]:
        for _ in range(3):
            async with session.get(url + "api/players", timeout=aiohttp.ClientTimeout(total=10)) as response:
                yield response.status

    try:
        shed = await still_answers(create_app(manager), ask)
    finally:
        await manager.close()
        store.close()
    assert shed >= IDLE - MAX_CONNECTIONS


async def test_a_player_answers_with_a_thousand_idle_connections_open() -> None:
    app = create_player_app(LegalPlayer, "legal", machine_factory=nim_factory)

    async def ask(session: aiohttp.ClientSession, url: str) -> AsyncIterator[int]:
        for _ in range(3):
            async with session.post(url, data="( INFO )", headers={"Content-Type": "text/acl"},
                                    timeout=aiohttp.ClientTimeout(total=10)) as response:
                yield response.status

    shed = await still_answers(app, ask)
    assert shed >= IDLE - MAX_CONNECTIONS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def at_most_1024_descriptors() -> None:
    """The usual default, at which 1,100 idle connections once made a player deaf."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


async def test_ggp_player_at_1024_descriptors_answers_with_1100_idle_connections_open(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "player.log"
    with log.open("wb") as stderr:  # a file, not a pipe: a pipe nobody reads would block the player's logging
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "ggp", "player", "random", "--port", str(port),
            preexec_fn=at_most_1024_descriptors, stderr=stderr)
    writers: list[asyncio.StreamWriter] = []
    try:
        for _ in range(120):  # until the player listens
            try:
                writers.append((await asyncio.open_connection("127.0.0.1", port))[1])
                break
            except OSError:
                await asyncio.sleep(0.5)
        for _ in range(1100):
            writers.append((await asyncio.open_connection("127.0.0.1", port))[1])
        await asyncio.sleep(0.5)
        async with aiohttp.ClientSession() as session:
            for _ in range(3):
                async with session.post(f"http://127.0.0.1:{port}/", data="( INFO )",
                                        headers={"Content-Type": "text/acl"},
                                        timeout=aiohttp.ClientTimeout(total=10)) as response:
                    assert response.status == 200
                    assert "available" in await response.text()
    finally:
        for writer in writers:
            writer.close()
        if process.returncode is None:
            process.terminate()
        assert await asyncio.wait_for(process.wait(), 30) in (0, -signal.SIGTERM)
    assert len(log.read_text().splitlines()) < 20  # shed connections are logged once per 10 s, not each


BUSY_SERVER = """
import asyncio, resource, sys, time
from aiohttp import web
from ggp.protocol.httpguard import CappedSite, cap_connections

resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


async def ok(request: web.Request) -> web.Response:
    return web.Response(text="ok")


async def main() -> None:
    app = web.Application()
    cap_connections(app, limit=128)
    app.router.add_get("/", ok)
    runner = web.AppRunner(app)
    await runner.setup()
    site = CappedSite(runner, "127.0.0.1", 0)
    await site.start()
    print(site.port, flush=True)
    time.sleep(3)  # a busy event loop: every connection of the burst waits in the kernel's queue
    await asyncio.sleep(120)

asyncio.run(main())
"""


async def test_a_burst_queued_while_the_loop_is_busy_is_accepted_without_running_out_of_descriptors(
        tmp_path: Path) -> None:
    """400 connections wait in the queue of a server at 256 descriptors (cap 128) whose loop is busy: it
    accepts them a batch at a time, shedding as it goes, instead of all at once into EMFILE (the
    traceback per failed accept that once filled a player's log with 9,552 lines)."""
    log = tmp_path / "server.log"
    with log.open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", BUSY_SERVER, stdout=asyncio.subprocess.PIPE, stderr=stderr)
    writers: list[asyncio.StreamWriter] = []
    try:
        assert process.stdout is not None
        port = int(await asyncio.wait_for(process.stdout.readline(), 60))
        for _ in range(400):
            writers.append((await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10))[1])
        async with (aiohttp.ClientSession() as session,
                    session.get(f"http://127.0.0.1:{port}/", timeout=aiohttp.ClientTimeout(total=20)) as response):
            assert response.status == 200
            assert await response.text() == "ok"
    finally:
        for writer in writers:
            writer.close()
        process.kill()
        await process.wait()
    text = log.read_text()
    assert "out of system resource" not in text and "Traceback" not in text, text[:2000]
