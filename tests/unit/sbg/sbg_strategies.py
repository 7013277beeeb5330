"""Hypothesis strategies for valid SBG games (valid by construction, so parsing must never fail).

Both sides get a king ``K``/``k`` whose rule has every one-square step with each of e, p and w: on any
board of at least 2x2 some neighbour exists and matches one of the three, so white always has a move.
Capture goals count pieces on the board and placement goals avoid squares their piece starts on, so
no goal holds initially.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ggp.translators.sbg.model import (
    Alt,
    CaptureGoal,
    Cat,
    Goal,
    Letter,
    PieceRule,
    PlacementGoal,
    Regex,
    Rep,
    SbgGame,
    Sym,
)

KING = Alt(tuple(
    Sym(Letter(dx, dy, on))
    for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0) for on in ("e", "p", "w")
))

letters = st.builds(
    Letter, st.integers(-2, 2), st.integers(-2, 2), st.sampled_from(["e", "p", "w"])
)


def _extend(children: st.SearchStrategy[Regex]) -> st.SearchStrategy[Regex]:
    return st.one_of(
        st.lists(children, min_size=2, max_size=3).map(lambda parts: Cat(tuple(parts))),
        st.lists(children, min_size=2, max_size=3).map(lambda options: Alt(tuple(options))),
        st.builds(Rep, children, st.one_of(st.none(), st.integers(1, 3))),
    )


regexes: st.SearchStrategy[Regex] = st.recursive(letters.map(Sym), _extend, max_leaves=8)


@st.composite
def sbg_games(draw: st.DrawFn, max_side: int = 5) -> SbgGame:
    """A random valid game on a board of 2..max_side squares a side."""
    width = draw(st.integers(2, max_side))
    height = draw(st.integers(2, max_side))
    squares = [(x, y) for y in range(height) for x in range(width)]
    order = draw(st.permutations(squares))
    cells = {order[0]: "K", order[1]: "k"}
    types = draw(st.lists(st.sampled_from("ABCDNPQR"), min_size=0, max_size=3, unique=True))
    for square in order[2:]:
        if types and draw(st.integers(0, 2)) == 0:
            letter = draw(st.sampled_from(types))
            cells[square] = letter if draw(st.booleans()) else letter.lower()
    rows = tuple(
        "".join(cells.get((x, y), ".") for x in range(width)) for y in range(height - 1, -1, -1)
    )
    rules = [PieceRule("K", KING)]
    rules += [PieceRule(t, draw(regexes)) for t in types if draw(st.integers(0, 3)) > 0]
    order_rules = draw(st.permutations(rules))
    goals: list[Goal] = [CaptureGoal("K", 0), CaptureGoal("k", 0)]
    present = sorted(set(cells.values()))
    for _ in range(draw(st.integers(0, 2))):
        letter = draw(st.sampled_from(present))
        free = [(x, y) for (x, y) in squares if cells.get((x, y)) != letter]
        picked = draw(st.lists(st.sampled_from(free), min_size=1, max_size=3, unique=True))
        goals.append(PlacementGoal(letter, tuple(picked)))
    if draw(st.booleans()):
        letter = draw(st.sampled_from(present))
        have = sum(1 for value in cells.values() if value == letter)
        goals.append(CaptureGoal(letter, draw(st.integers(0, have - 1))))
    name = draw(st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,10}", fullmatch=True))
    return SbgGame(
        name, width, height, rows, tuple(order_rules), draw(st.integers(1, 40)), tuple(draw(st.permutations(goals)))
    )
