"""LegalPlayer: always the first legal move in the machine's order (sorted by KIF text).

Deterministic and instant, which makes it the reference opponent for reproducible tests and the
same fallback the Dresden controller uses.
"""

from __future__ import annotations

from ggp.player import Budget
from ggp.players.gdl2_support import HiddenStatePlayer
from ggp.reasoner.machine import Move, State


class LegalPlayer(HiddenStatePlayer):
    """Returns ``legal_moves(state, role)[0]`` (GDL-II: in a sampled consistent state)."""

    name = "legal"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        return legal[0]
