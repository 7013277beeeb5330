"""Differential checks of one engine against clingo, the reference (shared by the engine tests)."""

from __future__ import annotations

import random
from typing import Protocol

from ggp.reasoner.machine import GoalValueMachine, PerceptMachine


class Comparable(PerceptMachine, GoalValueMachine, Protocol):
    """An engine that reports percepts and every goal value (clingo, per-state, prover)."""


def assert_agree(mine: Comparable, reference: Comparable, playouts: int, seed: int, max_steps: int = 200) -> None:
    """``mine`` and ``reference`` give the same roles, initial state, legal moves, successors, percepts,
    terminal flags and goals along seeded random playouts chosen by the reference."""
    assert mine.roles == reference.roles
    rng = random.Random(seed)
    for _ in range(playouts):
        state = reference.initial_state()
        assert mine.initial_state() == state
        for _ in range(max_steps):
            assert mine.is_terminal(state) == reference.is_terminal(state), state
            for role in reference.roles:
                assert mine.legal_moves(state, role) == reference.legal_moves(state, role), (role, state)
            if reference.is_terminal(state):
                assert mine.goal_values(state) == tuple(
                    tuple(sorted(values, key=str)) for values in reference.goal_values(state)
                )
                break
            joints = reference.legal_joint_moves(state)
            if not joints:  # a dead end of a made-up game: nothing more to compare
                break
            joint = rng.choice(joints)
            expected = reference.next_state_and_percepts(state, joint)
            assert mine.next_state_and_percepts(state, joint) == expected, (state, joint)
            state = expected[0]
