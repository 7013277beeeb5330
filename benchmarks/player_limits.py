"""The player server's limits in figures (issue 20): INFO while the reasoner is wedged, time to recover,
the memory bound, SIGTERM.

    PYTHONPATH=. python benchmarks/player_limits.py [--game five-ary|merrills] [--memory-mb 2048]
                                                   [--startclock 2] [--playclock 1]

Starts ``ggp player random`` (engine ``auto``, ``--max-memory-mb``) on a loopback port, then:

1. START of the heavy game (default: a legal rule joining a 5-ary relation over 100 objects; ``merrills``:
   the GDL corpus game), INFO every 50 ms meanwhile and until the player reports ``available`` again (its
   worker was killed over a limit and replaced, or the engine gave up within its own limits), and one
   PLAY NIL once START is answered: how long each answer took, and the player's log line about it.
2. A normal match right after (kif/ticTacToe START, PLAY NIL): seconds until its first move.
3. SIGTERM while a second heavy START is being set up: seconds until the process exited, and how many of
   the processes it had started (the worker, its grounding probe) were still there a second later.

With ``--startclock 60 --memory-mb 256`` the memory bound is hit before the time bound.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from ggp.gdl.parser import parse_kif
from ggp.gdl.printer import to_kif
from tests.helpers.manager_machines import five_ary_kif
from tests.helpers.network import free_port, wait_listening

ROOT = Path(__file__).resolve().parents[1]


def post(port: int, text: str, timeout: float = 120.0) -> tuple[str, float]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=text.encode(), method="POST",
                                     headers={"Content-Type": "text/acl"})
    began = time.monotonic()
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.read().decode(), time.monotonic() - began


def rules(kif: str) -> str:
    return "(" + to_kif(parse_kif(kif)) + ")"


def descendants(pid: int) -> list[int]:
    try:
        found = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return found + [grandchild for child in found for grandchild in descendants(child)]


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie nobody reaped counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def first_move(port: int, light: str, match_id: str) -> float:
    """Seconds from a ticTacToe START to the reply to its first PLAY (then the match is aborted)."""
    began = time.monotonic()
    assert post(port, f"(START {match_id} xplayer {light} 10 5)")[0] == "ready"
    reply = post(port, f"(PLAY {match_id} NIL)")[0]
    assert reply.startswith("(mark"), reply
    took = time.monotonic() - began
    post(port, f"(ABORT {match_id})")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("five-ary", "merrills"), default="five-ary")
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--startclock", type=int, default=2)
    parser.add_argument("--playclock", type=int, default=1)
    args = parser.parse_args()
    heavy = five_ary_kif(100) if args.game == "five-ary" else (ROOT.parent / "shared/gdl-corpus/merrills.kif").read_text()
    heavy_rules, light = rules(heavy), rules((ROOT / "kif/ticTacToe/ticTacToe.kif").read_text())
    heavy_role = str(parse_kif(heavy).roles[0])
    port = free_port()
    log = Path(tempfile.mkdtemp()) / "player.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "ggp", "player", "random", "--port", str(port), "--max-memory-mb",
             str(args.memory_mb), "-v"],
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        wait_listening(port, process, log)
        time.sleep(1.0)  # the worker starts with the server
        fresh = first_move(port, light, "t0")
        began = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            start = pool.submit(post, port, f"(START h1 {heavy_role} {heavy_rules} {args.startclock} {args.playclock})")
            infos: list[float] = []
            played = False
            while True:
                status, took = post(port, "(INFO)")
                infos.append(took)
                if start.done() and not played:
                    reply, took = start.result()
                    print(f"{args.game}, --max-memory-mb {args.memory_mb}, clocks {args.startclock}/{args.playclock} s: "
                          f"START answered {reply[:200]!r} in {took:.2f} s")
                    reply, took = post(port, "(PLAY h1 NIL)")
                    print(f"  PLAY NIL answered {reply!r} in {took:.2f} s (play clock {args.playclock} s)")
                    played = True
                if played and "available" in status:
                    break
                time.sleep(0.05)
        replaced = time.monotonic() - began
        print(f"  {len(infos)} INFO while wedged: median {1000 * statistics.median(infos):.1f} ms, "
              f"max {1000 * max(infos):.1f} ms")
        print(f"  available again {replaced:.2f} s after START; the log says:")
        for line in log.read_text(errors="replace").splitlines():
            if "replaced" in line or "cannot play these rules" in line:
                print("    " + line)
        post(port, "(ABORT h1)")
        print(f"  next match (ticTacToe): START ready and first move in {first_move(port, light, 't1'):.2f} s "
              f"({fresh:.2f} s on the fresh player before the heavy game)")
        pool = concurrent.futures.ThreadPoolExecutor(1)  # START answers by its 60 s clock: do not wait
        pool.submit(post, port, f"(START h2 {heavy_role} {heavy_rules} 60 10)")
        for _ in range(100):  # until the worker has started its grounding probe
            if len(spawned := descendants(process.pid)) >= 2:
                break
            time.sleep(0.1)
        began = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        stopped = time.monotonic() - began
        pool.shutdown(wait=False)
        time.sleep(1.0)
        left = [pid for pid in spawned if running(pid)]
        print(f"  SIGTERM during a heavy setup: exited (status {process.returncode}) {stopped:.2f} s later; "
              f"{len(left)} of its {len(spawned)} reasoning processes left 1 s after")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


if __name__ == "__main__":
    main()
