"""f_NLD's move language: words of a piece's rule, their parts, and the words a :class:`Part` generates.

A piece's regular move language is expanded into words (``^*`` as far as the board allows) and each word
split into parts (maximal runs of letters with the same vector). A :class:`Part` (a class, a vector key,
up to four operators) generates a set of words from a start square; the description search of
:mod:`ggp.generation.nld` asks which parts generate a word and only moves of the piece. The operator
table f_o, the vector cost f_v and the non-contradictory operator sets live here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations
from typing import Literal

from ggp.translators.sbg.automaton import compile_regex
from ggp.translators.sbg.model import Letter, On, Regex

Word = tuple[Letter, ...]
Kind = Literal["leaper", "leaper2", "rider"]
# (x, y, min x, max x, min y, max y): where a part starts and the spread of the squares before it.
Start = tuple[int, int, int, int, int, int]
ORIGIN: Start = (0, 0, 0, 0, 0, 0)

OPERATOR_COST: dict[str, int] = {
    "forwards": 1, "backwards": 1, "sideways": 2, "not horizontal": 2,
    "only capture": 2, "without capture": 2,
    "max N times": 2, "min N times": 2, "exactly N times": 3, "only odd": 5, "only even": 5,
    "over own piece instead": 3, "captures own instead": 3,
    "over own pieces, ending normally": 4, "over opponent pieces instead": 4,
    "over opponent pieces, ending normally": 4,
    "outwards": 2, "horizontally outwards": 2, "vertically outwards": 2,
}
"""f_o: thesis Table 3.1, completed with the authors' code for the operators the table leaves out."""

_DIRECTION = ("forwards", "backwards", "sideways", "not horizontal")
_CAPTURE = ("only capture", "without capture")
_LENGTH = ("max N times", "min N times", "exactly N times", "only odd", "only even")
_N_OPS = frozenset({"max N times", "min N times", "exactly N times"})
_MAPS = ("over own piece instead", "over own pieces, ending normally", "over opponent pieces instead",
         "over opponent pieces, ending normally")
_OUTWARDS = ("outwards", "horizontally outwards", "vertically outwards")
_GROUPS = (frozenset(_DIRECTION), frozenset(_CAPTURE), frozenset(_LENGTH), frozenset(_MAPS), frozenset(_OUTWARDS),
           frozenset({"captures own instead", "without capture"}))
_RIDER_ONLY = frozenset({*_LENGTH, "over own pieces, ending normally", "over opponent pieces, ending normally"})
_KINDS: tuple[Kind, Kind, Kind] = ("leaper", "leaper2", "rider")
_LATER_KINDS: tuple[Kind, Kind, Kind] = ("leaper2", "leaper", "rider")
MAX_WORDS = 20000


def vector_cost(x: int, y: int) -> int:
    """f_v(⟨x,y⟩) = 1 + max(|x|,|y|) + min(dist to the nearest orthogonal line, to the nearest diagonal)."""
    a, b = abs(x), abs(y)
    return 1 + max(a, b) + min(min(a, b), (abs(a - b) + 1) // 2)


@cache
def operator_sets(later: bool = False) -> tuple[tuple[str, ...], ...]:
    """Non-contradictory sets of ≤ 4 operators by (total cost, size, table order).

    ``later`` admits the outwards operators, which only mean something for a move's later parts.
    """
    names = [n for n in OPERATOR_COST if later or n not in _OUTWARDS]
    sets = []
    for size in range(5):
        for combo in combinations(names, size):
            chosen = set(combo)
            if any(len(chosen & group) > 1 for group in _GROUPS):
                continue
            sets.append(combo)
    return tuple(sorted(sets, key=lambda c: (sum(OPERATOR_COST[o] for o in c), len(c),
                                             [names.index(o) for o in c])))


@cache
def _operator_frozensets(later: bool) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(ops) for ops in operator_sets(later))


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a description: a class and key, its operators and N for the "N times" ones.

    ``kind`` "leaper" covers (±a,±b), "leaper2" also (±b,±a), "rider" any number of (±a,±b) steps.
    """

    kind: Kind
    key: tuple[int, int]
    operators: tuple[str, ...] = ()
    n: int = 0

    @property
    def cost(self) -> int:
        """f_v(key)·(1 + Σ f_o)  (3.4)."""
        return vector_cost(*self.key) * (1 + sum(OPERATOR_COST[o] for o in self.operators))

    def words(self, width: int, height: int, start: Start = ORIGIN) -> frozenset[Word]:
        """The words this part allows from ``start`` on a width × height board."""
        return _generate(self.kind, self.key, self.operators, self.n, start, width, height)


# --- words ----------------------------------------------------------------------------------------


def words_of(regex: Regex, width: int, height: int) -> tuple[frozenset[Word], bool]:
    """The rule's words whose squares fit on the board; True as second value if the cap cut some off."""
    nfa = compile_regex(regex)
    limit = 2 * max(width, height) + 2
    found: set[Word] = set()
    truncated = False
    stack: list[tuple[int, Word, int, int, int, int, int, int]] = [(0, (), 0, 0, 0, 0, 0, 0)]
    while stack:
        state, word, x, y, lox, hix, loy, hiy = stack.pop()
        for nxt in nfa.follow[state]:
            letter = nfa.letters[nxt]
            assert letter is not None
            nx, ny = x + letter.dx, y + letter.dy
            nlox, nhix, nloy, nhiy = min(lox, nx), max(hix, nx), min(loy, ny), max(hiy, ny)
            if nhix - nlox > width - 1 or nhiy - nloy > height - 1:
                continue
            longer = (*word, letter)
            if nxt in nfa.accepting:
                found.add(longer)
                if len(found) >= MAX_WORDS:
                    return frozenset(found), True
            if len(longer) < limit:
                stack.append((nxt, longer, nx, ny, nlox, nhix, nloy, nhiy))
            elif nfa.follow[nxt]:
                truncated = True
    return frozenset(found), truncated


def parts_of(word: Word) -> list[Word]:
    """Maximal runs of letters with the same vector (3.2)."""
    parts: list[list[Letter]] = []
    for letter in word:
        if parts and (parts[-1][-1].dx, parts[-1][-1].dy) == (letter.dx, letter.dy):
            parts[-1].append(letter)
        else:
            parts.append([letter])
    return [tuple(part) for part in parts]


def _end(word: Word, start: Start = ORIGIN) -> Start:
    x, y, lox, hix, loy, hiy = start
    for letter in word:
        x, y = x + letter.dx, y + letter.dy
        lox, hix, loy, hiy = min(lox, x), max(hix, x), min(loy, y), max(hiy, y)
    return x, y, lox, hix, loy, hiy


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _vectors(kind: Kind, key: tuple[int, int]) -> list[tuple[int, int]]:
    a, b = key
    keys = [(a, b), (b, a)] if kind == "leaper2" and a != b else [(a, b)]
    return sorted({(sx * p, sy * q) for p, q in keys for sx in (1, -1) for sy in (1, -1)})


def _direction_ok(ops: Sequence[str], v: tuple[int, int], start: Start) -> bool:
    vx, vy = v
    if ("forwards" in ops and vy <= 0) or ("backwards" in ops and vy >= 0):
        return False
    if ("sideways" in ops and vy != 0) or ("not horizontal" in ops and vy == 0):
        return False
    sx, sy = start[0], start[1]
    out_x = sx == 0 or vx == 0 or _sign(vx) == _sign(sx)
    out_y = sy == 0 or vy == 0 or _sign(vy) == _sign(sy)
    if "outwards" in ops:
        return out_x and out_y
    if "horizontally outwards" in ops:
        return out_x
    if "vertically outwards" in ops:
        return out_y
    return True


def _length_ok(ops: Sequence[str], n: int, length: int) -> bool:
    if ("max N times" in ops and length > n) or ("min N times" in ops and length < n):
        return False
    if ("exactly N times" in ops and length != n) or ("only odd" in ops and length % 2 == 0):
        return False
    return not ("only even" in ops and length % 2 == 1)


def _finals(ops: Sequence[str]) -> tuple[On, ...]:
    return ("p",) if "only capture" in ops else ("e",) if "without capture" in ops else ("e", "p")


def _images(ops: Sequence[str], vx: int, vy: int, length: int, final: On) -> list[Word]:
    """The words one base word (``length`` steps over empty squares, ending on ``final``) becomes."""
    middle: list[On] = ["e"] * (length - 1)
    last = final
    if "over own piece instead" in ops:
        middle, last = ["w"] * (length - 1), ("w" if last == "e" else last)
    elif "over opponent pieces instead" in ops:
        middle, last = ["p"] * (length - 1), "p"
    elif "over own pieces, ending normally" in ops:
        middle = ["w"] * (length - 1)
    elif "over opponent pieces, ending normally" in ops:
        middle = ["p"] * (length - 1)
    if "captures own instead" in ops and last == "p":
        last = "w"
    return [(*(Letter(vx, vy, on) for on in middle), Letter(vx, vy, last))]


def _applies(kind: Kind, key: tuple[int, int], ops: Sequence[str]) -> bool:
    if kind == "leaper2" and key[0] == key[1]:
        return False
    return kind == "rider" or not (_RIDER_ONLY & set(ops))


@lru_cache(maxsize=8192)  # bounded: an evolution run scores many pieces in one process
def _generate(kind: Kind, key: tuple[int, int], ops: tuple[str, ...], n: int, start: Start,
              width: int, height: int) -> frozenset[Word]:
    words: set[Word] = set()
    for vx, vy in _vectors(kind, key):
        if not _direction_ok(ops, (vx, vy), start):
            continue
        x, y, lox, hix, loy, hiy = start
        length = 0
        while kind == "rider" or length == 0:
            length += 1
            x, y = x + vx, y + vy
            lox, hix, loy, hiy = min(lox, x), max(hix, x), min(loy, y), max(hiy, y)
            if hix - lox > width - 1 or hiy - loy > height - 1:
                break
            if _length_ok(ops, n, length):
                for final in _finals(ops):
                    words.update(_images(ops, vx, vy, length, final))
    return frozenset(words)


def _admits(kind: Kind, key: tuple[int, int], ops: Sequence[str], n: int, start: Start, part: Word) -> bool:
    """Whether the class with these operators generates ``part`` (a run of one vector) from ``start``."""
    first = part[0]
    v, length = (first.dx, first.dy), len(part)
    if v not in _vectors(kind, key) or (kind != "rider" and length != 1):
        return False
    if not _direction_ok(ops, v, start) or not _length_ok(ops, n, length):
        return False
    return any(part in _images(ops, v[0], v[1], length, final) for final in _finals(ops))
