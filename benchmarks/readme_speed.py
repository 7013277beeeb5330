"""Runs every command behind the README's speed table and keeps what each printed, so every figure in that table
can be traced to its command and its committed output.

One JSON line per command in ``--out`` (default ``benchmarks/data/readme_speed_<date>.jsonl``): the README row
it serves, the command, its exit status, wall and child CPU seconds, the 1-minute load average before and after,
the commit, and the command's standard output (its last 20,000 characters). A command already in the file is not
run again, so an interrupted run resumes; ``--only ROW`` runs the rows whose name contains ROW.

Usage: python benchmarks/readme_speed.py [--out FILE] [--only ROW ...] [--list]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GGP_SHARED", ROOT.parent / "shared"))
PY = sys.executable

ROWS: tuple[tuple[str, list[str]], ...] = (
    ("circuit playouts, legal+next, build", [PY, "benchmarks/circuit_bench.py", "--games", "ticTacToe", "connectFour",
                                             "breakthrough", "--seconds", "3"]),
    ("per-state seed games", [PY, "benchmarks/seed_games.py", "--seconds", "10"]),
    ("mcts vs openspiel", [PY, "benchmarks/mcts_speed.py", "--seconds", "5", "--playouts", "1"]),
    *((f"manager overhead, run {run}", [PY, "benchmarks/manager_overhead.py", "--matches", "20"]) for run in (1, 2, 3)),
    *((f"manager overhead through the service, run {run}",
       [PY, "benchmarks/manager_overhead.py", "--matches", "20", "--service"]) for run in (1, 2, 3)),
    ("6x6 sbg circuit playouts", [PY, "benchmarks/sbg_games.py", "--no-clingo", "--bench", "3", "--playouts", "5",
                                  *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "games").glob("*.sbg")))]),
    ("clingo ticTacToe", [PY, "-m", "ggp", "bench", "kif/ticTacToe/ticTacToe.kif", "--engine", "clingo",
                          "--seconds", "5", "--json"]),
    ("naive ticTacToe", [PY, "-m", "ggp", "bench", "kif/ticTacToe/ticTacToe.kif", "--engine", "naive",
                         "--seconds", "5", "--json"]),
    ("clingo breakthrough", [PY, "-m", "ggp", "bench", "kif/breakthrough/breakthrough.kif", "--engine", "clingo",
                             "--seconds", "5", "--json"]),
    ("naive breakthrough", [PY, "-m", "ggp", "bench", "kif/breakthrough/breakthrough.kif", "--engine", "naive",
                            "--seconds", "5", "--json"]),
    ("evaluate chess-like", ["bash", "-c", f"{PY} -m ggp generate sbg --count 60 --seed 11 --out out/gen11 && "
                             f"{PY} benchmarks/evaluate_chess_like.py --game out/gen11/gen_11_0011.sbg"]),
    ("rapp fitness", [PY, "benchmarks/rapp_speed.py"]),
    ("piece shapes", [PY, "benchmarks/shapes_speed.py", "--seeds", "5"]),
    ("sokoban sym", [PY, "benchmarks/sokoban_generate.py", "--seconds", "60"]),
)
"""(README row, command run from the repository root)."""


def commit() -> str:
    done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_row(row: str, command: list[str]) -> dict[str, object]:
    """Run one command from the repository root and describe what it cost and printed."""
    env = {**os.environ, "GGP_SHARED": str(SHARED), "PYTHONPATH": str(ROOT)}
    load, wall, cpu = os.getloadavg()[0], time.perf_counter(), child_cpu()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    return {"row": row, "command": " ".join(command).replace(PY, "python"),
            "status": done.returncode, "wall_s": round(time.perf_counter() - wall, 1),
            "cpu_s": round(child_cpu() - cpu, 1), "load": [round(load, 2), round(os.getloadavg()[0], 2)],
            "commit": commit(), "date": datetime.date.today().isoformat(),
            "stdout": done.stdout[-20000:], "stderr": done.stderr[-1000:] if done.returncode else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "data" / f"readme_speed_{datetime.date.today().isoformat()}.jsonl")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--list", action="store_true", help="print the rows and their commands, run nothing")
    args = parser.parse_args()
    done = set()
    if args.out.exists():
        done = {json.loads(line)["row"] for line in args.out.read_text(encoding="utf-8").splitlines() if line.strip()}
    for row, command in ROWS:
        if args.list:
            print(f"{row}: {' '.join(command)}")
            continue
        if row in done or (args.only and not any(part in row for part in args.only)):
            continue
        print(f"{row}: running", flush=True)
        record = run_row(row, command)
        with args.out.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        print(f"{row}: exit {record['status']}, {record['wall_s']} s wall at load {record['load']}", flush=True)
        print(str(record["stdout"])[-1500:], flush=True)


if __name__ == "__main__":
    main()
