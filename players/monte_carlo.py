"""MonteCarloPlayer: flat Monte Carlo, random playouts after each legal move, best mean goal wins.

Moves are sampled round-robin so each gets the same share of playouts; the other roles' moves in
the first step are drawn uniformly. An iteration is one playout.
"""

from __future__ import annotations

from ggp.player import Budget
from ggp.players.base import BasePlayer
from ggp.reasoner.machine import Move, State
from ggp.reasoner.playouts import PlayoutInterrupted, playout_goals


class MonteCarloPlayer(BasePlayer):
    """Flat Monte Carlo search; ``playouts_per_visit`` playouts are run per visit (batched when possible)."""

    name = "monte_carlo"

    def __init__(self, seed: int = 0, budget: Budget | None = None, playouts_per_visit: int = 1) -> None:
        super().__init__(seed, budget)
        self.playouts_per_visit = max(1, playouts_per_visit)

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        if len(legal) == 1:
            return legal[0]
        machine = self.machine
        totals = [0.0] * len(legal)
        counts = [0] * len(legal)
        done = 0
        stop = budget.out_of_time if budget.deadline is not None or budget.cancel is not None else None
        while not budget.exhausted(done):
            which = done % len(legal)
            joint = []
            for role in machine.roles:
                if role == self.role:
                    joint.append(legal[which])
                else:
                    options = machine.legal_moves(state, role)
                    joint.append(options[self.rng.randrange(len(options))])
            after = machine.next_state(state, tuple(joint))
            n = self.playouts_per_visit
            if budget.iterations is not None:
                n = max(1, min(n, budget.iterations - done))
            try:
                results = playout_goals(machine, after, n, self.rng, stop=stop)
            except PlayoutInterrupted:
                break  # the clock ran out inside a playout
            for goals in results:
                totals[which] += goals[self.index]
                counts[which] += 1
            done += n
            if which == len(legal) - 1:
                self._best = self._pick(legal, totals, counts)
        return self._pick(legal, totals, counts)

    @staticmethod
    def _pick(legal: tuple[Move, ...], totals: list[float], counts: list[int]) -> Move:
        means = [total / count if count else -1.0 for total, count in zip(totals, counts)]
        best = max(range(len(legal)), key=lambda i: (means[i], -i))
        return legal[best]
