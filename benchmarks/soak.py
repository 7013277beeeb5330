"""A soak with chaos for the scheduled site: is a `ggp serve --schedule` that is killed again and again still right?

Issue 43's first item. Loopback only and bounded (``--minutes``). The script runs

- the manager as a separate process, ``python -m ggp serve --schedule`` with its store on disk in ``--dir``
  and the step games of ``tests/helpers/step_players.py`` as its repository, and kills it with SIGKILL at
  random moments (``--kill-every MIN,MAX`` seconds), restarting it at once;
- ``--players`` players in one helper process (``benchmarks/soak_players.py``): honest, slow, garbage,
  silent and crashing ones, registered once through ``POST /api/players`` (a reused ``--dir`` keeps them);
- a GET poller (every ``--poll`` s one of the manager's pages, in turn); a watcher that lists the matches
  every 5 s, remembers every match the manager showed (*acknowledged*) and checks every running one for
  a state older than its clock + ``--grace`` s (*stuck*); a creator that starts a match between honest
  players through ``POST /api/matches`` now and then (acknowledged by its 201); an RSS sampler
  (``/proc/PID/status`` VmRSS of the manager every 5 s).

At the end the players are paused, the running matches get ``--final-s`` s to finish (a match still running
then is stuck), the manager is stopped with SIGTERM and the report is printed and appended to ``--out``
(see ``benchmarks/soak_report.py``): matches completed, aborted by reason, lost, stuck, GET latency
percentiles outside the ``--window`` s after each (re)start, the manager's RSS over time and its growth,
and whether Elo and Agon recomputed from the archive equal the stored ratings, then one PASS/FAIL line per
goal. Pieces: run again with the same ``--dir`` and the soak goes on (its state is ``DIR/soak-state.json``;
the report covers every piece so far).

Usage: PYTHONPATH=. python benchmarks/soak.py --dir /tmp/soak --minutes 60 [--players 50] [--games 10]
       [--kill-every 180,480] [--clocks 5,2] [--out benchmarks/data/soak_DATE.txt]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from soak_players import kind_of
from soak_report import report_lines, summarize

from tests.helpers.step_players import step_games

ROOT = Path(__file__).resolve().parents[1]
POLLED = ("/healthz", "/api/matches?limit=100", "/api/players", "/api/schedule", "/api/ratings", "/metrics",
          "/api/matches?status=running")
"""The pages the poller GETs, one a poll, in turn."""


@dataclass
class Soak:
    """One piece of a soak: settings, the manager process and what was seen."""

    args: argparse.Namespace
    state: dict[str, Any]
    session: aiohttp.ClientSession
    manager: subprocess.Popen[bytes] | None = None
    up_since: float = 0.0  # monotonic time the manager answered after its last start; 0 while down
    lifetime: int = 0
    began: float = field(default_factory=time.monotonic)
    stopping: bool = False
    clocks: tuple[int, int] = (5, 2)
    first_seen: dict[str, float] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.args.port}"

    @property
    def db(self) -> Path:
        return Path(self.args.dir) / "manager.db"

    def run_s(self) -> float:
        """Seconds of soak so far, over every piece."""
        return float(self.state["seconds"]) + time.monotonic() - self.began

    def measuring(self) -> bool:
        """Whether the manager is up and out of its restart window."""
        return bool(self.up_since) and time.monotonic() - self.up_since >= self.args.window

    async def get(self, path: str) -> Any:
        """GET a page of the manager (JSON when it is JSON); records its latency outside restart windows.
        Returns ``None`` when the manager did not answer with 200."""
        measuring = self.measuring()
        began = time.perf_counter()
        try:
            async with self.session.get(self.url + path) as response:
                body = await response.read()
                status = response.status
        except (TimeoutError, aiohttp.ClientError):
            status, body = 0, b""
        ms = 1000 * (time.perf_counter() - began)
        if measuring and self.measuring():
            if status == 200:
                key = "/api/matches/{id}" if path.startswith("/api/matches/") else path
                self.state["latency"].setdefault(key, []).append(round(ms, 2))
            else:
                self.state["get_errors"] += 1
        if status != 200:
            return None
        return json.loads(body) if body[:1] in (b"[", b"{") else body

    async def post(self, path: str, data: dict[str, Any] | None = None) -> tuple[int, Any]:
        try:
            async with self.session.post(self.url + path, json=data or {}) as response:
                return response.status, await response.json(content_type=None)
        except (TimeoutError, aiohttp.ClientError, ValueError):
            return 0, None


def manager_command(args: argparse.Namespace, games: Path) -> list[str]:
    start, play = args.clocks.split(",")
    return [sys.executable, "-m", "ggp", "serve", "--db", str(Path(args.dir) / "manager.db"), "--port", str(args.port),
            "--no-kif", "--repository", str(games), "--schedule", "--schedule-round", str(args.round),
            "--schedule-clocks", f"{start},{play}", "--retry-suspended", str(args.retry_suspended),
            "--reasoner-cache-mb", str(args.cache_mb)]


async def start_manager(soak: Soak) -> None:
    """Start the manager and wait until ``/healthz`` answers."""
    games = Path(soak.args.dir) / "games"
    log = (Path(soak.args.dir) / "manager.log").open("ab")
    soak.manager = subprocess.Popen(manager_command(soak.args, games), stdout=log, stderr=subprocess.STDOUT,
                                    cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)
    log.close()
    soak.lifetime += 1
    started = time.monotonic()
    while time.monotonic() - started < 120:
        if soak.manager.poll() is not None:
            raise SystemExit(f"the manager exited ({soak.manager.returncode}); see {soak.args.dir}/manager.log")
        try:
            async with soak.session.get(soak.url + "/healthz") as response:
                if response.status == 200:
                    soak.up_since = time.monotonic()
                    soak.state["starts"].append([round(soak.run_s(), 1), soak.manager.pid])
                    return
        except (TimeoutError, aiohttp.ClientError):
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("the manager did not answer /healthz within 120 s")


async def kill_manager(soak: Soak, sig: int = signal.SIGKILL) -> None:
    soak.up_since = 0.0
    assert soak.manager is not None
    soak.manager.send_signal(sig)
    for _ in range(300):
        if soak.manager.poll() is not None:
            return
        await asyncio.sleep(0.1)
    soak.manager.kill()
    soak.manager.wait()


async def chaos(soak: Soak) -> None:
    """SIGKILL the manager every ``--kill-every`` seconds (uniform between the two), then restart it."""
    low, high = (float(x) for x in soak.args.kill_every.split(","))
    rng = random.Random(soak.args.seed)
    while True:
        await asyncio.sleep(rng.uniform(low, high))
        await kill_manager(soak)
        soak.state["kills"] += 1
        print(f"{soak.run_s() / 60:6.1f} min: manager killed (SIGKILL), restarting", flush=True)
        await asyncio.sleep(rng.uniform(0.0, 2.0))
        await start_manager(soak)


async def poll(soak: Soak) -> None:
    """GET one of :data:`POLLED` every ``--poll`` seconds."""
    index = 0
    while True:
        await asyncio.sleep(soak.args.poll)
        if soak.up_since:
            await soak.get(POLLED[index % len(POLLED)])
            index += 1


def overdue(record: dict[str, Any], first_seen: float, grace: float) -> bool:
    """Whether a running match's last state is older than its clock + ``grace`` seconds."""
    now_ms = time.time() * 1000
    times = record.get("stateTimes") or []
    start, play = float(record.get("startClock", 0)), float(record.get("playClock", 0))
    if not times:
        return bool(time.time() - first_seen > start + play + grace)
    allowed = (start + play if len(times) == 1 else play) + grace
    return bool(now_ms - times[-1] > allowed * 1000)


async def watch_once(soak: Soak) -> int:
    """List the matches, note the new ones, check the running ones; returns how many are running (-1: down)."""
    up_since = soak.up_since
    running = await soak.get("/api/matches?status=running&limit=1000")
    recent = await soak.get("/api/matches?limit=300")
    if running is None or recent is None:
        return -1
    for match in [*running, *recent]:
        soak.state["seen"].setdefault(match["matchId"], match["status"])
        soak.first_seen.setdefault(match["matchId"], time.time())
    for match in running:
        record = await soak.get(f"/api/matches/{match['matchId']}")
        if record is None or record.get("isCompleted") or record.get("isAborted"):
            continue
        if soak.up_since == up_since and overdue(record, soak.first_seen[match["matchId"]], soak.args.grace) \
                and match["matchId"] not in soak.state["stuck"]:
            soak.state["stuck"].append(match["matchId"])
            print(f"{soak.run_s() / 60:6.1f} min: STUCK {match['matchId']} (states at {record.get('stateTimes')})",
                  flush=True)
    return len(running)


async def watch(soak: Soak) -> None:
    """:func:`watch_once` every 5 s; a progress line every minute."""
    next_line = soak.run_s()
    while True:
        await asyncio.sleep(5)
        if soak.up_since:
            count = await watch_once(soak)
            if count >= 0 and soak.run_s() >= next_line:
                next_line = soak.run_s() + 60
                print(f"{soak.run_s() / 60:6.1f} min: {count} running, {len(soak.state['seen'])} acknowledged, "
                      f"{len(soak.state['stuck'])} stuck, {soak.state['kills']} kills", flush=True)


async def create(soak: Soak) -> None:
    """Now and then start a match between honest players through the API (acknowledged by its 201)."""
    rng = random.Random(soak.args.seed + 1)
    honest = [name for name in player_names(soak.args) if name.startswith("honest")]
    games = list(step_games(soak.args.games))
    while True:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * soak.args.create_every)
        if not soak.measuring():
            continue
        game = rng.choice(games)
        roles = int(game[len("step"):].split("x")[0])
        start, play = soak.clocks
        status, reply = await soak.post("/api/matches", {"game": game, "players": rng.sample(honest, roles),
                                                         "startclock": start, "playclock": play})
        if status == 201:
            soak.state["created"].append(reply["matchId"])
            soak.first_seen.setdefault(reply["matchId"], time.time())


async def sample_rss(soak: Soak) -> None:
    while True:
        if soak.up_since and soak.manager is not None:
            try:
                status = Path(f"/proc/{soak.manager.pid}/status").read_text()
            except OSError:
                status = ""
            for line in status.splitlines():
                if line.startswith("VmRSS:") and soak.up_since:
                    soak.state["rss"].append([round(soak.run_s(), 1), soak.lifetime,
                                              round(time.monotonic() - soak.up_since, 1), int(line.split()[1])])
        await asyncio.sleep(5)


def player_names(args: argparse.Namespace) -> list[str]:
    return [f"{kind_of(index)}{index:02d}" for index in range(args.players)]


async def register(soak: Soak) -> None:
    """Register the players the manager does not know yet, and resume them all (the last piece paused them)."""
    known = {player["name"] for player in await soak.get("/api/players") or []}
    for index, name in enumerate(player_names(soak.args)):
        if name not in known:
            status, reply = await soak.post("/api/players", {"name": name,
                                                             "url": f"http://127.0.0.1:{soak.args.first_port + index}/"})
            if status != 201:
                raise SystemExit(f"registering {name}: {status} {reply}")
        await soak.post(f"/api/players/{name}/resume")


async def final_stop(soak: Soak) -> None:
    """Pause every player, give the running matches ``--final-s`` s to end (still running then: stuck)."""
    for name in player_names(soak.args):
        await soak.post(f"/api/players/{name}/pause")
    deadline = time.monotonic() + soak.args.final_s
    while time.monotonic() < deadline:
        count = await watch_once(soak)
        if count == 0:
            break
        await asyncio.sleep(2)
    running = await soak.get("/api/matches?status=running&limit=1000") or []
    for match in running:
        if match["matchId"] not in soak.state["stuck"]:
            soak.state["stuck"].append(match["matchId"])
            print(f"still running after the final {soak.args.final_s} s: {match['matchId']}", flush=True)
    await kill_manager(soak, signal.SIGTERM)


def load_state(directory: Path) -> dict[str, Any]:
    path = directory / "soak-state.json"
    if path.exists():
        state: dict[str, Any] = json.loads(path.read_text())
        return state
    return {"seconds": 0.0, "pieces": 0, "kills": 0, "seen": {}, "created": [], "stuck": [], "latency": {},
            "get_errors": 0, "rss": [], "starts": []}


def prepare(args: argparse.Namespace) -> None:
    """The soak directory: the step games as ``<key>.kif`` files, the manager's repository."""
    games = Path(args.dir) / "games"
    games.mkdir(parents=True, exist_ok=True)
    for key, kif in step_games(args.games).items():
        (games / f"{key}.kif").write_text(kif)


def start_farm(args: argparse.Namespace) -> subprocess.Popen[str]:
    ports = [str(args.first_port + index) for index in range(args.players)]
    play = args.clocks.split(",")[1]
    farm = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "soak_players.py"), play, str(args.seed), *ports],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert farm.stdout is not None
    if farm.stdout.readline().strip() != "ready":
        farm.kill()
        farm.wait()
        farm.stdout.close()
        raise SystemExit("the players did not start (ports busy?)")
    return farm


async def soak_piece(args: argparse.Namespace) -> dict[str, Any]:
    """Run one piece of the soak and return its summary (every piece so far)."""
    directory = Path(args.dir)
    prepare(args)
    state = load_state(directory)
    farm = start_farm(args)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        soak = Soak(args, state, session, lifetime=len(state["starts"]))
        start, play = args.clocks.split(",")
        soak.clocks = (int(start), int(play))
        tasks: list[asyncio.Task[None]] = []
        try:
            await start_manager(soak)
            await register(soak)
            tasks = [asyncio.create_task(job(soak)) for job in (chaos, poll, watch, create, sample_rss)]
            await asyncio.sleep(args.minutes * 60)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if soak.up_since == 0.0:
                await start_manager(soak)
            await final_stop(soak)
        finally:
            for task in tasks:
                task.cancel()
            if soak.manager is not None and soak.manager.poll() is None:
                soak.manager.kill()
                soak.manager.wait()
            farm.kill()
            farm.wait()
            if farm.stdout is not None:
                farm.stdout.close()
            state["seconds"] += time.monotonic() - soak.began
            state["pieces"] += 1
            (directory / "soak-state.json").write_text(json.dumps(state))
    warmup = min(args.warmup * 60, state["seconds"] / 3)
    summary = summarize(soak.db, state, warmup, args.equal_uptime)
    lines = [f"{time.strftime('%Y-%m-%d %H:%M')}: {' '.join(sys.argv[1:]) or 'defaults'}; warm-up {warmup / 60:.1f} min",
             *report_lines(summary, state)]
    print("\n".join(lines), flush=True)
    if args.out:
        with Path(args.out).open("a") as out:
            out.write("\n".join(lines) + "\n\n")
    return summary


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parse.add_argument
    add("--dir", required=True, help="the soak's directory: the manager's database, games, log and soak state")
    add("--minutes", type=float, default=5.0, help="length of this piece")
    add("--players", type=int, default=50)
    add("--games", type=int, default=10, help="step games (1 to 4 roles, 3 to 20 turns)")
    add("--port", type=int, default=28090, help="the manager's port")
    add("--first-port", type=int, default=28100, help="the players' first port")
    add("--kill-every", default="180,480", help="MIN,MAX seconds between SIGKILLs of the manager")
    add("--clocks", default="5,2", help="START,PLAY clocks of the scheduled matches")
    add("--round", type=float, default=2.0, help="seconds between scheduling rounds")
    add("--retry-suspended", type=int, default=60, help="seconds before a suspended player is retried")
    add("--cache-mb", type=int, default=512, help="the manager's reasoner cache")
    add("--poll", type=float, default=1.0, help="seconds between GETs of the poller")
    add("--window", type=float, default=30.0, help="seconds after a (re)start left out of the latency percentiles")
    add("--grace", type=float, default=6.0, help="seconds past a clock before a running match counts as stuck")
    add("--create-every", type=float, default=20.0, help="mean seconds between matches created by POST")
    add("--final-s", type=float, default=120.0, help="seconds the running matches get to finish at the end")
    add("--warmup", type=float, default=10.0, help="minutes of warm-up for the RSS growth (at most a third of the run)")
    add("--equal-uptime", type=float, default=90.0, help="uptime (s) at which processes' RSS are compared")
    add("--seed", type=int, default=1)
    add("--out", default="", help="append the report to this file (e.g. benchmarks/data/soak_DATE.txt)")
    add("--report", action="store_true", help="only report the pieces already run in --dir")
    return parse


def report_only(args: argparse.Namespace) -> dict[str, Any]:
    """The report of the pieces already run in ``--dir`` (its database and soak state), printed and appended
    to ``--out``, without running another piece: to read a soak again after the report's code changed."""
    state = load_state(Path(args.dir))
    warmup = min(args.warmup * 60, state["seconds"] / 3)
    summary = summarize(Path(args.dir) / "manager.db", state, warmup, args.equal_uptime)
    lines = [f"{time.strftime('%Y-%m-%d %H:%M')}: report of {args.dir} ({' '.join(sys.argv[1:])}); "
             f"warm-up {warmup / 60:.1f} min", *report_lines(summary, state)]
    print("\n".join(lines), flush=True)
    if args.out:
        with Path(args.out).open("a") as out:
            out.write("\n".join(lines) + "\n\n")
    return summary


def main() -> int:
    args = parser().parse_args()
    summary = report_only(args) if args.report else asyncio.run(soak_piece(args))
    return 0 if summary["lost"] == 0 and summary["stuck"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
