"""RAPP's heuristic min-max on SBG boards: the evaluation terms and a fixed-depth alpha-beta (reference).

Every term is the side's own value minus the opponent's (docs/rapp.md, "The example algorithms"):

- **material**: ``C`` counts pieces (1 each); ``W`` sums piece values. A piece type's value is its
  *reach*: the mean, over the squares of an empty board of the game's size, of the number of squares
  its move expression can end on when every square condition is taken as met (so a hopper or a
  capture-only move counts too; on an empty board they would be worth nothing). Values are scaled
  so the mean piece of the initial position is worth 1, which keeps ``W`` on ``C``'s scale.
- **goal** (``G``): per capture goal ``#x n`` of the side: ``-10`` per goal piece above ``n`` plus
  ``0.5`` per goal piece the side attacks (threats on the king); per placement goal: ``-0.5`` per
  king step between the side's nearest goal piece and the nearest goal square (the board's larger
  side when the side has no such piece).
- **control** (``C`` after the base): ``0.05`` per square the side could move to or capture on.
- **mobility** (``M``): ``0.05`` per legal move of the side.

Terminal states score ``±(WIN - plies from the root)`` (a quicker win is better), draws 0. The
search is negamax alpha-beta to a fixed depth, moves tried captures first (most valuable victim
first); the root searches with the window open just below the best value so far, so every move that
reaches the best value gets it exactly (callers break ties among them). :mod:`.native` is the same
search compiled; this module is its reference and the fallback without a C compiler.

>>> from ggp.translators.sbg.parser import parse_sbg
>>> game = parse_sbg('<<T>> <BOARD> 3 3 |k..| |...| |K..| <PIECES> K (0,1,e)^* (0,1,p) + (1,0,e) & <GOALS> 9 & #k 0 & #K 0 &')
>>> search = SbgMinimax(SbgEngine(game))
>>> from ggp.reasoner.heuristics import Heuristic
>>> search.root_values(search.engine.initial_state(), Heuristic.parse("C"), 1)[0]
((0, 0, 0, 2), 999.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from ggp.reasoner.heuristics import Heuristic
from ggp.translators.sbg.engine import Move, SbgEngine, SbgState, _classes
from ggp.translators.sbg.model import SIDES, CaptureGoal, PlacementGoal, Side, opponent

WIN = 1000.0
GOAL_PIECE = 10.0
THREAT = 0.5
STEP = 0.5
CONTROL = 0.05
MOBILITY = 0.05
TIE = 1e-9
"""Values this close are equal (the C search adds the same terms in another order)."""


@dataclass(frozen=True, slots=True)
class GoalTerm:
    """One goal of ``owner``: a capture goal (``count`` set) or a placement goal (``distance`` per square)."""

    owner: Side
    letter: str
    count: int | None
    distance: tuple[int, ...]
    """King-step distance from each square to the nearest goal square (placement goals)."""


class SbgMinimax:
    """Evaluation terms and fixed-depth alpha-beta for one game's :class:`SbgEngine`."""

    def __init__(self, engine: SbgEngine) -> None:
        self.engine = engine
        game = engine.game
        self.values = piece_values(engine)
        self.goals = goal_terms(engine)
        self.far = max(game.width, game.height)

    # --- evaluation ----------------------------------------------------------------------------

    def side_terms(self, board: str, side: Side) -> dict[str, float]:
        """The side's raw terms: pieces, weighted, goal, control, mobility (before the opponent's are taken away)."""
        white = side == "white"
        own = [(i, ch) for i, ch in enumerate(board) if ch != "." and ch.isupper() == white]
        classes = _classes(board, white)
        mobility = 0
        attacked: set[int] = set()
        for index, _ in own:
            targets = self.engine.piece_moves(board, index, classes)
            mobility += len(targets)
            attacked |= targets
        goal = 0.0
        for term in self.goals:
            if term.owner != side:
                continue
            if term.count is not None:
                present = board.count(term.letter)
                goal -= GOAL_PIECE * max(0, present - term.count)
                goal += THREAT * sum(1 for square in attacked if board[square] == term.letter)
            else:
                steps = [term.distance[i] for i, ch in own if ch == term.letter]
                goal -= STEP * (min(steps) if steps else self.far)
        return {
            "pieces": float(len(own)),
            "weighted": sum(self.values[ch] for _, ch in own),
            "goal": goal,
            "control": CONTROL * len(attacked),
            "mobility": MOBILITY * mobility,
        }

    def evaluate(self, board: str, side: Side, heuristic: Heuristic) -> float:
        """The heuristic value of ``board`` for ``side`` (own terms minus the opponent's)."""
        return self._score(self.side_terms(board, side), heuristic) - self._score(
            self.side_terms(board, opponent(side)), heuristic
        )

    @staticmethod
    def _score(terms: dict[str, float], heuristic: Heuristic) -> float:
        value = terms["weighted"] if heuristic.weighted else terms["pieces"]
        if heuristic.goal:
            value += terms["goal"]
        if heuristic.control:
            value += terms["control"]
        if heuristic.mobility:
            value += terms["mobility"]
        return value

    # --- search --------------------------------------------------------------------------------

    def root_values(self, state: SbgState, heuristic: Heuristic, depth: int) -> list[tuple[Move, float]]:
        """Each legal move of the side to move with its value; exact for the moves reaching the best value."""
        if depth < 1:
            raise ValueError(f"min-max depth must be at least 1, found {depth}")
        results: list[tuple[Move, float]] = []
        best = -2 * WIN
        for move in self._ordered(state):
            child = self.engine.apply_unchecked(state, move)
            value = -self._negamax(child, depth - 1, -2 * WIN, -(best - TIE), 1, heuristic)
            results.append((move, value))
            best = max(best, value)
        return sorted(results)

    def _negamax(self, state: SbgState, depth: int, alpha: float, beta: float, plies: int, heuristic: Heuristic) -> float:
        outcome = self.engine.outcome(state)
        if outcome is not None:
            if outcome == "draw":
                return 0.0
            return WIN - plies if outcome == state.to_move else -(WIN - plies)
        if depth == 0:
            return self.evaluate(state.board, state.to_move, heuristic)
        best = -2 * WIN
        for move in self._ordered(state):
            value = -self._negamax(self.engine.apply_unchecked(state, move), depth - 1, -beta, -alpha, plies + 1, heuristic)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def _ordered(self, state: SbgState) -> list[Move]:
        """Legal moves, captures first by the victim's value (stable: ties keep the engine's order)."""
        width, board = self.engine.width, state.board

        def victim(move: Move) -> float:
            target = board[move[3] * width + move[2]]
            return -self.values[target] if target != "." else 0.0

        return sorted(self.engine.legal_moves(state), key=victim)


def reach(engine: SbgEngine, letter: str) -> float:
    """Mean number of squares a piece can end a move on from each square of an empty board, every
    square condition taken as met (0 for a letter without a rule)."""
    table = engine.move_tables.get(letter)
    if table is None:
        return 0.0
    total = 0
    squares = engine.width * engine.height
    for start in range(squares):
        seen = {(0, start)}
        stack = [(0, start)]
        found: set[int] = set()
        while stack:
            q, square = stack.pop()
            for nxt, target, _on, accepting in table[q][square]:
                if accepting and target != start:
                    found.add(target)
                if (nxt, target) not in seen:
                    seen.add((nxt, target))
                    stack.append((nxt, target))
        total += len(found)
    return total / squares


def piece_values(engine: SbgEngine) -> dict[str, float]:
    """Weighted material: each letter's reach, scaled so the initial position's mean piece is worth 1."""
    letters = {rule.letter for rule in engine.game.rules}
    letters |= {ch.upper() for row in engine.game.rows for ch in row if ch != "."}
    raw = {letter: reach(engine, letter) for letter in letters}
    raw |= {letter.lower(): value for letter, value in raw.items()}  # black's moves mirror white's: same reach
    board = engine.initial_state().board
    placed = [raw[ch] for ch in board if ch != "."]
    mean = sum(placed) / len(placed) if placed and sum(placed) > 0 else 1.0
    values = {letter: value / mean for letter, value in raw.items()}
    values["."] = 0.0
    return values


def goal_terms(engine: SbgEngine) -> tuple[GoalTerm, ...]:
    """The game's active goals with, for placement goals, each square's king distance to the goal."""
    width, height = engine.width, engine.height
    terms = []
    for side in SIDES:
        for goal, squares in engine.goals_of(side):
            if isinstance(goal, CaptureGoal):
                terms.append(GoalTerm(side, goal.letter, goal.count, ()))
            elif isinstance(goal, PlacementGoal):
                distance = tuple(
                    min(max(abs(i % width - s % width), abs(i // width - s // width)) for s in squares)
                    for i in range(width * height)
                )
                terms.append(GoalTerm(side, goal.letter, None, distance))
    return tuple(terms)
