"""Playing a Sokoban level by hand: one step at a time and whole solutions in LURD notation.

A solution is a string of ``u d l r`` letters; upper case marks a step that pushes a box. This is
the common notation of Sokoban programs; :func:`replay` checks a solution without any search.

>>> from ggp.translators.sokoban.level import parse_level
>>> level = parse_level("######\\n#@$ .#\\n######\\n")
>>> replay(level, "RR").boxes == level.goals
True
"""

from __future__ import annotations

from dataclasses import dataclass

from ggp.errors import SokobanError
from ggp.translators.sokoban.level import DIRECTIONS, LURD, Cell, Level


@dataclass(frozen=True, slots=True)
class Position:
    """Where the player and the boxes stand; a level's start is ``Position(level.player, level.boxes)``."""

    player: Cell
    boxes: frozenset[Cell]


def step(level: Level, position: Position, direction: str) -> tuple[Position, bool]:
    """The position after moving ``direction`` (``up``...), and whether it pushed a box.

    Raises :class:`SokobanError` when the move walks into a wall or pushes a blocked box.
    """
    dx, dy = DIRECTIONS[direction]
    x, y = position.player
    target = (x + dx, y + dy)
    if target not in level.floor:
        raise SokobanError(f"cannot move {direction} from {position.player}: wall")
    if target not in position.boxes:
        return Position(target, position.boxes), False
    beyond = (x + 2 * dx, y + 2 * dy)
    if beyond not in level.floor or beyond in position.boxes:
        raise SokobanError(f"cannot push {direction} from {position.player}: the box is blocked")
    return Position(target, (position.boxes - {target}) | {beyond}), True


def replay(level: Level, moves: str) -> Position:
    """Play a LURD string from the level's start and return the final position.

    Raises :class:`SokobanError` for an unknown letter, an illegal step, or a letter whose case
    disagrees with whether the step pushes.
    """
    position = Position(level.player, level.boxes)
    for index, letter in enumerate(moves):
        if letter.lower() not in LURD:
            raise SokobanError(f"unknown move letter {letter!r} at {index + 1}; expected u d l r (U D L R pushes)")
        position, pushed = step(level, position, LURD[letter.lower()])
        if pushed != letter.isupper():
            raise SokobanError(f"move {index + 1} ({letter!r}) {'pushes' if pushed else 'does not push'} a box")
    return position


def solves(level: Level, moves: str) -> bool:
    """True when the LURD string is legal and leaves every box on a goal."""
    try:
        return level.is_solved(replay(level, moves).boxes)
    except SokobanError:
        return False
