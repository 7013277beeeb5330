"""``ggp play-sbg FILE [--as white|black] [--seed S] [--opponent random|greedy]``: the former SBG-only
terminal game, kept as an alias of ``ggp play`` (:mod:`ggp.commands.play`), which plays any KIF or SBG
game against any registry player. ``greedy`` is 1-ply min-max on material (``minimax:depth=1``): it
wins at once when it can, else captures, else moves at random (seeded).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

OPPONENTS = {"random": "random", "greedy": "minimax:depth=1"}
"""``--opponent`` names and the registry specs they stand for."""


def register(subcommands: Any) -> None:
    """Add the ``play-sbg`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "play-sbg", help="play an SBG game in the terminal (an alias of 'ggp play')",
        description="Play a Simplified Boardgames file against a random or greedy opponent: 'ggp play FILE "
        "--against random|minimax:depth=1 --as SIDE'. Type moves as a number, 'a2a3' or '0 1 0 2'.",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="SBG game file")
    parser.add_argument("--as", dest="side", choices=("white", "black"), default="white",
                        help="your side (default white, which moves first)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="opponent's random seed (default 0)")
    parser.add_argument("--opponent", choices=tuple(OPPONENTS), default="greedy",
                        help="random moves, or greedy: win at once if possible, else capture, else random")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Play one game on stdin/stdout through ``ggp play``; returns 0 when the game ends or the user quits."""
    from ggp.commands.play import play
    from ggp.errors import InputError

    if args.file.suffix.lower() != ".sbg":
        raise InputError(f"{args.file}: play-sbg plays .sbg files; use 'ggp play' for other games")
    return play(str(args.file), [OPPONENTS[args.opponent]], args.side, args.seed)
