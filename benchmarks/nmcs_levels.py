"""Benchmark: CPU seconds and goal of each Nested Monte-Carlo Search level from a one-role game's start.

For each seed, a fresh circuit search tree (compiled C, the ``mcts`` player's settings: MAST playouts at its
default share) runs ``ggp_mcts_nested`` of one level from the initial state with no deadline
(``CircuitMctsTree.nested``); the row gives the CPU seconds of this process per run (``time.process_time``,
which a loaded machine disturbs less than the wall clock) and the goal of the best line found. The game
defaults to ``knightsTour`` of ``../shared/gdl-corpus`` (``$GGP_SHARED`` when set, as the tests read it).

Usage: python benchmarks/nmcs_levels.py [GAME.kif] [--levels 1 2 3 4] [--seeds 5] [--out FILE.jsonl]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

from ggp.files import load_kif
from ggp.players.mcts import DEFAULT_EXPLORATION, DEFAULT_MAST
from ggp.reasoner.circuit import CircuitStateMachine

ROOT = Path(__file__).resolve().parents[1]
KNIGHTS_TOUR = Path(os.environ.get("GGP_SHARED", ROOT.parent / "shared")) / "gdl-corpus" / "knightsTour.kif"


def run(machine: CircuitStateMachine, level: int, seed: int) -> tuple[float, float]:
    """CPU seconds of one NMCS run of ``level`` from the start, and the goal (0..100) of its best line."""
    tree = machine.mcts_tree(machine.initial_state(), exploration=DEFAULT_EXPLORATION, playouts_per_leaf=1,
                             chance=[False], seed=seed, max_nodes=1000, mast=DEFAULT_MAST)
    if tree is None:
        raise SystemExit("the circuit has no C evaluator here (no C compiler?)")
    cpu = time.process_time()
    tree.nested(level, math.inf)
    cpu = time.process_time() - cpu
    line = tree.root_statistics(0).line
    return cpu, -1.0 if line is None else 100 * line[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", type=Path, default=KNIGHTS_TOUR)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", type=Path, help="also write one JSON line per run here")
    args = parser.parse_args()
    machine = CircuitStateMachine(load_kif(args.game), evaluator="c")
    if len(machine.roles) != 1:
        raise SystemExit(f"{args.game.name} has {len(machine.roles)} roles; NMCS needs one")
    rows = []
    load = os.getloadavg()[0]
    print(f"{args.game.name}: load average {load:.2f} at the start")
    print(f"{'level':>5} {'mean CPU s':>10} {'max CPU s':>10} {'mean goal':>9} {'at 100':>6}")
    for level in args.levels:
        runs = [run(machine, level, seed) for seed in range(args.seeds)]
        rows += [{"game": args.game.name, "level": level, "seed": seed, "cpu_s": round(cpu, 4), "goal": goal,
                  "load": load} for seed, (cpu, goal) in enumerate(runs)]
        cpus, goals = [cpu for cpu, _ in runs], [goal for _, goal in runs]
        print(f"{level:>5} {sum(cpus) / len(cpus):>10.3f} {max(cpus):>10.3f} {sum(goals) / len(goals):>9.1f} "
              f"{sum(goal == 100 for goal in goals):>6}")
    if args.out is not None:
        args.out.write_text("".join(json.dumps(row) + "\n" for row in rows))


if __name__ == "__main__":
    main()
