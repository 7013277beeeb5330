"""Strategic metrics of SBG pieces (thesis §4.1.1): what a piece does, as ten numbers.

Every metric is computed from the game model alone (the board, the move languages and the goals),
without playing. "Relaxed" moves read every letter's condition (``e``, ``p``, ``w``) as satisfied, so
a move language becomes the set of squares the piece could ever reach from a square of the empty
board; the thesis's pawn row of Table 4.1 (simplified chess) is reproduced by these readings except
``s_lm`` (see docs/shapes.md, "What differs from the thesis").

>>> from ggp.translators.sbg.parser import parse_sbg
>>> game = parse_sbg('''<<T>> <BOARD> 3 3 |..k| |...| |K..| <PIECES>
... K (0,1,e) + (0,1,p) + (1,0,e) + (1,0,p) & <GOALS> 10 & #K 0 & #k 0 &''')
>>> metrics = strategic_metrics(game)["K"]
>>> metrics.s_po, metrics.s_em, metrics.s_cw, metrics.s_mr
(1.0, 0.5, 1.0, 4.0)
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import astuple, dataclass, fields

from ggp.translators.sbg.automaton import Nfa, compile_regex, destinations
from ggp.translators.sbg.model import CaptureGoal, PlacementGoal, SbgGame

Square = tuple[int, int]


@dataclass(frozen=True, slots=True)
class StrategicMetrics:
    """The ten strategic metrics of one piece type (all floats; see docs/shapes.md for each).

    s_po population share, s_em / s_ec share of the distinct move endings onto empty / enemy squares, s_pw / s_cw
    whether the piece takes part in a placement / capture goal, s_ba mean share of the board it can
    reach, s_mr mean number of moves to its farthest reachable square, s_lm mean number of relaxed
    moves on the board, s_sd mean length of one step, s_dd mean length of a whole move.
    """

    s_po: float
    s_em: float
    s_ec: float
    s_pw: float
    s_cw: float
    s_ba: float
    s_mr: float
    s_lm: float
    s_sd: float
    s_dd: float

    def vector(self) -> tuple[float, ...]:
        """The metrics in declaration order (the order of Table 4.1)."""
        return astuple(self)

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(f.name for f in fields(StrategicMetrics))


def strategic_metrics(game: SbgGame) -> dict[str, StrategicMetrics]:
    """The metrics of every piece type on the initial board, keyed by upper-case letter (sorted)."""
    return {letter: piece_metrics(game, letter) for letter in sorted(game.types_on_board())}


def piece_metrics(game: SbgGame, letter: str) -> StrategicMetrics:
    """The metrics of one piece type (``letter`` in either case); raises ``ValueError`` when the type is
    not on the initial board."""
    upper = letter.upper()
    pieces = game.pieces()
    white = [(x, y) for x, y, ch in pieces if ch == upper]
    black = [(x, y) for x, y, ch in pieces if ch == upper.lower()]
    if not white and not black:
        raise ValueError(f"piece {letter!r} is not on the initial board of {game.name!r}")
    starts, sign = (white, 1) if white else (black, -1)
    s_po = (len(white) + len(black)) / len(pieces)
    goals = game.active_goals()
    s_pw = float(any(isinstance(g, PlacementGoal) and g.letter.upper() == upper for g in goals))
    s_cw = float(any(isinstance(g, CaptureGoal) and g.letter.upper() == upper for g in goals))
    rule = game.rule_for(upper)
    if rule is None:  # an immobile piece: no moves, reaches only its own square
        return StrategicMetrics(s_po, 0.0, 0.0, s_pw, s_cw, 1 / (game.width * game.height), 0.0, 0.0, 0.0, 0.0)
    nfa = compile_regex(rule.regex)
    # Distinct ending letters: a letter that ends several words (the pawn's step, also the last letter of
    # chess.sbg's double step) is one kind of move ending, not several.
    endings = {letter_ for j in nfa.accepting if (letter_ := nfa.letters[j]) is not None}
    s_em = sum(e.on == "e" for e in endings) / len(endings)
    s_ec = sum(e.on == "p" for e in endings) / len(endings)
    moves = _relaxed_moves(nfa, game.width, game.height, sign)
    reach = [_distances(moves, start) for start in starts]
    s_ba = sum(len(r) for r in reach) / len(reach) / (game.width * game.height)
    s_mr = sum(max(r.values()) for r in reach) / len(reach)
    s_lm = sum(len(targets) for targets in moves.values()) / len(moves)
    steps = {(le.dx, le.dy) for le in nfa.letters if le is not None}
    s_sd = sum(math.hypot(dx, dy) for dx, dy in steps) / len(steps)
    shifts = {(tx - x, ty - y) for (x, y), targets in moves.items() for tx, ty in targets}
    s_dd = sum(math.hypot(dx, dy) for dx, dy in shifts) / len(shifts) if shifts else 0.0
    return StrategicMetrics(s_po, s_em, s_ec, s_pw, s_cw, s_ba, s_mr, s_lm, s_sd, s_dd)


def _relaxed_moves(nfa: Nfa, width: int, height: int, sign: int) -> dict[Square, set[Square]]:
    """Per square of the board, the squares a word of the language lands on with every condition met."""
    return {(x, y): destinations(nfa, (x, y), sign, (width, height), lambda _x, _y, _on: True)
            for y in range(height) for x in range(width)}


def _distances(moves: dict[Square, set[Square]], start: Square) -> dict[Square, int]:
    """Breadth-first search: the fewest moves from ``start`` to every square it can reach (itself 0)."""
    found = {start: 0}
    queue = deque([start])
    while queue:
        square = queue.popleft()
        for target in moves[square]:
            if target not in found:
                found[target] = found[square] + 1
                queue.append(target)
    return found
