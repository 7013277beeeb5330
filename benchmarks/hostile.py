"""The hostile probe of issue 31 as a benchmark: while each attack runs, how fast a fresh INFO to a player
and a fresh ``GET /api/games`` to the manager are answered, how much memory each server holds, and
whether anything acknowledged was lost.

    PYTHONPATH=. python benchmarks/hostile.py [--seconds 15] [--slow 600] [--port-base 23100]

Starts ``ggp player legal`` and ``ggp serve --no-kif`` (a fresh database) as child processes on loopback,
uploads kif/ticTacToe, starts one match of two built-in random players (acknowledged with 201: it must be
completed at the end), then runs each attack for ``--seconds`` while a probe sends one INFO (fresh
connection) to the player and one GET /api/games to the manager every 100 ms, from a process of its own:

1. slow bodies: ``--slow`` connections to each server announce a 100,000-byte body and send a byte every
   2 s (a connection that is cut is opened again at its next 2 s tick);
2. big messages: 1 MiB START bodies ``(a a a ...)`` to the player, one after another (the largest a START
   may be; the attack goes on until the last one is answered), while two remote players answer every
   PLAY of a manager match with a 65 KB move list;
3. the START lock: ``(START lk1 ... 604799 1)``, then INFO (both replies printed);
4. amplified tournaments: five 1.8 MB tournament bodies (200,000 x ``random`` plus ``legal``);
5. two managers: a second ``ggp serve`` on the same database (its exit status and line printed).

Goal (issue 31): median under 50 ms and maximum under 500 ms for both probes during every attack. Memory is
the peak resident size (VmHWM) of each server process, including everything before.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import io
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
from aiohttp import web

from tests.helpers.fake_players import FakePlayer, constant
from tests.helpers.network import wait_listening

ROOT = Path(__file__).resolve().parents[1]
PROBE_EVERY_S = 0.1


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Probe:
    """Fresh-connection INFO to the player and GET /api/games to the manager, every 100 ms."""

    def __init__(self, player: int, manager: int) -> None:
        self.player, self.manager = player, manager
        self.samples: dict[str, list[float]] = {"INFO": [], "GET": []}
        self.sent_at: dict[str, list[float]] = {"INFO": [], "GET": []}
        self.began = time.monotonic()
        self.failures: dict[str, list[str]] = {"INFO": [], "GET": []}

    async def _one(self, session: aiohttp.ClientSession, kind: str) -> None:
        began = time.monotonic()
        try:
            if kind == "INFO":
                request = session.post(f"http://127.0.0.1:{self.player}/", data="(INFO)")
            else:
                request = session.get(f"http://127.0.0.1:{self.manager}/api/games")
            async with request as response:
                await response.read()
                if response.status != 200:
                    self.failures[kind].append(str(response.status))
        except (aiohttp.ClientError, TimeoutError) as exc:
            self.failures[kind].append(type(exc).__name__)
        self.samples[kind].append(time.monotonic() - began)
        self.sent_at[kind].append(began - self.began)

    async def run(self, seconds: float) -> None:
        connector = aiohttp.TCPConnector(force_close=True, limit=0)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=10)) as session:
            self.began = time.monotonic()
            end = self.began + seconds
            while time.monotonic() < end:
                tick = time.monotonic()
                await asyncio.gather(self._one(session, "INFO"), self._one(session, "GET"))
                await asyncio.sleep(max(0.0, PROBE_EVERY_S - (time.monotonic() - tick)))

    def line(self) -> str:
        parts = []
        for kind, samples in self.samples.items():
            if not samples:
                continue
            worst = max(range(len(samples)), key=samples.__getitem__)
            ms = sorted(s * 1000 for s in samples)
            failed = f", {len(self.failures[kind])} failed ({', '.join(sorted(set(self.failures[kind])))})" \
                if self.failures[kind] else ""
            over = sum(sample > 0.5 for sample in samples)
            parts.append(f"{kind} n={len(ms)} median {statistics.median(ms):.1f} ms max {ms[-1]:.0f} ms "
                         f"(sent at {self.sent_at[kind][worst]:.1f} s; {over} over 500 ms){failed}")
        return "; ".join(parts)


async def slow_bodies(port: int, path: str, count: int, until: float) -> int:
    """Keep ``count`` slow-body connections open until ``until``; returns how many were opened in all."""
    opened = 0

    async def one() -> None:
        nonlocal opened
        while time.monotonic() < until:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                opened += 1
                writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: text/acl\r\n"
                             "Content-Length: 100000\r\n\r\n".encode())
                while time.monotonic() < until and not reader.at_eof():
                    writer.write(b"a")
                    await writer.drain()
                    try:
                        await asyncio.wait_for(reader.read(1024), 2.0)  # EOF or an answer: cut
                    except TimeoutError:
                        continue
                    break
                writer.close()
            except OSError:
                pass
            await asyncio.sleep(2.0)  # cut: open the next one at the next tick (a byte every 2 s)

    await asyncio.gather(*(one() for _ in range(count)))
    return opened


def probe_for(player: int, manager: int, seconds: float) -> Probe:
    """Run a :class:`Probe` for ``seconds`` (in the probe process) and return it with its samples."""
    probe = Probe(player, manager)
    asyncio.run(probe.run(seconds))
    return probe


async def attack(probe: concurrent.futures.Executor, name: str, probe_ports: tuple[int, int], seconds: float,
                 work: Callable[[float], Awaitable[str]]) -> None:
    until = time.monotonic() + seconds
    # The probe runs in a process of its own: the attackers' work never delays its requests.
    asked = asyncio.get_running_loop().run_in_executor(probe, probe_for, *probe_ports, seconds)
    note, result = await asyncio.gather(work(until), asked)
    print(f"{name}: {result.line()}" + (f" [{note}]" if note else ""), flush=True)


async def post_text(session: aiohttp.ClientSession, url: str, body: bytes, content_type: str) -> tuple[int, str]:
    async with session.post(url, data=io.BytesIO(body), headers={"Content-Type": content_type}) as response:
        return response.status, (await response.text())[:120]


async def run(args: argparse.Namespace, work_dir: Path) -> None:
    player_port, manager_port = args.port_base, args.port_base + 1
    db = work_dir / "hostile.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    player_log, manager_log = (work_dir / "player.log").open("wb"), (work_dir / "manager.log").open("wb")
    player = subprocess.Popen([sys.executable, "-m", "ggp", "player", "legal", "--port", str(player_port)],
                              stderr=player_log, env=env)
    manager = subprocess.Popen([sys.executable, "-m", "ggp", "serve", "--no-kif", "--db", str(db),
                                "--port", str(manager_port)], stderr=manager_log, env=env)
    fakes: list[web.AppRunner] = []
    probe = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    try:
        wait_listening(player_port, player, work_dir / "player.log", 120)
        wait_listening(manager_port, manager, work_dir / "manager.log", 120)
        api = f"http://127.0.0.1:{manager_port}/api"
        player_url = f"http://127.0.0.1:{player_port}/"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300)) as session:
            acknowledged = await first_match(session, api)
            ports = (player_port, manager_port)
            await flood_attacks(args, session, probe, ports, api, player_url, fakes, acknowledged)
            await misuse_attacks(args, session, probe, ports, api, player_url, db, env)
            await report_matches(session, api, acknowledged)
        report_servers(work_dir, player, manager)
    finally:
        probe.shutdown()
        for runner in fakes:
            await runner.cleanup()
        for process in (player, manager):
            process.terminate()
        for process in (player, manager):
            process.wait(30)
        player_log.close()
        manager_log.close()


async def first_match(session: aiohttp.ClientSession, api: str) -> list[str]:
    """Upload kif/ticTacToe and start one match of two built-in random players; its id, acknowledged."""
    kif = (ROOT / "kif" / "ticTacToe" / "ticTacToe.kif").read_text()
    acknowledged: list[str] = []
    async with session.post(f"{api}/games", json={"key": "ticTacToe", "kif": kif}) as response:
        assert response.status == 201, await response.text()
    async with session.post(f"{api}/matches", json={"game": "ticTacToe", "players": ["random", "random"],
                                                    "startclock": 2, "playclock": 1}) as response:
        assert response.status == 201, await response.text()
        acknowledged.append((await response.json())["matchId"])
    return acknowledged


async def flood_attacks(args: argparse.Namespace, session: aiohttp.ClientSession, probe: concurrent.futures.Executor,
                        ports: tuple[int, int], api: str, player_url: str, fakes: list[web.AppRunner],
                        acknowledged: list[str]) -> None:
    """The baseline, then attacks 1 (slow bodies) and 2 (big messages); the big messages' match is
    added to ``acknowledged`` and its fake players to ``fakes``."""
    player_port, manager_port = ports
    await attack(probe, "baseline (no attack)", ports, min(args.seconds, 5.0), _nothing)

    async def slow(until: float) -> str:
        opened = await asyncio.gather(slow_bodies(player_port, "/", args.slow, until),
                                      slow_bodies(manager_port, "/api/players", args.slow, until))
        return f"{args.slow}+{args.slow} slow connections held, {opened[0]}+{opened[1]} opened in all"

    await attack(probe, "1. slow bodies", ports, args.seconds, slow)

    big_body = ("(START big r (" + " ".join(["a"] * (1024 * 1024 // 2 - 40)) + ") 10 5)").encode()
    big_reply = "(" + " ".join(["a"] * 32_500) + ")"

    async def big(until: float) -> str:
        replies: list[str] = []
        for fake in (FakePlayer(constant(big_reply)), FakePlayer(constant(big_reply))):
            runner = web.AppRunner(fake.app(), access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            fakes.append(runner)
        urls = [f"http://127.0.0.1:{runner.addresses[0][1]}/" for runner in fakes[-2:]]
        async with session.post(f"{api}/matches", json={"game": "ticTacToe", "players": urls,
                                                        "startclock": 2, "playclock": 1}) as response:
            assert response.status == 201, await response.text()
            big_match = (await response.json())["matchId"]
            acknowledged.append(big_match)
        while time.monotonic() < until:
            status, text = await post_text(session, player_url, big_body, "text/acl")
            replies.append(f"{status} {text[:40]}")
        async with session.get(f"{api}/matches/{big_match}") as response:
            size = len(await response.read())
        return (f"{len(replies)} START bodies of 1 MiB answered: {sorted(set(replies))}; "
                f"match record with 65 KB replies: {size / 1024:.0f} KB")

    await attack(probe, "2. big messages", ports, args.seconds, big)


async def misuse_attacks(args: argparse.Namespace, session: aiohttp.ClientSession, probe: concurrent.futures.Executor,
                         ports: tuple[int, int], api: str, player_url: str, db: Path, env: dict[str, str]) -> None:
    """Attacks 3 (the START lock), 4 (amplified tournaments) and 5 (two managers on one database)."""
    async def lock(until: float) -> str:
        rules = "((role xplayer) (role oplayer))"
        first = await post_text(session, player_url, f"(START lk1 xplayer {rules} 604799 1)".encode(),
                                "text/acl")
        again = await post_text(session, player_url, b"(INFO)", "text/acl")
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        return f"START 604799 1 -> {first}; then INFO -> {again}"

    await attack(probe, "3. START lock", ports, min(args.seconds, 5.0), lock)

    body = json.dumps({"game": "ticTacToe", "players": ["random"] * 200_000 + ["legal"]}).encode()

    async def tournaments(until: float) -> str:
        statuses = [(await post_text(session, f"{api}/tournaments", body, "application/json"))[0]
                    for _ in range(5)]
        async with session.get(f"{api}/tournaments") as response:
            listed = len(await response.read())
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        return f"5 POSTs of {len(body) / 1e6:.1f} MB -> {statuses}; GET /api/tournaments {listed} bytes"

    await attack(probe, "4. amplified tournaments", ports, min(args.seconds, 5.0), tournaments)

    async def second(until: float) -> str:
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "ggp", "serve", "--no-kif", "--db", str(db),
                             "--port", str(args.port_base + 2)], capture_output=True, text=True, env=env,
            timeout=120)
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        return f"second ggp serve exit {done.returncode}: {done.stderr.strip().splitlines()[-1][:160]}"

    await attack(probe, "5. two managers", ports, min(args.seconds, 5.0), second)


async def report_matches(session: aiohttp.ClientSession, api: str, acknowledged: list[str]) -> None:
    """Wait for each acknowledged match to end (up to 60 s each) and print how it ended: nothing is lost."""
    for match_id in acknowledged:  # nothing acknowledged is lost
        for _ in range(600):
            async with session.get(f"{api}/matches/{match_id}") as response:
                record = await response.json()
            if record.get("isCompleted") or record.get("isAborted"):
                break
            await asyncio.sleep(0.1)
        print(f"acknowledged match {match_id}: completed={record.get('isCompleted')} "
              f"steps={len(record.get('moves', []))}")


def report_servers(work_dir: Path, player: subprocess.Popen[bytes], manager: subprocess.Popen[bytes]) -> None:
    """Print the servers' peak memory and what their logs say: connections cut, tracebacks."""
    print(f"peak resident memory: player {peak_mb(player.pid):.0f} MB, manager {peak_mb(manager.pid):.0f} MB")
    cut_lines = sum("cut a connection" in line for line in (work_dir / "player.log").read_text().splitlines())
    tracebacks = sum(log.read_text().count("Traceback") for log in (work_dir / "player.log",
                                                                      work_dir / "manager.log"))
    print(f"player log: {cut_lines} 'cut a connection' lines; tracebacks in both logs: {tracebacks}")


async def _nothing(until: float) -> str:
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="how long each attack runs")
    parser.add_argument("--slow", type=int, default=600, help="slow-body connections to each server")
    parser.add_argument("--port-base", type=int, default=23100, help="player, manager and second manager ports")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.slow + 500)), hard))
    print(f"load average at start: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory() as work_dir:
        asyncio.run(run(args, Path(work_dir)))
    print(f"load average at end: {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
