"""AlphaBetaPlayer: iterative-deepening minimax with alpha-beta, a transposition table and move ordering.

For two-player turn-taking games. Values are ``goal(me) - goal(opponent)`` (so the search is
zero-sum even when the goals are not); terminal states score exactly, states at the depth limit get
a generic evaluation read from the rules alone:

- the goal values the rules give the current state (many games define goals before the end),
- mobility: the difference in the two roles' numbers of legal moves,
- material: for board games, the number of fluents that mention a piece of each role
  (:class:`~ggp.players.material.FluentMaterial`). Material is used only when the initial state
  already shows pieces of both roles,
- playouts: the mean goal difference of :data:`LEAF_PLAYOUTS` random playouts from the state, when
  the machine runs playouts in batches (the compiled circuit: one C call). Games whose goals and
  material say nothing before the end (connect four) otherwise leave the search blind at its horizon,
  and a flat Monte Carlo player (ggp-base's SampleMonteCarloGamer) outplayed it there.

The evaluation is kept inside ``±99`` so a proven win (``+100``) always beats a heuristic one. Search
deepens one joint move at a time until the budget ends or the tree is solved; the move of the last
finished depth is played, and the transposition table's best move is tried first at every node.
A state where both roles have several moves is searched pessimistically (the opponent answers
after seeing our move). Games with another number of roles, a chance role or simultaneous moves
at the root are handed to :class:`~ggp.players.mcts.MctsPlayer` (logged at INFO). An iteration is one
visited node; ``depth`` in the budget caps the deepening.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ggp.player import Budget
from ggp.players.base import BasePlayer
from ggp.players.material import FluentMaterial
from ggp.players.mcts import MctsPlayer
from ggp.reasoner.machine import CHANCE_ROLE, Move, Role, State, StateMachine
from ggp.reasoner.playouts import batch_hook, safe_goals

log = logging.getLogger(__name__)

WIN = 100.0
HEURISTIC_LIMIT = 99.0
MAX_DEPTH = 200
TABLE_LIMIT = 500_000
LEAF_PLAYOUTS = 8
"""Random playouts per evaluated leaf, on machines that run them in batches."""

_EXACT, _LOWER, _UPPER = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Weights:
    """Weights of the evaluation features (normalised over the features in use)."""

    goal: float = 0.4
    mobility: float = 0.2
    material: float = 0.4
    playouts: float = 0.6


@dataclass(frozen=True, slots=True)
class _Entry:
    depth: int  # remaining depth the value is good for; MAX_DEPTH + 1 when the subtree is solved
    value: float
    flag: int
    best: tuple[int, int]  # indices of the best own and opponent moves, for ordering
    solved: bool


class _OutOfBudget(Exception):
    pass


class AlphaBetaPlayer(BasePlayer):
    """Iterative-deepening alpha-beta for two-player turn-taking games, MCTS otherwise."""

    name = "alphabeta"

    def __init__(self, seed: int = 0, budget: Budget | None = None, weights: Weights | None = None) -> None:
        super().__init__(seed, budget)
        self.weights = weights or Weights()
        self._fallback: MctsPlayer | None = None
        self._table: dict[State, _Entry] = {}
        self._nodes = 0
        self._opponent = 1
        self._owners = False
        self._pieces: FluentMaterial | None = None
        self.last_depth = 0
        self.last_value = 0.0

    # --- match lifecycle ------------------------------------------------------------------------

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        super().start(machine, role, budget)
        self._table = {}
        self._fallback = None
        self._opponent = 1 - self.index if len(machine.roles) == 2 else -1
        reason = self._unsupported(machine)
        if reason is not None:
            log.info("alphabeta as %s: %s; falling back to MCTS", role, reason)
            self._start_fallback()
            return
        self._pieces = FluentMaterial(machine.roles)
        self._owners = self._detect_material(machine.initial_state())

    def _unsupported(self, machine: StateMachine) -> str | None:
        if len(machine.roles) != 2:
            return f"the game has {len(machine.roles)} roles, not 2"
        if CHANCE_ROLE in machine.roles:
            return "the game has a chance role 'random'"
        initial = machine.initial_state()
        if not machine.is_terminal(initial) and all(
            len(machine.legal_moves(initial, r)) > 1 for r in machine.roles
        ):
            return "both roles move at once (simultaneous moves)"
        return None

    def _start_fallback(self) -> MctsPlayer:
        if self._fallback is None:
            self._fallback = MctsPlayer(self.seed, self.budget)
            self._fallback.start(self.machine, self.role, Budget())
        return self._fallback

    def stop(self) -> None:
        if self._fallback is not None:
            self._fallback.stop()
        self._fallback = None
        self._table = {}
        super().stop()

    # --- search --------------------------------------------------------------------------------

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        if self._fallback is not None:
            return self._fallback.choose(state, budget)
        if len(legal) == 1:
            return legal[0]
        theirs = self.machine.legal_moves(state, self.machine.roles[self._opponent])
        if len(theirs) > 1:
            log.info("alphabeta as %s: simultaneous moves in this state; asking MCTS", self.role)
            return self._start_fallback().choose(state, budget)
        if len(self._table) > TABLE_LIMIT:
            self._table = {}
        self._nodes = 0
        best = legal[0]
        limit = min(budget.depth or MAX_DEPTH, MAX_DEPTH)
        for depth in range(1, limit + 1):
            try:
                value, solved = self._value(state, depth, -WIN - 1, WIN + 1, budget)
            except _OutOfBudget:
                break
            entry = self._table[state]
            best = self.machine.legal_moves(state, self.role)[entry.best[0]]
            self._best = best
            self.last_depth, self.last_value = depth, value
            if solved and value < WIN:
                best = self._most_forgiving(state, value, limit, budget) or best
                break
            if solved or value >= WIN:
                break
        return best

    def _most_forgiving(self, state: State, value: float, depth: int, budget: Budget) -> Move | None:
        """Of the moves proven to keep ``value`` (a draw or a loss), the one whose replies are worst for the opponent on average.

        Minimax rates every move that keeps a proven draw alike, but a fallible opponent errs more
        often after some of them (tic-tac-toe's second player draws far less against a random first
        player this way). ``depth`` is the search's depth cap (the budget's ``depth`` or
        ``MAX_DEPTH``); the extra full-window searches stay within it and the budget and are mostly
        answered by the transposition table. None when the budget runs out first or no move is
        proven within the depth.
        """
        machine = self.machine
        mine, theirs = self._moves(state)
        full = (-WIN - 1, WIN + 1)
        best: Move | None = None
        best_mean = -WIN - 1.0
        try:
            for move in mine:
                joint = (move, theirs[0]) if self.index == 0 else (theirs[0], move)
                child = machine.next_state(state, joint)
                exact, proven = self._value(child, depth - 1, *full, budget)
                if not proven or exact < value:
                    continue
                replies = [] if machine.is_terminal(child) else machine.legal_joint_moves(child)
                if replies:
                    below = max(depth - 2, 0)
                    values = [self._value(machine.next_state(child, reply), below, *full, budget)[0] for reply in replies]
                    mean = sum(values) / len(values)
                else:
                    mean = exact
                if mean > best_mean:
                    best, best_mean = move, mean
        except _OutOfBudget:
            return None
        return best

    def _moves(self, state: State) -> tuple[tuple[Move, ...], tuple[Move, ...]]:
        roles = self.machine.roles
        return (
            self.machine.legal_moves(state, roles[self.index]),
            self.machine.legal_moves(state, roles[self._opponent]),
        )

    def _value(self, state: State, depth: int, alpha: float, beta: float, budget: Budget) -> tuple[float, bool]:
        """Minimax value from the player's side and whether it is exact (no depth cut below)."""
        self._nodes += 1
        if budget.exhausted(self._nodes):
            raise _OutOfBudget
        machine = self.machine
        if machine.is_terminal(state):
            goals = safe_goals(machine, state)
            return float(goals[self.index] - goals[self._opponent]), True
        mine, theirs = self._moves(state)
        if not mine or not theirs:
            goals = safe_goals(machine, state)
            return float(goals[self.index] - goals[self._opponent]), True
        if depth == 0:
            return self._evaluate(state, len(mine), len(theirs)), False
        entry = self._table.get(state)
        order = (0, 0)
        if entry is not None:
            order = entry.best
            if entry.depth >= depth:
                if entry.flag == _EXACT:
                    return entry.value, entry.solved
                if entry.flag == _LOWER and entry.value >= beta:
                    return entry.value, entry.solved
                if entry.flag == _UPPER and entry.value <= alpha:
                    return entry.value, entry.solved
        alpha0 = alpha
        best_value = -WIN - 1
        best = order
        solved = True
        for i in _ordered(len(mine), order[0]):
            worst = WIN + 1
            worst_j = 0
            for j in _ordered(len(theirs), order[1]):
                joint = (mine[i], theirs[j]) if self.index == 0 else (theirs[j], mine[i])
                low = max(alpha, best_value)
                value, exact = self._value(machine.next_state(state, joint), depth - 1, low, min(beta, worst), budget)
                solved = solved and exact
                if value < worst:
                    worst, worst_j = value, j
                if worst <= low:
                    break
            if worst > best_value:
                best_value, best = worst, (i, worst_j)
            alpha = max(alpha, best_value)
            if best_value >= beta:
                break
        flag = _UPPER if best_value <= alpha0 else _LOWER if best_value >= beta else _EXACT
        stored_depth = MAX_DEPTH + 1 if solved else depth
        self._table[state] = _Entry(stored_depth, best_value, flag, best, solved)
        return best_value, solved

    # --- evaluation ----------------------------------------------------------------------------

    def _evaluate(self, state: State, mine: int, theirs: int) -> float:
        weights = self.weights
        goals = safe_goals(self.machine, state)
        features = [(weights.goal, float(goals[self.index] - goals[self._opponent]))]
        features.append((weights.mobility, WIN * (mine - theirs) / (mine + theirs)))
        if self._owners:
            own, other = self._material(state)
            if own + other:
                features.append((weights.material, WIN * (own - other) / (own + other)))
        batch = batch_hook(self.machine) if weights.playouts > 0 else None
        if batch is not None:
            results = batch(state, LEAF_PLAYOUTS, self.rng)
            if results:
                mean = sum(goals[self.index] - goals[self._opponent] for goals in results) / len(results)
                features.append((weights.playouts, float(mean)))
        total = sum(weight for weight, _ in features)
        if total <= 0:
            return 0.0
        value = sum(weight * feature for weight, feature in features) / total
        return max(-HEURISTIC_LIMIT, min(HEURISTIC_LIMIT, value * HEURISTIC_LIMIT / WIN))

    def _material(self, state: State) -> tuple[int, int]:
        assert self._pieces is not None
        counts = self._pieces.counts(state)
        return counts[self.index], counts[self._opponent]

    def _detect_material(self, state: State) -> bool:
        own, other = self._material(state)
        return own > 0 and other > 0


def _ordered(count: int, first: int) -> list[int]:
    """Indices ``0..count-1`` with ``first`` (the transposition table's best) moved to the front."""
    if not 0 <= first < count:
        first = 0
    return [first, *(i for i in range(count) if i != first)]
