"""Shared builders for the circuit tests: machines are cached per (game, evaluator) for the session."""

from __future__ import annotations

import functools
import random
from pathlib import Path

from ggp.files import load_kif
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.evaluator import EvaluatorKind
from ggp.reasoner.circuit.machine import DEFAULT_MAX_NODES
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits, State

LOCAL = GroundingLimits(isolate=False)


@functools.cache
def circuit_machine(
    path: Path, evaluator: EvaluatorKind = "interpreter", max_nodes: int = DEFAULT_MAX_NODES
) -> CircuitStateMachine:
    return CircuitStateMachine(load_kif(path), LOCAL, evaluator=evaluator, max_nodes=max_nodes)


@functools.cache
def clingo_machine(path: Path) -> ClingoStateMachine:
    return ClingoStateMachine(load_kif(path), LOCAL)


def random_states(machine: ClingoStateMachine, seed: int, playouts: int = 3, max_depth: int = 40) -> list[State]:
    """States reached by seeded random play (initial and terminal ones included)."""
    rng = random.Random(seed)
    states = []
    for _ in range(playouts):
        state = machine.initial_state()
        for _ in range(max_depth):
            states.append(state)
            if machine.is_terminal(state):
                break
            legal = [machine.legal_moves(state, role) for role in machine.roles]
            if not all(legal):
                break
            state = machine.next_state(state, tuple(rng.choice(moves) for moves in legal))
        else:
            states.append(state)
    return states
