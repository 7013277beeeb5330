"""Attack 1 of issue 31: connections that send a body one byte at a time must not shut everyone out.

Before, a request whose body was still coming counted as "answering" and was never cut: 600 of them kept
the player answering every new INFO with 503 (the manager every GET), and each one dropped logged a
traceback. Now the body has a deadline, one address may have only so many unfinished requests, and at
the connection limit the slow ones give way; each cut is one rate-limited line.
"""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import pytest
from aiohttp import web

from ggp.protocol.httpguard import CONNECTIONS
from tests.reliability.conftest import closed_by_server, slow_body

SLOW = 40
"""Slow-body connections per test: twice the connection limit the tests set."""


async def hold_slow_bodies(port: int, path: str = "/") -> list[asyncio.StreamWriter]:
    writers = []
    for _ in range(SLOW):
        writers.append((await slow_body(port, path))[1])
    await asyncio.sleep(0.3)  # let the server read every set of headers
    return writers


def tighten(app: web.Application) -> None:
    """A cap of 20 open connections and 8 unfinished requests per address (the defaults: 512 and 32)."""
    cap = app[CONNECTIONS]
    cap.limit, cap.per_client = 20, 8


async def test_a_player_answers_info_while_slow_bodies_fill_its_connections(
        player_app: tuple[web.Application, int], caplog: pytest.LogCaptureFixture) -> None:
    app, port = player_app
    tighten(app)
    writers = await hold_slow_bodies(port)
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(3):
                async with session.post(f"http://127.0.0.1:{port}/", data="(INFO)",
                                        timeout=aiohttp.ClientTimeout(total=20)) as response:
                    assert response.status == 200
                    assert "available" in await response.text()
    finally:
        for writer in writers:
            writer.close()
    assert app[CONNECTIONS].cut >= SLOW - 8
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.levelno >= logging.ERROR]
    cut_lines = [r for r in caplog.records if "cut a connection" in r.getMessage()]
    assert 1 <= len(cut_lines) <= 5  # one line each, at most 5 per 10 s


async def test_the_manager_answers_gets_while_slow_bodies_fill_its_connections(
        manager_app: tuple[web.Application, int], caplog: pytest.LogCaptureFixture) -> None:
    app, port = manager_app
    tighten(app)
    writers = await hold_slow_bodies(port, "/api/players")
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(3):
                async with session.get(f"http://127.0.0.1:{port}/api/games",
                                       timeout=aiohttp.ClientTimeout(total=20)) as response:
                    assert response.status == 200
    finally:
        for writer in writers:
            writer.close()
    assert app[CONNECTIONS].cut >= SLOW - 8
    assert "Traceback" not in caplog.text


async def test_a_body_that_does_not_arrive_in_time_is_cut(player_app: tuple[web.Application, int]) -> None:
    app, port = player_app
    app[CONNECTIONS].read_s = 0.5  # 10 s by default
    reader, writer = await slow_body(port)
    try:
        assert await closed_by_server(reader)
    finally:
        writer.close()
    assert app[CONNECTIONS].cut == 1


async def test_a_complete_request_is_never_cut_by_slow_ones(player_app: tuple[web.Application, int]) -> None:
    """A START being answered holds its connection while slow bodies come and go."""
    app, port = player_app
    tighten(app)
    async with aiohttp.ClientSession() as session:
        start = asyncio.ensure_future(session.post(
            f"http://127.0.0.1:{port}/", data="(START m1 first ((role first) (role second)) 1 1)",
            timeout=aiohttp.ClientTimeout(total=20)))
        writers = await hold_slow_bodies(port)
        try:
            async with await start as response:
                assert response.status == 200 and await response.text() == "ready"
        finally:
            for writer in writers:
                writer.close()
