"""What every generator method shares: the options, the final check of a candidate level, LURD walks.

Each method builds a candidate level and a solution of its own (SYM, PDB and MCTS simulate play, so
they know one). :func:`accept` replays that solution, scores the level with the optimal solvers and
keeps or drops it; a level the generator solved but the optimal solver finds unsolvable is a bug and
raises :class:`GeneratorBug` rather than being skipped.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ggp.errors import GgpError, SokobanError
from ggp.translators.sokoban.generator import GENERATOR_LIMITS, Generated, GenerationStats, SymSettings
from ggp.translators.sokoban.level import DIRECTIONS, Cell, Level
from ggp.translators.sokoban.metrics import measure
from ggp.translators.sokoban.moves import solves
from ggp.translators.sokoban.solver import SolverLimitError, SolverLimits

Variant = Literal["simple", "novelty", "compound"]
"""PDB node orderings: simple [kC, h], novelty [w(h), h], compound [w(h), kC, h]."""

VARIANTS: tuple[Variant, ...] = ("simple", "novelty", "compound")


class GeneratorBug(GgpError):
    """A generated level whose own solution does not replay, or that the optimal solver cannot solve."""


@dataclass(frozen=True, slots=True)
class MethodOptions:
    """Knobs for :func:`ggp.translators.sokoban.methods.generate`; each method reads the ones it knows.

    ``width``/``height`` are the interior size (None: the method's default, 8x8, or the PPO policy's
    size). ``keep_trivial`` keeps levels with PSH or LEN <= 0.5 (PPO always keeps them).
    ``max_attempts`` bounds the attempts (SYM runs, PDB searches, MCTS searches, PPO episodes);
    default 200 per level for SYM and PPO, 20 per level for PDB and MCTS, whose runs are longer.
    """

    width: int | None = None
    height: int | None = None
    boxes: int = 3
    keep_trivial: bool = False
    limits: SolverLimits = GENERATOR_LIMITS
    max_attempts: int | None = None
    sym: SymSettings | None = None
    """SYM strategies and iterations (None: the specification's defaults at ``width`` x ``height``)."""
    layout: Level | None = None
    """PDB: a solved layout (boxes on every goal); None carves a random room per attempt."""
    variant: Variant = "compound"
    pattern: int = 3
    """PDB: the pattern size k of h^PDB_k (1..5; values above the box count act as the box count)."""
    expansions: int = 4000
    """PDB: node expansions per search."""
    memory_mb: float = 256.0
    """PDB: cap on the estimated size of the open list, closed set, novelty tables and pattern databases."""
    iterations: int = 1500
    """MCTS: tree iterations per search."""
    policy: Path | None = None
    """PPO: checkpoint of ``ggp train-sokoban`` (None: the shipped 5x5 turtle policy)."""

    def size(self, default: tuple[int, int] = (8, 8)) -> tuple[int, int]:
        """The interior size, ``default`` where unset."""
        return (self.width or default[0], self.height or default[1])


def accept(
    level: Level,
    solution: str,
    options: MethodOptions,
    stats: GenerationStats,
    *,
    title: str,
    seed: int,
    attempt: int,
) -> Generated | None:
    """Check and score one candidate; counts the outcome in ``stats``.

    Returns None (counted as ``trivial`` or ``too-large``) when the level is dropped. Raises
    :class:`GeneratorBug` when ``solution`` does not solve ``level`` or the optimal solver finds no
    solution: both mean the generator is wrong, not that the level is hard.
    """
    if not solves(level, solution):
        raise GeneratorBug(f"{title}: the generator's own solution does not solve the level")
    clock = time.process_time()
    try:
        difficulty = measure(level, options.limits, stop_if_trivial=not options.keep_trivial)
    except SolverLimitError:
        stats.outcomes["too-large"] += 1
        return None
    except SokobanError as exc:
        raise GeneratorBug(f"{title}: the optimal solver finds no solution ({exc})") from exc
    finally:
        stats.solve_seconds += time.process_time() - clock
    if difficulty is None or not (options.keep_trivial or difficulty.non_trivial):
        stats.outcomes["trivial"] += 1
        return None
    stats.outcomes["accepted"] += 1
    titled = Level(level.width, level.height, level.walls, level.floor, level.goals, level.boxes, level.player, title)
    return Generated(titled, solution, difficulty, seed, attempt)


_LETTERS = {DIRECTIONS[name]: name[0] for name in DIRECTIONS}


def walk(floor: frozenset[Cell] | set[Cell], boxes: Iterable[Cell], start: Cell, end: Cell) -> str | None:
    """Letters (lower case) of a shortest walk over ``floor`` avoiding ``boxes``; None if there is none."""
    blocked = set(boxes)
    back: dict[Cell, tuple[Cell, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == end:
            letters = []
            step = back[here]
            while step is not None:
                here, letter = step
                letters.append(letter)
                step = back[here]
            return "".join(reversed(letters))
        for (dx, dy), letter in _LETTERS.items():
            nxt = (here[0] + dx, here[1] + dy)
            if nxt in floor and nxt not in blocked and nxt not in back:
                back[nxt] = (here, letter)
                queue.append(nxt)
    return None
