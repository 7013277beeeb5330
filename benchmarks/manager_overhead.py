"""Manager overhead per move: what the manager adds to each step beyond the players' own thinking.

Plays matches of a kif/ game (default ticTacToe, clingo reasoner) between two instant HTTP "legal"
players on loopback, with the SQLite store on disk (WAL), as ``ggp serve`` runs them. The players
run in a separate process, so the manager process's CPU time is the manager's own work:

    overhead per move = manager process CPU seconds / joint moves

which covers the HTTP client (a fresh connection per message), parsing replies, legality checks,
the reasoner, the record and the database. The step wall time (latency, players included) and the
reasoner and store shares are printed too. Target: <= 5 ms.

``--service`` plays the same matches the way ``ggp serve`` and its schedule do: through the manager
service (:class:`~ggp.manager.service.Manager`: the game reasoned in an isolated worker process, one
worker call per step, ratings, the match list), one match at a time after one warm-up match. Then the
overhead is the manager process's CPU plus its reasoner workers' (read from /proc), each per joint move:
the single-match figure that ``benchmarks/manager_schedule.py`` compares the schedule at scale with.

Usage: python benchmarks/manager_overhead.py [--game ticTacToe] [--matches 20] [--engine clingo] [--service]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from ggp.commands._manager_glue import machine_factory
from ggp.files import load_kif
from ggp.gdl.terms import Description
from ggp.manager.match_requests import MatchRequest
from ggp.manager.records import MatchRecord
from ggp.manager.runner import HttpTransport, MatchConfig, Seat, run_match
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.protocol.messages import Play, Start, Stop, parse_message
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import JointMove, Move, Role, State, StateMachine

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def children_cpu_s(parent: int, skip: frozenset[int] = frozenset()) -> float:
    """CPU seconds (user + system) of the live processes whose parent is ``parent``, but those in ``skip``."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in skip:
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


class TimedMachine:
    """Wraps a StateMachine and adds up the seconds spent in it."""

    def __init__(self, inner: StateMachine) -> None:
        self.inner = inner
        self.seconds = 0.0

    def _timed(self, fn: Any, *args: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.seconds += time.perf_counter() - started

    @property
    def roles(self) -> tuple[Role, ...]:
        return self.inner.roles

    def initial_state(self) -> State:
        return self._timed(self.inner.initial_state)  # type: ignore[no-any-return]

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        return self._timed(self.inner.legal_moves, state, role)  # type: ignore[no-any-return]

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return self._timed(self.inner.legal_joint_moves, state)  # type: ignore[no-any-return]

    def next_state(self, state: State, joint_move: JointMove) -> State:
        return self._timed(self.inner.next_state, state, joint_move)  # type: ignore[no-any-return]

    def is_terminal(self, state: State) -> bool:
        return self._timed(self.inner.is_terminal, state)  # type: ignore[no-any-return]

    def goals(self, state: State) -> tuple[int, ...]:
        return self._timed(self.inner.goals, state)  # type: ignore[no-any-return]


class InstantLegalPlayer:
    """An HTTP player that answers at once with its first legal move; times its own handler."""

    def __init__(self, machine: StateMachine) -> None:
        self.machine = machine
        self.seconds = 0.0
        self.state: State | None = None
        self.role: Role | None = None

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.text()
        started = time.perf_counter()
        message = parse_message(body)
        reply = "done"
        if isinstance(message, Start):
            self.role, self.state, reply = message.role, self.machine.initial_state(), "ready"
        elif isinstance(message, Play):
            assert self.state is not None and self.role is not None
            if message.moves is not None:
                self.state = self.machine.next_state(self.state, message.moves)
            reply = str(self.machine.legal_moves(self.state, self.role)[0])
        elif isinstance(message, Stop):
            reply = "done"
        self.seconds += time.perf_counter() - started
        return web.Response(text=reply, content_type="text/acl")


class StepTimer:
    """Observer: per step the wall time, reasoner time and store write time."""

    def __init__(self, store: Store, machine: TimedMachine) -> None:
        self.store, self.machine = store, machine
        self.last = 0.0
        self.reasoner_mark = 0.0
        self.store_seconds = 0.0
        self.steps: list[tuple[float, float, float]] = []  # wall, reasoner, store

    def match_event(self, record: MatchRecord, event: str) -> None:
        started = time.perf_counter()
        self.store.match_event(record, event)
        self.store_seconds += time.perf_counter() - started
        now = time.perf_counter()
        if event == "step":
            self.steps.append((now - self.last, self.machine.seconds - self.reasoner_mark, self.store_seconds))
        self.store_seconds = 0.0
        self.last, self.reasoner_mark = now, self.machine.seconds


def _players_process(game: str, engine: str, count: int, urls: Any, stop: Any) -> None:
    """Child process: serve ``count`` instant legal players; send their URLs; run until ``stop``."""

    async def main() -> None:
        description = load_kif(Path(game))
        runners = []
        for _ in range(count):
            player = InstantLegalPlayer(make_machine(description, engine))
            app = web.Application()
            app.router.add_post("/", player.handle)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            host, port = runner.addresses[0][:2]
            urls.put(f"http://{host}:{port}/")
            runners.append(runner)
        while not stop.is_set():
            await asyncio.sleep(0.05)
        for runner in runners:
            await runner.cleanup()

    asyncio.run(main())


async def bench(description: Description, engine: str, matches: int, db: Path,
                urls: list[str]) -> tuple[list[tuple[float, float, float]], float]:
    """Run the matches; returns the per-step timings and the manager's CPU seconds during them."""
    machine = TimedMachine(make_machine(description, engine))
    seats = tuple(Seat(f"legal{i}", url, "remote") for i, url in enumerate(urls))
    store = Store(db)
    timer = StepTimer(store, machine)
    try:
        async with HttpTransport() as transport:
            cpu = time.process_time()
            for n in range(matches):
                config = MatchConfig(match_id=f"bench.{n}", game_key="bench", description=description,
                                     seats=seats, start_clock=5, play_clock=5, seed=n)
                timer.last = time.perf_counter()
                timer.reasoner_mark = machine.seconds
                record = await run_match(machine, config, transport, timer)
                assert record.is_completed and not any(code for row in record.errors for code in row)
            cpu = time.process_time() - cpu
    finally:
        store.close()
    return timer.steps, cpu


async def bench_service(path: Path, engine: str, matches: int, db: Path, urls: list[str],
                        players_pid: int) -> tuple[int, int, float, float]:
    """Run the matches through the manager service, one at a time after a warm-up one; returns the joint
    moves, the player requests (START, PLAYs, STOP) and the CPU seconds of this process and of its reasoner
    workers during them."""
    manager = Manager(Store(db), machine_factory(engine))
    try:
        await manager.add_game("bench", path.read_text(encoding="utf-8"))
        names = tuple(f"legal{i}" for i in range(len(urls)))
        for name, url in zip(names, urls):
            manager.register_player(name, url=url)
        moves, requests, cpu, workers = 0, 0, 0.0, 0.0
        for n in range(matches + 1):
            if n == 1:  # the first match loaded the game into a worker: not counted
                moves, requests = 0, 0
                cpu, workers = time.process_time(), children_cpu_s(os.getpid(), frozenset({players_pid}))
            record = await manager.wait(await manager.start_match(MatchRequest("bench", names, 5, 5, seed=n)))
            assert record is not None and record.is_completed and not any(c for row in record.errors for c in row)
            moves += record.step
            requests += len(names) * (record.step + 2)
        cpu = time.process_time() - cpu
        workers = children_cpu_s(os.getpid(), frozenset({players_pid})) - workers
    finally:
        await manager.close()
    return moves, requests, cpu, workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="ticTacToe")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--engine", default="clingo")
    parser.add_argument("--service", action="store_true", help="through the manager service, as ggp serve plays")
    args = parser.parse_args()
    path = Path(args.game) if Path(args.game).is_file() else ROOT / "kif" / args.game / f"{args.game}.kif"
    description = load_kif(path)
    roles = len(description.roles)
    context = multiprocessing.get_context("spawn")
    url_queue, stop = context.Queue(), context.Event()
    process = context.Process(target=_players_process, args=(str(path), args.engine, roles, url_queue, stop))
    process.start()
    try:
        urls = [url_queue.get(timeout=60) for _ in range(roles)]
        with tempfile.TemporaryDirectory() as tmp:
            if args.service:
                assert process.pid is not None
                moves, requests, cpu, workers = asyncio.run(bench_service(path, args.engine, args.matches, Path(tmp) / "bench.db",
                                                                urls, process.pid))
            else:
                steps, cpu = asyncio.run(bench(description, args.engine, args.matches, Path(tmp) / "bench.db", urls))
    finally:
        stop.set()
        process.join(10)
    if args.service:
        print(f"{path.stem} ({args.engine}) through the manager service, {args.matches} matches after a warm-up one, "
              f"{moves} joint moves, {roles} instant HTTP players in another process")
        print(f"  manager CPU per move  {cpu / moves * 1000:6.2f} ms in the manager process + "
              f"{workers / moves * 1000:.2f} ms in its reasoner workers (START and STOP included); "
              f"{requests / moves:.2f} player requests per joint move, {cpu / requests * 1000:.2f} ms of the manager "
              f"process per request")
        return

    def ms(values: list[float]) -> float:
        return statistics.median(values) * 1000

    print(f"{path.stem} ({args.engine}), {args.matches} matches, {len(steps)} joint moves, "
          f"{roles} instant HTTP players in another process")
    print(f"  manager CPU per move  {cpu / len(steps) * 1000:6.2f} ms   (START and STOP included)")
    print(f"  step wall time        median {ms([s[0] for s in steps]):6.2f} ms (players included)")
    print(f"    reasoner            median {ms([s[1] for s in steps]):6.2f} ms")
    print(f"    store               median {ms([s[2] for s in steps]):6.2f} ms")


if __name__ == "__main__":
    main()
