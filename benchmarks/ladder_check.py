"""Sanity check of the evaluation ladder: stronger players beat weaker ones on human-made games.

For each game, MCTS with 10x the budget, MCTS with 1x and Random play each other in both seats; the
script prints each stronger player's score rate (win 1, draw 1/2) against each weaker one. A rate
clearly above 0.5 for every pair is what RAPP relies on. Small games come first by default.

Usage: python benchmarks/ladder_check.py [--iterations 20] [--matches 4] [--workers 2]
       [--engine circuit] [--results FILE.jsonl] [GAME.sbg|GAME.kif ...]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from ggp.commands.evaluate import _load_game
from ggp.evaluation.evaluate import check_playable, plays_of
from ggp.evaluation.rapp import performance_matrix
from ggp.evaluation.selfplay import round_robin, run_jobs
from ggp.players.registry import make_player
from ggp.reasoner.engines import KifMachines

ROOT = Path(__file__).resolve().parents[1]
SMALL_FIRST = ("breakthrough_6x6", "six_demo", "gardner", "petty")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("games", nargs="*", type=Path)
    parser.add_argument("--iterations", type=int, default=20, help="the 1x MCTS budget (iterations a move)")
    parser.add_argument("--matches", type=int, default=4, help="matches per pairing per seat")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", default="circuit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", type=Path, default=None,
                        help="append the matches to this results.jsonl (a rerun resumes; benchmarks/rapp_table.py reads it)")
    args = parser.parse_args()
    paths = args.games or [ROOT / "games" / f"{name}.sbg" for name in SMALL_FIRST]
    specs = ("random", f"mcts:iterations={args.iterations}", f"mcts:iterations={10 * args.iterations}")
    print(f"ladder {' < '.join(specs)}, {args.matches} matches per pairing per seat; "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for path in paths:
        started = time.perf_counter()
        game, _ = _load_game(path)
        reason = check_playable(game, KifMachines(args.engine), seed=args.seed)
        if reason:
            print(f"{game.key}: unplayable: {reason}")
            continue
        jobs = round_robin(game, specs, matches_per_seat=args.matches, seed=args.seed)
        results = run_jobs(jobs, make_player, KifMachines(args.engine), workers=args.workers, results_path=args.results)
        matrix = performance_matrix(plays_of(results), specs)
        failed = sum(r.error is not None for r in results)
        cells = [f"{specs[j]} > {specs[i]}: {matrix[j, i]:.2f}" for i in range(3) for j in range(i + 1, 3)]
        ordered = all(matrix[j, i] > 0.5 for i in range(3) for j in range(i + 1, 3))
        print(f"{game.key}: {'; '.join(cells)}; {'ordered' if ordered else 'NOT ordered'}"
              f" ({len(results)} matches, {failed} failed, {time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
