"""Benchmark: what the MCTS Sokoban generator's candidates are worth (issue 15's figures).

Runs ``--searches`` MCTS searches (seeds 0, 1, ...) of ``--iterations`` iterations each on a
``--size`` interior with ``--boxes`` boxes, keeps every distinct level of every iteration, and scores
each with the optimal solver (``--quick``: skip the exact searches once a level is shown trivial, so
only non-trivial levels get PSH / LEN). Prints the number of distinct levels, the non-trivial ones
(PSH > 0.5 and LEN > 0.5; also as they would be counted with the generator's own, non-optimal
solution, with their rate per CPU minute of searching and their best PSH and LEN), the best PSH and
LEN, the Pearson correlation of payout with PSH and LEN, the median PSH, and the mean payout per
search and CPU seconds. ``--payouts 100,1000`` prints only the mean
payout per search for each iteration count (the thesis's 0.22 / 0.62 / 1.1 after 10^2 / 10^5 / 10^7).

Usage: python benchmarks/sokoban_mcts.py [--size 8x8] [--boxes 3] [--iterations 3000] [--searches 3]
[--quick] [--payouts 100,1000,10000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from ggp.commands._args import positive_int, size_arg
from ggp.translators.sokoban.methods.mcts import search
from ggp.translators.sokoban.metrics import is_non_trivial, measure, solution_scores


def _payouts(width: int, height: int, boxes: int, counts: list[int], searches: int) -> None:
    for iterations in counts:
        clock = time.process_time()
        means = [search(width, height, boxes, iterations=iterations, rng=random.Random(seed)).mean_payout
                 for seed in range(searches)]
        cpu = (time.process_time() - clock) / searches
        print(f"{width}x{height}, {boxes} boxes, {iterations} iterations: mean payout {statistics.mean(means):.2f} "
              f"(per search: {', '.join(f'{m:.2f}' for m in means)}), {cpu:.2f} CPU s per search")


def _pool(args: argparse.Namespace, width: int, height: int) -> None:
    payouts: list[float] = []
    scores: list[tuple[float, float]] = []
    non_trivial = by_own = levels = 0
    own_best = (0.0, 0.0)
    search_cpu = solve_cpu = 0.0
    means = []
    for seed in range(args.searches):
        clock = time.process_time()
        result = search(width, height, args.boxes, iterations=args.iterations, rng=random.Random(seed),
                        keep=args.iterations)
        search_cpu += time.process_time() - clock
        means.append(result.mean_payout)
        clock = time.process_time()
        for candidate in result.levels:
            level = candidate.level
            levels += 1
            own_psh, own_len = solution_scores(level, candidate.solution)
            by_own += is_non_trivial(own_psh, own_len)
            own_best = (max(own_best[0], own_psh), max(own_best[1], own_len))
            difficulty = measure(level, stop_if_trivial=args.quick)
            if difficulty is None:
                continue
            non_trivial += difficulty.non_trivial
            payouts.append(candidate.payout)
            scores.append((difficulty.psh, difficulty.len))
        solve_cpu += time.process_time() - clock
    print(f"{width}x{height}, {args.boxes} boxes, {args.searches} searches of {args.iterations} iterations: "
          f"{levels} distinct levels, {non_trivial} non-trivial ({by_own} by the generator's own solution, "
          f"{by_own / max(search_cpu, 1e-9) * 60:.1f} per CPU minute of search; best own PSH {own_best[0]:.2f}, "
          f"LEN {own_best[1]:.2f})")
    if scores and not args.quick:
        pshs, lens = [s[0] for s in scores], [s[1] for s in scores]
        print(f"best PSH {max(pshs):.2f}, best LEN {max(lens):.2f}, median PSH {statistics.median(pshs):.2f}, "
              f"LEN {statistics.median(lens):.2f}; Pearson r of payout with PSH "
              f"{statistics.correlation(payouts, pshs):.2f}, with LEN {statistics.correlation(payouts, lens):.2f}")
    print(f"mean payout per search {statistics.mean(means):.2f}; CPU s: searches {search_cpu:.1f}, "
          f"optimal scoring {solve_cpu:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=size_arg, default=(8, 8), help="interior WxH (default 8x8)")
    parser.add_argument("--boxes", type=positive_int, default=3)
    parser.add_argument("--iterations", type=positive_int, default=3000)
    parser.add_argument("--searches", type=positive_int, default=3)
    parser.add_argument("--quick", action="store_true", help="score only until a level is shown trivial")
    parser.add_argument("--payouts", default="", help="comma-separated iteration counts: mean payouts only")
    args = parser.parse_args()
    width, height = args.size
    if args.payouts:
        _payouts(width, height, args.boxes, [int(part) for part in args.payouts.split(",")], args.searches)
    else:
        _pool(args, width, height)
    return 0


if __name__ == "__main__":
    sys.exit(main())
