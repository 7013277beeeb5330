"""The reasoner's core, shared by every engine and every user of one: the StateMachine protocol and the
value types it trades in, the optional capabilities an engine may add (percepts, batched playouts,
raw goal values) as Protocols to check with ``isinstance``, the chance role, the grounding limits, and
the per-state record with the query mixin that the engines answer the protocol from.

Players, the manager and evaluation code depend on this module only, so a faster reasoner (the
compiled circuit) can replace the clingo one without touching them. Nothing here imports an engine.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ggp.errors import ReasonerError
from ggp.gdl.terms import Const, Description, Term

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


CHANCE_ROLE = Const("random")
"""The role GDL-II reserves for chance: played uniformly at random by the match loop (never a player),
and treated as chance by the searchers (protocol.md §8)."""


# --- optional capabilities -------------------------------------------------------------------------


@runtime_checkable
class PerceptMachine(StateMachine, Protocol):
    """A StateMachine that also reports GDL-II percepts (the clingo, per-state and circuit engines do)."""

    def next_state_and_percepts(
        self, state: State, joint_move: JointMove
    ) -> tuple[State, tuple[frozenset[Term], ...]]:
        """The successor and, per role in role order, the set of terms it sees after ``joint_move``."""
        ...



@runtime_checkable
class GoalValueMachine(StateMachine, Protocol):
    """A StateMachine that can list every goal value the rules derive for each role (normally one), so a
    validator can report games with none or several instead of one failing ``goals`` call."""

    def goal_values(self, state: State) -> tuple[tuple[Term, ...], ...]: ...


@runtime_checkable
class StateInfoMachine(StateMachine, Protocol):
    """A StateMachine that computes legal moves, the terminal flag and goal values of a state together."""

    def state_info(self, state: State) -> StateInfo: ...


@runtime_checkable
class PlayoutGoalsMachine(StateMachine, Protocol):
    """A StateMachine that runs many random playouts from a state in one call (the compiled circuit)."""

    def playout_goals(self, state: State, n: int, seed: int | random.Random = 0) -> list[tuple[int, ...]]:
        """Goals (role order) of ``n`` random playouts from ``state``."""
        ...


class PlayoutBatch(Protocol):
    """What a batch of random playouts reports: each playout's depth, and how many got stuck (reached a
    non-terminal state where a role has no legal move)."""

    @property
    def depths(self) -> Sequence[int]: ...

    @property
    def stuck(self) -> int: ...


@runtime_checkable
class BatchPlayouts(Protocol):
    """An engine that runs many random playouts in one call."""

    def random_playouts(self, n: int, seed: int, batch: int = ...) -> PlayoutBatch: ...



# --- shared by the engines -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroundingLimits:
    """Bounds on grounding a game.

    ``seconds`` and ``memory_mb`` apply to each phase in a child process when ``isolate`` is true;
    ``max_atoms`` bounds the number of ground atoms in every mode.
    """

    seconds: float = 60.0
    memory_mb: int = 4096
    max_atoms: int = 5_000_000
    isolate: bool = True


@dataclass(frozen=True, slots=True)
class StateInfo:
    """Everything that depends on the state alone: legal moves per role, terminal, raw goal values."""

    legal: tuple[tuple[Move, ...], ...]
    terminal: bool
    goal_values: tuple[tuple[Term, ...], ...]


def goals_from_values(
    file: str, roles: Sequence[Role], goal_values: Sequence[Sequence[Term]], state: State
) -> tuple[int, ...]:
    """One integer goal per role from the raw goal values; ReasonerError when a role has none, several or a non-integer."""
    values = []
    for role, found in zip(roles, goal_values):
        if len(found) != 1:
            shown = ", ".join(sorted(str(v) for v in found)) or "none"
            raise ReasonerError(f"{file}: role {role} has {len(found)} goal values ({shown}) in state {state}")
        try:
            values.append(int(str(found[0])))
        except ValueError:
            raise ReasonerError(f"{file}: goal value {found[0]} of role {role} is not an integer") from None
    return tuple(values)


class StateInfoQueries:
    """The state queries of the StateMachine protocol answered from one per-state record.

    An engine that computes legal moves, the terminal flag and goal values together (a
    :class:`StateInfo`, or any object with those three fields) mixes this in and defines
    :meth:`_info`; ``_roles``, ``_role_index`` and ``description`` come from the engine.
    """

    description: Description
    _roles: tuple[Role, ...]
    _role_index: dict[Role, int]

    def _info(self, state: State) -> StateInfo:
        raise NotImplementedError

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        try:
            index = self._role_index[role]
        except KeyError:
            raise ValueError(f"unknown role {str(role)!r}") from None
        return self._info(state).legal[index]

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product(self._info(state).legal)

    def is_terminal(self, state: State) -> bool:
        return self._info(state).terminal

    def goal_values(self, state: State) -> tuple[tuple[Term, ...], ...]:
        """Every goal value derived for each role (normally exactly one)."""
        return self._info(state).goal_values

    def goals(self, state: State) -> tuple[int, ...]:
        """Each role's goal; raises ReasonerError unless every role has exactly one integer goal."""
        return goals_from_values(self.description.file, self._roles, self._info(state).goal_values, state)


