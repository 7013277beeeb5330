"""Shared plumbing of the players: seeding, the match's machine and role, and the anytime best move."""

from __future__ import annotations

import logging
import random

from ggp.player import Budget
from ggp.reasoner.machine import Move, Role, State, StateMachine, role_index

log = logging.getLogger(__name__)

DEFAULT_ITERATIONS = 1000
"""Iterations used when neither the player nor the caller sets any limit, so a search always ends."""


class BasePlayer:
    """Holds what every player needs; subclasses implement :meth:`_search`.

    ``seed`` seeds a fresh :class:`random.Random` at every :meth:`start`, so the same seed and an
    iteration budget replay a match move for move. ``budget`` is the player's own limit (e.g. from
    ``--iterations``); each decision uses the tightest of it and the caller's budget.
    """

    name = "base"
    ponders = False
    """Whether searching on a forced move helps later moves (a reused tree); see :meth:`choose`."""

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        self.seed = seed
        self.budget = budget
        self.rng = random.Random(seed)
        self._machine: StateMachine | None = None
        self._role: Role | None = None
        self._index = 0
        self._best: Move | None = None
        self.move_seconds: float | None = None
        """Optional per-move time limit in seconds, added to every decision's budget."""

    @property
    def machine(self) -> StateMachine:
        if self._machine is None:
            raise RuntimeError(f"{self.name} player used before start()")
        return self._machine

    @property
    def role(self) -> Role:
        if self._role is None:
            raise RuntimeError(f"{self.name} player used before start()")
        return self._role

    @property
    def index(self) -> int:
        """Position of the player's role in ``machine.roles``."""
        return self._index

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        """Remember the match and reseed; raises ``ValueError`` for a role the game does not have."""
        self._machine = machine
        self._role = role
        self._index = role_index(machine, role)
        self.rng = random.Random(self.seed)
        self._best = None

    def choose(self, state: State, budget: Budget) -> Move:
        """A legal move of the role in ``state``; raises ``ValueError`` when it has none.

        A forced move (one legal move) is answered without search, unless the player :attr:`ponders`
        and the budget has a deadline or a cancel event (a clock).
        """
        legal = self.machine.legal_moves(state, self.role)
        if not legal:
            raise ValueError(f"role {str(self.role)!r} has no legal move in this state")
        self._best = legal[0]
        limits = budget.tightest(self.budget)
        if self.move_seconds is not None:
            limits = limits.tightest(Budget.for_seconds(self.move_seconds))
        limits = limits.or_default(DEFAULT_ITERATIONS)
        if len(legal) == 1 and not (self.ponders and (limits.deadline is not None or limits.cancel is not None)):
            # A forced move is no decision: an iteration or depth budget is spent on decisions only
            # (a turn-based engine never asks a player that cannot move). A player whose search
            # carries over (:attr:`ponders`) still searches under a clock, in time that passes anyway.
            return legal[0]
        move = self._search(state, legal, limits)
        self._best = move
        return move

    def best_move(self) -> Move | None:
        """The best move found so far in the running :meth:`choose` (read from another thread)."""
        return self._best

    def stop(self) -> None:
        self._machine = None
        self._role = None
        self._best = None

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        raise NotImplementedError
