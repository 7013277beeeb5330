"""What a factored search needs to know of a game, whatever engine found it: its independent sub-games
(:class:`Factoring`, found from the rules by :func:`ggp.reasoner.circuit.factors.find_factors`) and the one a
role's moves lie in (:func:`factor_of_moves`). A machine that can search one factor alone offers
``factoring`` and ``factor_at(state, role)`` (:func:`factor_hook`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from ggp.reasoner.machine import Role, State, StateMachine


@dataclass(frozen=True, slots=True)
class Factor:
    """One sub-game: fluent indices and global move indices (role-major, as the circuit numbers them)."""

    fluents: frozenset[int]
    moves: frozenset[int]


@dataclass(frozen=True, slots=True)
class Factoring:
    """The factors of a game that hold moves, with what belongs to none of them."""

    factors: tuple[Factor, ...]
    """Factors with at least one fluent and one move, ordered by their smallest fluent."""
    free_fluents: frozenset[int]
    """Fluents of factors without moves: they change by themselves, whatever is played."""
    free_moves: frozenset[int]
    """Moves that read and change no fluent."""

    @property
    def factored(self) -> bool:
        """True when the game falls apart into two or more sub-games with moves."""
        return len(self.factors) > 1

    def restriction(self, factor: Factor) -> tuple[frozenset[int], frozenset[int]]:
        """What a search of ``factor`` alone lets change and choose: (its fluents and those that change by
        themselves, its moves and those that touch no fluent)."""
        return factor.fluents | self.free_fluents, factor.moves | self.free_moves

    def describe(self) -> str:
        """One line for a log: how many factors, and their sizes."""
        if not self.factored:
            return "one factor"
        sizes = ", ".join(f"{len(f.fluents)} fluents / {len(f.moves)} moves" for f in self.factors)
        return f"{len(self.factors)} independent factors ({sizes})"


def factor_of_moves(factoring: Factoring, moves: Sequence[int]) -> Factor | None:
    """The one factor holding every move of ``moves`` that belongs to a factor (a role's legal moves in a
    state), or None when the game is not factored, they span several factors or none."""
    if not factoring.factored:
        return None
    found: Factor | None = None
    for move in moves:
        if move in factoring.free_moves:
            continue
        holder = next((factor for factor in factoring.factors if move in factor.moves), None)
        if holder is None or (found is not None and holder is not found):
            return None
        found = holder
    return found


FactorAt = Callable[[State, Role], "Factor | None"]
"""A machine's ``factor_at(state, role)``: the factor holding every legal move of ``role`` in ``state``, None
when the game is not factored or the moves span several factors."""


def factor_hook(machine: StateMachine) -> FactorAt | None:
    """The machine's ``factor_at`` method when it has one (the compiled circuit's), else None (looked up by
    attribute, as :func:`~ggp.reasoner.playouts.mcts_tree_hook`)."""
    hook = getattr(machine, "factor_at", None)
    return cast(FactorAt, hook) if callable(hook) else None
