"""Benchmark (not a timed test): a legal move at any clock, on ggp-base's host, with the cores busy.

Issue 30's goal: 0 ``nil``, 0 illegal moves, 0 timeouts of our players on ggp-base's GameServer
(``../shared/peer/run RunMatch``) in checkers and merrills at start clock 5 s / play clock 2 s while a
CPU-bound process competes for every core. Each match is our ``mcts`` against our ``alphabeta`` (``ggp
player``, engine ``auto``, fresh processes per match, seats swapped from match to match), with
``--hogs`` busy loops (default: one per core) running all along. By default every match starts with
empty compiled-circuit caches (``XDG_CACHE_HOME`` in a fresh temporary folder: the circuit is built
from scratch, as for a game never seen); ``--warm`` keeps the user's caches.

Per side and match the row counts the host's TO, IL and CE (ggp-base records a ``nil`` as IL) and the
``nil`` replies our player logged; rows are appended to ``benchmarks/data/clock_stress.jsonl`` (one JSON
object per match, so runs add up, each naming the commit that played). ``--code DIR`` plays another
checkout's ``ggp`` (the code before a change, say) under the same conditions. Usage:

    python benchmarks/clock_stress.py [--games checkers merrills] [--matches 1] [--startclock 5]
        [--playclock 2] [--hogs N] [--warm] [--code DIR] [--first INDEX] [--table]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import cast

from ggp_base_host import CORPUS, PEER, ROOT, play_match, serving

RESULTS = ROOT / "benchmarks" / "data" / "clock_stress.jsonl"
PLAYERS = ("mcts", "alphabeta")
HOG = "while True: pass"


def player(spec: str, log: Path, cache: Path | None, code: Path) -> AbstractContextManager[str]:
    """``ggp player SPEC`` of the checkout ``code`` (``-v``: its log says every fallback) until the block
    ends; yields ``host:port``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    return serving(lambda port: [sys.executable, "-m", "ggp", "player", spec, "--name", spec, "--port", str(port), "-v"],
                   log, f"ggp player {spec}", env=env, cwd=code)


@contextmanager
def hogs(count: int) -> Iterator[None]:
    """``count`` CPU-bound busy loops, killed when the block ends."""
    processes = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]
    try:
        yield
    finally:
        for process in processes:
            process.kill()
            process.wait(timeout=30)


def counts(codes: list[str], log: str) -> dict[str, int]:
    """A side's TO / IL / CE from the host's error column, and the ``nil`` replies its log names."""
    return {"TO": sum(c.startswith("TO") for c in codes), "IL": sum(c.startswith("IL") for c in codes),
            "CE": sum(c.startswith("CE") for c in codes), "nil": log.count("answering nil"),
            "restarts": log.count("the player starts again"), "given_up": log.count("the player is given up")}


def commit(code: Path) -> str:
    """The short commit of the checkout ``code`` (``+`` when its ``ggp`` has uncommitted changes: this
    script's own results file does not count)."""
    head = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(code), "status", "--porcelain", "--untracked-files=no", "--", "ggp"],
                           capture_output=True, text=True)
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def run(args: argparse.Namespace) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clock-stress-") as scratch, hogs(args.hogs):
        for game in args.games:
            kif = CORPUS / f"{game}.kif"
            for index in range(args.first, args.first + args.matches):
                order = PLAYERS if index % 2 == 0 else PLAYERS[::-1]
                logs = [Path(scratch) / f"{game}-{index}-{spec}.log" for spec in order]
                with ExitStack() as stack:
                    seats = [stack.enter_context(player(
                        spec, log, None if args.warm else Path(tempfile.mkdtemp(dir=scratch)), args.code))
                        for spec, log in zip(order, logs)]
                    began = time.monotonic()
                    match = play_match(kif, seats, args.startclock, args.playclock)
                    took = time.monotonic() - began
                record(game, index, order, match, [log.read_text(errors="replace") for log in logs], took, args)


def record(game: str, index: int, order: tuple[str, ...], match: dict[str, object], logs: list[str], took: float,
           args: argparse.Namespace) -> None:
    row: dict[str, object] = {
        "date": datetime.date.today().isoformat(), "game": game, "startclock": args.startclock,
        "playclock": args.playclock, "hogs": args.hogs, "cores": os.cpu_count(), "warm": args.warm,
        "seats": list(order), "index": index, "seconds": round(took, 1), "commit": commit(args.code)}
    if "failed" in match:
        row["failed"] = match["failed"]
    else:
        steps = cast(list[list[str]], match.get("errors", []))
        row |= {"goals": [int(g) for g in cast(list[int], match["goalValues"])],
                "steps": len(cast(list[object], match.get("moves", []))),
                "errors": {spec: counts([step[seat] for step in steps if step[seat]], logs[seat])
                           for seat, spec in enumerate(order)}}
    with RESULTS.open("a") as out:
        out.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def table() -> None:
    """The rows so far: per game and player, matches, TO / IL / CE, nil, restarts."""
    totals: dict[tuple[str, str, str], list[int]] = {}
    for line in RESULTS.read_text().splitlines() if RESULTS.exists() else []:
        row = json.loads(line)
        for spec, found in cast(dict[str, dict[str, int]], row.get("errors", {})).items():
            total = totals.setdefault((row.get("commit", "?"), row["game"], spec), [0, 0, 0, 0, 0, 0])
            for i, value in enumerate((1, found["TO"], found["IL"], found["CE"], found["nil"], found["restarts"])):
                total[i] += value
    print("| Code | Game | Player | Matches | TO | IL | CE | nil | restarts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (code, game, spec), (matches, to, il, ce, nil, restarts) in sorted(totals.items()):
        print(f"| {code} | {game} | `{spec}` | {matches} | {to} | {il} | {ce} | {nil} | {restarts} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["checkers", "merrills"])
    parser.add_argument("--matches", type=int, default=1, help="matches per game (seats swap each match)")
    parser.add_argument("--first", type=int, default=0, help="index of the first match (odd: seats swapped)")
    parser.add_argument("--startclock", type=int, default=5)
    parser.add_argument("--playclock", type=int, default=2)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2, help="CPU-bound busy loops (default: one per core)")
    parser.add_argument("--warm", action="store_true", help="keep the compiled-circuit caches between matches")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose ggp plays (default: this one)")
    parser.add_argument("--table", action="store_true", help="only print the table of the rows so far")
    args = parser.parse_args()
    if not args.table:
        if not PEER.is_file():
            raise SystemExit(f"ggp-base is not at {PEER} (../shared/peer)")
        run(args)
    table()


if __name__ == "__main__":
    main()
