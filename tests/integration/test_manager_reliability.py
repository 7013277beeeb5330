"""Reliability of ``ggp serve`` as a process (issue 20), on loopback only, bounded in time.

SIGTERM and SIGINT stop it within seconds even while a worker grounds a heavy game, marking the
running matches aborted; ``kill -9`` in the middle of a tournament loses no finished match and the
restart leaves no tournament running.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
import sqlite3
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from tests.helpers.fake_players import FakePlayer, late
from tests.helpers.manager_machines import five_ary_kif

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]

COUNTER = """
(role p1) (role p2) (init (turn 0))
(<= (legal ?r (step 1)) (role ?r))
(<= (next (turn ?n)) (true (turn ?m)) (succ ?m ?n))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9) (succ 9 10)
(<= terminal (true (turn 10)))
(<= (goal ?r 50) (role ?r))
"""
"""Ten steps of ``(step 1)`` for both players, played with the real (clingo) reasoner."""


FOREGROUND = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
              "runpy.run_module('ggp', run_name='__main__', alter_sys=True)")
"""``python -m ggp`` as a foreground program gets it: Ctrl-C interrupts it even when these tests run in the
background, where the shell starts them (and so every process they start) with SIGINT ignored, which
Python, and so ``ggp serve``, rightly keeps."""


class Serve:
    """``ggp serve`` in a subprocess on a free loopback port with its database at ``db``."""

    def __init__(self, process: asyncio.subprocess.Process, url: str) -> None:
        self.process = process
        self.url = url

    @classmethod
    async def start(cls, db: Path) -> Serve:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", FOREGROUND, "serve", "--port", "0", "--no-kif", "--db", str(db),
            stdout=asyncio.subprocess.PIPE)
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert found, line
        return cls(process, found.group(1))

    async def post(self, session: aiohttp.ClientSession, path: str, body: object) -> Any:
        async with session.post(self.url + path, json=body) as response:
            data = await response.json()
            assert response.status in (200, 201), data
            return data

    async def get(self, session: aiohttp.ClientSession, path: str) -> Any:
        async with session.get(self.url + path) as response:
            assert response.status == 200
            return await response.json()

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()


def statuses(db: Path, table: str) -> list[str]:
    with sqlite3.connect(db) as connection:
        return [row[0] for row in connection.execute(f"SELECT status FROM {table}")]


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_stops_the_server_within_seconds_while_a_worker_is_busy(
    sent: signal.Signals, tmp_path: Path, aiohttp_server: ServerFactory,
) -> None:
    """A merrills match once left the manager deaf for 8 minutes, SIGTERM ignored."""
    player = await aiohttp_server(FakePlayer(late("(step 1)", 0.3)).app())
    db = tmp_path / "m.db"
    serve = await Serve.start(db)
    try:
        async with aiohttp.ClientSession() as session:
            await serve.post(session, "/api/games", {"key": "counter", "kif": COUNTER})
            url = str(player.make_url("/"))
            match = await serve.post(session, "/api/matches", {"game": "counter", "players": [url, url],
                                                              "startclock": 5, "playclock": 2})
            heavy = asyncio.create_task(session.post(serve.url + "/api/games", json={"key": "heavy", "kif": five_ary_kif(100)}))
            while (await serve.get(session, f"/api/matches/{match['matchId']}")).get("moves", []) == []:
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)  # the heavy game is grounding in a worker now
            assert not heavy.done()
            signalled = time.monotonic()
            serve.process.send_signal(sent)
            code = await asyncio.wait_for(serve.process.wait(), 30)
            stopped_s = time.monotonic() - signalled
            heavy.cancel()
            await asyncio.gather(heavy, return_exceptions=True)
    finally:
        await serve.stop()
    assert code == 0
    assert stopped_s < 10, f"took {stopped_s:.1f} s to stop"
    assert statuses(db, "matches") == ["aborted"]


@pytest.mark.parametrize("seed", [1, 2])
async def test_kill_9_during_a_tournament_loses_no_finished_match_and_leaves_nothing_running(
    seed: int, tmp_path: Path, aiohttp_server: ServerFactory,
) -> None:
    """A tournament interrupted by a crash once stayed "running" forever."""
    urls = [str((await aiohttp_server(FakePlayer(late("(step 1)", 0.1)).app())).make_url("/")) for _ in range(3)]
    db = tmp_path / "m.db"
    serve = await Serve.start(db)
    try:
        async with aiohttp.ClientSession() as session:
            await serve.post(session, "/api/games", {"key": "counter", "kif": COUNTER})
            for index, url in enumerate(urls):
                await serve.post(session, "/api/players", {"name": f"p{index}", "url": url})
            tournament = await serve.post(session, "/api/tournaments", {
                "name": "t", "game": "counter", "players": ["p0", "p1", "p2"], "matches_per_pairing": 8,
                "startclock": 5, "playclock": 2, "parallel": 2})
            await asyncio.sleep(random.Random(seed).uniform(1.5, 5.0))  # a random moment, fixed by the seed
            finished = await serve.get(session, "/api/matches?status=completed&limit=1000")
            serve.process.kill()
            await serve.process.wait()
        serve = await Serve.start(db)
        async with aiohttp.ClientSession() as session:
            after = await serve.get(session, "/api/matches?status=completed&limit=1000")
            listed = await serve.get(session, "/api/tournaments")
            records = [await serve.get(session, f"/api/matches/{m['matchId']}") for m in finished]
            serve.process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(serve.process.wait(), 30) == 0
    finally:
        await serve.stop()
    assert finished, "no match had finished yet: the moment was too early to test anything"
    assert {m["matchId"] for m in finished} <= {m["matchId"] for m in after}
    assert all(len(r["moves"]) == 10 and r["isCompleted"] for r in records)
    assert [t["status"] for t in listed if t["id"] == tournament["id"]] == ["aborted"]
    assert "running" not in statuses(db, "matches") and "running" not in statuses(db, "tournaments")
