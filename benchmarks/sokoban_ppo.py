"""Benchmark: what a PPO (PCGRL) Sokoban policy produces: solvable levels per minute, shares, best PSH/LEN.

Plays the policy for a fixed number of episodes (one random 5x5 board each) and reports the share of
episodes whose final board is a valid, solvable level, solvable and non-trivial levels per wall and
per CPU minute, and the best PSH and LEN (each maximised on its own, as the thesis's Table 3.6). The
thesis's PPO: best PSH 0.33 / LEN 0.64, no non-trivial level. Needs the rl extra.

Usage: python benchmarks/sokoban_ppo.py [--policy FILE] [--episodes 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from ggp.commands._args import positive_int
from ggp.translators.sokoban.level import level_to_text
from ggp.translators.sokoban.methods.ppo import DEFAULT_POLICY, PpoStats, generate_ppo, load_policy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--policy", type=Path, default=DEFAULT_POLICY, help="checkpoint (default: the shipped one)")
    parser.add_argument("--episodes", type=positive_int, default=1000, help="episodes to play (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    loaded = load_policy(args.policy)
    stats = PpoStats()
    start, cpu = time.perf_counter(), time.process_time()
    found = generate_ppo(args.policy, loaded.width, loaded.height, args.episodes, args.seed,
                         max_attempts=args.episodes, stats=stats)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    episodes = stats.attempts
    non_trivial = sum(1 for item in found if item.difficulty.non_trivial)
    distinct = len({item.level for item in found})
    print(f"policy {args.policy.name}: {loaded.representation} {loaded.width}x{loaded.height}, "
          f"trained {loaded.steps:,} steps")
    print(f"{episodes} episodes in {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({', '.join(f'{k} {v}' for k, v in sorted(stats.outcomes.items()))})")
    print(f"solvable share {len(found) / episodes:.1%}; {distinct} distinct levels")
    print(f"solvable levels per minute: {len(found) / wall * 60:.1f} wall, {len(found) / cpu * 60:.1f} CPU")
    print(f"non-trivial: {non_trivial} ({non_trivial / wall * 60:.2f} per wall minute)")
    if found:
        psh = [item.difficulty.psh for item in found]
        len_ = [item.difficulty.len for item in found]
        print(f"best PSH {max(psh):.2f}, best LEN {max(len_):.2f}; mean PSH {statistics.mean(psh):.2f}, "
              f"mean LEN {statistics.mean(len_):.2f} (thesis PPO best: 0.33 / 0.64)")
        best = max(found, key=lambda item: item.difficulty.len)
        shown = [best] + [item for item in found if item.difficulty.non_trivial and item is not best]
        for item in shown:
            d = item.difficulty
            print(f"{item.level.title}: {d.moves} moves, {d.pushes} pushes, PSH {d.psh:.2f}, LEN {d.len:.2f}, "
                  f"non-trivial {'yes' if d.non_trivial else 'no'}")
            print(level_to_text(item.level), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
