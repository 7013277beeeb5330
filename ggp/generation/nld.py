"""f_NLD: how hard a chess-like game's piece rules are for humans, via English descriptions (metrics.md §4).

A piece's move language is expanded into words (``^*`` as far as the board allows), each word split
into parts (maximal runs of letters with the same vector), and the words are covered by English
descriptions made from a small structured form, :class:`Part`: a class — a **leaper**, a **leaper2**
(the (a,b)-or-(b,a) leaper) or a **rider** with a vector key (a, b) — plus up to four operators. A
one-part description costs f_v(key)·(1 + Σ f_o(op)) (3.3, 3.4), a two-part one ("X, then Y") the
product of its parts (3.5), anything else the generic fallback f_g (3.6). A piece costs the sum of a
greedy set cover of its descriptions, and the game

    f_NLD = trunc( Σ_i #p_i·f(p_i) / Σ_i #p_i · (10 + k) )          (3.7)

with #p_i the pieces of type i on the initial board (both sides) and k the number of types.

The same :class:`Part` values give the English text (:meth:`Description.text`) and the set of words
the text allows (:meth:`Description.moves`, the interpreter), so a test can check that the text
allows exactly the piece's moves.

The search follows the thesis authors' published implementation (Żarczyński, github
lukzarczynski/SBG; re-implemented here, not copied), which reproduces the printed multi-part values:

- Words are taken hardest first (most letters, then text). A one-part word is described by the first
  (operator set, class) — operator sets by ascending cost, then fewer operators, then a fixed order;
  classes leaper, leaper2, rider — whose generated words contain it and are all moves of the piece.
  For "max/min N times" every N from 2 is tried and the N covering most words wins.
- A two-part word: its first part is described like a one-part word, but against the set of first
  parts of all multi-part words (a first part ending on an empty square still needs "without
  capture": the class also generates the capture). Then for every first part P the description
  generates, the second part must be described by one (operator set, class) — outwards, horizontally
  outwards and vertically outwards are allowed here — that generates, from P's end square, only
  moves of the piece and at least one (classes in the order leaper2, leaper, rider, as the authors'
  code tries them for second parts: that makes ferz-then-wazir 2·6, not 2·(6 + 6)). The description
  "P-class, then S-class" covers the words it generates. Up to :data:`MAX_FIRST_TRIES` first-part descriptions are tried.
- Words of three or more parts, and words no description fits, cost f_g each.
- Descriptions may overlap; the piece's value is the sum of a greedy set cover (most uncovered words
  first, then cheaper, then found earlier), as the authors' SetCover does.

Interpretations where the sources are silent or inconsistent (see docs/generation.md "f_NLD"):
f_v's distance to the nearest diagonal is ⌈||x|−|y||/2⌉ (the authors' code; every published value is
the same with the spec's ||x|−|y||); "sideways" keeps horizontal moves and "not horizontal" the
others; "only odd/even" count a rider's steps; "captures own instead" turns an opponent-piece landing
into an own-piece one (the authors' operator of that name is a no-op, a bug); a move must fit the
board as a whole (the spread of its squares at most width−1 by height−1). The operators "with one
own/opponent piece on the way", which the authors added after the paper, are left out: with them
Legacy of Ibis's fifth piece would score 54, not the printed 56.

>>> vector_cost(1, 2), vector_cost(3, 0), vector_cost(2, 3)
(4, 4, 5)
>>> nld_value([(8, 16), (2, 8), (2, 3), (2, 4), (1, 2), (1, 6)])  # Shatranj, one side
166
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations
from typing import Literal

from ggp.translators.sbg.automaton import compile_regex
from ggp.translators.sbg.model import Letter, On, Regex, SbgGame

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
MAX_FIRST_TRIES = 3
"""How many first-part descriptions a two-part word tries before it falls back to f_g."""


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


@dataclass(frozen=True, slots=True)
class Description:
    """One English description: one or two :class:`Part` values, or the generic fallback for ``word``."""

    parts: tuple[Part, ...]
    cost: int
    word: Word = ()

    @property
    def generic(self) -> bool:
        """True for the fallback "moves to (x,y) if ..." description of a single word."""
        return not self.parts

    def moves(self, width: int, height: int) -> frozenset[Word]:
        """Every word the description allows on the board (the interpreter of its text)."""
        if self.generic:
            return frozenset({self.word})
        first = self.parts[0].words(width, height)
        if len(self.parts) == 1:
            return first
        return frozenset(p + s for p in first for s in self.parts[1].words(width, height, _end(p)))

    def text(self) -> str:
        """The English sentence of this description."""
        if self.generic:
            return _generic_text(self.word)
        texts = [_part_text(p, later=i > 0) for i, p in enumerate(self.parts)]
        return _capital(", then ".join(texts))


@dataclass(frozen=True, slots=True)
class PieceScore:
    """f(p) of one piece type with the descriptions that make it up."""

    letter: str
    value: int
    descriptions: tuple[Description, ...]
    truncated: bool = False

    def text(self) -> str:
        """The piece's rule in English: descriptions merged with "or" as the thesis's repair pass does."""
        if not self.descriptions:
            return "Never moves."
        return " ".join(s + "." for s in merged_sentences(self.descriptions))


@dataclass(frozen=True, slots=True)
class GameScore:
    """f_NLD of a game: the truncated value, the raw value and each piece's score and count."""

    value: int
    raw: float
    pieces: tuple[PieceScore, ...]
    counts: tuple[int, ...]


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


def _lmax(key: tuple[int, int], width: int, height: int) -> int:
    a, b = key
    bounds = [(width - 1) // a] if a else []
    bounds += [(height - 1) // b] if b else []
    return min(bounds)


def _n_choices(ops: Sequence[str], length: int, lmax: int) -> list[int]:
    if "exactly N times" in ops:
        return [length] if length >= 2 else []
    if "max N times" in ops:
        return list(range(max(length, 2), lmax))
    if "min N times" in ops:
        return list(range(2, length + 1))
    return [0]


def _map_ops_for(part: Word) -> frozenset[str | None]:
    """The intermediate-square operators (or None for none) that can produce the part's pattern."""
    vx, vy, length = part[0].dx, part[0].dy, len(part)
    found: set[str | None] = set()
    for op in (None, *_MAPS):
        chosen = () if op is None else (op,)
        for extra in ((), ("captures own instead",)):
            if any(part in _images((*chosen, *extra), vx, vy, length, f) for f in ("e", "p")):
                found.add(op)
    return frozenset(found)


def _candidates(part: Word, start: Start, later: bool, width: int, height: int
                ) -> Iterator[tuple[Part, ...]]:
    """Descriptions of one part that generate it from ``start``, in search order.

    Each yield is one (operator set, class) with every admissible N (one Part each).
    """
    key = (abs(part[0].dx), abs(part[0].dy))
    maps = _map_ops_for(part)
    if not maps or key == (0, 0):  # a null step is no leaper or rider: the fallback describes it
        return
    lmax = _lmax(key, width, height)
    kinds = _LATER_KINDS if later else _KINDS
    # An operator that admits the part with no other filter is needed for any set holding it to admit it
    # (filters only remove words; the maps are tried alongside), so the others prune the search.
    good: set[str] = set()
    for op in OPERATOR_COST:
        if not later and op in _OUTWARDS:
            continue
        for op_map in maps:
            for extra in ((), ("captures own instead",)):
                trial = tuple(dict.fromkeys((op, *((op_map,) if op_map else ()), *extra)))
                if any(_applies(kind, key, trial) and any(_admits(kind, key, trial, n, start, part)
                       for n in _n_choices(trial, len(part), lmax)) for kind in kinds):
                    good.add(op)
    for ops, chosen in zip(operator_sets(later), _operator_frozensets(later)):
        if not chosen <= good:
            continue
        op_map = next((o for o in ops if o in _MAPS), None)
        if op_map not in maps:
            continue
        for kind in kinds:
            if not _applies(kind, key, ops):
                continue
            found = tuple(Part(kind, key, ops, n) for n in _n_choices(ops, len(part), lmax)
                          if _admits(kind, key, ops, n, start, part))
            if found:
                yield found


def generic_cost(word: Word) -> int:
    """f_g (3.6): product of f_v over the destination and every intermediate square, from the start."""
    cost, x, y = 1, 0, 0
    for letter in word:
        x, y = x + letter.dx, y + letter.dy
        cost *= vector_cost(x, y)
    return cost


def _generic(word: Word) -> Description:
    return Description((), generic_cost(word), word)


def _word_order(word: Word) -> tuple[int, str]:
    return -len(word), "".join(map(str, word))


# --- the search -----------------------------------------------------------------------------------


def _describe_single(atom: Word, universe: frozenset[Word], width: int, height: int,
                     uncovered: set[Word]) -> tuple[Description, frozenset[Word]]:
    for options in _candidates(atom, ORIGIN, False, width, height):
        best: tuple[int, Part, frozenset[Word]] | None = None
        for part in options:
            gen = part.words(width, height)
            if gen <= universe and (best is None or len(gen & uncovered) > best[0]):
                best = (len(gen & uncovered), part, gen)
        if best:
            return Description((best[1],), best[1].cost), best[2]
    return _generic(atom), frozenset({atom})


def _describe_double(word: Word, firsts: frozenset[Word], suffixes: dict[Word, frozenset[Word]],
                     width: int, height: int) -> tuple[Description, frozenset[Word]] | None:
    head, tail = parts_of(word)[0], word[len(parts_of(word)[0]):]
    tries = 0
    for options in _candidates(head, ORIGIN, False, width, height):
        for first in options:
            gen1 = first.words(width, height)
            if not gen1 <= firsts:
                continue
            tries += 1
            found = _describe_second(head, tail, gen1, suffixes, width, height)
            if found:
                second, covered = found
                return Description((first, second), first.cost * second.cost), covered
            if tries >= MAX_FIRST_TRIES:
                return None
    return None


def _describe_second(head: Word, tail: Word, prefixes: frozenset[Word], suffixes: dict[Word, frozenset[Word]],
                     width: int, height: int) -> tuple[Part, frozenset[Word]] | None:
    ends = {p: _end(p) for p in prefixes}
    for options in _candidates(tail, ends[head], True, width, height):
        best: tuple[int, Part, frozenset[Word]] | None = None
        for part in options:
            covered: set[Word] = set()
            for p, end in ends.items():
                gen = part.words(width, height, end)
                if not gen or not gen <= suffixes.get(p, frozenset()):
                    break
                covered.update(p + s for s in gen)
            else:
                if best is None or len(covered) > best[0]:
                    best = (len(covered), part, frozenset(covered))
        if best:
            return best[1], best[2]
    return None


def piece_score(letter: str, regex: Regex | None, width: int, height: int) -> PieceScore:
    """f(p): the descriptions of one piece's moves (a greedy set cover) and their total cost."""
    if regex is None:
        return PieceScore(letter, 0, ())
    words, truncated = words_of(regex, width, height)
    split = {w: parts_of(w) for w in words}
    single = frozenset(w for w in words if len(split[w]) == 1)
    firsts = frozenset(split[w][0] for w in words if len(split[w]) >= 2)
    suffix_sets: dict[Word, set[Word]] = {}
    for w in words:
        if len(split[w]) >= 2:
            suffix_sets.setdefault(split[w][0], set()).add(w[len(split[w][0]):])
    suffixes = {p: frozenset(s) for p, s in suffix_sets.items()}
    found: list[tuple[Description, frozenset[Word]]] = []
    uncovered = set(words)
    for word in sorted(words, key=_word_order):
        if word not in uncovered:
            continue
        n_parts = len(split[word])
        result = None
        if n_parts == 1:
            result = _describe_single(word, single, width, height, uncovered)
        elif n_parts == 2:
            result = _describe_double(word, firsts, suffixes, width, height)
        if result is None:
            result = _generic(word), frozenset({word})
        found.append(result)
        uncovered -= result[1]
    chosen = _set_cover(found, words)
    return PieceScore(letter, sum(d.cost for d in chosen), tuple(chosen), truncated)


def _set_cover(found: list[tuple[Description, frozenset[Word]]], words: frozenset[Word]) -> list[Description]:
    remaining = set(words)
    chosen: list[Description] = []
    while remaining:
        index = max(range(len(found)), key=lambda i: (len(found[i][1] & remaining), -found[i][0].cost, -i))
        description, covered = found[index]
        chosen.append(description)
        remaining -= covered
    return chosen


def nld_value(counts_values: Iterable[tuple[int, int]]) -> int:
    """(3.7) from (count of pieces, piece value) pairs, one per type: trunc(mean value · (10 + k))."""
    pairs = list(counts_values)
    total = sum(count for count, _ in pairs)
    if total == 0:
        return 0
    return int(sum(count * value for count, value in pairs) / total * (10 + len(pairs)))


def game_nld(game: SbgGame) -> GameScore:
    """f_NLD of a game: every type on the initial board (both sides counted), scored with its rule."""
    counts: dict[str, int] = {}
    for row in game.rows:
        for ch in row:
            if ch != ".":
                counts[ch.upper()] = counts.get(ch.upper(), 0) + 1
    order = [r.letter for r in game.rules]
    letters = sorted(counts, key=lambda ch: order.index(ch) if ch in order else len(order))
    pieces = tuple(
        piece_score(ch, rule.regex if (rule := game.rule_for(ch)) else None, game.width, game.height)
        for ch in letters
    )
    pairs = [(counts[p.letter], p.value) for p in pieces]
    total = sum(c for c, _ in pairs)
    raw = sum(c * v for c, v in pairs) / total * (10 + len(pairs)) if total else 0.0
    return GameScore(int(raw), raw, pieces, tuple(counts[p.letter] for p in pieces))


# --- English --------------------------------------------------------------------------------------

_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
_PHRASES = {
    "forwards": "forwards", "backwards": "backwards", "sideways": "sideways only",
    "not horizontal": "never horizontally", "only odd": "an odd number of steps only",
    "only even": "an even number of steps only",
    "over own piece instead": "with an own piece instead on every square it would find empty",
    "captures own instead": "capturing own pieces instead of opponent ones",
    "over own pieces, ending normally": "passing over own pieces only",
    "over opponent pieces instead": "with an opponent piece on every square it would find empty",
    "over opponent pieces, ending normally": "passing over opponent pieces only",
}
_VERB_OPS = frozenset({"only capture", "without capture", *_N_OPS, *_OUTWARDS})
_UNIT = {(1, 0): "horizontally", (0, 1): "vertically", (1, 1): "diagonally"}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _squares(d: int) -> str:
    return f"{_NUMBERS.get(d, str(d))} square{'s' if d > 1 else ''}"


def _direction(key: tuple[int, int]) -> str | None:
    a, b = key
    unit = (a // max(a, b), b // max(a, b))
    return _UNIT.get(unit) if a == b or a == 0 or b == 0 else None


def _target(p: Part) -> str:
    """What the part reaches, without the verb: "one square diagonally", "any number of (2,1) steps"."""
    a, b = p.key
    direction = _direction(p.key)
    if p.kind != "rider":
        if direction and p.kind == "leaper":
            return f"{_squares(max(a, b))} {direction}"
        if direction:
            return f"{_squares(max(a, b))} horizontally or vertically"
        return f"over vector ({a},{b})" + (f" or ({b},{a})" if p.kind == "leaper2" else "")
    count = ("up to {n}" if "max N times" in p.operators else "at least {n}" if "min N times" in p.operators
             else "exactly {n}" if "exactly N times" in p.operators else "any number of").format(n=p.n)
    if direction and (a, b) in _UNIT:
        unit = "square" if count.startswith("exactly 1") else "squares"
        return f"{count} {unit} {direction}"
    return f"{count} ({a},{b}) steps"


def _verb(p: Part) -> str:
    if "only capture" in p.operators:
        return "captures"
    if "without capture" in p.operators:
        return "moves"
    return "rides" if p.kind == "rider" else "leaps"


def _part_text(p: Part, *, later: bool = False) -> str:
    outward = next((o for o in p.operators if o in _OUTWARDS), "")
    head = " ".join(x for x in (_verb(p), outward, _target(p)) if x)
    extras = [_PHRASES[o] for o in p.operators if o not in _VERB_OPS]
    return ", ".join([head, *extras])


def _generic_text(word: Word) -> str:
    x = y = 0
    squares = []
    for letter in word:
        x, y = x + letter.dx, y + letter.dy
        squares.append((x, y, letter.on))
    names = {"e": "empty", "p": "an opponent piece", "w": "an own piece"}
    *conditions, (dx, dy, on) = squares
    text = f"Moves to ({dx},{dy}) onto {names[on]}"
    if conditions:
        text += " if " + ", ".join(f"({cx},{cy}) holds {names[con]}" for cx, cy, con in conditions)
    return text


_NAMED: tuple[tuple[str, frozenset[tuple[str, tuple[int, int]]]], ...] = (
    ("queen", frozenset({("rider", (1, 0)), ("rider", (0, 1)), ("rider", (1, 1))})),
    ("king", frozenset({("leaper", (1, 0)), ("leaper", (0, 1)), ("leaper", (1, 1))})),
    ("rook", frozenset({("rider", (1, 0)), ("rider", (0, 1))})),
    ("knight", frozenset({("leaper", (1, 2)), ("leaper", (2, 1))})),
    ("knight", frozenset({("leaper2", (1, 2))})),
    ("knight", frozenset({("leaper2", (2, 1))})),
    ("wazir", frozenset({("leaper", (1, 0)), ("leaper", (0, 1))})),
    ("dabbaba", frozenset({("leaper", (2, 0)), ("leaper", (0, 2))})),
    ("bishop", frozenset({("rider", (1, 1))})),
    ("ferz", frozenset({("leaper", (1, 1))})),
    ("alfil", frozenset({("leaper", (2, 2))})),
)


def _merge_key(p: Part) -> tuple[str, tuple[str, ...], int]:
    return ("rider" if p.kind == "rider" else "leaper", p.operators, p.n)


def _merged_targets(parts: Sequence[Part]) -> str:
    """Targets of parts that share verb and operators, joined with "or" ("in every direction")."""
    by_distance: dict[int, list[str]] = {}
    others: list[str] = []
    for p in parts:
        direction = _direction(p.key)
        if p.kind == "leaper" and direction:
            by_distance.setdefault(max(p.key), []).append(direction)
        elif p.kind == "leaper2" and direction:
            by_distance.setdefault(max(p.key), []).extend(["horizontally", "vertically"])
        else:
            others.append(_target(p))
    texts = []
    for d, dirs in by_distance.items():
        ordered = [x for x in ("horizontally", "vertically", "diagonally") if x in dirs]
        where = "in every direction" if len(ordered) == 3 else " or ".join(ordered)
        texts.append(f"{_squares(d)} {where}")
    riders = [t for t in others if t.endswith(("horizontally", "vertically", "diagonally"))]
    vectors = [t.removeprefix("over vector ").replace(" or ", ", ") for t in others if t.startswith("over vector ")]
    rest = [t for t in others if t not in riders and not t.startswith("over vector ")]
    if vectors:
        listed = ", ".join(vectors).split(", ")
        rest.insert(0, "over vector " + (", ".join(listed[:-1]) + " or " + listed[-1] if len(listed) > 1 else listed[0]))
    if riders:
        count = riders[0].rsplit(" ", 1)[0]
        same = all(t.rsplit(" ", 1)[0] == count for t in riders)
        if same and len(riders) > 1:
            dirs = [t.rsplit(" ", 1)[1] for t in riders]
            where = "in every direction" if len(set(dirs)) == 3 else " or ".join(dirs)
            riders = [f"{count} {where}"]
    return " or ".join([*texts, *riders, *rest])


def _merged_simple(parts: Sequence[Part], *, later: bool = False) -> str:
    p = parts[0]
    outward = next((o for o in p.operators if o in _OUTWARDS), "")
    head = " ".join(x for x in (_verb(p), outward, _merged_targets(parts)) if x)
    extras = [_PHRASES[o] for o in p.operators if o not in _VERB_OPS]
    return ", ".join([head, *extras])


def merged_sentences(descriptions: Sequence[Description]) -> list[str]:
    """Sentences for a piece: plain named pieces first ("Moves like a king and a knight"), then one-part
    descriptions sharing verb and operators joined with "or", then two-part ones grouped by their first
    part ("X, then Y or Z"), then the generic ones."""
    singles = [d.parts[0] for d in descriptions if len(d.parts) == 1]
    plain = {(p.kind, p.key) for p in singles if not p.operators}
    names = []
    for name, needed in _NAMED:
        if needed <= plain:
            names.append(name)
            plain -= needed
    used = {(p.kind, p.key) for p in singles if not p.operators} - plain
    sentences = []
    if names:
        article = ["an" if n[0] in "aeiou" else "a" for n in names]
        sentences.append("Moves like " + " and ".join(f"{a} {n}" for a, n in zip(article, names)))
    groups: dict[tuple[str, tuple[str, ...], int], list[Part]] = {}
    for p in singles:
        if p.operators or (p.kind, p.key) not in used:
            groups.setdefault(_merge_key(p), []).append(p)
    sentences += [_capital(_merged_simple(parts)) for parts in groups.values()]
    doubles: dict[Part, list[Part]] = {}
    for d in descriptions:
        if len(d.parts) == 2:
            doubles.setdefault(d.parts[0], []).append(d.parts[1])
    for first, seconds in doubles.items():
        by_ops: dict[tuple[str, tuple[str, ...], int], list[Part]] = {}
        for s in seconds:
            by_ops.setdefault(_merge_key(s), []).append(s)
        tails = " or ".join(_merged_simple(group, later=True) for group in by_ops.values())
        sentences.append(_capital(f"{_part_text(first)}, then {tails}"))
    sentences += [d.text() for d in descriptions if d.generic]
    return sentences
