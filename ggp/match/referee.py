"""The referee: every reasoner call a match makes, behind one small class.

The loop (:mod:`ggp.match.loop`) asks the referee for the legal moves, hands it the joint move and
asks for the goals; it never touches the :class:`~ggp.reasoner.machine.StateMachine` itself. This is
the seam where the manager can move reasoning into a worker process: a referee with the same methods
that forwards them is all it takes.
"""

from __future__ import annotations

from ggp.errors import GgpError
from ggp.gdl.terms import Term
from ggp.match.rules import GameBroken
from ggp.reasoner.machine import Move, PerceptMachine, Role, State, StateMachine

Percepts = tuple[frozenset[Term], ...]
"""Per role in role order, what it sees after a step (GDL-II)."""


class Referee:
    """The state of one match and the rules' verdicts on it.

    ``gdl2`` asks for percepts after every step; it raises :class:`GameBroken` when the machine
    cannot compute them. The referee owns its current :attr:`state`; ``machine`` is shared.
    """

    def __init__(self, machine: StateMachine, gdl2: bool = False) -> None:
        self.machine = machine
        self.roles: tuple[Role, ...] = tuple(machine.roles)
        self.state: State = machine.initial_state()
        self.steps = 0
        self._percepts: PerceptMachine | None = None
        if gdl2:
            if not isinstance(machine, PerceptMachine):
                raise GameBroken("this game uses 'sees' (GDL-II) but the reasoner cannot compute percepts")
            self._percepts = machine

    def is_terminal(self) -> bool:
        return self.machine.is_terminal(self.state)

    def legal(self) -> tuple[tuple[Move, ...], ...]:
        """Every role's legal moves now, in role order; :class:`GameBroken` when a role has none."""
        legal = tuple(self.machine.legal_moves(self.state, role) for role in self.roles)
        for role, moves in zip(self.roles, legal):
            if not moves:
                raise GameBroken(f"role {str(role)!r} has no legal move in a non-terminal state "
                                 f"after {self.steps} steps")
        return legal

    def advance(self, joint: tuple[Move, ...]) -> Percepts | None:
        """Play ``joint`` (legal moves, role order); returns every role's percepts in GDL-II mode."""
        percepts: Percepts | None = None
        if self._percepts is not None:
            self.state, percepts = self._percepts.next_state_and_percepts(self.state, joint)
        else:
            self.state = self.machine.next_state(self.state, joint)
        self.steps += 1
        return percepts

    def goals(self) -> tuple[int, ...]:
        """The goal values at the (terminal) state, one per role; :class:`GameBroken` otherwise."""
        try:
            goals = tuple(self.machine.goals(self.state))
        except (GgpError, ValueError) as exc:
            raise GameBroken(f"no goal values at the terminal state: {exc}") from exc
        if len(goals) != len(self.roles):
            raise GameBroken(f"{len(goals)} goal values for {len(self.roles)} roles at the terminal state")
        return goals
