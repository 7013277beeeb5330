"""The referee: every reasoner call a match makes, behind one small class.

The loop (:mod:`ggp.match.loop`) asks the referee for the legal moves, hands it the joint move and
asks for the goals; it never touches the :class:`~ggp.reasoner.machine.StateMachine` itself. This is
the seam where the manager moves reasoning into a worker process
(:class:`ggp.manager.reasoning.IsolatedReferee` overrides the four coroutines). The methods are
coroutines so that such a referee can await its worker; this one never suspends, so in-process
matches still need no event loop.
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
    cannot compute them. The referee owns its current :attr:`state`; ``machine`` is shared (``None``
    for a referee whose machine lives elsewhere). A subclass that reasons elsewhere sets the fields
    with :meth:`_begin` and overrides the four ``_compute`` coroutines; the checks stay here.
    """

    machine: StateMachine | None

    def __init__(self, machine: StateMachine, gdl2: bool = False) -> None:
        self.machine = machine
        self._percepts: PerceptMachine | None = None
        if gdl2:
            if not isinstance(machine, PerceptMachine):
                raise GameBroken("this game uses 'sees' (GDL-II) but the reasoner cannot compute percepts")
            self._percepts = machine
        self._begin(tuple(machine.roles), machine.initial_state(), gdl2)

    def _begin(self, roles: tuple[Role, ...], initial: State, gdl2: bool) -> None:
        self.roles = roles
        self.state = initial
        self.steps = 0
        self.gdl2 = gdl2

    async def is_terminal(self) -> bool:
        return await self._compute_terminal(self.state)

    async def legal(self) -> tuple[tuple[Move, ...], ...]:
        """Every role's legal moves now, in role order; :class:`GameBroken` when a role has none."""
        legal = await self._compute_legal(self.state)
        for role, moves in zip(self.roles, legal):
            if not moves:
                raise GameBroken(f"role {str(role)!r} has no legal move in a non-terminal state "
                                 f"after {self.steps} steps")
        return legal

    async def advance(self, joint: tuple[Move, ...]) -> Percepts | None:
        """Play ``joint`` (legal moves, role order); returns every role's percepts in GDL-II mode."""
        self.state, percepts = await self._compute_next(self.state, joint)
        self.steps += 1
        return percepts

    async def goals(self) -> tuple[int, ...]:
        """The goal values at the (terminal) state, one per role; :class:`GameBroken` otherwise."""
        try:
            goals = await self._compute_goals(self.state)
        except (GgpError, ValueError) as exc:
            raise GameBroken(f"no goal values at the terminal state: {exc}") from exc
        if len(goals) != len(self.roles):
            raise GameBroken(f"{len(goals)} goal values for {len(self.roles)} roles at the terminal state")
        return goals

    # --- where the answers are computed: here, in this process --------------------------------

    def _machine(self) -> StateMachine:
        assert self.machine is not None
        return self.machine

    async def _compute_terminal(self, state: State) -> bool:
        return self._machine().is_terminal(state)

    async def _compute_legal(self, state: State) -> tuple[tuple[Move, ...], ...]:
        machine = self._machine()
        return tuple(machine.legal_moves(state, role) for role in self.roles)

    async def _compute_next(self, state: State, joint: tuple[Move, ...]) -> tuple[State, Percepts | None]:
        if self._percepts is not None:
            after, percepts = self._percepts.next_state_and_percepts(state, joint)
            return after, tuple(percepts)
        return self._machine().next_state(state, joint), None

    async def _compute_goals(self, state: State) -> tuple[int, ...]:
        return tuple(self._machine().goals(state))
