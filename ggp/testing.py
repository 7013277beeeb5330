"""Checks every implementation of a project protocol must pass (use them from tests).

:func:`check_state_machine` is the contract of a :class:`~ggp.reasoner.machine.StateMachine`: any
reasoner (clingo, the compiled circuit, a hand-written one) runs it on real games in its tests. It
raises ``AssertionError`` with a message naming the broken rule.

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.reasoner.naive import NaiveStateMachine
>>> machine = NaiveStateMachine(parse_kif(
...     "(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)"))
>>> check_state_machine(machine, playouts=2, seed=0)
4
"""

from __future__ import annotations

import dataclasses
import itertools
import random

from ggp.errors import IllegalMoveError
from ggp.gdl.terms import Const
from ggp.reasoner.machine import JointMove, State, StateMachine

_NOT_A_MOVE = Const("ggp-testing-not-a-move")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _check_state_value(state: State) -> None:
    _require(isinstance(state, State), f"states must be State values, got {type(state).__name__}")
    _require(isinstance(state.facts, frozenset), "State.facts must be a frozenset")
    hash(state)
    try:
        state.facts = frozenset()  # type: ignore[misc]
    except (dataclasses.FrozenInstanceError, AttributeError):
        pass
    else:  # pragma: no cover - only a broken State class gets here
        raise AssertionError("states must be immutable")


def _check_illegal_moves(machine: StateMachine, state: State, legal: list[tuple[object, ...]]) -> None:
    roles = machine.roles
    sample: JointMove = tuple(moves[0] for moves in legal)  # type: ignore[misc]
    for index in range(len(roles)):
        bad = sample[:index] + (_NOT_A_MOVE,) + sample[index + 1:]
        try:
            machine.next_state(state, bad)
        except IllegalMoveError:
            pass
        else:
            raise AssertionError(f"next_state accepted the illegal move {_NOT_A_MOVE} for role {roles[index]}")
    try:
        machine.next_state(state, sample + (sample[0],))
    except IllegalMoveError:
        pass
    else:
        raise AssertionError("next_state accepted a joint move with one move too many")


def check_state_machine(machine: StateMachine, playouts: int = 3, seed: int = 0, max_depth: int = 300) -> int:
    """Play seeded random playouts on ``machine`` and check the StateMachine contract in every state.

    Checked: roles are a non-empty tuple without repeats; the initial state is deterministic; states
    are hashable, immutable :class:`State` values; legal moves are sorted by KIF text, non-empty in
    non-terminal states and the same on every call; ``legal_joint_moves`` is their product in role
    order; ``next_state`` is deterministic and raises :class:`IllegalMoveError` for an illegal move or
    a joint move of the wrong length (checked in the first state of each playout); terminal states
    give one integer goal per role. Returns the number of states checked.
    """
    roles = machine.roles
    _require(isinstance(roles, tuple) and len(roles) > 0, "roles must be a non-empty tuple")
    _require(len(set(roles)) == len(roles), f"roles repeat: {[str(r) for r in roles]}")
    first = machine.initial_state()
    _check_state_value(first)
    _require(machine.initial_state() == first, "initial_state is not deterministic")
    rng = random.Random(seed)
    checked = 0
    for playout in range(playouts):
        state = machine.initial_state()
        for depth in range(max_depth + 1):
            checked += 1
            _check_state_value(state)
            where = f"playout {playout + 1} depth {depth}"
            if machine.is_terminal(state):
                goals = machine.goals(state)
                _require(isinstance(goals, tuple) and len(goals) == len(roles),
                         f"{where}: goals must be a tuple with one value per role, got {goals!r}")
                _require(all(isinstance(g, int) for g in goals), f"{where}: goals must be integers, got {goals!r}")
                break
            if depth == max_depth:
                break
            legal = [machine.legal_moves(state, role) for role in roles]
            for role, moves in zip(roles, legal):
                _require(isinstance(moves, tuple), f"{where}: legal_moves must return a tuple")
                _require(len(moves) > 0, f"{where}: role {role} has no legal move in a non-terminal state")
                texts = [str(move) for move in moves]
                _require(texts == sorted(texts), f"{where}: legal moves of {role} are not sorted by KIF text")
                _require(len(set(moves)) == len(moves), f"{where}: legal moves of {role} repeat")
                _require(machine.legal_moves(state, role) == moves, f"{where}: legal_moves is not deterministic")
            expected = [tuple(combo) for combo in itertools.product(*legal)]
            _require(list(machine.legal_joint_moves(state)) == expected,
                     f"{where}: legal_joint_moves is not the product of the roles' legal moves in role order")
            if depth == 0:
                _check_illegal_moves(machine, state, legal)  # type: ignore[arg-type]
            joint = tuple(rng.choice(moves) for moves in legal)
            successor = machine.next_state(state, joint)
            _require(machine.next_state(state, joint) == successor, f"{where}: next_state is not deterministic")
            state = successor
    return checked
