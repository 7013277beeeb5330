"""``ggp train-sokoban``: train a PCGRL level-editing policy with PPO and write its checkpoint.

The policy is what ``ggp generate sokoban --method ppo --policy FILE`` plays. Needs the optional
``rl`` extra (``pip install 'ggp[rl]'``); training uses one CPU thread.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ggp.commands._args import positive_int, size_arg


def _run(args: argparse.Namespace) -> int:
    from ggp.translators.sokoban.methods.ppo import train

    width, height = args.size
    report = train(args.representation, width, height, args.steps, args.out, args.seed)
    rate = report.steps / report.seconds if report.seconds > 0 else 0.0
    print(
        f"{args.out}: {report.representation} {width}x{height}, {report.steps:,} steps in {report.seconds:.0f} s "
        f"({rate:,.0f} steps/s); last {report.episodes} episodes: mean reward {report.mean_reward:.2f}, "
        f"solvable final boards {report.solvable_share:.0%}"
    )
    return 0


def register(subcommands: Any) -> None:
    """Add the ``train-sokoban`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "train-sokoban", help="train a PPO (PCGRL) policy that edits Sokoban levels",
        description="Train a PCGRL policy (Khalifa et al. 2020) with stable-baselines3's PPO on CPU: the agent "
        "edits a random board under the narrow, turtle or wide representation, rewarded for a valid, solvable "
        "level with a long solution. Needs the rl extra: pip install 'ggp[rl]'.",
    )
    parser.add_argument("--representation", choices=("narrow", "turtle", "wide"), default="turtle",
                        help="what an action edits (default turtle)")
    parser.add_argument("--size", type=size_arg, default=(5, 5), metavar="WxH",
                        help="board size without the wall border (default 5x5)")
    parser.add_argument("--steps", type=positive_int, default=100_000, metavar="N",
                        help="environment steps to train (default 100000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="checkpoint to write")
    parser.set_defaults(run=_run)
