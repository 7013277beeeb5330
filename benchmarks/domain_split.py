"""Benchmark: the relaxed domain program as written beside the same rules split by variable elimination
(``ggp.reasoner.clingo_machine.domain_program(split=...)``): CPU seconds to ground, atoms, and whether the
fluent and move domains are the same, per game.

Each side runs in its own process with an outer time limit (``--limit``, 40 s by default), one game after
the other; one JSON line per game is appended to ``--out`` as it ends, so a run resumes where it stopped.

Usage:
    python benchmarks/domain_split.py run --out benchmarks/data/domain_split_2026-11-28.jsonl [GAME ...]
    python benchmarks/domain_split.py table benchmarks/data/domain_split_2026-11-28.jsonl
Without GAME, every game of ../shared/gdl-corpus/VALID.txt and chess.kif (which VALID.txt leaves out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("GGP_SHARED", ROOT.parent / "shared")) / "gdl-corpus"


def measure(path: str, split: bool) -> dict[str, object]:
    """Ground one side in this process: its CPU seconds, atoms, and a digest of each domain."""
    import clingo

    from ggp.files import load_kif
    from ggp.reasoner.asp import encode_name
    from ggp.reasoner.clingo_machine import _RELAXED_DOES, _RELAXED_TRUE, domain_program

    description = load_kif(Path(path))
    started = time.process_time()  # writing the program (and splitting it) counts too
    program = domain_program(description, split=split)
    control = clingo.Control(["--warn=none"])
    control.add("base", [], program)
    control.ground([("base", [])])
    seconds = time.process_time() - started
    domains = []
    for name, arity in ((_RELAXED_TRUE, 1), (_RELAXED_DOES, 2)):
        texts = sorted(str(atom.symbol) for atom in control.symbolic_atoms.by_signature(encode_name(name), arity))
        domains.append({"count": len(texts), "digest": hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]})
    return {"seconds": round(seconds, 2), "atoms": len(control.symbolic_atoms), "fluents": domains[0],
            "moves": domains[1]}


def side(path: Path, split: bool, limit: float) -> dict[str, object] | str:
    """One side in a child process: its measurement, or why it has none."""
    command = [sys.executable, __file__, "measure", str(path), "--split" if split else "--written"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit, env=env, check=False)
    except subprocess.TimeoutExpired:
        return f"did not finish within {limit:g} s"
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1][:200]
    result: dict[str, object] = json.loads(done.stdout)
    return result


def run(out: Path, games: list[str], limit: float) -> None:
    done = {json.loads(line)["game"] for line in out.read_text().splitlines()} if out.exists() else set()
    for game in games:
        if game in done:
            continue
        path = CORPUS / f"{game}.kif"
        row: dict[str, object] = {"game": game, "written": side(path, False, limit), "split": side(path, True, limit)}
        written, split = row["written"], row["split"]
        if isinstance(written, dict) and isinstance(split, dict):
            row["same"] = written["fluents"] == split["fluents"] and written["moves"] == split["moves"]
        with out.open("a") as stream:
            stream.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


def cell(side: dict[str, Any] | str) -> str:
    return f"{side['seconds']:.2f} s, {side['atoms']:,}" if isinstance(side, dict) else f"- ({side})"


def table(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    both = [row for row in rows if "same" in row]
    print(f"{len(rows)} games; {len(both)} grounded both ways, {sum(row['same'] for row in both)} with the same "
          f"fluent and move domains")
    print("| Game | As written (CPU, atoms) | Split (CPU, atoms) |")
    print("|---|---|---|")
    for row in rows:
        written, split = row["written"], row["split"]
        if "same" in row and abs(written["seconds"] - split["seconds"]) < 0.3:
            continue  # the table lists the games the split changes by 0.3 s or more, and those one side missed
        print(f"| {row['game']} | {cell(written)} | {cell(split)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("measure", help="one side of one game, in this process (used by run)")
    one.add_argument("path")
    one.add_argument("--split", action="store_true")
    one.add_argument("--written", action="store_true")
    many = sub.add_parser("run")
    many.add_argument("--out", type=Path, required=True)
    many.add_argument("--limit", type=float, default=40.0)
    many.add_argument("games", nargs="*")
    show = sub.add_parser("table")
    show.add_argument("path", type=Path)
    args = parser.parse_args()
    if args.command == "measure":
        print(json.dumps(measure(args.path, args.split)))
    elif args.command == "run":
        games = args.games or [*(CORPUS / "VALID.txt").read_text().split(), "chess"]
        run(args.out, games, args.limit)
    else:
        table(args.path)


if __name__ == "__main__":
    main()
