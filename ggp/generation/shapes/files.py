"""Writing a game's piece shapes: one SVG per piece and colour, and an HTML contact sheet.

File names follow the GDL that ``ggp translate`` writes for SBG games, ``(cell x y OWNER TYPE)`` with the
type in lower case: ``p-white.svg`` (white fill, black outline) and ``p-black.svg`` (black fill, white
outline). The manager serves the same names under ``/api/games/{game}/pieces/``.
"""

from __future__ import annotations

import html
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ggp.generation.shapes import PieceShape
from ggp.generation.shapes.outline import svg_document
from ggp.generation.shapes.visual import VisualMetrics, visual_metrics

COLOURS = {"white": ("#ffffff", "#000000"), "black": ("#000000", "#ffffff")}
"""Owner -> (fill, outline)."""
SHEET = "index.html"


def piece_file(letter: str, owner: str) -> str:
    """``p-white.svg``: the file name of a piece type (any case) for one owner."""
    return f"{letter.lower()}-{owner}.svg"


def piece_documents(game_name: str, pieces: Sequence[PieceShape]) -> dict[str, str]:
    """Every file of a game's shapes by name: two SVGs per piece and the contact sheet."""
    documents = {}
    for piece in pieces:
        for owner, (fill, stroke) in COLOURS.items():
            documents[piece_file(piece.letter, owner)] = svg_document(
                piece.shape, fill, stroke, f"{game_name}: {piece.letter} ({owner})")
    documents[SHEET] = contact_sheet(game_name, pieces)
    return documents


def contact_sheet(game_name: str, pieces: Sequence[PieceShape]) -> str:
    """A static HTML page (no scripts) showing every piece in both colours with its metrics."""
    rows = []
    for piece in pieces:
        strategic = " ".join(f"{n}={v:.2f}" for n, v in zip(piece.strategic.names(), piece.strategic.vector()))
        visual = " ".join(f"{n}={v:.2f}" for n, v in zip(VisualMetrics.names(), visual_metrics(piece.shape).vector()))
        weights = ", ".join(f"{k} {w:.2f}" for k, w in piece.target.weights.items())
        images = "".join(f'<img src="{piece_file(piece.letter, owner)}" alt="{piece.letter} {owner}" width="100" '
                         f'height="100">' for owner in COLOURS)
        rows.append(f"<tr><td class=l>{html.escape(piece.letter)} &times;{piece.count}</td><td class=b>{images}</td>"
                    f"<td><p>like: {html.escape(weights)}</p><p>{strategic}</p><p>{visual}</p></td></tr>")
    title = html.escape(f"{game_name}: generated piece shapes")
    return (f"<!doctype html><html lang=en><meta charset=utf-8><title>{title}</title>"
            "<style>body{font:14px sans-serif}td{vertical-align:middle;padding:4px}.l{font-size:24px}"
            ".b{background:#8a9;white-space:nowrap}p{margin:2px;font-size:11px}</style>"
            f"<h1>{title}</h1><table>{''.join(rows)}</table></html>\n")


def write_documents(documents: dict[str, str], directory: Path) -> list[Path]:
    """Write the files into ``directory`` (created when missing); each file appears whole or not at all."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in documents.items():
        target = directory / name
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=directory)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        written.append(target)
    return written
