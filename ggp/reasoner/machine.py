"""The StateMachine protocol every reasoner implements, and the value types it trades in.

Players, the manager and evaluation code depend on this protocol only, so a faster reasoner (the
compiled circuit) can replace the clingo one without touching them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ggp.gdl.terms import Term

Role = Term
"""A role name as written in ``(role r)``, usually a :class:`~ggp.gdl.terms.Const`."""

Move = Term
"""A move term, e.g. ``(mark 1 1)`` or ``noop``."""

JointMove = tuple[Move, ...]
"""One move per role, in the order of the game's ``(role r)`` facts (as the protocol sends them)."""


@dataclass(frozen=True, slots=True)
class State:
    """A game state: the set of fluents that hold (without the ``true`` wrapper)."""

    facts: frozenset[Term]

    def __str__(self) -> str:
        return " ".join(sorted(str(fact) for fact in self.facts))

    def sorted_texts(self) -> list[str]:
        """The fluents as KIF texts in plain string order (the order traces use)."""
        return sorted(str(fact) for fact in self.facts)


@runtime_checkable
class StateMachine(Protocol):
    """Answers the game-rule queries for one game. States are immutable and hashable."""

    @property
    def roles(self) -> tuple[Role, ...]:
        """The roles in declaration order."""
        ...

    def initial_state(self) -> State: ...

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        """The role's legal moves, sorted by their KIF text so seeded play repeats."""
        ...

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        """Every combination of legal moves, one per role in role order."""
        ...

    def next_state(self, state: State, joint_move: JointMove) -> State:
        """The successor state. Raises :class:`~ggp.errors.IllegalMoveError` for an illegal move."""
        ...

    def is_terminal(self, state: State) -> bool: ...

    def goals(self, state: State) -> tuple[int, ...]:
        """Each role's goal value, in role order."""
        ...


def joint_moves_product(per_role: Sequence[Sequence[Move]]) -> list[JointMove]:
    """All joint moves from per-role move lists (the cartesian product, role order kept)."""
    return [tuple(combo) for combo in itertools.product(*per_role)]


def role_index(machine: StateMachine, role: Role) -> int:
    """Position of ``role`` in ``machine.roles``; raises ``ValueError`` for an unknown role."""
    try:
        return machine.roles.index(role)
    except ValueError:
        raise ValueError(f"unknown role {str(role)!r}; the roles are {[str(r) for r in machine.roles]}") from None


def iter_states_depth_first(machine: StateMachine, state: State, depth: int) -> Iterator[State]:
    """Every state reachable from ``state`` within ``depth`` joint moves (with repeats); for tests."""
    yield state
    if depth == 0 or machine.is_terminal(state):
        return
    for joint in machine.legal_joint_moves(state):
        yield from iter_states_depth_first(machine, machine.next_state(state, joint), depth - 1)
