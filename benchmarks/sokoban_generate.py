"""Benchmark: non-trivial Sokoban levels generated per minute (SYM-style generator, optimal scoring).

Runs the generator for a fixed wall-clock budget and reports accepted (non-trivial, PSH > 0.5 and
LEN > 0.5) levels per minute, the attempt outcomes and the mean difficulty. The thesis's best SYM
heuristic reached about 437 non-trivial levels per minute on 8x8 boards with 3 boxes; note that our
figure includes two optimal searches per candidate (push- and move-optimal), which the thesis did
afterwards with JSoko.

Usage: python benchmarks/sokoban_generate.py [--seconds 60] [--size 8x8] [--boxes 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from ggp.commands._args import positive_int, size_arg
from ggp.translators.sokoban.candidates import GenerationStats
from ggp.translators.sokoban.generator import SymSettings, generate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=60.0, help="wall-clock budget (default 60)")
    parser.add_argument("--size", type=size_arg, default=(8, 8), help="interior WxH (default 8x8)")
    parser.add_argument("--boxes", type=positive_int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    width, height = args.size
    settings = SymSettings(width=width, height=height, boxes=args.boxes)
    stats = GenerationStats()
    psh, len_ = [], []
    start = time.perf_counter()
    cpu = time.process_time()
    deadline = start + args.seconds
    for item in generate(settings, 10**9, args.seed, max_attempts=10**9, stats=stats):
        psh.append(item.difficulty.psh)
        len_.append(item.difficulty.len)
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    accepted = stats.outcomes["accepted"]
    print(f"settings: {settings}")
    print(f"elapsed {elapsed:.1f} s, attempts {stats.attempts} ({stats.attempts / elapsed * 60:.0f}/min)")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.outcomes.items())))
    print(f"non-trivial levels: {accepted} = {accepted / elapsed * 60:.1f} per minute "
          f"({accepted / cpu * 60:.1f} per CPU minute; CPU {cpu:.1f} s)")
    print(f"CPU split: SYM candidates {stats.sym_seconds:.1f} s, optimal solving {stats.solve_seconds:.1f} s; "
          f"valid candidates per CPU minute of SYM alone: "
          f"{(stats.attempts - stats.outcomes['invalid']) / max(stats.sym_seconds, 1e-9) * 60:.0f}")
    if psh:
        print(f"mean PSH {statistics.fmean(psh):.2f} (max {max(psh):.2f}), "
              f"mean LEN {statistics.fmean(len_):.2f} (max {max(len_):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
