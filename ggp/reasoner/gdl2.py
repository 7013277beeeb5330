"""GDL-II imperfect information: per-role percept histories and sampling states consistent with them.

In GDL-II a role sees neither the state nor the joint move, only its own moves and the terms ``p``
for which ``(sees role p)`` held after each step (protocol.md §8). A :class:`PerceptHistory` records
exactly that, and :func:`sample_states` *determinizes* it: it replays the game from the initial state
with the role's own moves and uniformly random moves for everyone else (chance included), and keeps
a run only if the role would have seen exactly the recorded percepts at every step. The survivors are
states the role cannot tell apart from the true one, drawn with the probabilities of uniform play
(uniform chance, the way ``random`` really plays); a GDL-II player can search each of them as if the
game had perfect information.

>>> import random
>>> from ggp.gdl.parser import parse_kif, parse_term
>>> from ggp.reasoner.per_state import PerStateMachine
>>> machine = PerStateMachine(parse_kif('''(role p) (role random) (n 1) (n 2) (n 3) (n 4) (init start)
...   (<= (legal random (pick ?x)) (true start) (n ?x)) (<= (legal p wait) (true start))
...   (<= (legal p wait) (true (secret ?x))) (<= (legal random noop) (true (secret ?x)))
...   (<= (next (secret ?x)) (does random (pick ?x))) (<= (next done) (true (secret ?x)))
...   (<= (sees p small) (does random (pick ?x)) (not (n4 ?x))) (<= (n4 4) (n 4))
...   (<= terminal (true done)) (goal p 0) (goal random 0)'''))
>>> history = PerceptHistory.empty(machine, parse_term("p")).extend(parse_term("wait"), frozenset({parse_term("small")}))
>>> sorted({str(state) for state in sample_states(machine, history, random.Random(0), count=30)})
['(secret 1)', '(secret 2)', '(secret 3)']
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ggp.errors import ReasonerError
from ggp.gdl.terms import Term
from ggp.reasoner.machine import JointMove, Move, PerceptMachine, Role, State, StateMachine, role_index


@dataclass(frozen=True, slots=True)
class PerceptHistory:
    """What one role knows after some steps: its own moves and what it saw after each of them.

    ``moves[i]`` is the role's move at step ``i`` and ``percepts[i]`` what it saw after that step, so
    both tuples always have the same length (the number of steps played).
    """

    role: Role
    moves: tuple[Move, ...] = ()
    percepts: tuple[frozenset[Term], ...] = ()

    def __post_init__(self) -> None:
        if len(self.moves) != len(self.percepts):
            raise ValueError(f"{len(self.moves)} moves but {len(self.percepts)} percept sets")

    @classmethod
    def empty(cls, machine: StateMachine, role: Role) -> PerceptHistory:
        """The history at the start of a match; ``ValueError`` for a role the game lacks."""
        role_index(machine, role)
        return cls(role)

    def extend(self, move: Move, percepts: frozenset[Term]) -> PerceptHistory:
        """The history after one more step (a new value; histories are immutable)."""
        return PerceptHistory(self.role, (*self.moves, move), (*self.percepts, frozenset(percepts)))

    def __len__(self) -> int:
        return len(self.moves)


def percepts_of(machine: PerceptMachine, state: State, joint_move: JointMove) -> tuple[State, tuple[frozenset[Term], ...]]:
    """The successor and every role's percepts; ReasonerError if the machine cannot report percepts."""
    if not isinstance(machine, PerceptMachine):
        raise ReasonerError(f"{type(machine).__name__} does not report GDL-II percepts")
    return machine.next_state_and_percepts(state, joint_move)


def _replay(machine: PerceptMachine, history: PerceptHistory, index: int, rng: random.Random) -> State | None:
    """One random run consistent with ``history``, or None as soon as it contradicts it."""
    state = machine.initial_state()
    roles = machine.roles
    for move, seen in zip(history.moves, history.percepts):
        if machine.is_terminal(state):
            return None
        joint: list[Move] = []
        for i, role in enumerate(roles):
            legal = machine.legal_moves(state, role)
            if i == index:
                if move not in legal:
                    return None
                joint.append(move)
            elif not legal:
                raise ReasonerError(f"role {role} has no legal move in the non-terminal state {state}")
            else:
                joint.append(rng.choice(legal))
        state, percepts = percepts_of(machine, state, tuple(joint))
        if percepts[index] != seen:
            return None
    return state


def sample_states(
    machine: PerceptMachine, history: PerceptHistory, rng: random.Random, count: int = 16, max_tries: int = 2000
) -> list[State]:
    """Up to ``count`` states consistent with ``history``, by rejection sampling (at most ``max_tries`` runs).

    States may repeat: each is one independent draw, so repeats weight likely states. The result is
    shorter than ``count`` (possibly empty) when the tries run out, which happens when the history is
    improbable under uniform play or inconsistent with the rules. Raises ``ValueError`` for a role the
    game lacks and :class:`ReasonerError` when the machine cannot report percepts.
    """
    index = role_index(machine, history.role)
    found: list[State] = []
    for _ in range(max_tries):
        if len(found) >= count:
            break
        state = _replay(machine, history, index, rng)
        if state is not None:
            found.append(state)
    return found
