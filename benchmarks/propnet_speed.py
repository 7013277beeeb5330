"""Benchmark: random playouts per second of our compiled circuit beside Sancho's propnet, game by game.

For each game of ``../shared/gdl-corpus`` (VALID.txt, or the games named), one run each, one after the
other, each pinned to one core (``taskset -c 1``) under a time limit per game:

- ours: ``python -m ggp bench GAME --engine circuit --batch 256 --seconds S --json`` (set-up: grounding,
  building and compiling the circuit, or loading them from the caches; the engine it measured, which is
  not the circuit when the game does not compile);
- Sancho: ``../shared/peer/sancho/speed GAME S`` (the 2014 champion's propnet state machine in a plain
  random-rollout loop, one thread; its set-up timed apart).

Each game appends one JSON line to ``--out`` as it ends; a rerun skips the games already in it, so the
corpus goes in pieces. ``table`` prints the Markdown table (set-up, playouts/s, ratio) of docs/fastpath.md.

    python benchmarks/propnet_speed.py run --out benchmarks/data/propnet_speed.jsonl [--limit 300] [GAME ...]
    python benchmarks/propnet_speed.py table benchmarks/data/propnet_speed.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GGP_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "gdl-corpus"
SPEED = SHARED / "peer" / "sancho" / "speed"
CPU = "1"
"""The core both sides run on, one after the other (the other core keeps the machine's own work)."""


def corpus_games() -> list[str]:
    """The corpus's valid games, in VALID.txt's order."""
    return [line.strip() for line in (CORPUS / "VALID.txt").read_text().splitlines() if line.strip()]


def run_json(command: list[str], limit: float) -> dict[str, Any]:
    """The last JSON line ``command`` prints within ``limit`` seconds, else ``{"error": why}``."""
    started = time.monotonic()
    # A session of its own: at the limit the whole group goes (Sancho's script starts a JVM that outlived
    # its parent when only the parent was killed, and kept 6 GB and a core).
    process = subprocess.Popen(["taskset", "-c", CPU, *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return {"error": f"did not finish within {limit:.0f} s"}
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # anything the command left behind
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        tail = (stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": tail[:300], "seconds": round(time.monotonic() - started, 1)}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def measure(game: str, seconds: float, limit: float) -> dict[str, Any]:
    """One game's row: ours and Sancho's figures (or why there are none)."""
    kif = str(CORPUS / f"{game}.kif")
    ours = run_json([sys.executable, "-m", "ggp", "bench", kif, "--engine", "circuit", "--batch", "256",
                     "--seconds", str(seconds), "--json"], limit)
    sancho = run_json([str(SPEED), kif, str(int(seconds))], limit)
    row: dict[str, Any] = {"game": game, "seconds": seconds, "limit": limit}
    row["ours"] = ({"error": ours["error"]} if "error" in ours else
                   {"setup_s": round(ours["setup_seconds"], 2), "playouts_per_s": round(ours["playouts_per_second"], 1),
                    "engine": ours["engine"]})
    row["sancho"] = ({"error": sancho["error"]} if "error" in sancho else
                     {"setup_s": round(float(sancho["setup_s"]), 2),
                      "playouts_per_s": round(float(sancho["rollouts_per_s"]), 1)})
    return row


def _rate(side: dict[str, Any]) -> str:
    if "error" in side:
        return f"- ({side['error'][:60]})"
    engine = side.get("engine", "")
    label = "" if not engine or engine.startswith("circuit") else f" ({engine}: not compiled)"
    return f"{side['playouts_per_s']:,.0f} ({side['setup_s']:.1f} s){label}"


def table(rows: list[dict[str, Any]]) -> str:
    """docs/fastpath.md's table: playouts/s (set-up) of each side and ours / Sancho's."""
    lines = ["| Game | Circuit: playouts/s (set-up) | Sancho's propnet: playouts/s (set-up) | Ratio |",
             "|---|---|---|---|"]
    for row in rows:
        ours, sancho = row["ours"], row["sancho"]
        both = "error" not in ours and "error" not in sancho and sancho["playouts_per_s"] > 0
        ratio = f"{ours['playouts_per_s'] / sancho['playouts_per_s']:.1f}x" if both else "-"
        lines.append(f"| {row['game']} | {_rate(ours)} | {_rate(sancho)} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("run", help="measure the games not yet in --out")
    play.add_argument("games", nargs="*", help="corpus game names (default: every game of VALID.txt)")
    play.add_argument("--out", type=Path, required=True)
    play.add_argument("--seconds", type=float, default=5.0, help="playout time of each side (default 5)")
    play.add_argument("--limit", type=float, default=300.0, help="seconds each side may take in all (default 300)")
    show = commands.add_parser("table", help="print the Markdown table of a results file")
    show.add_argument("results", type=Path)
    args = parser.parse_args()
    if args.command == "table":
        print(table([json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]))
        return
    if not SPEED.is_file():
        raise SystemExit(f"{SPEED} is missing (../shared/peer/sancho; GGP_SHARED names another place)")
    done = set()
    if args.out.exists():
        done = {json.loads(line)["game"] for line in args.out.read_text().splitlines() if line.strip()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for game in args.games or corpus_games():
        if game in done:
            continue
        row = measure(game, args.seconds, args.limit)
        with args.out.open("a") as out:
            out.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
