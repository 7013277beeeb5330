"""Board geometry from a game's rules: which fluent is the board, its columns and rows, what a cell holds.

The web UI draws a state on this geometry (static/board.js), so a board has its full size from the
first state (Connect Four is 7x6 while still empty) instead of growing with the cells seen so far.
The input is every fluent the game can hold (``base``, or the reasoner's relaxed domain; see
:mod:`ggp.reasoner.domains`) plus the initial state, and the game's ground facts, which order the
coordinates where ``succ``-like facts chain them.

Recognised shapes, the ones ggp.org games use: ``(cell x y piece)``, ``(cell x y owner type)`` (the SBG
translation), ``(cell x y)`` with piece fluents of their own such as ``(wall x y)`` (drawn as layers on
the same squares), coordinates written as numbers, letters or any symbols a chain of ground facts
orders, and 1-D boards ``(pos x piece)``. Anything else gets ``None``: the UI then lists the fluents.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role x) (role o) (init (cell 1 1 b)) (init (cell 1 2 b)) (init (cell 2 1 x))"
...                  " (init (cell 2 2 b)) (init (control x))")
>>> initial = {rule.head.args[0] for rule in game.rules if rule.head.name == "init"}
>>> board = recognise_board(game, initial, initial)
>>> board.xs, board.ys, board.layers[0].relation
(('1', '2'), ('2', '1'), 'cell')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ggp.gdl.terms import Const, Description, Func, Term

MAX_SIDE = 32
"""Most columns (or rows) a board may have; a longer axis is a counter, not a board."""
MAX_LINE = 64
"""Most cells of a 1-D board."""
MIN_COVER = 0.3
"""Smallest share of a 2-D board's squares the cell fluent must reach (a sparse relation is no board)."""
_SYMBOL = re.compile(r"[a-z]{1,2}|[a-z]{0,3}\d{1,3}", re.IGNORECASE)
"""What an unchained coordinate looks like: a letter or two (a..h), or a short prefix and a number (r3)."""
_NUMBER = re.compile(r"-?\d+")


@dataclass(frozen=True, slots=True)
class Layer:
    """One fluent relation drawn on the board: the argument positions of its column, row (``None`` on
    a 1-D board), owner and piece; the other arguments, if any, are shown as the cell's text."""

    relation: str
    arity: int
    x: int
    y: int | None
    owner: int | None = None
    piece: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"relation": self.relation, "arity": self.arity, "x": self.x, "y": self.y,
                "owner": self.owner, "piece": self.piece}


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """A board: columns left to right, rows top to bottom (empty for a 1-D board), and the layers drawn
    on it, the main cell relation first. Coordinates are the GDL symbols as written."""

    xs: tuple[str, ...]
    ys: tuple[str, ...]
    layers: tuple[Layer, ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON the web UI's ``drawBoard`` reads (documented in static/board.js)."""
        return {"xs": list(self.xs), "ys": list(self.ys), "layers": [layer.to_json() for layer in self.layers]}


def recognise_board(description: Description, possible: Iterable[Term], initial: Iterable[Term]) -> BoardGeometry | None:
    """The board of a game whose ``possible`` fluents (any superset of what states can hold; the initial
    state is added) and ``initial`` state are given, or ``None`` when no relation looks like one. When
    ``possible`` is empty (the domain could not be computed), axes the initial state reaches only in
    part are completed from the game's unary facts. Pure and quick: a few passes over the fluents."""
    roles = {str(rule.head.args[0]) for rule in description.rules
             if rule.head.name == "role" and isinstance(rule.head, Func) and not rule.body}
    initial = list(initial)
    groups = _group([*possible, *initial])
    at_start = _group(initial)
    chains = _chains(description)
    possible = list(possible)
    # Without the possible fluents, the game's declared axes ((column 1) ... (column 7)) fill the board out.
    ranges = [] if possible else _ranges(description)
    best: tuple[tuple[int, int, int, bool], BoardGeometry] | None = None
    for (name, arity), rows in groups.items():
        start = at_start.get((name, arity), set())
        for found in (*_grids(name, arity, rows, start, roles, chains, ranges),
                      *_lines(name, arity, rows, start, roles, chains)):
            if best is None or found[0] > best[0]:
                best = found
    if best is None:
        return None
    board = best[1]
    main = board.layers[0]
    extra = tuple(_overlays(groups, board, (main.relation, main.arity)))
    return BoardGeometry(board.xs, board.ys, (main, *extra))


# --- the pieces ---------------------------------------------------------------------------------------


def _group(fluents: Iterable[Term]) -> dict[tuple[str, int], set[tuple[str, ...]]]:
    """Fluents with constant arguments only, as argument texts grouped by relation name and arity."""
    groups: dict[tuple[str, int], set[tuple[str, ...]]] = {}
    for fluent in fluents:
        if isinstance(fluent, Func) and all(isinstance(arg, Const) for arg in fluent.args):
            groups.setdefault((fluent.name, len(fluent.args)), set()).add(tuple(str(arg) for arg in fluent.args))
    return groups


def _chains(description: Description) -> list[dict[str, str]]:
    """Successor maps of the game's ground binary facts (``(succ 1 2)``, ``(nextcol a b)``): each maps a
    symbol to the next, for the relations where every symbol has at most one successor."""
    pairs: dict[str, list[tuple[str, str]]] = {}
    for rule in description.rules:
        head = rule.head
        if (not rule.body and isinstance(head, Func) and len(head.args) == 2
                and all(isinstance(arg, Const) for arg in head.args)):
            pairs.setdefault(head.name, []).append((str(head.args[0]), str(head.args[1])))
    chains = []
    for edges in pairs.values():
        following = dict(edges)
        if len(following) == len(edges) and len(set(following.values())) == len(edges):
            chains.append(following)
    return chains


def _ranges(description: Description) -> list[set[str]]:
    """The value sets of the game's ground unary facts (``(column 1)`` ... ``(column 7)``, ``(xcoord 0)``):
    the declared extent of a board axis, where the fluents seen so far reach only part of it."""
    values: dict[str, set[str]] = {}
    for rule in description.rules:
        head = rule.head
        if not rule.body and isinstance(head, Func) and len(head.args) == 1 and isinstance(head.args[0], Const):
            values.setdefault(head.name, set()).add(str(head.args[0]))
    return [found for name, found in values.items() if name not in ("role", "init") and len(found) <= MAX_SIDE]


def _complete(seen: set[str], ranges: list[set[str]]) -> set[str] | None:
    """The smallest declared range holding every value ``seen`` on an axis, or ``None``."""
    kinds = {_shape(value) for value in seen}
    # One relation may declare both axes, (coordinate 1) ... (coordinate a): keep the seen kinds only.
    same_kind = [{value for value in values if _shape(value) in kinds} for values in ranges]
    holding = [values for values in same_kind if seen <= values]
    return min(holding, key=len) if holding else None


def _shape(value: str) -> str:
    """A symbol's kind: ``a`` for letters, ``9`` for a number, ``a9`` for ``c1``."""
    return re.sub(r"\d+", "9", re.sub(r"[^\d]+", "a", value))


def _order(values: set[str], chains: list[dict[str, str]]) -> tuple[str, ...] | None:
    """The symbols in board order (numbers numerically, else along a chain of ground facts that covers
    them all, else letters alphabetically), or ``None`` when they do not look like coordinates."""
    if all(_NUMBER.fullmatch(value) for value in values):
        # Numbered squares run without gaps: a board seen with columns 1 3 5 also has 2 and 4.
        numbers = sorted(int(value) for value in values)
        if any(str(int(value)) != value for value in values):  # written as 01: keep the symbols as they are
            return tuple(sorted(values, key=int))
        if numbers[-1] - numbers[0] >= MAX_LINE:
            return None
        return tuple(str(n) for n in range(numbers[0], numbers[-1] + 1))
    for following in chains:
        chained = _along(values, following)
        if chained is not None:
            return chained
    if all(_SYMBOL.fullmatch(value) for value in values):
        return tuple(sorted(values, key=_natural))
    return None


def _along(values: set[str], following: dict[str, str]) -> tuple[str, ...] | None:
    """``values`` in the order of one successor chain that holds them all, or ``None``. The walk starts
    at the chain's head (a symbol nothing precedes), or anywhere on a cyclic chain (a torus board)."""
    preceding = set(following.values())
    heads = [key for key in following if key not in preceding] or sorted(values & set(following))[:1]
    for head in heads:
        order: list[str] = []
        seen: set[str] = set()
        value: str | None = head
        while value is not None and value not in seen:
            seen.add(value)
            if value in values:
                order.append(value)
            value = following.get(value)
        if len(order) == len(values):
            return tuple(order)
    return None


def _natural(value: str) -> tuple[str, int]:
    digits = re.search(r"\d+$", value)
    return (value[:digits.start()], int(digits.group())) if digits else (value, -1)


def _content(arity: int, coordinates: tuple[int, ...], rows: set[tuple[str, ...]], roles: set[str]) -> tuple[
        int | None, int | None] | None:
    """(owner, piece) positions among the arguments that are not coordinates, or ``None`` for more than two."""
    rest = [i for i in range(arity) if i not in coordinates]
    if len(rest) > 2:
        return None
    if len(rest) == 2:
        owners = [i for i in rest if {row[i] for row in rows} <= roles]
        if len(owners) == 1:
            owner = owners[0]
            return owner, next(i for i in rest if i != owner)
        return None, None
    return None, rest[0] if rest else None


def _grids(name: str, arity: int, rows: set[tuple[str, ...]], start: set[tuple[str, ...]], roles: set[str],
           chains: list[dict[str, str]], ranges: list[set[str]]) -> list[tuple[tuple[int, int, int, bool], BoardGeometry]]:
    """2-D readings of one relation: each pair of neighbouring arguments whose values order as
    coordinates, scored by the squares it reaches (then the earlier pair, then the name ``cell``)."""
    found: list[tuple[tuple[int, int, int, bool], BoardGeometry]] = []
    for i in range(arity - 1):
        xs_seen, ys_seen = {row[i] for row in rows}, {row[i + 1] for row in rows}
        if not (1 <= len(xs_seen) <= MAX_SIDE and 1 <= len(ys_seen) <= MAX_SIDE) or len(xs_seen) * len(ys_seen) < 4:
            continue
        if (xs_seen | ys_seen) & roles:
            continue
        content = _content(arity, (i, i + 1), rows, roles)
        xs_all, ys_all = _complete(xs_seen, ranges), _complete(ys_seen, ranges)
        xs, ys = _order(xs_all or xs_seen, chains), _order(ys_all or ys_seen, chains)
        if content is None or xs is None or ys is None or (arity == 2 and _counters(start, i)):
            continue
        if len(xs) > MAX_SIDE or len(ys) > MAX_SIDE:
            continue
        squares = len({(row[i], row[i + 1]) for row in rows})
        if squares < MIN_COVER * len(xs) * len(ys) and not (xs_all and ys_all):
            continue
        if all(_NUMBER.fullmatch(y) for y in ys):
            ys = ys[::-1]  # numbered rows go bottom-up, like chess ranks and connect-four rows
        layer = Layer(name, arity, i, i + 1, *content)
        found.append(((1, squares, -i, name == "cell"), BoardGeometry(xs, ys, (layer,))))
    return found


def _lines(name: str, arity: int, rows: set[tuple[str, ...]], start: set[tuple[str, ...]], roles: set[str],
           chains: list[dict[str, str]]) -> list[tuple[tuple[int, int, int, bool], BoardGeometry]]:
    """The 1-D reading of one relation: a first argument with 3 to :data:`MAX_LINE` ordered values and at
    most two more arguments (the cell's content), as in ``(pos 3 x)``. Scored below any 2-D board."""
    found: list[tuple[tuple[int, int, int, bool], BoardGeometry]] = []
    if arity < 2:
        return found
    for i in (0,):
        seen = {row[i] for row in rows}
        if not 3 <= len(seen) <= MAX_LINE or seen & roles:
            continue
        content = _content(arity, (i,), rows, roles)
        xs = _order(seen, chains)
        if content is None or xs is None:
            continue
        # A line holds several cells at once from the start; a counter such as (score red 3) one value.
        if len({row[i] for row in start}) < 3:
            continue
        layer = Layer(name, arity, i, None, *content)
        found.append(((0, len(seen), -i, name == "cell"), BoardGeometry(xs, (), (layer,))))
    return found


def _counters(start: set[tuple[str, ...]], i: int) -> bool:
    """True when the initial state gives each first coordinate exactly one second one, as counters do
    (``(heap a 3) (heap b 5)``), rather than marking squares."""
    firsts = [row[i] for row in start]
    return len(firsts) >= 2 and len(set(firsts)) == len(firsts)


def _overlays(groups: dict[tuple[str, int], set[tuple[str, ...]]], board: BoardGeometry,
              main: tuple[str, int]) -> list[Layer]:
    """Other relations of two or three arguments whose neighbouring arguments always name squares of a
    2-D ``board`` (``(wall x y)``, ``(at robot x y)``): drawn on the same squares."""
    if not board.ys:
        return []
    xs, ys = set(board.xs), set(board.ys)
    layers = []
    for (name, arity), rows in sorted(groups.items()):
        if (name, arity) == main or arity > 3:
            continue
        for i in range(arity - 1):
            if all(row[i] in xs and row[i + 1] in ys for row in rows):
                layers.append(Layer(name, arity, i, i + 1))
                break
    return layers
