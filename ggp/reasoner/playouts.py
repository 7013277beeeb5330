"""Random playouts, with a hook that hands them to a machine able to run them in batches, and the hook
of a machine able to run a whole MCTS search itself.

A machine that offers ``playout_goals(state, n, rng) -> Sequence[tuple[int, ...]]`` (e.g. a compiled
engine running many playouts at once) is used for every batch; any other machine is played out one
random joint move at a time through the StateMachine protocol. Both give goal tuples in role order.
A machine that offers ``mcts_tree`` (:class:`MctsTreeFactory`, the compiled circuit) runs the MCTS
player's whole search loop in its own code (:func:`mcts_tree_hook`), and its tree may offer Nested
Monte-Carlo Search for puzzles (:func:`nested_hook`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from ggp.errors import GgpError, ReasonerError
from ggp.gdl.terms import Term
from ggp.reasoner.factoring import Factor
from ggp.reasoner.machine import Move, Role, State, StateMachine

MAX_PLAYOUT_STEPS = 1000
"""A playout stops after this many joint moves and scores the state it reached (guards endless games)."""

BatchPlayouts = Callable[[State, int, random.Random], Sequence[tuple[int, ...]]]


def batch_hook(machine: StateMachine) -> BatchPlayouts | None:
    """The machine's ``playout_goals`` method when it has one (a :class:`PlayoutGoalsMachine`), else ``None``.

    Looked up by attribute, not by ``isinstance`` on the runtime protocol: this runs once per MCTS
    iteration, and a protocol check costs more than the batched playout of a small game."""
    hook = getattr(machine, "playout_goals", None)
    return cast(BatchPlayouts, hook) if callable(hook) else None


@dataclass(frozen=True, slots=True)
class TreeRootStatistics:
    """One role's moves at the root of an :class:`MctsTree`, with their visits and summed goals (0..1 each)."""

    terminal: bool
    branching: tuple[int, ...]  # legal moves per role at the root (all 0 when it is terminal)
    moves: tuple[Move, ...]  # the role's legal moves, in legal_moves order
    visits: tuple[int, ...]
    totals: tuple[float, ...]
    proven: tuple[float | None, ...] = ()
    """Per move, the role's goal (0..1) under perfect play after it when the search proved it (MCTS-Solver),
    else None; empty when the tree proves nothing."""
    proof: Move | None = None
    """At a proven root where the role chooses, the move its proof takes: the quickest of its best-valued
    moves when that value is the role's highest goal, else the slowest (a fallible opponent must still
    find the win); None elsewhere."""
    line: tuple[Move, float] | None = None
    """In a game with one role and no chance: the first move of the best line the search has played to the end
    (the moves of its best-scoring iteration) and that line's goal (0..1), which following it guarantees; None
    elsewhere or before one ended."""


@dataclass(frozen=True, slots=True)
class PlayoutCutoff:
    """A playout cut-off for an :class:`MctsTree` (issue 41: a heuristic validated in the start clock, see
    ``players/heuristic.py``): a playout that has run ``depth`` joint moves past its leaf without ending stops,
    and each role r is scored low_r + (high_r - low_r) / (1 + exp(-scale * (x_r - mean of the other roles' x))),
    where x_r is the sum of r's weights (``weights[fluent][r]``) over the fluents that hold plus ``goal_weight``
    times r's goal (0..1) in that state (in a game with one role, x_0 itself). A fluent absent from ``weights``
    weighs 0 for every role."""

    depth: int
    weights: dict[Term, tuple[float, ...]]
    goal_weight: float
    scale: float
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    """Per role, the range (0..1) its score is mapped onto: low + (high - low) * the logistic (0..1 where
    absent), so that a game whose loser still gets 72 (checkersTorus) compares cut playouts with finished ones
    on one scale."""

    def lows(self, roles: int) -> tuple[float, ...]:
        """:attr:`low` for ``roles`` roles (0 where absent)."""
        return tuple(self.low[r] if r < len(self.low) else 0.0 for r in range(roles))

    def highs(self, roles: int) -> tuple[float, ...]:
        """:attr:`high` for ``roles`` roles (1 where absent)."""
        return tuple(self.high[r] if r < len(self.high) else 1.0 for r in range(roles))

    def value(self, facts: frozenset[Term] | set[Term], goals: Sequence[float]) -> tuple[float, ...]:
        """The scores (0..1, role order) of a state holding ``facts`` with goals ``goals`` (0..1, role
        order): what the cut playout returns there (the C search computes the same)."""
        roles = len(goals)
        x = [self.goal_weight * g for g in goals]
        for fact in facts:
            for r, w in enumerate(self.weights.get(fact, ())):
                x[r] += w
        total = sum(x)
        rel = [x[r] - (total - x[r]) / (roles - 1) if roles > 1 else x[r] for r in range(roles)]
        low, high = self.lows(roles), self.highs(roles)
        return tuple(low[r] + (high[r] - low[r]) * _logistic(self.scale * d) for r, d in enumerate(rel))


def _logistic(x: float) -> float:
    if x < -700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


class MctsTree(Protocol):
    """A search tree grown by the machine's own code with ``players/mcts.py``'s algorithm (decoupled UCT,
    UCB1 on goals scaled 0..1, unvisited moves first in seeded random order, the chance roles drawn
    uniformly, one new leaf per iteration scored by random playouts)."""

    def reroot(self, state: State) -> bool:
        """Move the root to ``state``: True when its subtree was kept, False when the tree starts afresh."""
        ...

    def search(self, iterations: int, deadline: float) -> int:
        """Up to ``iterations`` iterations, none begun at or after ``deadline`` (a ``time.monotonic()`` time,
        ``math.inf`` for none); how many ran (0 at a terminal root)."""
        ...

    def root_statistics(self, role: int) -> TreeRootStatistics:
        """The root's statistics for the role at index ``role``."""
        ...


class MctsTreeFactory(Protocol):
    """A machine's ``mcts_tree`` method: a tree rooted at ``state``, or None when the machine cannot
    run the search after all (e.g. a circuit evaluated by numpy). ``chance[r]`` marks role ``r`` as
    chance; the tree holds at most ``max_nodes`` nodes and then scores new leaves without storing them;
    ``mast`` is the share of MAST-greedy moves in single playouts (``players/mcts.py``; 0: uniform);
    ``solver`` turns MCTS-Solver on (nodes where one role chooses are proven from their children's proofs);
    ``rave`` > 0 is RAVE's equivalence parameter k (all-moves-as-first means blended into UCB1; 0: off);
    ``decisive`` is the single playouts' lookahead: 1 plays a move that wins at once wherever a role has one,
    2 also avoids a move after which an opponent has one (0: none); ``cutoff`` stops single playouts early and
    scores them by a heuristic (:class:`PlayoutCutoff`; None: played to the end); ``factor`` (from the machine's
    ``factor_at``, :mod:`ggp.reasoner.factoring`) searches that sub-game alone, the rest of ``state`` held."""

    def __call__(
        self, state: State, *, exploration: float, playouts_per_leaf: int, chance: Sequence[bool], seed: int,
        max_nodes: int, mast: float = 0.0, solver: bool = False, rave: float = 0.0, decisive: int = 0,
        cutoff: PlayoutCutoff | None = None, factor: Factor | None = None,
    ) -> MctsTree | None: ...


def mcts_tree_hook(machine: StateMachine) -> MctsTreeFactory | None:
    """The machine's ``mcts_tree`` method when it has one, else ``None`` (looked up by attribute, as
    :func:`batch_hook`)."""
    hook = getattr(machine, "mcts_tree", None)
    return cast(MctsTreeFactory, hook) if callable(hook) else None


NestedSearch = Callable[[int, float], bool]
"""An :class:`MctsTree`'s optional ``nested(level, deadline)`` method: Nested Monte-Carlo Search (Cazenave 2009)
of ``level`` from the root in a game with one role and no chance, stopping at ``deadline`` (a
``time.monotonic()`` time, ``math.inf`` for none); True when the level finished. The sequences it plays to
the end feed the tree's best line (:attr:`TreeRootStatistics.line`); it raises ``ValueError`` in any other
game."""


def nested_hook(tree: MctsTree) -> NestedSearch | None:
    """The tree's ``nested`` method when it has one (the compiled circuit's), else ``None`` (looked up by
    attribute, as :func:`mcts_tree_hook`)."""
    hook = getattr(tree, "nested", None)
    return cast(NestedSearch, hook) if callable(hook) else None


def require_legal(machine: StateMachine, state: State, role: Role, steps: int) -> tuple[Move, ...]:
    """The role's legal moves in a non-terminal state; ReasonerError naming the role and the step when it has
    none (the game is broken there: a command reports it in one line instead of failing to pick a move)."""
    moves = machine.legal_moves(state, role)
    if not moves:
        raise ReasonerError(f"role {str(role)!r} has no legal move in a non-terminal state after {steps} steps")
    return moves


def safe_goals(machine: StateMachine, state: State) -> tuple[int, ...]:
    """Goal values of a state, or all zeros when the rules define none there (non-terminal states)."""
    try:
        return machine.goals(state)
    except GgpError:
        return tuple(0 for _ in machine.roles)


class PlayoutInterrupted(Exception):
    """A playout stopped half-way because its caller's ``stop`` test said so (a clock ran out)."""


def random_playout(
    machine: StateMachine,
    state: State,
    rng: random.Random,
    max_steps: int = MAX_PLAYOUT_STEPS,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, ...]:
    """Play uniformly random joint moves from ``state`` to the end; the goals reached, role order.

    ``stop`` is asked before every step; when it answers True the playout raises
    :class:`PlayoutInterrupted` (one long playout must not outlast a play clock).
    """
    roles = machine.roles
    for _ in range(max_steps):
        if stop is not None and stop():
            raise PlayoutInterrupted
        if machine.is_terminal(state):
            break
        joint = []
        for role in roles:
            legal = machine.legal_moves(state, role)
            if not legal:
                return safe_goals(machine, state)
            joint.append(legal[rng.randrange(len(legal))])
        state = machine.next_state(state, tuple(joint))
    return safe_goals(machine, state)


def playout_goals(
    machine: StateMachine,
    state: State,
    n: int,
    rng: random.Random,
    max_steps: int = MAX_PLAYOUT_STEPS,
    stop: Callable[[], bool] | None = None,
) -> list[tuple[int, ...]]:
    """``n`` random playouts from ``state``: batched by the machine when it can (one compiled call),
    else one by one, each interruptible by ``stop`` (see :func:`random_playout`)."""
    hook = batch_hook(machine)
    if hook is not None:
        return [tuple(goals) for goals in hook(state, n, rng)]
    return [random_playout(machine, state, rng, max_steps, stop) for _ in range(n)]
