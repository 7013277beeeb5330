"""LegalPlayer: always the first legal move in the machine's order (sorted by KIF text).

Deterministic and instant, which makes it the reference opponent for reproducible tests and the
same fallback the Dresden controller uses.
"""

from __future__ import annotations

from ggp.player import Budget
from ggp.reasoner.machine import Move, State
from players.base import BasePlayer


class LegalPlayer(BasePlayer):
    """Returns ``legal_moves(state, role)[0]``."""

    name = "legal"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        return legal[0]
