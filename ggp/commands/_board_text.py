"""A game state as board text for the terminal (``ggp play``), or ``None`` when it has no board.

A board is the relation with the most facts whose first two arguments are coordinates (short
symbols such as ``1``, ``a``, ``0``), as in ``(cell x y piece)`` or SBG's ``(cell x y owner type)``.
The coordinates are those seen so far (states and legal moves, :meth:`BoardText.add`); numbers
fill their whole range, so a board is not cut to the rows that ever held a piece. Numbered rows are
printed top-down from the highest (row 1 at the bottom, as on a chess board).

>>> from ggp.gdl.parser import parse_term
>>> board = BoardText(roles=("xplayer", "oplayer"))
>>> facts = [parse_term(t) for t in ("(cell 1 1 x)", "(cell 2 1 b)", "(cell 1 2 o)", "(cell 2 2 b)", "(control oplayer)")]
>>> board.add(facts)
>>> print(board.render(facts))
    1 2
  2 o .
  1 x .
(control oplayer)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from ggp.gdl.terms import Const, Func, Term

_COORD = re.compile(r"[a-z0-9]{1,2}")
BLANK = frozenset({"b", "blank", "empty", "e"})
"""Piece names that mean an empty cell."""
MAX_CELLS = 1024


def _coords(term: Term) -> tuple[str, str] | None:
    """The first two arguments of a 3- or 4-argument fluent when they look like coordinates."""
    if not isinstance(term, Func) or len(term.args) not in (3, 4):
        return None
    if not all(isinstance(arg, Const) for arg in term.args):
        return None
    x, y = str(term.args[0]), str(term.args[1])
    return (x, y) if _COORD.fullmatch(x) and _COORD.fullmatch(y) else None


def _order(values: set[str]) -> list[str]:
    if values and all(v.isdigit() for v in values):
        numbers = [int(v) for v in values]
        return [str(n) for n in range(min(numbers), max(numbers) + 1)]  # the whole range, empty rows too
    return sorted(values)


class BoardText:
    """Remembers the board relation and its coordinates over the states it is shown; renders one state.

    ``roles`` (role order) decide the case of SBG-style pieces: the first role's in upper case.
    """

    def __init__(self, roles: Sequence[str] = ()) -> None:
        self.roles = tuple(roles)
        self._counts: Counter[str] = Counter()
        self._xs: set[str] = set()
        self._ys: set[str] = set()

    def add(self, facts: Iterable[Term]) -> None:
        """Note the board facts of a state."""
        for fact in facts:
            where = _coords(fact)
            if where is not None and isinstance(fact, Func):
                self._counts[fact.name] += 1
                self._xs.add(where[0])
                self._ys.add(where[1])

    def add_cells(self, cells: Iterable[tuple[str, str]]) -> None:
        """Note coordinates named elsewhere (the arguments of legal moves)."""
        for x, y in cells:
            if _COORD.fullmatch(x) and _COORD.fullmatch(y):
                self._xs.add(x)
                self._ys.add(y)

    def _piece(self, fact: Func) -> str:
        values = [str(arg) for arg in fact.args[2:]]
        if len(values) == 2:  # (cell x y owner type): the type, in upper case for the first role
            owner, kind = values
            return kind.upper() if self.roles and owner == self.roles[0] else kind.lower()
        return "." if values[0] in BLANK else values[0][:3]

    def render(self, facts: Iterable[Term]) -> str | None:
        """The board (then the other fluents, one a line), or ``None`` when the state has no board."""
        facts = sorted(facts, key=str)
        if not self._counts:
            return None
        name, count = self._counts.most_common(1)[0]
        xs, ys = _order(self._xs), _order(self._ys)
        if count < 3 or not 2 <= len(xs) * len(ys) <= MAX_CELLS:
            return None
        cells: dict[tuple[str, str], str] = {}
        rest = []
        for fact in facts:
            where = _coords(fact)
            if where is not None and isinstance(fact, Func) and fact.name == name:
                cells[where] = self._piece(fact)
            else:
                rest.append(str(fact))
        width = max([1, *(len(x) for x in xs), *(len(p) for p in cells.values())])
        label = max(len(y) for y in ys)
        rows = list(reversed(ys)) if all(y.isdigit() for y in ys) else ys
        lines = [" " * (label + 3) + " ".join(x.ljust(width) for x in xs)]
        for y in rows:
            lines.append(f"  {y.rjust(label)} " + " ".join(cells.get((x, y), ".").ljust(width) for x in xs).rstrip())
        return "\n".join([*(line.rstrip() for line in lines), *rest])
