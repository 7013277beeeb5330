"""``ggp nld FILE.sbg...``: describe each piece in English and print the game's f_NLD complexity score.

f_NLD (metrics.md §4) scores how hard the piece rules are for humans; lower is easier. The thesis's
chess (games/chess_simplified.sbg) scores 168, Shatranj 166.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(subcommands: Any) -> None:
    """Add the ``nld`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "nld", help="English piece descriptions and the f_NLD complexity score of SBG games",
        description="Describe each piece of an SBG game in English (fairy-chess classes and operators), "
        "score each description, and print the game's f_NLD (lower = easier for humans).",
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="SBG game (.sbg)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per file")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ggp.commands._games import read_game_text
    from ggp.generation.nld import game_nld
    from ggp.translators.sbg.parser import parse_sbg

    for path in args.files:
        game = parse_sbg(read_game_text(path, "sbg", "nld"), str(path))
        score = game_nld(game)
        if args.json:
            print(json.dumps({
                "file": str(path), "nld": score.value, "raw": round(score.raw, 4),
                "pieces": [
                    {"letter": p.letter, "count": c, "value": p.value, "text": p.text(), "truncated": p.truncated,
                     "descriptions": [{"text": d.text(), "cost": d.cost} for d in p.descriptions]}
                    for p, c in zip(score.pieces, score.counts)
                ],
            }))
            continue
        print(f"{path}: {game.name}")
        for piece, count in zip(score.pieces, score.counts):
            note = " (word list truncated)" if piece.truncated else ""
            print(f"  {piece.letter} x{count}  value {piece.value}{note}: {piece.text()}")
            for d in piece.descriptions:
                print(f"      {d.cost:>4}  {d.text()}")
        print(f"  f_NLD = {score.value} (raw {score.raw:.2f}, {len(score.pieces)} piece types)")
    return 0
