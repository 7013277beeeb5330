"""DeterminizedMctsPlayer ("dmcts"): GDL-II play by MCTS on sampled states consistent with the percepts.

A GDL-II player never sees the state. At each decision this player draws up to ``samples``
different states from its :class:`~ggp.players.gdl2_support.BeliefState` (the states that agree with
its own moves and percepts so far), runs an independent UCT search
(:class:`~ggp.players.mcts.MctsPlayer`) on each with an equal share of the budget, and then votes: a
move's score is the mean, over the searches, of its mean goal value at the root, so a move that is
good in every sample beats one that is very good in a single sample (guessing a number the sample
happens to know). Ties go to the move visited most in total, then to the first in move order. In a
GDL game (full information) the one known state is the only sample.

Known limit (strategy fusion): inside one sample the search knows the hidden state, so it values
information-gathering moves only as far as it finds the winning follow-up; enough iterations per
sample make that happen in small games.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ggp.player import Budget
from ggp.players.base import DEFAULT_ITERATIONS
from ggp.players.gdl2_support import HiddenStatePlayer
from ggp.players.mcts import DEFAULT_EXPLORATION, MctsPlayer, _Node
from ggp.reasoner.machine import Move, State


class _FlatRootMcts(MctsPlayer):
    """UCT that spreads the root visits of its own role evenly over its moves (UCB1 below the root).

    Plain UCT at the root of a determinization piles its visits on a move that wins at once in that
    sample and leaves the others (asking a question first) with a few visits and a poor mean. Even
    root visits give every move a mean that can be compared across samples, which is what the vote
    needs.
    """

    def _select(self, node: _Node, role: int) -> int:
        if node is self._root and role == self.index:
            visits = node.visits[role]
            return min(range(len(visits)), key=lambda i: (visits[i], i))
        return super()._select(node, role)


class DeterminizedMctsPlayer(HiddenStatePlayer):
    """Determinized UCT with voting; ``samples`` states per decision, ``exploration`` as in mcts."""

    name = "dmcts"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        samples: int = 8,
        exploration: float = DEFAULT_EXPLORATION,
        playouts_per_leaf: int = 1,
    ) -> None:
        super().__init__(seed, budget)
        if samples < 1:
            raise ValueError(f"samples must be at least 1, found {samples}")
        self.samples = int(samples)
        self.exploration = exploration
        self.playouts_per_leaf = playouts_per_leaf
        self._decisions = 0
        self.last_scores: dict[Move, float] = {}
        """Each candidate move's vote score at the last decision (for logs and tests)."""

    def choose_hidden(self, budget: Budget) -> Move:
        """Sample consistent states, search each, vote; the move is legal in every sampled state."""
        belief = self._belief()
        states = belief.sample(self.samples)
        legal = self.machine.legal_moves(states[0], self.role)
        if not legal:
            raise ValueError(f"role {str(self.role)!r} has no legal move in this state")
        self._best = legal[0]
        move = self._vote(states, legal, self._limits(budget))
        self._best = move
        return move

    def _limits(self, budget: Budget) -> Budget:
        limits = budget.tightest(self.budget)
        if self.move_seconds is not None:
            limits = limits.tightest(Budget.for_seconds(self.move_seconds))
        return limits.or_default(DEFAULT_ITERATIONS)

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        """Full information (GDL, or a sampled state given by the caller): one determinization."""
        return self._vote([state], legal, budget)

    def _vote(self, states: Sequence[State], legal: tuple[Move, ...], budget: Budget) -> Move:
        self._decisions += 1
        per_sample = None if budget.iterations is None else max(1, budget.iterations // len(states))
        sums: dict[Move, float] = {}
        visits: dict[Move, int] = {}
        started = time.monotonic()
        for number, state in enumerate(states):
            if number and budget.out_of_time():
                break
            deadline = None
            if budget.deadline is not None:
                share = (budget.deadline - started) * (number + 1) / len(states)
                deadline = started + share
            search = _FlatRootMcts(
                seed=self.seed * 1_000_003 + self._decisions * 1009 + number,
                exploration=self.exploration,
                playouts_per_leaf=self.playouts_per_leaf,
            )
            search.start(self.machine, self.role, Budget())
            try:
                search.choose(state, Budget(deadline=deadline, iterations=per_sample, cancel=budget.cancel))
                for move, count, mean in search.move_statistics():
                    if count:
                        sums[move] = sums.get(move, 0.0) + mean
                        visits[move] = visits.get(move, 0) + count
            finally:
                search.stop()
            self._best = self._pick(legal, sums, visits, len(states))
        self.last_scores = {move: sums[move] / len(states) for move in sums}
        return self._pick(legal, sums, visits, len(states))

    @staticmethod
    def _pick(legal: tuple[Move, ...], sums: dict[Move, float], visits: dict[Move, int], samples: int) -> Move:
        """Highest mean over the samples (unvisited counts as 0); ties: most visits, then move order."""
        candidates = [move for move in legal if move in sums] or list(legal)
        order = {move: i for i, move in enumerate(legal)}
        return max(candidates, key=lambda m: (sums.get(m, 0.0) / samples, visits.get(m, 0), -order[m]))
