"""Engine speed before and after a change: ``ggp bench --json`` on a list of games, for two source trees.

Runs ``python -m ggp bench GAME --engine E --seconds S --json`` with ``PYTHONPATH`` set to each tree (a
git worktree of the older commit, and this checkout), one game at a time in its own process, and
appends one JSON line per (tree label, game) to ``--out``. A line already in the file is not measured
again, so the script resumes after an interruption. ``--table`` prints the Markdown table of the
ratios instead (CPU per state step: process CPU time / states, the steadier figure on a shared
machine; wall in brackets).

Usage::

    git worktree add /tmp/before 85eb7c2
    python benchmarks/engine_before_after.py --before /tmp/before --engine auto --seconds 5 \
        --out benchmarks/results/auto_before_after.jsonl GAME.kif ...
    python benchmarks/engine_before_after.py --out benchmarks/results/auto_before_after.jsonl --table
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _done(out: Path) -> set[tuple[str, str]]:
    if not out.exists():
        return set()
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return {(row["label"], row["game"]) for row in rows}


def measure(tree: Path, game: str, engine: str, seconds: float, limit: float, quick: bool = False) -> dict[str, object]:
    """One ``ggp bench --json`` run of ``game`` with the code of ``tree``; an error is a row too. ``quick``
    passes ``--quick`` (auto's choice by grounding, not the circuit a player switches to: trees from
    2026-11-28 on; before that ``--engine auto`` measured that choice without the flag)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, "-m", "ggp", "bench", game, "--engine", engine, "--seconds", str(seconds), "--json",
               *(["--quick"] if quick else [])]
    try:
        done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {limit:.0f} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"error": tail[:300]}
    row: dict[str, object] = json.loads(lines[-1])
    chose = [line for line in done.stderr.splitlines() if "playing it with" in line or "auto:" in line]
    if chose:
        row["auto_log"] = chose[-1][-200:]
    return row


def table(out: Path) -> str:
    """The Markdown table of the rows in ``out``: setup, CPU per state (wall) before and after, the ratio."""
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    by: dict[str, dict[str, dict[str, object]]] = {}
    for row in rows:
        by.setdefault(str(row["game"]), {})[str(row["label"])] = row

    def cell(row: dict[str, object] | None) -> str:
        if row is None:
            return "-"
        if "error" in row:
            return f"failed: {row['error']}"
        return (
            f"{float(str(row['setup_seconds'])):.1f} s, {1000 * float(str(row['cpu_step_seconds'])):.3g} ms "
            f"({1000 * float(str(row['state_step_seconds'])):.3g} ms)"
        )

    def ratio(before: dict[str, object] | None, after: dict[str, object] | None) -> str:
        if not before or not after or "error" in before or "error" in after:
            return "-"
        return f"{float(str(before['cpu_step_seconds'])) / float(str(after['cpu_step_seconds'])):.3g}x"

    lines = [
        "| game | before: setup, CPU per state (wall) | after: setup, CPU per state (wall) | CPU ratio |",
        "|---|---|---|---|",
    ]
    for game, pair in by.items():
        name = Path(game).stem
        lines.append(f"| {name} | {cell(pair.get('before'))} | {cell(pair.get('after'))} | "
                     f"{ratio(pair.get('before'), pair.get('after'))} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="KIF files")
    parser.add_argument("--before", type=Path, help="source tree of the older commit (a git worktree)")
    parser.add_argument("--after", type=Path, default=HERE, help="source tree of the newer code (this checkout)")
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--limit", type=float, default=180.0, help="seconds before a run is given up")
    parser.add_argument("--quick", action="store_true",
                        help="pass --quick to ggp bench in the after tree (auto's quick choice, not the circuit)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--table", action="store_true", help="print the table of --out and exit")
    args = parser.parse_args()
    if args.table:
        print(table(args.out))
        return
    trees = [("after", args.after)] + ([("before", args.before)] if args.before else [])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = _done(args.out)
    for game in args.games:
        for label, tree in trees:
            key = str(Path(game).resolve())
            if (label, key) in done:
                continue
            row = measure(tree.resolve(), key, args.engine, args.seconds, args.limit, args.quick and label == "after")
            row.update(label=label, game=key, engine_asked=args.engine)
            with args.out.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(label, Path(game).stem, row.get("cpu_step_seconds", row.get("error")), flush=True)


if __name__ == "__main__":
    main()
