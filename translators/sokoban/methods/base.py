"""What the generator methods share besides the check of a candidate: their options and LURD walks.

The check and scoring of a candidate level is :func:`ggp.translators.sokoban.candidates.accept`,
which SYM uses too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ggp.translators.sokoban.candidates import GENERATOR_LIMITS
from ggp.translators.sokoban.generator import SymSettings
from ggp.translators.sokoban.level import DIRECTIONS, Cell, Level
from ggp.translators.sokoban.solver import SolverLimits

Variant = Literal["simple", "novelty", "compound"]
"""PDB node orderings: simple [kC, h], novelty [w(h), h], compound [w(h), kC, h]."""

VARIANTS: tuple[Variant, ...] = ("simple", "novelty", "compound")


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
