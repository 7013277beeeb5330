"""Speed of the piece shapes (issue 16: <= 30 s on one core): one 8x8 game with 6 piece types, the
two-stage variant with default parameters, seeds 0..N-1.

Reports CPU seconds of this process (what one core spends, unaffected by other programs sharing the
machine) and wall seconds. The game is games/chess.sbg unless another is given.

Usage: python benchmarks/shapes_speed.py [--game games/chess.sbg] [--variant two-stage] [--seeds 3]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from ggp.files import read_text
from ggp.generation.shapes import VARIANTS, piece_shapes
from ggp.generation.shapes.base_set import BASE_SET
from ggp.translators.sbg.parser import parse_sbg

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", type=Path, default=ROOT / "games" / "chess.sbg")
    parser.add_argument("--variant", default="two-stage", choices=VARIANTS)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, numpy's threads included
    game = parse_sbg(read_text(args.game), str(args.game))
    assert len(BASE_SET) == 6
    print(f"{game.name}: {game.width}x{game.height}, {len(game.types_on_board())} piece types, {args.variant}")
    cpu_times, wall_times = [], []
    for seed in range(args.seeds):
        cpu, wall = time.process_time(), time.perf_counter()
        pieces = piece_shapes(game, args.variant, seed)
        cpu_times.append(time.process_time() - cpu)
        wall_times.append(time.perf_counter() - wall)
        print(f"  seed {seed}: {cpu_times[-1]:.1f} s CPU, {wall_times[-1]:.1f} s wall, {len(pieces)} shapes")
    print(f"max {max(cpu_times):.1f} s CPU (limit 30), mean {sum(cpu_times) / len(cpu_times):.1f} s CPU, "
          f"mean {sum(wall_times) / len(wall_times):.1f} s wall")


if __name__ == "__main__":
    main()
