"""Sokoban level generators by name: the thesis's four methods behind one registry.

``sym`` (SYM reverse play, :mod:`ggp.translators.sokoban.generator` via :mod:`.sym`), ``pdb`` (greedy
best-first search over pulls, :mod:`.pdb`), ``mcts`` (Monte Carlo tree search over a level-building
game, :mod:`.mcts`) and ``ppo`` (a PCGRL policy, :mod:`.ppo`; needs the ``rl`` extra). Every method
yields :class:`~ggp.translators.sokoban.generator.Generated` levels: the level, a solution, the
optimal :class:`~ggp.translators.sokoban.metrics.Difficulty` (PSH, LEN, non-trivial). SYM, PDB and
MCTS carry their own (non-optimal) solution, PPO the move-optimal one; every level has been solved
by the optimal solver.

>>> from ggp.translators.sokoban.moves import solves
>>> options = MethodOptions(width=5, height=5, boxes=2, keep_trivial=True, iterations=60)
>>> [item] = generate("mcts", options, count=1, seed=1)
>>> solves(item.level, item.solution) and item.difficulty.moves <= len(item.solution)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ggp.translators.sokoban.candidates import Generated, GenerationStats, GeneratorBug
from ggp.translators.sokoban.methods.base import MethodOptions

Method = Callable[[MethodOptions, int, int, GenerationStats], Iterator[Generated]]
"""``(options, count, seed, stats)`` to an iterator of up to ``count`` levels."""


def _sym(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    from ggp.translators.sokoban.methods.sym import generate_sym

    return generate_sym(options, count, seed, stats)


def _pdb(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    from ggp.translators.sokoban.methods.pdb import generate_pdb

    return generate_pdb(options, count, seed, stats)


def _mcts(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    from ggp.translators.sokoban.methods.mcts import generate_mcts

    return generate_mcts(options, count, seed, stats)


def _ppo(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    from ggp.translators.sokoban.methods.ppo import generate_ppo_method

    return generate_ppo_method(options, count, seed, stats)


METHODS: dict[str, Method] = {"sym": _sym, "pdb": _pdb, "mcts": _mcts, "ppo": _ppo}
"""Method name to generator; modules load on first use (PPO's imports torch only then)."""

SOLUTION_KIND = {"sym": "SYM", "pdb": "PDB", "mcts": "MCTS", "ppo": "optimal"}
"""Whose solution a method's levels carry (the level files' ``... solution (N moves)`` comment)."""


def generate(
    method: str, options: MethodOptions, count: int, seed: int = 0, stats: GenerationStats | None = None,
) -> list[Generated]:
    """Up to ``count`` levels by ``method`` (a key of :data:`METHODS`); ``stats`` collects the outcomes.

    Raises ValueError for an unknown method or bad options, :class:`~ggp.errors.SokobanError` for
    bad input (a layout, a policy file), :class:`GeneratorBug` when a level fails the solver check.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    return list(METHODS[method](options, count, seed, stats if stats is not None else GenerationStats()))


__all__ = ["METHODS", "SOLUTION_KIND", "GeneratorBug", "Method", "MethodOptions", "generate"]
