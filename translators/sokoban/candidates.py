"""What every Sokoban generator shares: its result, its counters, and the check and scoring of a candidate.

Each method (SYM, PDB, MCTS) builds a candidate level and a solution of its own: it simulated the
play, so it knows one. :func:`accept` replays that solution, scores the level with the optimal
solvers and keeps or drops it. The generator's solution bounds the optimal counts from above, so a
candidate that is trivial even by it is dropped without a search. A level whose own solution does not
replay, or that the optimal solver finds unsolvable, is a bug and raises :class:`GeneratorBug` rather
than being skipped.

:class:`GenerationStats` also tallies every candidate scored by the generator's own solution (the
best PSH and LEN and how many are non-trivial that way): the thesis's best levels score closer to
those than to the optimal ones (docs/sokoban_methods.md).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from ggp.errors import GgpError, SokobanError
from ggp.translators.sokoban.level import Level
from ggp.translators.sokoban.metrics import Difficulty, is_non_trivial, measure, solution_scores
from ggp.translators.sokoban.moves import solves
from ggp.translators.sokoban.solver import SolverLimitError, SolverLimits

GENERATOR_LIMITS = SolverLimits(max_nodes=200_000, max_seconds=20.0)
"""Solver limits per accepted candidate; larger levels are skipped as ``too-large``."""


class GeneratorBug(GgpError):
    """A generated level whose own solution does not replay, or that the optimal solver cannot solve."""


@dataclass(frozen=True, slots=True)
class Generated:
    """An accepted level with the generator's own solution (an upper bound) and its optimal difficulty."""

    level: Level
    solution: str
    difficulty: Difficulty
    seed: int
    attempt: int


@dataclass(slots=True)
class GenerationStats:
    """Counts per attempt outcome (``accepted``, ``trivial``, ``too-large``, ``invalid``...).

    ``sym_seconds`` and ``solve_seconds`` split the CPU time between building candidates (by any
    method) and scoring them with the optimal solvers. ``messages`` are notes for the user (a PDB
    search stopped by its memory cap); ``peak_bytes`` the largest estimated size of a method's search
    tables (PDB and MCTS; 0 for SYM, whose state is a few small sets). ``own_non_trivial``,
    ``own_best_psh`` and ``own_best_len`` score every candidate that reached :func:`accept` by the
    generator's own solution instead of the optimal one. ``own_scores``, when a list, also gets each
    such candidate's own (PSH, LEN), in order: the methods benchmark commits them so that its figures
    can be recomputed (benchmarks/sokoban_methods.py); None, the default, keeps nothing.
    """

    outcomes: Counter[str] = field(default_factory=Counter)
    sym_seconds: float = 0.0
    solve_seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    peak_bytes: int = 0
    own_non_trivial: int = 0
    own_best_psh: float = 0.0
    own_best_len: float = 0.0
    own_scores: list[tuple[float, float]] | None = None

    @property
    def attempts(self) -> int:
        return sum(self.outcomes.values())


def accept(
    level: Level,
    solution: str,
    *,
    keep_trivial: bool,
    limits: SolverLimits,
    stats: GenerationStats,
    title: str,
    seed: int,
    attempt: int,
) -> Generated | None:
    """Check and score one candidate; counts the outcome in ``stats``.

    Returns None (counted as ``trivial`` or ``too-large``) when the level is dropped; unless
    ``keep_trivial``, a level needs PSH > 0.5 and LEN > 0.5. Raises :class:`GeneratorBug` when
    ``solution`` does not solve ``level`` or the optimal solver finds no solution: both mean the
    generator is wrong, not that the level is hard.
    """
    if not solves(level, solution):
        raise GeneratorBug(f"{title}: the generator's own solution does not solve the level")
    own_psh, own_len = solution_scores(level, solution)
    own_non_trivial = is_non_trivial(own_psh, own_len)
    stats.own_non_trivial += own_non_trivial
    stats.own_best_psh = max(stats.own_best_psh, own_psh)
    stats.own_best_len = max(stats.own_best_len, own_len)
    if stats.own_scores is not None:
        stats.own_scores.append((own_psh, own_len))
    if not (keep_trivial or own_non_trivial):
        stats.outcomes["trivial"] += 1
        return None
    clock = time.process_time()
    try:
        difficulty = measure(level, limits, stop_if_trivial=not keep_trivial)
    except SolverLimitError:
        stats.outcomes["too-large"] += 1
        return None
    except SokobanError as exc:
        raise GeneratorBug(f"{title}: the optimal solver finds no solution ({exc})") from exc
    finally:
        stats.solve_seconds += time.process_time() - clock
    if difficulty is None or not (keep_trivial or difficulty.non_trivial):
        stats.outcomes["trivial"] += 1
        return None
    stats.outcomes["accepted"] += 1
    titled = Level(level.width, level.height, level.walls, level.floor, level.goals, level.boxes, level.player, title)
    return Generated(titled, solution, difficulty, seed, attempt)
