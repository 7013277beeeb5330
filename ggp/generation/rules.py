"""Random piece rules for chess-like SBG games: leapers, riders, limited riders and compound words.

A rule is a union of *patterns*. A pattern is a vector (or, for a compound word, a short sequence of
vectors) copied under a symmetry family (all eight board symmetries, only the sign variants, or the
forward-only subset), a kind (leaper, rider, rider limited to N steps, compound word) and a final
condition set ({e, p}: moves or captures; {e}: moves only; {p}: captures only). Intermediate letters of
riders and compound words require empty squares, so every generated rule reads like a fairy-chess
piece. Expressions are built flat (no one-element unions or concatenations) so printing and parsing
them gives back the same tree.

>>> import random
>>> from ggp.translators.sbg.printer import regex_to_sbg
>>> regex_to_sbg(pattern_regex(Pattern(((1, 0),), "rider", ("e", "p"), "orth")))
'(1,0,e)^*((1,0,e) + (1,0,p)) + (-1,0,e)^*((-1,0,e) + (-1,0,p))'
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from ggp.generation.params import GenParams
from ggp.translators.sbg.model import Alt, Cat, Letter, On, Regex, Rep, Sym

Kind = Literal["leaper", "rider", "limited", "compound"]
Family = Literal["full", "orth", "forward"]
Vector = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Pattern:
    """One vector pattern of a rule; ``steps`` has one vector except for compound words.

    ``limit`` is the largest number of steps of a ``limited`` rider.
    """

    steps: tuple[Vector, ...]
    kind: Kind
    finals: tuple[On, ...]
    family: Family
    limit: int = 0


def _images(vector: Vector, family: Family) -> list[tuple[int, int, int, int]]:
    """The linear maps (a, b, c, d): (x, y) -> (a x + b y, c x + d y) of a symmetry family."""
    signs = [(sx, sy) for sx in (1, -1) for sy in (1, -1)]
    maps = [(sx, 0, 0, sy) for sx, sy in signs]
    if family != "orth":
        maps += [(0, sx, sy, 0) for sx, sy in signs]
    return maps


def _apply(m: tuple[int, int, int, int], v: Vector) -> Vector:
    return m[0] * v[0] + m[1] * v[1], m[2] * v[0] + m[3] * v[1]


def pattern_words(pattern: Pattern) -> list[tuple[Vector, ...]]:
    """The distinct step sequences of a pattern under its symmetry family, in a fixed order."""
    words: list[tuple[Vector, ...]] = []
    for m in _images(pattern.steps[0], pattern.family):
        word = tuple(_apply(m, v) for v in pattern.steps)
        total_dy = sum(v[1] for v in word)
        if pattern.family == "forward" and total_dy <= 0:
            continue
        if word not in words:
            words.append(word)
    return words


def _final(vector: Vector, finals: tuple[On, ...]) -> Regex:
    syms = [Sym(Letter(vector[0], vector[1], on)) for on in finals]
    return syms[0] if len(syms) == 1 else Alt(tuple(syms))


def _options(pattern: Pattern) -> list[Regex]:
    options: list[Regex] = []
    for word in pattern_words(pattern):
        last = word[-1]
        if pattern.kind == "leaper":
            options += [Sym(Letter(last[0], last[1], on)) for on in pattern.finals]
        elif pattern.kind == "rider":
            options.append(Cat((Rep(Sym(Letter(last[0], last[1], "e")), None), _final(last, pattern.finals))))
        elif pattern.kind == "limited":
            step = Sym(Letter(last[0], last[1], "e"))
            for n in range(1, pattern.limit + 1):
                if n == 1:
                    options += [Sym(Letter(last[0], last[1], on)) for on in pattern.finals]
                else:
                    lead = step if n == 2 else Rep(step, n - 1)
                    options.append(Cat((lead, _final(last, pattern.finals))))
        else:
            lead_syms: list[Regex] = [Sym(Letter(v[0], v[1], "e")) for v in word[:-1]]
            options.append(Cat((*lead_syms, _final(last, pattern.finals))))
    return options


def pattern_regex(pattern: Pattern) -> Regex:
    """The union of a single pattern's words (used in tests and doctests)."""
    return union(_options(pattern))


def union(options: list[Regex]) -> Regex:
    """A flat union without repeated options; one option stays bare."""
    seen: list[Regex] = []
    for option in options:
        parts = option.options if isinstance(option, Alt) else (option,)
        for part in parts:
            if part not in seen:
                seen.append(part)
    if not seen:
        raise ValueError("a rule needs at least one option")
    return seen[0] if len(seen) == 1 else Alt(tuple(seen))


def rule_regex(patterns: list[Pattern]) -> Regex:
    """A whole rule: the flat union of its patterns' options."""
    return union([option for pattern in patterns for option in _options(pattern)])


def _vector(rng: random.Random, largest: int) -> Vector:
    while True:
        a, b = rng.randint(0, largest), rng.randint(0, largest)
        if (a, b) != (0, 0):
            return a, b


def _finals(rng: random.Random, params: GenParams) -> tuple[On, ...]:
    if rng.random() < params.p_restricted_on:
        return ("e",) if rng.random() < 0.5 else ("p",)
    return ("e", "p")


def random_pattern(rng: random.Random, params: GenParams, board: int, *, forward: bool = False) -> Pattern:
    """One pattern for a piece on a board whose smaller side is ``board``; ``forward`` forces forward-only."""
    family: Family = "forward" if forward or rng.random() < params.p_forward_only else (
        "orth" if rng.random() < 0.25 else "full")
    finals = _finals(rng, params)
    if params.max_word_letters > 1 and rng.random() < params.p_compound:
        length = rng.randint(2, params.max_word_letters)
        while True:
            steps = tuple(_vector(rng, 1) for _ in range(length))
            xs = [sum(v[0] for v in steps[:i]) for i in range(length + 1)]
            ys = [sum(v[1] for v in steps[:i]) for i in range(length + 1)]
            moved = (xs[-1], ys[-1]) != (0, 0)
            if moved and max(xs) - min(xs) < board and max(ys) - min(ys) < board and len(set(steps)) > 1:
                break
        pattern = Pattern(steps, "compound", finals, family)
    else:
        vector = _vector(rng, params.max_vector)
        if rng.random() < params.p_rider:
            largest = (board - 1) // max(vector)
            if largest >= 2 and rng.random() < params.p_limited_rider:
                pattern = Pattern((vector,), "limited", finals, family, rng.randint(2, min(4, largest)))
            else:
                pattern = Pattern((vector,), "rider", finals, family)
        else:
            pattern = Pattern((vector,), "leaper", finals, family)
    if not pattern_words(pattern):
        # A forward family of a purely horizontal vector is empty: use all its symmetries instead.
        pattern = Pattern(pattern.steps, pattern.kind, pattern.finals, "full", pattern.limit)
    return pattern


def random_piece(rng: random.Random, params: GenParams, board: int) -> Regex:
    """The rule of a non-winning piece: 1..N patterns of the parameter set."""
    count = rng.randint(*params.patterns)
    return rule_regex([random_pattern(rng, params, board) for _ in range(count)])


def random_king(rng: random.Random, params: GenParams, board: int) -> Regex:
    """A king rule: one or two short leaper patterns, always including a one-square step family."""
    step = Pattern((rng.choice([(1, 0), (1, 1)]),), "leaper", ("e", "p"), "full")
    patterns = [step]
    if rng.random() < 0.5:
        patterns.append(Pattern((_vector(rng, min(2, params.max_vector)),), "leaper", ("e", "p"), "full"))
    return rule_regex(patterns)


def random_pawn(rng: random.Random, params: GenParams, board: int) -> Regex:
    """A pawn rule: a forward move (so the back-row goal is reachable) plus forward-only extras."""
    advance: Pattern
    roll = rng.random()
    if roll < 0.6:
        advance = Pattern(((0, 1),), "leaper", ("e",) if rng.random() < 0.7 else ("e", "p"), "forward")
    elif roll < 0.8:
        advance = Pattern(((0, 1),), "limited", ("e",), "forward", 2)
    else:
        advance = Pattern(((1, 1),), "leaper", ("e",) if rng.random() < 0.5 else ("e", "p"), "forward")
    patterns = [advance]
    if rng.random() < 0.75:
        patterns.append(Pattern(((1, 1),), "leaper", ("p",), "forward"))
    if rng.random() < 0.3:
        patterns.append(random_pattern(rng, params, board, forward=True))
    return rule_regex(patterns)
