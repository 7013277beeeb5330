"""MinimaxPlayer: RAPP's example algorithms, fixed-depth alpha-beta with a named heuristic (``h=CG`` ...).

The 16 players of Kowalski & Szykuła's RAPP (docs/rapp.md) differ only in their heuristic, named
by :class:`~ggp.reasoner.heuristics.Heuristic`: ``minimax:h=CG,depth=2`` is constant material with the
goal term, searched 2 plies deep. Ties between equally valued moves are broken by the player's seeded
generator, so a seed replays a match and different seeds vary the play.

- On a machine that searches its own game (:class:`~ggp.reasoner.heuristics.MinimaxSearchMachine`,
  e.g. the SBG machine, compiled), every term is available and the machine runs the search.
- On any other two-player game (GDL): material is the pieces per role read from the fluents
  (:class:`~ggp.players.material.FluentMaterial`, ``C`` only), goal is the goal values the rules
  give the state (``(goal(me) - goal(opponent)) / 10``), mobility is ``0.05`` per legal move of
  each role. ``W`` (piece values from move rules) and control (attacked squares) need piece rules:
  asking for them on such a game is a one-line ``ValueError`` naming the term, as is a game without
  two roles, with a chance role, or without any piece fluent for material.

``depth`` comes from the budget (``depth=`` in the spec, default 2); iteration budgets do not shorten
the search (a fixed-depth algorithm is what RAPP compares). On GDL a play clock does: every node checks
it, and when it runs out the moves rated so far decide (the compiled SBG search at depth 2 takes
milliseconds).
"""

from __future__ import annotations

import logging

from ggp.player import Budget
from ggp.players.base import BasePlayer
from ggp.players.material import FluentMaterial
from ggp.reasoner.heuristics import Heuristic, MinimaxSearchMachine
from ggp.reasoner.machine import CHANCE_ROLE, Move, Role, State, StateMachine
from ggp.reasoner.playouts import safe_goals

log = logging.getLogger(__name__)

DEFAULT_DEPTH = 2
WIN = 1000.0
GOAL_SCALE = 0.1
MOBILITY = 0.05
TIE = 1e-9
_PROBE_PLIES = 30


class _OutOfTime(Exception):
    pass


class MinimaxPlayer(BasePlayer):
    """Fixed-depth alpha-beta with one of RAPP's 16 heuristics (``h``), seeded tie-breaks."""

    name = "minimax"

    def __init__(self, seed: int = 0, budget: Budget | None = None, h: str = "C") -> None:
        super().__init__(seed, budget)
        self.heuristic = Heuristic.parse(h)
        self._native = False
        self._pieces: FluentMaterial | None = None
        self._opponent = 1
        self._clock: Budget | None = None

    @property
    def label(self) -> str:
        """The paper's name of the algorithm (``CG``, ``WGCM``)."""
        return self.heuristic.name

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        super().start(machine, role, budget)
        if len(machine.roles) != 2 or CHANCE_ROLE in machine.roles:
            what = f"{len(machine.roles)} roles" if len(machine.roles) != 2 else "a chance role"
            raise ValueError(f"min-max {self.label}: needs a two-player game without chance, this one has {what}")
        self._opponent = 1 - self.index
        self._native = isinstance(machine, MinimaxSearchMachine)
        if self._native:
            return
        missing = [term for term, on in (("W (weighted material: piece values from move rules)", self.heuristic.weighted),
                                          ("C (control: squares attacked)", self.heuristic.control)) if on]
        if missing:
            raise ValueError(f"min-max {self.label}: heuristic term {missing[0]} needs a board game with piece "
                             "rules (SBG); this game is plain GDL")
        self._pieces = FluentMaterial(machine.roles)
        if not self._has_pieces(machine):
            raise ValueError(f"min-max {self.label}: heuristic term material finds no piece fluents of either role "
                             "(no board); use a game with pieces")

    def _has_pieces(self, machine: StateMachine) -> bool:
        """Whether some fluent names a role's piece, in the initial state or along a short seeded playout."""
        assert self._pieces is not None
        state = machine.initial_state()
        for _ in range(_PROBE_PLIES):
            if any(self._pieces.counts(state)):
                return True
            if machine.is_terminal(state):
                return False
            joints = machine.legal_joint_moves(state)
            if not joints:
                return False
            state = machine.next_state(state, self.rng.choice(joints))
        return any(self._pieces.counts(state))

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        depth = budget.depth or DEFAULT_DEPTH
        if self._native:
            assert isinstance(self.machine, MinimaxSearchMachine)
            values = list(self.machine.minimax_values(state, self.role, self.heuristic, depth))
        else:
            self._clock = budget
            values = self._root_values(state, legal, depth)
            if not values:
                return legal[0]  # the clock ran out before the first move was rated
        top = max(value for _, value in values)
        best = [move for move, value in values if value > top - TIE]
        return self.rng.choice(best)

    # --- generic GDL search --------------------------------------------------------------------

    def _root_values(self, state: State, legal: tuple[Move, ...], depth: int) -> list[tuple[Move, float]]:
        machine = self.machine
        theirs = machine.legal_moves(state, machine.roles[self._opponent])
        results: list[tuple[Move, float]] = []
        best = -2 * WIN
        try:
            for move in legal:
                worst = 2 * WIN
                for reply in theirs:
                    joint = (move, reply) if self.index == 0 else (reply, move)
                    value = self._value(machine.next_state(state, joint), depth - 1, best - TIE, worst, 1)
                    worst = min(worst, value)
                    if worst <= best - TIE:
                        break
                results.append((move, worst))
                best = max(best, worst)
                self._best = max(results, key=lambda item: item[1])[0]
        except _OutOfTime:
            pass  # a play clock ran out: the moves rated so far decide
        return results

    def _value(self, state: State, depth: int, alpha: float, beta: float, plies: int) -> float:
        """Maximin value from the player's side: our move maximises, the opponent's reply minimises."""
        if self._clock is not None and self._clock.out_of_time():
            raise _OutOfTime
        machine = self.machine
        if machine.is_terminal(state):
            goals = safe_goals(machine, state)
            diff = goals[self.index] - goals[self._opponent]
            return 0.0 if diff == 0 else (WIN - plies) * (1 if diff > 0 else -1) * min(1.0, abs(diff) / 100)
        roles = machine.roles
        mine = machine.legal_moves(state, roles[self.index])
        theirs = machine.legal_moves(state, roles[self._opponent])
        if depth == 0 or not mine or not theirs:
            return self._evaluate(state, len(mine), len(theirs))
        best = -2 * WIN
        for move in mine:
            worst = 2 * WIN
            for reply in theirs:
                joint = (move, reply) if self.index == 0 else (reply, move)
                worst = min(worst, self._value(machine.next_state(state, joint), depth - 1, max(alpha, best), worst, plies + 1))
                if worst <= max(alpha, best):
                    break
            best = max(best, worst)
            if best >= beta:
                break
        return best

    def _evaluate(self, state: State, mine: int, theirs: int) -> float:
        assert self._pieces is not None
        counts = self._pieces.counts(state)
        value = float(counts[self.index] - counts[self._opponent])
        if self.heuristic.goal:
            goals = safe_goals(self.machine, state)
            value += GOAL_SCALE * (goals[self.index] - goals[self._opponent])
        if self.heuristic.mobility:
            value += MOBILITY * (mine - theirs)
        return value
