"""Difficulty of a Sokoban level: PSH, LEN and fill ratio, from optimal solutions.

Definitions (project Sokoban specification, section 4): PSH = p / (w + h + b^2) with p the fewest
pushes, LEN = l / (w * h) with l the fewest moves, each optimised on its own; w and h are the text
bounding box. A level is non-trivial when PSH > 0.5 and LEN > 0.5.

>>> from ggp.translators.sokoban.level import parse_level
>>> m = measure(parse_level("######\\n#    #\\n# $$ #\\n# .. #\\n#  @ #\\n######\\n"))
>>> m.pushes, m.moves, m.psh, m.len, round(m.fill, 3), m.non_trivial
(2, 9, 0.125, 0.25, 0.611, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, overload

from ggp.errors import SokobanError
from ggp.translators.sokoban.level import Level
from ggp.translators.sokoban.solver import (
    DEFAULT_LIMITS,
    Solution,
    SolverLimits,
    quick_moves,
    solve_moves,
    solve_pushes,
)

NON_TRIVIAL = 0.5
"""Both PSH and LEN must exceed this for a level to count as non-trivial."""


@dataclass(frozen=True, slots=True)
class Difficulty:
    """Optimal counts and the scores derived from them for one level."""

    pushes: int
    moves: int
    width: int
    height: int
    boxes: int
    psh: float
    len: float
    fill: float

    @property
    def non_trivial(self) -> bool:
        """PSH > 0.5 and LEN > 0.5."""
        return is_non_trivial(self.psh, self.len)


def is_non_trivial(psh_score: float, len_score_: float) -> bool:
    """PSH > 0.5 and LEN > 0.5: the specification's line between trivial and non-trivial levels."""
    return psh_score > NON_TRIVIAL and len_score_ > NON_TRIVIAL


def psh(pushes: int, width: int, height: int, boxes: int) -> float:
    """PSH = pushes / (w + h + b^2)."""
    return pushes / (width + height + boxes * boxes)


def len_score(moves: int, width: int, height: int) -> float:
    """LEN = moves / (w * h)."""
    return moves / (width * height)


def solution_scores(level: Level, moves: str) -> tuple[float, float]:
    """PSH and LEN of ``level`` by one solution in LURD notation (upper case = push): upper bounds of
    the optimal scores, equal to them only for an optimal solution."""
    pushes = sum(1 for letter in moves if letter.isupper())
    return psh(pushes, level.width, level.height, len(level.boxes)), len_score(len(moves), level.width, level.height)


def fill_ratio(level: Level) -> float:
    """(wall + box + outside cells) / (w * h) over the text bounding box."""
    blocked = level.width * level.height - len(level.floor) + len(level.boxes)
    return blocked / (level.width * level.height)


@overload
def measure(level: Level, limits: SolverLimits = ..., *, stop_if_trivial: Literal[False] = ...) -> Difficulty: ...


@overload
def measure(level: Level, limits: SolverLimits = ..., *, stop_if_trivial: bool) -> Difficulty | None: ...


def measure(level: Level, limits: SolverLimits = DEFAULT_LIMITS, *, stop_if_trivial: bool = False) -> Difficulty | None:
    """Solve the level twice (push- and move-optimal) and score it.

    With ``stop_if_trivial`` it returns None as soon as some solution (quick weighted-A* ones, then
    the move-optimal one) shows PSH <= 0.5 or LEN <= 0.5, skipping the slower exact searches;
    generators use that. Raises :class:`SokobanError` when the level has no solution, and
    :class:`~ggp.translators.sokoban.solver.SolverLimitError` when a search exceeds ``limits``.
    """
    w, h, b = level.width, level.height, len(level.boxes)

    def trivial(solution: Solution) -> bool:
        # Any solution bounds p and l from above, so a short one proves PSH or LEN <= 0.5.
        return not is_non_trivial(*solution_scores(level, solution.moves))

    known = None
    if stop_if_trivial:
        # Cheap weighted searches first: most generated candidates fail here.
        for weight in (3, 2):
            known = quick_moves(level, limits, weight)
            if known is None:
                raise SokobanError("level has no solution", level.pos)
            if trivial(known):
                return None
    by_moves = solve_moves(level, limits, known=known)
    if by_moves is None:
        raise SokobanError("level has no solution", level.pos)
    if stop_if_trivial and trivial(by_moves):
        return None
    # The solution with the fewest pushes seen so far bounds the push-optimal search.
    fewest = min((s for s in (by_moves, known) if s is not None), key=lambda s: s.pushes)
    by_pushes = solve_pushes(level, limits, known=fewest)
    if by_pushes is None:
        raise SokobanError("level has no solution", level.pos)
    return Difficulty(
        by_pushes.pushes, by_moves.length, w, h, b,
        psh(by_pushes.pushes, w, h, b), len_score(by_moves.length, w, h), fill_ratio(level),
    )
