"""GDL-II support for players: the belief state (states consistent with what a role saw) and a base class.

In a GDL-II match a player learns only its own executed moves and its percepts (``sees``). A
:class:`BeliefState` keeps the set of states that agree with that history: starting from the initial
state, each step keeps every successor reached by a joint move in which this role played the move
it was told and saw exactly the percepts it was told. The set is exact while it stays small; past
``max_states`` it is a seeded random subset, and if a step leaves nothing (the subset dropped the
true state) the states are searched again from the initial state along the whole history, depth
first in a seeded random order, within a node budget. Sampling a state from the belief is the
*determinization* that lets perfect-information search run on imperfect-information games.

:class:`HiddenStatePlayer` is a :class:`~ggp.players.base.BasePlayer` that implements the
:class:`~ggp.player.Gdl2Player` methods on top of a belief state: ``choose_hidden`` samples one
consistent state and calls the ordinary ``choose`` on it, which is all Random and Legal need.

The machine must offer ``next_state_and_percepts(state, joint) -> (State, percepts per role)``
(the clingo and circuit engines do); a game without ``sees`` gives empty percepts throughout.

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.gdl.terms import Const
>>> from ggp.reasoner.engines import make_machine
>>> game = parse_kif('''(role p) (role random) (init (t 0)) (<= (legal random (pick ?c)) (true (t 0)) (coin ?c))
...   (coin heads) (coin tails) (<= (legal p wait) (true (t 0))) (<= (legal p (call ?c)) (true (t 1)) (coin ?c))
...   (<= (legal random noop) (true (t 1))) (<= (next (t 1)) (true (t 0))) (<= (next (t 2)) (true (t 1)))
...   (<= (next (c ?c)) (does random (pick ?c))) (<= (next (c ?c)) (true (c ?c)))
...   (<= (sees p heads) (does random (pick heads))) (<= terminal (true (t 2))) (goal p 0) (goal random 0)''')
>>> belief = BeliefState(make_machine(game, "clingo"), Const("p"), seed=0)
>>> belief.update(Const("wait"), frozenset())
>>> [str(state) for state in belief.states]
['(c tails) (t 1)']
"""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import Iterator, Sequence

from ggp.errors import GgpError, IllegalMoveError
from ggp.gdl.terms import Term
from ggp.player import Budget
from ggp.players.base import BasePlayer
from ggp.reasoner.machine import JointMove, Move, PerceptMachine, Role, State, StateMachine, role_index

log = logging.getLogger(__name__)

Percepts = frozenset[Term]

MAX_STATES = 256
"""States kept in a belief before it becomes a random subset."""

MAX_JOINT_MOVES = 256
"""Joint moves of the other roles tried per state and step; beyond this a random subset is tried."""

UPDATE_NODES = 4000
"""Successor computations per step; past it the states found so far are kept (a play clock is short)."""

REBUILD_NODES = 5000
"""Successor computations allowed when the belief must be searched again from the initial state."""


def percept_step(machine: StateMachine, state: State, joint: JointMove) -> tuple[State, tuple[Percepts, ...]]:
    """The successor and each role's percepts; empty percepts for a machine without ``sees`` support."""
    if not isinstance(machine, PerceptMachine):
        return machine.next_state(state, joint), tuple(frozenset() for _ in machine.roles)
    return machine.next_state_and_percepts(state, joint)


class BeliefState:
    """The states ``role`` cannot tell apart from the true one, given its own moves and percepts.

    ``seed`` fixes every random choice (subsets, samples, the rebuild order). Not thread-safe: one
    player uses it from its search thread.
    """

    def __init__(self, machine: StateMachine, role: Role, seed: int = 0, max_states: int = MAX_STATES,
                 max_joint_moves: int = MAX_JOINT_MOVES) -> None:
        self.machine = machine
        self.role = role
        self.index = role_index(machine, role)
        self.rng = random.Random(seed)
        self.max_states = max_states
        self.max_joint_moves = max_joint_moves
        self.history: list[tuple[Move | None, Percepts | None]] = []
        self.states: list[State] = [machine.initial_state()]
        self._last_tried = 0

    @property
    def turn(self) -> int:
        """Steps observed so far (the GDL-II turn of the next PLAY)."""
        return len(self.history)

    def reset(self) -> None:
        """Back to the initial state with no history (turn 0)."""
        self.history.clear()
        self.states = [self.machine.initial_state()]

    def update(self, own_move: Move | None, percepts: Percepts | None) -> None:
        """Advance one step: this role played ``own_move`` and then saw ``percepts``.

        ``None`` means unknown (any legal move / any percepts). When no kept state explains the step,
        the belief is rebuilt from the whole history; when nothing at all does (the messages
        contradict the rules), the percepts of this step are ignored and a warning is logged.
        """
        self.history.append((own_move, percepts))
        found = self._advance(self.states, own_move, percepts)
        if not found:
            found = self._rebuild()
        if not found:
            log.warning("no state of the game explains move %s and percepts %s at turn %d; ignoring the percepts",
                        own_move, _shown(percepts), self.turn)
            found = self._advance(self.states, own_move, None) or self._advance(self.states, None, None)
        if not found:
            raise GgpError(f"no state of the game follows the move {own_move} at turn {self.turn}")
        self.states = self._trim(found)

    def sample(self, count: int) -> list[State]:
        """Up to ``count`` different states of the belief, drawn at random (all of them when fewer)."""
        if count >= len(self.states):
            return list(self.states)
        return self.rng.sample(self.states, count)

    def own_legal_moves(self) -> tuple[Move, ...]:
        """The role's legal moves in a sampled consistent state (in well-formed games they agree in all)."""
        state = self.sample(1)[0]
        if self.machine.is_terminal(state):
            return ()
        return self.machine.legal_moves(state, self.role)

    # --- internals ------------------------------------------------------------------------------

    def _joint_moves(self, state: State, own_move: Move | None) -> Iterator[JointMove]:
        """Joint moves in ``state`` in which this role plays ``own_move`` (any legal move for ``None``)."""
        per_role = [self.machine.legal_moves(state, role) for role in self.machine.roles]
        if own_move is not None:
            if own_move not in per_role[self.index]:
                return
            per_role[self.index] = (own_move,)
        total = 1
        for moves in per_role:
            total *= len(moves)
        if total <= self.max_joint_moves:
            yield from itertools.product(*per_role)
            return
        for _ in range(self.max_joint_moves):
            yield tuple(self.rng.choice(moves) for moves in per_role)

    def _successors(self, state: State, own_move: Move | None, percepts: Percepts | None) -> Iterator[State]:
        self._last_tried = 1
        if self.machine.is_terminal(state):
            return
        for joint in self._joint_moves(state, own_move):
            self._last_tried += 1
            try:
                after, seen = percept_step(self.machine, state, joint)
            except IllegalMoveError:
                continue
            if percepts is None or seen[self.index] == percepts:
                yield after

    def _advance(self, states: Sequence[State], own_move: Move | None, percepts: Percepts | None) -> list[State]:
        """Successors of ``states`` that fit the step; stops early once :data:`UPDATE_NODES` is spent.

        States are taken in a seeded random order, so a cut-off keeps an unbiased part of them.
        """
        found: dict[State, None] = {}
        order = list(states)
        if len(order) > 1:
            self.rng.shuffle(order)
        work = 0
        for state in order:
            if work >= UPDATE_NODES and found:
                log.info("belief update cut off after %d successors: %d states kept", work, len(found))
                break
            for after in self._successors(state, own_move, percepts):
                found.setdefault(after)
            work += self._last_tried
        return list(found)

    def _trim(self, states: list[State]) -> list[State]:
        if len(states) <= self.max_states:
            return states
        return self.rng.sample(states, self.max_states)

    def _rebuild(self) -> list[State]:
        """States consistent with the whole history, by randomized depth-first search within a budget."""
        found: dict[State, None] = {}
        nodes = 0

        def visit(state: State, depth: int) -> None:
            nonlocal nodes
            if depth == len(self.history):
                found.setdefault(state)
                return
            own_move, percepts = self.history[depth]
            successors = list(self._successors(state, own_move, percepts))
            nodes += 1 + len(successors)
            self.rng.shuffle(successors)
            for after in successors:
                if len(found) >= self.max_states or nodes >= REBUILD_NODES:
                    return
                visit(after, depth + 1)

        visit(self.machine.initial_state(), 0)
        if found:
            log.info("belief rebuilt at turn %d: %d consistent states", self.turn, len(found))
        return list(found)


def _shown(percepts: Percepts | None) -> str:
    return "unknown" if percepts is None else "(" + " ".join(sorted(map(str, percepts))) + ")"


class HiddenStatePlayer(BasePlayer):
    """A :class:`BasePlayer` that also plays GDL-II (implements :class:`~ggp.player.Gdl2Player`).

    ``choose_hidden`` samples one state consistent with the percepts and runs the subclass's
    ordinary search on it. The belief has its own generator (derived from ``seed``), so GDL play
    draws exactly the same moves as before.
    """

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        self.belief: BeliefState | None = None

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        super().start(machine, role, budget)
        self.belief = BeliefState(machine, role, seed=self.seed * 7919 + 1)

    def stop(self) -> None:
        self.belief = None
        super().stop()

    def _belief(self) -> BeliefState:
        if self.belief is None:
            raise RuntimeError(f"{self.name} player used before start()")
        return self.belief

    def observe(self, turn: int, last_move: Move | None, percepts: frozenset[Term]) -> None:
        """Take in one GDL-II PLAY: turn 0 resets; a repeated turn is ignored; missed turns count as unknown."""
        belief = self._belief()
        if turn == 0:
            belief.reset()
            return
        if turn <= belief.turn:
            log.warning("%s: turn %d already seen (at %d); ignored", self.name, turn, belief.turn)
            return
        while belief.turn < turn - 1:
            log.warning("%s: turn %d was missed; its move and percepts count as unknown", self.name, belief.turn + 1)
            belief.update(None, None)
        belief.update(last_move, percepts)

    def own_legal_moves(self) -> tuple[Move, ...]:
        return self._belief().own_legal_moves()

    def choose_hidden(self, budget: Budget) -> Move:
        """The move the ordinary search picks in one sampled consistent state."""
        return self.choose(self._belief().sample(1)[0], budget)
