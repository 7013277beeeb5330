"""f_NLD: how hard a chess-like game's piece rules are for humans, via English descriptions (metrics.md §4).

Each piece's move language is split into words (``^*`` expanded as far as the board allows), each word
into parts (maximal runs of letters with the same vector), and the single-part words ("atoms") are
described greedily with fairy-chess classes: a **leaper** or **rider** with an ordered vector key
(a, b) — (1, 0) "horizontally", (0, 1) "vertically" and (1, 1) "diagonally" are separate classes and
(1, 2) ≠ (2, 1) — plus up to four operators. A description costs f_v(key)·(1 + Σ f_o(op)) (3.3, 3.4),
a piece the sum of its descriptions, and the game

    f_NLD = trunc( Σ_i #p_i·f(p_i) / Σ_i #p_i · (10 + k) )          (3.7)

with #p_i the pieces of type i on the initial board (both sides) and k the number of types.

Search (the spec's §4.2 decision): U = the piece's atoms; while some atom is uncovered, take the hardest
(most letters; ties by the word's text), try operator sets by ascending total cost, then fewer
operators, then a fixed order, each as leaper before rider with the atom's key, and accept the first
description whose generated atoms contain it and are a subset of U. If none fits, the atom costs the
generic fallback f_g = Π f_v over its destination and every intermediate square (3.6).

Interpretations where the spec is uncertain (§4.4), all ours:

- Operators searched: forwards, backwards, sideways (1, 1, 2), only capture, without capture (2, 2),
  max / min / exactly N times (2, 2, 3; N = the atom's length), over own piece instead (3: rider
  intermediates on own pieces), only odd / only even (5). "Outwards" and "not horizontal" are in the
  cost table but have no move semantics in an SBG rule here, so they are never chosen.
- Contradictory sets are skipped: two direction operators, two capture operators, two length
  operators, odd with even or with exactly; length, parity and over-own operators only apply to riders.
- Two-part words: the first parts are searched as atoms whose last square is a default "empty"
  intermediate (a first part ending on an empty square needs no operator; ending on an opponent or
  own piece makes the part unmatched); then, for each first-part description, the second parts of the
  words whose first part it generates are searched; the word family costs Σ f(D1)·f(D2) (3.5).
  Words ending on an own piece, words with an intermediate condition other than empty (hoppers) and
  words of three or more parts cost f_g each. (The thesis's multi-part values — moa 36, duke 60, ... —
  are not reproduced, as the spec says.)
- Words are enumerated from the rule's automaton, keeping a word only if its prefix displacements fit
  in the board (x-range ≤ width − 1, y-range ≤ height − 1); at most 2·max(w, h) + 2 letters and 20000
  words a piece (beyond that the rest is ignored and ``truncated`` is set).
- The game value is truncated to an integer (reproduces 236 and 387); immobile types score 0 but count.

>>> from ggp.translators.sbg.model import Letter
>>> vector_cost(1, 2), vector_cost(3, 0), vector_cost(2, 3)
(4, 4, 5)
>>> nld_value([(8, 16), (2, 8), (2, 3), (2, 4), (1, 2), (1, 6)])  # Shatranj, one side
166
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Literal

from ggp.translators.sbg.automaton import compile_regex
from ggp.translators.sbg.model import Letter, On, Regex, SbgGame

Word = tuple[Letter, ...]
Kind = Literal["leaper", "rider"]

OPERATOR_COST: dict[str, int] = {
    "forwards": 1, "backwards": 1, "sideways": 2, "only capture": 2, "without capture": 2,
    "max N times": 2, "min N times": 2, "exactly N times": 3, "over own piece instead": 3,
    "only odd": 5, "only even": 5,
}
"""f_o of the operators the search uses (thesis Table 3.1, in its order)."""

_GROUPS = (
    {"forwards", "backwards", "sideways"},
    {"only capture", "without capture"},
    {"max N times", "min N times", "exactly N times"},
    {"only odd", "only even"},
    {"only odd", "only even", "exactly N times"},
)
_RIDER_ONLY = {"max N times", "min N times", "exactly N times", "over own piece instead", "only odd", "only even"}
_KINDS: tuple[Kind, Kind] = ("leaper", "rider")
MAX_WORDS = 20000


def vector_cost(x: int, y: int) -> int:
    """f_v(⟨x,y⟩) = 1 + max(|x|,|y|) + min(min(|x|,|y|), ||x|−|y||)  (3.3)."""
    a, b = abs(x), abs(y)
    return 1 + max(a, b) + min(min(a, b), abs(a - b))


@cache
def operator_sets() -> tuple[tuple[str, ...], ...]:
    """Non-contradictory sets of ≤ 4 operators by (total cost, size, table order)."""
    names = list(OPERATOR_COST)
    sets = []
    for size in range(5):
        for combo in combinations(names, size):
            chosen = set(combo)
            if any(len(chosen & group) > 1 for group in _GROUPS):
                continue
            sets.append(combo)
    return tuple(sorted(sets, key=lambda c: (sum(OPERATOR_COST[o] for o in c), len(c), [names.index(o) for o in c])))


@dataclass(frozen=True, slots=True)
class Description:
    """One English description: a class, a key, operators (N for the length ones) and its cost.

    ``kind`` is "leaper", "rider" or "generic" (the fallback, with ``word`` the described word).
    ``second`` holds the descriptions of the second parts for a two-part description.
    """

    kind: str
    key: tuple[int, int]
    operators: tuple[str, ...]
    n: int
    cost: int
    word: Word = ()
    second: tuple[Description, ...] = ()

    def text(self) -> str:
        """The English sentence of this description."""
        if self.kind == "generic":
            return _generic_text(self.word)
        base = _class_text(self)
        if self.second:
            return f"{base}, then " + "; or ".join(_class_text(d, lower=True) for d in self.second)
        return base


@dataclass(frozen=True, slots=True)
class PieceScore:
    """f(p) of one piece type with the descriptions that make it up."""

    letter: str
    value: int
    descriptions: tuple[Description, ...]
    truncated: bool = False

    def text(self) -> str:
        """A sentence-per-description English rule ("Moves like a knight." when a whole piece matches)."""
        if not self.descriptions:
            return "Never moves."
        summary = _named_summary(self.descriptions)
        return summary if summary else " ".join(d.text() + "." for d in self.descriptions)


@dataclass(frozen=True, slots=True)
class GameScore:
    """f_NLD of a game: the truncated value, the raw value and each piece's score and count."""

    value: int
    raw: float
    pieces: tuple[PieceScore, ...]
    counts: tuple[int, ...]


# --- atoms and their generation -------------------------------------------------------------------


def words_of(regex: Regex, width: int, height: int) -> tuple[frozenset[Word], bool]:
    """The rule's words whose prefixes fit on the board; True as second value if the cap cut some off."""
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


def _lmax(vx: int, vy: int, width: int, height: int) -> int:
    a, b = abs(vx), abs(vy)
    bounds = [(width - 1) // a] if a else []
    bounds += [(height - 1) // b] if b else []
    return min(bounds)


def generated(kind: Kind, key: tuple[int, int], ops: Sequence[str], n: int, width: int, height: int,
              *, intermediate: bool = False) -> frozenset[Word]:
    """The atoms a description allows on a width × height board.

    ``intermediate`` generates first parts of two-part words: their last square is a default empty
    square (no capture operator applies).
    """
    a, b = key
    vectors = {(sx * a, sy * b) for sx in (1, -1) for sy in (1, -1)}
    if "forwards" in ops:
        vectors = {v for v in vectors if v[1] > 0}
    if "backwards" in ops:
        vectors = {v for v in vectors if v[1] < 0}
    if "sideways" in ops:
        vectors = {v for v in vectors if v[1] == 0}
    finals: tuple[On, ...]
    if intermediate:
        if "only capture" in ops or "without capture" in ops:
            return frozenset()
        finals = ("e",)
    else:
        finals = ("p",) if "only capture" in ops else ("e",) if "without capture" in ops else ("e", "p")
    middle: On = "w" if "over own piece instead" in ops else "e"
    atoms: set[Word] = set()
    for vx, vy in vectors:
        top = _lmax(vx, vy, width, height)
        lengths = range(1, min(top, 1) + 1) if kind == "leaper" else range(1, top + 1)
        for length in lengths:
            if ("max N times" in ops and length > n) or ("min N times" in ops and length < n):
                continue
            if ("exactly N times" in ops and length != n) or ("only odd" in ops and length % 2 == 0):
                continue
            if "only even" in ops and length % 2 == 1:
                continue
            for final in finals:
                atoms.add((*(Letter(vx, vy, middle) for _ in range(length - 1)), Letter(vx, vy, final)))
    return frozenset(atoms)


def _applies(kind: Kind, ops: Sequence[str]) -> bool:
    return kind == "rider" or not (_RIDER_ONLY & set(ops))


def generic_cost(word: Word) -> int:
    """f_g (3.6): product of f_v over the destination and every intermediate square, from the start."""
    cost, x, y = 1, 0, 0
    for letter in word:
        x, y = x + letter.dx, y + letter.dy
        cost *= vector_cost(x, y)
    return cost


def _word_order(word: Word) -> tuple[int, str]:
    return -len(word), "".join(map(str, word))


def describe_atoms(atoms: Iterable[Word], width: int, height: int, *, intermediate: bool = False
                   ) -> list[tuple[Description, frozenset[Word]]]:
    """The greedy cover of single-part atoms (§4.2); each description with the atoms it generates."""
    universe = frozenset(atoms)
    uncovered = set(universe)
    result: list[tuple[Description, frozenset[Word]]] = []
    while uncovered:
        atom = min(uncovered, key=_word_order)
        key = (abs(atom[0].dx), abs(atom[0].dy))
        found: tuple[Description, frozenset[Word]] | None = None
        for ops in operator_sets():
            for kind in _KINDS:
                if not _applies(kind, ops):
                    continue
                gen = generated(kind, key, ops, len(atom), width, height, intermediate=intermediate)
                if atom in gen and gen <= universe:
                    cost = vector_cost(*key) * (1 + sum(OPERATOR_COST[o] for o in ops))
                    found = (Description(kind, key, ops, len(atom), cost), gen)
                    break
            if found:
                break
        if found is None:
            found = (Description("generic", key, (), len(atom), generic_cost(atom), atom), frozenset({atom}))
        result.append(found)
        uncovered -= found[1]
    return result


def _is_plain(word: Word) -> bool:
    """Intermediate squares all empty and the word does not end on an own piece."""
    return all(letter.on == "e" for letter in word[:-1]) and word[-1].on != "w"


def piece_score(letter: str, regex: Regex | None, width: int, height: int) -> PieceScore:
    """f(p): the descriptions of one piece's moves and their total cost."""
    if regex is None:
        return PieceScore(letter, 0, ())
    words, truncated = words_of(regex, width, height)
    single: set[Word] = set()
    double: dict[Word, set[Word]] = {}
    generic: list[Word] = []
    for word in words:
        parts = parts_of(word)
        if len(parts) == 1:
            single.add(word)
        elif len(parts) == 2 and _is_plain(word):
            double.setdefault(parts[0], set()).add(parts[1])
        else:
            generic.append(word)
    descriptions = [d for d, _ in describe_atoms(single, width, height)]
    if double:
        for first, firsts in describe_atoms(double, width, height, intermediate=True):
            if first.kind == "generic":
                # The first part alone has no description: score each of its words generically.
                generic += [(*first.word, *second) for second in double[first.word]]
                continue
            seconds = set().union(*(double[p] for p in firsts if p in double))
            described = tuple(d for d, _ in describe_atoms(seconds, width, height))
            cost = sum(first.cost * d.cost for d in described)
            descriptions.append(Description(first.kind, first.key, first.operators, first.n, cost, second=described))
    descriptions += [Description("generic", (0, 0), (), len(w), generic_cost(w), w) for w in sorted(generic, key=_word_order)]
    return PieceScore(letter, sum(d.cost for d in descriptions), tuple(descriptions), truncated)


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
    letters = sorted(counts, key=lambda ch: [r.letter for r in game.rules].index(ch) if game.rule_for(ch) else 99)
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
_VERB_OPS = {"only capture", "without capture"}


def _direction(key: tuple[int, int]) -> str:
    a, b = key
    if b == 0:
        return "horizontally"
    if a == 0:
        return "vertically"
    if a == b:
        return "diagonally"
    return f"by ({a},{b})"


def _steps(key: tuple[int, int]) -> str:
    """"steps horizontally" for the unit keys, "(2,1) steps" otherwise."""
    a, b = key
    return f"steps {_direction(key)}" if (a, b) in ((1, 0), (0, 1), (1, 1)) else f"({a},{b}) steps"


def _class_text(d: Description, *, lower: bool = False) -> str:
    ops = set(d.operators)
    if "only capture" in ops:
        verb = "captures"
    elif "without capture" in ops:
        verb = "moves"
    else:
        verb = "leaps" if d.kind == "leaper" else "rides"
    a, b = d.key
    if d.kind == "leaper":
        if a == b or a == 0 or b == 0:
            distance = max(a, b)
            what = f"{_NUMBERS.get(distance, str(distance))} square{'s' if distance > 1 else ''} {_direction(d.key)}"
        else:
            what = f"to ({a},{b}) away" + (" (knight-wise)" if {a, b} == {1, 2} else "")
    elif "exactly N times" in ops:
        verb = "rides" if verb in ("leaps", "rides") else verb
        what = f"exactly {d.n} {_steps(d.key)}"
    elif "max N times" in ops:
        what = f"up to {d.n} {_steps(d.key)}"
    elif "min N times" in ops:
        what = f"at least {d.n} {_steps(d.key)}"
    elif (a, b) in ((1, 0), (0, 1), (1, 1)):
        what = f"any number of squares {_direction(d.key)}"
    else:
        what = f"any number of ({a},{b}) steps"
    extras = []
    for op in d.operators:
        if op in _VERB_OPS or op in ("exactly N times", "max N times", "min N times"):
            continue
        if op == "over own piece instead":
            extras.append("over its own pieces instead of empty squares")
        elif op in ("only odd", "only even"):
            extras.append(f"an {op.split()[1]} number of steps only")
        else:
            extras.append(op)
    text = f"{verb} {what}" + ("" if not extras else ", " + ", ".join(extras))
    return text if lower else text[0].upper() + text[1:]


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
    ("wazir", frozenset({("leaper", (1, 0)), ("leaper", (0, 1))})),
    ("dabbaba", frozenset({("leaper", (2, 0)), ("leaper", (0, 2))})),
    ("bishop", frozenset({("rider", (1, 1))})),
    ("ferz", frozenset({("leaper", (1, 1))})),
    ("alfil", frozenset({("leaper", (2, 2))})),
)


def _named_summary(descriptions: Sequence[Description]) -> str:
    """"Moves like a king and a knight." plus sentences for what no named piece covers."""
    plain = {(d.kind, d.key) for d in descriptions if not d.operators and not d.second}
    names = []
    for name, needed in _NAMED:
        if needed <= plain:
            names.append(name)
            plain -= needed
    if not names:
        return ""
    used = {(d.kind, d.key) for d in descriptions if not d.operators and not d.second} - plain
    rest = [d.text() + "." for d in descriptions if d.operators or d.second or (d.kind, d.key) not in used]
    article = ["an" if n[0] in "aeiou" else "a" for n in names]
    head = "Moves like " + " and ".join(f"{a} {n}" for a, n in zip(article, names)) + "."
    return " ".join([head, *rest])
