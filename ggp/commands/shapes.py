"""``ggp shapes GAME.sbg --out DIR``: generated piece shapes (SVG) for an SBG game (docs/shapes.md).

Writes ``p-white.svg`` / ``p-black.svg`` for every piece type and an ``index.html`` contact sheet.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any


def register(subcommands: Any) -> None:
    """Add the ``shapes`` sub-parser."""
    from ggp.generation.shapes.evolution import VARIANTS

    parser: argparse.ArgumentParser = subcommands.add_parser(
        "shapes", help="generate SVG piece shapes for an SBG game",
        description="Evolve an outline for every piece type of an SBG game from its strategic role "
        "(Żarczyński's thesis, ch. 4) and write one SVG per piece and colour plus an HTML contact sheet.")
    parser.add_argument("game", type=Path, metavar="GAME.sbg", help="SBG game")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="output directory (created)")
    parser.add_argument("--variant", default="two-stage", metavar="|".join(VARIANTS),
                        help="evolution variant (default two-stage)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ggp.commands._games import read_game_text
    from ggp.errors import InputError
    from ggp.generation.shapes import VARIANTS, piece_shapes
    from ggp.generation.shapes.files import SHEET, piece_documents, write_documents
    from ggp.translators.sbg.parser import parse_sbg

    if args.variant not in VARIANTS:
        raise InputError(f"unknown variant {args.variant!r}; expected one of {', '.join(VARIANTS)}")
    started = time.perf_counter()
    game = parse_sbg(read_game_text(args.game, "sbg", "shapes"), str(args.game))
    pieces = piece_shapes(game, args.variant, args.seed)
    documents = piece_documents(game.name, pieces)
    write_documents(documents, args.out)
    print(f"{args.game}: {len(pieces)} piece types, {len(documents) - 1} SVG files and {args.out / SHEET} "
          f"in {time.perf_counter() - started:.1f} s")
    return 0
