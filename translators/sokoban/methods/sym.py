"""SYM (Wu Yueyang 2020) in the method registry: a thin wrapper around :mod:`..generator`.

The generator itself stays in :mod:`ggp.translators.sokoban.generator` (the specification's section 6);
this module only maps :class:`~.base.MethodOptions` onto :class:`SymSettings`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ggp.translators.sokoban.candidates import Generated, GenerationStats
from ggp.translators.sokoban.generator import SymSettings, generate
from ggp.translators.sokoban.methods.base import MethodOptions


def generate_sym(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    """Yield up to ``count`` SYM levels; ``options.sym`` (when set) gives the strategies and iterations.

    Raises ValueError for settings that do not fit (e.g. more boxes than the interior holds).
    """
    width, height = options.size()
    base = options.sym if options.sym is not None else SymSettings(width=width, height=height, boxes=options.boxes)
    settings = replace(base, width=width, height=height, boxes=options.boxes)
    return generate(settings, count, seed, keep_trivial=options.keep_trivial, limits=options.limits,
                    max_attempts=options.max_attempts, stats=stats)
