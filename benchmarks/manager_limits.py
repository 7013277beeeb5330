"""The manager's limits in figures (issue 20): time to abort a wedged match, memory after 20 uploads, idle
connections held while the server still answers.

    PYTHONPATH=. python benchmarks/manager_limits.py [--call-s 10] [--uploads 20] [--idle 1000]

1. A match of a game whose reasoner hangs at its second step (tests/helpers/manager_machines.py's late
   wedge game), default limits: seconds from the start of the hanging step to the aborted record, and whether a
   second match of the same game plays again (worker replaced).
2. ``--uploads`` versions of kif/ticTacToe (the ``auto`` engine, as ``ggp serve``): the manager's own
   resident memory before and after, and the workers kept (their resident memory is bounded by
   ``cache_mb``).
3. ``--idle`` idle connections to the manager's web server, then GET /api/players: how many connections the
   server holds, how many it shed, and the request's status and latency.
4. The price of the worker: wall time and manager CPU per reasoner call (ticTacToe's legal moves, clingo).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import time
from pathlib import Path

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.commands._manager_glue import machine_factory
from ggp.manager.app import create_app
from ggp.manager.match_requests import MatchRequest
from ggp.manager.reasoning import ReasonerLimits, Reasoners
from ggp.manager.runner import Deadlines
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from ggp.protocol.server import CONNECTIONS, IDLE_TIMEOUT_S, CappedSite
from tests.helpers.manager_machines import LATE_WEDGE_KIF, machine_for_description
from tests.integration.test_manager_load import random_counter_player

ROOT = Path(__file__).resolve().parents[1]


def resident_mb(pid: int | None = None) -> float:
    with open(f"/proc/{pid or 'self'}/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


async def wedged(call_s: float) -> None:
    store = Store(":memory:")
    limits = ReasonerLimits(call_s=call_s)
    manager = Manager(store, machine_for_description, settings=ManagerSettings(
        deadlines=Deadlines(5.0, 2.0, 1.0, 1.0, 2.0), reasoner=limits))
    servers = []
    try:
        for seed, name in enumerate(("one", "two"), 1):
            server = TestServer(random_counter_player(seed))
            await server.start_server()
            servers.append(server)
            manager.register_player(name, url=str(server.make_url("/")))
        await manager.add_game("wedge", LATE_WEDGE_KIF)
        match_id = await manager.start_match(MatchRequest("wedge", ("one", "two"), 5, 1, seed=1))
        while (record := manager.live(match_id)) is not None and record.step < 1:
            await asyncio.sleep(0.01)
        hung = time.monotonic()  # step 1 recorded: the second step's call hangs
        final = await manager.wait(match_id)
        aborted_s = time.monotonic() - hung
        assert final is not None and final.is_aborted
        again = await manager.start_match(MatchRequest("wedge", ("one", "two"), 5, 1, seed=2))
        replaced = time.monotonic()
        while (record := manager.live(again)) is not None and record.step < 1:
            await asyncio.sleep(0.01)
        replay_s = time.monotonic() - replaced
        await manager.abort(again)
        print(f"wedged match (call limit {call_s:g} s): aborted {aborted_s:.2f} s after its hanging call began: "
              f"{final.abort_detail!r}")
        print(f"  a new match of that game played its first step {replay_s:.2f} s later (fresh worker)")
    finally:
        await manager.close()
        for server in servers:
            await server.close()
        store.close()


async def uploads(count: int) -> None:
    store = Store(":memory:")
    manager = Manager(store, machine_factory("auto"))
    text = (ROOT / "kif" / "ticTacToe" / "ticTacToe.kif").read_text()
    try:
        before = resident_mb()
        started = time.monotonic()
        for version in range(1, count + 1):
            await manager.add_game("ticTacToe", f"{text}\n(version v{version})")
        elapsed = time.monotonic() - started
        after = resident_mb()
        kept = manager.reasoners.cached_games()
        cache_mb = manager.reasoners.cached_bytes() / 2**20
        print(f"{count} uploads of new ticTacToe versions (auto engine) in {elapsed:.1f} s: manager resident "
              f"{before:.0f} -> {after:.0f} MB; {kept} workers kept, {cache_mb:.0f} MB together "
              f"(bound {manager.settings.reasoner.cache_mb} MB)")
    finally:
        await manager.close()
        store.close()


async def idle(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2 * count + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * count + 200), hard))
    store = Store(":memory:")
    manager = Manager(store, machine_for_description)
    app = create_app(manager)
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=IDLE_TIMEOUT_S)
    await runner.setup()
    site = CappedSite(runner, "127.0.0.1", 0)
    await site.start()
    writers = []
    try:
        for _ in range(count):
            writers.append((await asyncio.open_connection("127.0.0.1", site.port))[1])
        await asyncio.sleep(0.5)
        assert runner.server is not None
        held = len([c for c in runner.server.connections if c.transport is not None])
        async with aiohttp.ClientSession() as session:
            asked = time.monotonic()
            async with session.get(f"http://127.0.0.1:{site.port}/api/players") as response:
                status = response.status
            latency = time.monotonic() - asked
        print(f"{count} idle connections to the manager: {held} held, {app[CONNECTIONS].shed} shed; "
              f"GET /api/players answered {status} in {latency * 1000:.0f} ms")
    finally:
        for writer in writers:
            writer.close()
        await runner.cleanup()
        store.close()


async def per_call(calls: int = 500) -> None:
    reasoners = Reasoners(machine_factory("clingo"))
    try:
        slot = await reasoners.load((ROOT / "kif" / "ticTacToe" / "ticTacToe.kif").read_text(), "ticTacToe.kif")
        referee = reasoners.referee(slot)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            await referee.legal()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"one reasoner call through the worker (ticTacToe legal moves, clingo): {wall / calls * 1000:.2f} ms "
              f"wall, {cpu / calls * 1000:.2f} ms manager CPU (mean of {calls})")
    finally:
        await reasoners.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--call-s", type=float, default=ReasonerLimits().call_s)
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument("--idle", type=int, default=1000)
    args = parser.parse_args()
    asyncio.run(wedged(args.call_s))
    asyncio.run(uploads(args.uploads))
    asyncio.run(idle(args.idle))
    asyncio.run(per_call())


if __name__ == "__main__":
    main()
