"""``ggp translate FORMAT FILE [-o OUT.kif]``: turn a game in another format into GDL (KIF).

Each format is a sub-sub-command. To add one (e.g. ``sokoban``), write a ``_register_<name>(formats)``
function that calls :func:`add_format` and append it to ``FORMAT_REGISTRARS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ggp.commands._args import positive_int


def add_format(formats: Any, name: str, help_text: str, run: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
    """Add ``ggp translate <name> FILE [-o OUT]``; returns the sub-parser for extra options."""
    parser: argparse.ArgumentParser = formats.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("file", type=Path, metavar="FILE", help=f"{name} source file")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", default=None,
                        help="write the KIF here (default: standard output)")
    parser.set_defaults(run=run)
    return parser


def write_kif(text: str, output: Path | None) -> None:
    """Write KIF text to ``output``, or to standard output when it is None."""
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


def _run_sbg(args: argparse.Namespace) -> int:
    from ggp.commands._games import read_game_text
    from ggp.gdl.printer import to_kif
    from ggp.translators.sbg.parser import parse_sbg
    from ggp.translators.sbg.to_gdl import translate

    game = parse_sbg(read_game_text(args.file, "sbg", "translate sbg"), str(args.file))
    for warning in game.warnings:
        print(f"ggp translate: {warning}", file=sys.stderr)
    write_kif(to_kif(translate(game)), args.output)
    return 0


def _register_sbg(formats: Any) -> None:
    add_format(formats, "sbg", "translate a Simplified Boardgames (.sbg) file to GDL", _run_sbg)


def _run_sokoban(args: argparse.Namespace) -> int:
    from ggp.commands._games import read_game_text
    from ggp.gdl.printer import to_kif
    from ggp.translators.sokoban.level import parse_level
    from ggp.translators.sokoban.solver import solve_moves
    from ggp.translators.sokoban.to_gdl import translate

    level = parse_level(read_game_text(args.file, "sokoban", "translate sokoban"), str(args.file), args.level)
    length = None
    if args.solve and args.step_limit is None:
        solution = solve_moves(level)
        if solution is None:
            raise ValueError(f"{args.file}: level {args.level} has no solution")
        length = solution.length
    write_kif(to_kif(translate(level, args.step_limit, solution_length=length)), args.output)
    return 0


def _register_sokoban(formats: Any) -> None:
    parser = add_format(formats, "sokoban", "translate a Sokoban level (standard text format) to GDL", _run_sokoban)
    parser.add_argument("--level", type=positive_int, default=1, metavar="K", help="which level of the file (1-based, default 1)")
    parser.add_argument("--step-limit", type=positive_int, default=None, metavar="N",
                        help="moves before the game ends (default 4*w*h, or twice the optimum with --solve)")
    parser.add_argument("--solve", action="store_true", help="solve the level first; step limit 2*l for l optimal moves")


FORMAT_REGISTRARS: list[Callable[[Any], None]] = [_register_sbg, _register_sokoban]
"""One function per source format; each adds its sub-sub-command to ``ggp translate``."""


def register(subcommands: Any) -> None:
    """Add the ``translate`` sub-parser and one sub-sub-parser per format."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "translate", help="translate a game from another format (sbg, ...) to GDL",
        description="Translate a game written in another format into a GDL (KIF) description.",
    )
    formats = parser.add_subparsers(dest="format", required=True, metavar="FORMAT")
    for registrar in FORMAT_REGISTRARS:
        registrar(formats)
