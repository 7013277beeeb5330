"""f_NLD: how hard a chess-like game's piece rules are for humans, via English descriptions (metrics.md §4).

A piece's move language is expanded into words (``^*`` as far as the board allows), each word split
into parts (maximal runs of letters with the same vector), and the words are covered by English
descriptions made from a small structured form, :class:`~ggp.generation.nld_words.Part`: a class — a **leaper**, a **leaper2**
(the (a,b)-or-(b,a) leaper) or a **rider** with a vector key (a, b) — plus up to four operators. A
one-part description costs f_v(key)·(1 + Σ f_o(op)) (3.3, 3.4), a two-part one ("X, then Y") the
product of its parts (3.5), anything else the generic fallback f_g (3.6). A piece costs the sum of a
greedy set cover of its descriptions, and the game

    f_NLD = trunc( Σ_i #p_i·f(p_i) / Σ_i #p_i · (10 + k) )          (3.7)

with #p_i the pieces of type i on the initial board (both sides) and k the number of types.

The same :class:`~ggp.generation.nld_words.Part` values give the English text
(:meth:`~ggp.generation.nld_descriptions.Description.text`) and the set of words the text allows
(:meth:`~ggp.generation.nld_descriptions.Description.moves`, the interpreter), so a test can check that
the text allows exactly the piece's moves. The words and parts are :mod:`ggp.generation.nld_words`'s,
the descriptions and their English :mod:`ggp.generation.nld_descriptions`'s; this module searches the
descriptions that cover a piece's words and scores pieces and games.

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

from ggp.generation.nld_descriptions import Description, merged_sentences
from ggp.generation.nld_words import (
    _KINDS,
    _LATER_KINDS,
    _MAPS,
    _OUTWARDS,
    OPERATOR_COST,
    ORIGIN,
    Part,
    Start,
    Word,
    _admits,
    _applies,
    _end,
    _images,
    _operator_frozensets,
    operator_sets,
    parts_of,
    vector_cost,
    words_of,
)
from ggp.translators.sbg.model import Regex, SbgGame

MAX_FIRST_TRIES = 3
"""How many first-part descriptions a two-part word tries before it falls back to f_g."""


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


