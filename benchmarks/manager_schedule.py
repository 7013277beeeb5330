"""Continuous scheduling at scale: N registered players, G games, the schedule running for D seconds.

The players (``tests/helpers/step_players.py``: INFO ``available``, a random ``(step 1)``/``(step 2)``
after ``--think`` seconds) run in another process on consecutive loopback ports from ``--first-port``;
the games are G step games (1 to 4 roles, 3 to 20 turns; real GDL, reasoned by the manager's clingo
workers); the manager (store on disk, the ``auto`` engine, as ``ggp serve``) runs here with the scheduler
pairing every ``--round`` seconds. Every 5 s the benchmark looks at every running match: a match whose
last state is older than its play clock + 1 s grace + 5 s is counted *stuck*. At the end the schedule
is stopped and the running matches get 60 s to finish; a match still running then is stuck too.

Printed: matches completed and aborted, joint moves, request errors, matches per player and per game
(fairness), the most matches running at once, and the manager's CPU per joint move, of this process
(event loop: HTTP, records, SQLite, scheduling) and of its reasoner workers (read from /proc).

Usage: PYTHONPATH=. python benchmarks/manager_schedule.py [--players 50] [--games 20] [--seconds 600]
       [--first-port 28100] [--think 0.2] [--round 1] [--playclock 2] [--fresh 10] [--cache-mb 1024]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from manager_overhead import children_cpu_s

from ggp.commands._manager_glue import machine_factory
from ggp.manager.reasoning import ReasonerLimits
from ggp.manager.scheduler import Scheduler, ScheduleSettings
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.step_players import step_games

ROOT = Path(__file__).resolve().parents[1]


async def bench(args: argparse.Namespace) -> int:
    ports = [args.first_port + i for i in range(args.players)]
    farm = subprocess.Popen([sys.executable, "-m", "tests.helpers.step_players", str(args.think), *map(str, ports)],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert farm.stdout is not None
    if farm.stdout.readline().strip() != "ready":
        print("the players did not start (ports busy?)", file=sys.stderr)
        return 1
    db = Path(tempfile.mkdtemp(prefix="ggp-schedule-")) / "manager.db"
    store = Store(db)
    manager = Manager(store, machine_factory("auto"),
                      settings=ManagerSettings(reasoner=ReasonerLimits(cache_mb=args.cache_mb)))
    stuck: set[str] = set()
    most_running = 0
    try:
        for key, kif in step_games(args.games).items():
            await manager.add_game(key, kif)
        for index, port in enumerate(ports):
            manager.register_player(f"bot{index:02d}", url=f"http://127.0.0.1:{port}/")
        scheduler = Scheduler(manager, ScheduleSettings(round_s=args.round, start_clock=args.startclock,
                                                        play_clock=args.playclock, fresh_s=args.fresh, seed=1))
        cpu0, workers0, wall0 = time.process_time(), children_cpu_s(os.getpid()), time.monotonic()
        scheduler.start()
        while time.monotonic() - wall0 < args.seconds:
            await asyncio.sleep(5)
            now_ms = time.time() * 1000
            running = manager.running_ids()
            most_running = max(most_running, len(running))
            for match_id in running:
                record = manager.live(match_id)
                if record is not None and record.state_times and \
                        now_ms - record.state_times[-1] > (record.play_clock + 1 + 5) * 1000:
                    stuck.add(match_id)
            print(f"{time.monotonic() - wall0:5.0f} s: {len(running)} running, {len(scheduler.started)} started, "
                  f"{len(stuck)} stuck", flush=True)
        await scheduler.stop()
        left = manager.running_ids()
        await asyncio.wait_for(asyncio.gather(*(manager.wait(m) for m in left)), 60)
        stuck.update(manager.running_ids())
        cpu, workers, wall = (time.process_time() - cpu0, children_cpu_s(os.getpid()) - workers0,
                              time.monotonic() - wall0)
    finally:
        await manager.close()
        farm.kill()
        farm.wait(10)
        farm.stdout.close()
    records = [store.match(m) for m in scheduler.started]
    store.close()
    done = [r for r in records if r is not None]
    completed = [r for r in done if r.is_completed]
    aborted = [r for r in done if r.is_aborted]
    moves = sum(r.step for r in done)
    errors = Counter(code.split()[0] for r in done for row in r.errors for code in row if code)
    per_player = Counter(name for r in done for name in r.player_names)
    per_game = Counter(r.game_key for r in done)
    print(f"{args.players} players, {args.games} games, {wall:.0f} s (schedule {args.seconds} s), "
          f"round {args.round} s, clocks {args.startclock}/{args.playclock} s, think {args.think} s, "
          f"reasoner cache {args.cache_mb} MB, load average at the end {os.getloadavg()[0]:.1f}")
    print(f"matches: {len(done)} ({len(completed)} completed, {len(aborted)} aborted), joint moves {moves}, "
          f"most running at once {most_running}, stuck {len(stuck)}")
    print(f"request errors: {dict(errors) or 'none'}; pings {scheduler.pings} (fresh {args.fresh:g} s)")
    print(f"matches per player: min {min(per_player.values())} median {statistics.median(per_player.values()):g} "
          f"max {max(per_player.values())}; per game: min {min(per_game.values())} max {max(per_game.values())} "
          f"over {len(per_game)} games")
    requests = sum(len(r.player_names) * (r.step + 2) for r in done)  # START, one PLAY per step, STOP
    if moves:
        print(f"manager CPU per joint move: {1000 * cpu / moves:.2f} ms in the manager process "
              f"+ {1000 * workers / moves:.2f} ms in its reasoner workers; {requests / moves:.2f} player requests "
              f"per joint move (pings not counted), {1000 * cpu / requests:.2f} ms of the manager process per request")
    return 0 if not stuck and not aborted else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--first-port", type=int, default=28100)
    parser.add_argument("--think", type=float, default=0.2, help="seconds each player takes per move")
    parser.add_argument("--round", type=float, default=1.0, help="seconds between scheduling rounds")
    parser.add_argument("--startclock", type=int, default=5)
    parser.add_argument("--playclock", type=int, default=2)
    parser.add_argument("--fresh", type=float, default=ScheduleSettings().fresh_s,
                        help="seconds a clean finish stands for a ping (0: ping every idle player every round)")
    parser.add_argument("--cache-mb", type=int, default=1024, help="the manager's reasoner worker cache (serve: "
                        "--reasoner-cache-mb); 20 games need about 600 MB, or each match reloads its game")
    return asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
