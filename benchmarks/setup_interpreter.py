"""Benchmark: how soon a player's search runs on the circuit when the game's C is not in the cache (issue 42,
item 4's set-up): the C interpreter answers once the circuit is built, the compiled C when gcc is done.

Per game, in a fresh process with a fresh cache (``XDG_CACHE_HOME`` a new temporary folder, so nothing is
compiled or built yet but the game-independent interpreter, as on a machine meeting the game for the first
time), ``playing_machine(description, "auto")`` as ``ggp player``
builds it: the wall seconds until the circuit answers (on the interpreter), until the compiled C answers,
and the random playouts per CPU second of each evaluator (``random_playouts``, batch 256, over
``--seconds``). One JSON line per game is appended to ``--out``; ``table`` prints the Markdown table of
docs/fastpath.md from a results file.

    PYTHONPATH=. python benchmarks/setup_interpreter.py run --out benchmarks/data/setup_interpreter_2026-11-28.jsonl
    PYTHONPATH=. python benchmarks/setup_interpreter.py table benchmarks/data/setup_interpreter_2026-11-28.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "gdl-corpus"
GAMES = ("cylinder-checkers", "checkers", "breakthrough", "connectFour")
"""A mid-size circuit whose C takes over a minute at -O2 (cylinder-checkers, the match lost in docs/strength.md's
fifth run), the corpus checkers, and two small games."""


def measure(game: str, seconds: float) -> dict[str, object]:
    """One game's set-up and speeds, in this process (run it in a fresh one: see :func:`main`)."""
    from ggp.files import load_kif
    from ggp.native import find_compiler, load_library
    from ggp.reasoner.circuit.codegen import INTERPRETER_SOURCE, RUNTIME_DIRS
    from ggp.reasoner.circuit.machine import CircuitStateMachine
    from ggp.reasoner.upgrade import UpgradingMachine, playing_machine

    compiler = find_compiler()
    assert compiler is not None, "no C compiler"
    load_library(INTERPRETER_SOURCE, compiler, include_dirs=RUNTIME_DIRS)  # built once per machine, not per game
    started = time.monotonic()
    machine = playing_machine(load_kif(CORPUS / f"{game}.kif"), "auto")
    assert isinstance(machine, UpgradingMachine)
    machine.wait_upgraded(900)
    first_s = time.monotonic() - started
    first = machine.current
    machine.wait(900)
    final_s = time.monotonic() - started
    final = machine.current
    row: dict[str, object] = {"game": game, "first_s": round(first_s, 2), "final_s": round(final_s, 2)}
    for name, current in (("first", first), ("final", final)):
        if not isinstance(current, CircuitStateMachine):
            row[f"{name}_engine"] = type(current).__name__
            continue
        row[f"{name}_engine"] = f"circuit ({current.evaluator.name})"
        cpu, played = time.process_time(), 0
        while time.process_time() - cpu < seconds:
            played += current.random_playouts(256, played, batch=256).playouts
        row[f"{name}_playouts_per_s"] = round(played / (time.process_time() - cpu), 1)
    return row


def table(rows: list[dict[str, object]]) -> str:
    """docs/fastpath.md's table."""
    lines = ["| Game | Circuit answers after (evaluator) | Compiled C answers after | Playouts/s: interpreter / compiled |",
             "|---|---|---|---|"]
    for row in rows:
        speeds = " / ".join(f"{float(str(row[k])):,.0f}" for k in ("first_playouts_per_s", "final_playouts_per_s")
                            if k in row)
        lines.append(f"| {row['game']} | {row['first_s']} s ({row['first_engine']}) | {row['final_s']} s "
                     f"({row['final_engine']}) | {speeds} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure the games, each in a fresh process with a fresh cache")
    run.add_argument("--out", type=Path, required=True)
    run.add_argument("--seconds", type=float, default=3.0)
    run.add_argument("games", nargs="*", default=list(GAMES))
    one = sub.add_parser("one", help="(internal) measure one game in this process and print its JSON line")
    one.add_argument("game")
    one.add_argument("--seconds", type=float, default=3.0)
    show = sub.add_parser("table", help="print the Markdown table of a results file")
    show.add_argument("results", type=Path)
    args = parser.parse_args()
    if args.command == "table":
        print(table([json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]))
    elif args.command == "one":
        print(json.dumps(measure(args.game, args.seconds)))
    else:
        for game in args.games:
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "XDG_CACHE_HOME": cache, "PYTHONPATH": str(ROOT)}
                done = subprocess.run([sys.executable, __file__, "one", game, "--seconds", str(args.seconds)],
                                      env=env, capture_output=True, text=True, check=True)
            line = done.stdout.strip().splitlines()[-1]
            with args.out.open("a") as out:
                print(line, file=out)
            print(line, flush=True)


if __name__ == "__main__":
    main()
