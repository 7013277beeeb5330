"""Regular move expressions compiled to epsilon-free NFAs (Glushkov construction), and the §4 search.

State 0 is the start; state i >= 1 means "the last letter read was position i" of the expression
(``^n`` is unrolled, so each copy has its own positions). Entering state j always reads
``letters[j]``, which keeps both the engine's search and the GDL relations small: a transition is
just (i, j) and the letter comes from j. The empty word is never accepted (§4: it is not a move).

>>> from ggp.translators.sbg.model import Letter, Rep, Cat, Sym
>>> step = Sym(Letter(0, 1, "e"))
>>> nfa = compile_regex(Cat((Rep(step, None), step)))
>>> nfa.size, sorted(nfa.accepting)
(3, [2])
>>> sorted(destinations(nfa, (0, 0), 1, 3, lambda x, y, on: True))
[(0, 1), (0, 2)]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ggp.translators.sbg.model import Alt, Cat, Letter, On, Regex, Sym


@dataclass(frozen=True, slots=True)
class Nfa:
    """An epsilon-free NFA: ``letters[j]`` is read when entering state j (``letters[0]`` is unused).

    ``follow[i]`` lists the states reachable from state i in one letter, in increasing order.
    """

    letters: tuple[Letter | None, ...]
    follow: tuple[tuple[int, ...], ...]
    accepting: frozenset[int]

    @property
    def size(self) -> int:
        """Number of states, the start state included."""
        return len(self.letters)


@dataclass(frozen=True, slots=True)
class _Info:
    nullable: bool
    first: frozenset[int]
    last: frozenset[int]


class _Builder:
    def __init__(self) -> None:
        self.letters: list[Letter | None] = [None]
        self.follow: list[set[int]] = [set()]

    def build(self, node: Regex) -> _Info:
        if isinstance(node, Sym):
            self.letters.append(node.letter)
            self.follow.append(set())
            j = len(self.letters) - 1
            return _Info(False, frozenset({j}), frozenset({j}))
        if isinstance(node, Alt):
            infos = [self.build(option) for option in node.options]
            return _Info(
                any(i.nullable for i in infos),
                frozenset().union(*(i.first for i in infos)),
                frozenset().union(*(i.last for i in infos)),
            )
        if isinstance(node, Cat):
            return self._concat([self.build(part) for part in node.parts])
        if node.count is None:
            info = self.build(node.child)
            for i in info.last:
                self.follow[i] |= info.first
            return _Info(True, info.first, info.last)
        return self._concat([self.build(node.child) for _ in range(node.count)])

    def _concat(self, infos: list[_Info]) -> _Info:
        result = infos[0]
        for info in infos[1:]:
            for i in result.last:
                self.follow[i] |= info.first
            result = _Info(
                result.nullable and info.nullable,
                result.first | info.first if result.nullable else result.first,
                info.last | result.last if info.nullable else info.last,
            )
        return result


def compile_regex(regex: Regex) -> Nfa:
    """The Glushkov NFA of a move expression (linear in the unrolled expression's letter count)."""
    builder = _Builder()
    info = builder.build(regex)
    builder.follow[0] = set(info.first)
    return Nfa(
        letters=tuple(builder.letters),
        follow=tuple(tuple(sorted(f)) for f in builder.follow),
        accepting=frozenset(info.last),
    )


def destinations(
    nfa: Nfa,
    start: tuple[int, int],
    black_dy_sign: int,
    size: int | tuple[int, int],
    holds: Callable[[int, int, On], bool],
) -> set[tuple[int, int]]:
    """Every square a piece on ``start`` reaches by a word of the NFA's language (§4).

    ``black_dy_sign`` is 1 for white and -1 for black (dy is negated); ``size`` is the board side
    or (width, height); ``holds(x, y, on)`` tells whether a square satisfies a condition. Searches
    (square, state) pairs with a visited set, so ``^*`` terminates.
    """
    width, height = (size, size) if isinstance(size, int) else size
    found: set[tuple[int, int]] = set()
    seen = {(start, 0)}
    stack = [(start, 0)]
    while stack:
        (x, y), state = stack.pop()
        for nxt in nfa.follow[state]:
            letter = nfa.letters[nxt]
            assert letter is not None
            nx, ny = x + letter.dx, y + black_dy_sign * letter.dy
            if not (0 <= nx < width and 0 <= ny < height) or not holds(nx, ny, letter.on):
                continue
            if nxt in nfa.accepting:
                found.add((nx, ny))
            key = ((nx, ny), nxt)
            if key not in seen:
                seen.add(key)
                stack.append(key)
    return found
