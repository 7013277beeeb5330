"""Make the piece pictures of the shipped SBG games ahead of time, into ggp/commands/piece_shapes (committed).

Usage: python scripts/ship_piece_shapes.py [GAME.sbg ...]   (default: every games/*.sbg)

Pictures take 20 s to minutes per game, so the manager (``ggp demo``, ``ggp serve``) reads these
instead of making them on a page's first request. Folders of games no longer shipped (or of an older
:data:`ggp.commands._piece_images.SHAPES_VERSION`) are removed. Run it after changing a game in
``games/`` or the shape generator; ``tests/unit/manager/test_piece_images.py`` fails until then.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from ggp.commands._piece_images import SHIPPED, ShapeCache

GAMES = Path(__file__).resolve().parents[1] / "games"


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(GAMES.glob("*.sbg"))
    cache = ShapeCache(SHIPPED, shipped=None)
    wanted = set()
    for path in paths:
        source = path.read_text(encoding="utf-8")
        folder = cache.folder(source)
        wanted.add(folder.name)
        started = time.perf_counter()
        cache.svg("sbg", source, "a", "white")  # makes every piece of the game on first use
        print(f"{path}: {folder.name[:12]} ({time.perf_counter() - started:.1f} s)", flush=True)
    if not argv:
        for stale in sorted(p for p in SHIPPED.iterdir() if p.is_dir() and p.name not in wanted):
            shutil.rmtree(stale)
            print(f"removed {stale.name[:12]} (no shipped game has it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
