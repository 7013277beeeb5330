"""SBG games as frozen values: letters, regular-expression ASTs, piece rules, goals and the game.

Positions (``pos``) never take part in equality, so a game parsed from printed text equals the
original. The board is stored as written (top row first); :meth:`SbgGame.cell` maps the spec's
coordinates (x from the left, y = 0 on the last written row) onto it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal as TypingLiteral

from ggp.errors import SourcePos

On = TypingLiteral["e", "p", "w"]
"""What a letter's landing square must hold: empty, an opponent piece, or one of the mover's own."""

Side = TypingLiteral["white", "black"]
SIDES: tuple[Side, Side] = ("white", "black")


@dataclass(frozen=True, slots=True)
class Letter:
    """One step ``(dx,dy,on)`` of a move word, written from white's side (black negates dy)."""

    dx: int
    dy: int
    on: On

    def __str__(self) -> str:
        return f"({self.dx},{self.dy},{self.on})"


@dataclass(frozen=True, slots=True)
class Sym:
    """A single letter."""

    letter: Letter


@dataclass(frozen=True, slots=True)
class Cat:
    """Concatenation of two or more parts."""

    parts: tuple[Regex, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    """Union (``+``) of two or more options."""

    options: tuple[Regex, ...]


@dataclass(frozen=True, slots=True)
class Rep:
    """``child^count`` (exactly ``count`` >= 1 copies) or ``child^*`` (``count`` is None)."""

    child: Regex
    count: int | None


Regex = Sym | Cat | Alt | Rep


@dataclass(frozen=True, slots=True)
class PieceRule:
    """The move language of one piece type, keyed by its upper-case letter."""

    letter: str
    regex: Regex
    pos: SourcePos | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class PlacementGoal:
    """``@X x y, ...``: X's owner wins when one of its X pieces stands on a listed square."""

    letter: str
    squares: tuple[tuple[int, int], ...]
    pos: SourcePos | None = field(default=None, compare=False)

    @property
    def owner(self) -> Side:
        return owner_of(self.letter)


@dataclass(frozen=True, slots=True)
class CaptureGoal:
    """``#X n``: the opponent of X's owner wins when X's owner has at most ``n`` X pieces left."""

    letter: str
    count: int
    pos: SourcePos | None = field(default=None, compare=False)

    @property
    def owner(self) -> Side:
        """The side that *wins* by this goal (the opponent of the counted pieces' owner)."""
        return opponent(owner_of(self.letter))


Goal = PlacementGoal | CaptureGoal


@dataclass(frozen=True, slots=True)
class SbgWarning:
    """A §8 warning: the file is accepted but something in it is probably not meant."""

    message: str
    pos: SourcePos | None = None

    def __str__(self) -> str:
        return f"{self.pos}: warning: {self.message}" if self.pos else f"warning: {self.message}"


@dataclass(frozen=True, slots=True)
class SbgGame:
    """A whole SBG game.

    ``rows`` are the board rows as written (top first), each a string of ``.`` and letters;
    ``rules`` are in file order; ``turn_limit`` counts plies; ``goals`` are in file order (including
    goals the engine ignores, see :meth:`active_goals`). ``warnings`` take no part in equality.
    """

    name: str
    width: int
    height: int
    rows: tuple[str, ...]
    rules: tuple[PieceRule, ...]
    turn_limit: int
    goals: tuple[Goal, ...]
    file: str = field(default="<string>", compare=False)
    warnings: tuple[SbgWarning, ...] = field(default=(), compare=False)

    def cell(self, x: int, y: int) -> str:
        """The character at (x, y): ``.`` or a piece letter (upper case = white)."""
        return self.rows[self.height - 1 - y][x]

    def pieces(self) -> list[tuple[int, int, str]]:
        """Every piece as (x, y, letter), by increasing y then x."""
        return [
            (x, y, self.cell(x, y))
            for y in range(self.height)
            for x in range(self.width)
            if self.cell(x, y) != "."
        ]

    def rule_for(self, letter: str) -> PieceRule | None:
        """The rule of a piece type (either case of the letter), or None when it is immobile."""
        upper = letter.upper()
        return next((rule for rule in self.rules if rule.letter == upper), None)

    def types_on_board(self) -> frozenset[str]:
        """Upper-case letters of the piece types that appear on the initial board (either side)."""
        return frozenset(ch.upper() for row in self.rows for ch in row if ch != ".")

    def active_goals(self) -> tuple[Goal, ...]:
        """The goals that take part in play: goals for letters not on the board are ignored (§6)."""
        present = {ch for row in self.rows for ch in row if ch != "."}
        return tuple(goal for goal in self.goals if goal.letter in present)


def owner_of(letter: str) -> Side:
    """The side owning a piece letter: upper case is white, lower case black."""
    return "white" if letter.isupper() else "black"


def opponent(side: Side) -> Side:
    """The other side."""
    return "black" if side == "white" else "white"
