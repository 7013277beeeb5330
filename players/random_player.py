"""RandomPlayer: a uniformly random legal move (seeded), the baseline every other player must beat."""

from __future__ import annotations

from ggp.player import Budget
from ggp.players.gdl2_support import HiddenStatePlayer
from ggp.reasoner.machine import Move, State


class RandomPlayer(HiddenStatePlayer):
    """Picks uniformly among the legal moves with its seeded generator (GDL-II: those of a sampled consistent state)."""

    name = "random"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        return legal[self.rng.randrange(len(legal))]
