"""The manager's piece pictures: generated SBG piece shapes (:mod:`ggp.generation.shapes`), made once per
game and kept on disk.

Only the CLI wires concrete classes (STYLE.md), so this is where the manager (which may not import
:mod:`ggp.generation`) meets the shape generator. A game's files live in ``DIR/<sha256>/`` where the
hash covers :data:`SHAPES_VERSION`, the variant, the seed and the game's SBG text, so a changed game or
generator gets fresh pictures and an unchanged one is never generated twice, even across restarts.

Making a game's pictures takes 20 s to minutes, so the pictures of the games shipped in ``games/`` are
made ahead of time and committed in :data:`SHIPPED` (``python scripts/ship_piece_shapes.py``, which a
test keeps honest): every cache looks there first, and a fresh ``ggp demo`` draws them at once.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ggp.generation.shapes import EvolutionParams, Variant

log = logging.getLogger(__name__)

SHAPES_VERSION = "1"
"""Bump when the generator would draw the same game differently, so cached pictures are not reused."""
CACHE_NAME = "ggp-shapes"
"""The cache's folder name next to the manager's database (``ggp serve --db``)."""
SHIPPED = Path(__file__).resolve().parent / "piece_shapes"
"""The pictures of the games in ``games/`` as committed (default variant and seed), read-only."""


class ShapeCache:
    """:class:`ggp.manager.wiring.PieceImages` for games uploaded as SBG; thread-safe."""

    def __init__(self, directory: Path, variant: Variant = "two-stage", seed: int = 0,
                 params: EvolutionParams | None = None, shipped: Path | None = SHIPPED) -> None:
        self.directory = directory
        self.shipped = shipped
        self.variant: Variant = variant
        self.seed = seed
        self.params = params
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def folder(self, source: str) -> Path:
        """Where the pictures of the game with this SBG text are (or will be) kept."""
        key = f"{SHAPES_VERSION}\n{self.variant}\n{self.seed}\n{self.params}\n{source}"
        return self.directory / hashlib.sha256(key.encode()).hexdigest()

    def svg(self, game_format: str, source: str, piece: str, owner: str) -> bytes | None:
        """The SVG of ``piece`` (any case) for ``owner`` (white or black), generating the game's shapes
        on first use; ``None`` for a format other than ``sbg`` or a piece the game does not have."""
        from ggp.generation.shapes.files import piece_file

        if game_format != "sbg" or owner not in ("white", "black") or len(piece) != 1 or not piece.isalpha():
            return None
        folder = self.folder(source)
        if self.shipped is not None and (self.shipped / folder.name).is_dir():
            folder = self.shipped / folder.name
        elif not folder.is_dir():
            with self._guard:
                lock = self._locks.setdefault(folder.name, threading.Lock())
            with lock:
                if not folder.is_dir():
                    self._generate(source, folder)
        path = folder / piece_file(piece, owner)
        return path.read_bytes() if path.is_file() else None

    def _generate(self, source: str, folder: Path) -> None:
        """Generate every file into a temporary folder, then move it into place in one rename."""
        from ggp.generation.shapes import piece_shapes
        from ggp.generation.shapes.files import piece_documents, write_documents
        from ggp.translators.sbg.parser import parse_sbg

        started = time.perf_counter()
        game = parse_sbg(source, "game.sbg")
        documents = piece_documents(game.name, piece_shapes(game, self.variant, self.seed, self.params))
        self.directory.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(prefix=".making-", dir=self.directory))
        try:
            write_documents(documents, temporary)
            temporary.rename(folder)
        except OSError:
            if not folder.is_dir():
                raise
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
        log.info("piece shapes of %s made in %.1f s (%s)", game.name, time.perf_counter() - started, folder)


def shape_cache(database: str) -> ShapeCache:
    """The cache of a manager whose SQLite database is ``database``: ``ggp-shapes/`` beside it."""
    return ShapeCache(Path(database).resolve().parent / CACHE_NAME)


def user_shape_cache() -> ShapeCache:
    """The cache every run of one user shares (``$XDG_CACHE_HOME/ggp/shapes``, else ``~/.cache/ggp/shapes``):
    for a manager whose database is temporary (``ggp demo``), so uploaded games are drawn once per user."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return ShapeCache(Path(base) / "ggp" / "shapes")
