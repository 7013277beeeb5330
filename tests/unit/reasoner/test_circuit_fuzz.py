"""Fuzzing the packed-state entry points that reach compiled code (key_info, key_next).

Out-of-range move indices and keys must be refused in Python with a ValueError (they used to reach the C
code: index 50,000,000 crashed the process, 5000 wrote out of bounds, [5, 0] played another role's
move); in-range input must give the same answers from the C library and the numpy evaluator.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggp.native import find_compiler
from ggp.reasoner.circuit import CircuitStateMachine
from tests.conftest import KIF_DIR
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import circuit_machine

GAME = KIF_DIR / "connectFour" / "connectFour.kif"
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def machines() -> tuple[CircuitStateMachine, CircuitStateMachine]:
    return circuit_machine(GAME, "c"), circuit_machine(GAME, "numpy")


def reachable_keys(machine: CircuitStateMachine, count: int = 40) -> list[int]:
    keys, key = [], machine.state_key(machine.initial_state())
    for step in range(count):
        keys.append(key)
        legal, terminal, _ = machine.key_info(key)
        if terminal:
            key = machine.state_key(machine.initial_state())
            continue
        per_role = [[i for i in legal if machine.moves[i][0] == role] for role in machine.roles]
        key = machine.key_next(key, [ids[step % len(ids)] for ids in per_role])
    return keys


@needs(find_compiler() is not None, "no c compiler (cc)")
@FUZZ
@given(indices=st.lists(st.integers(-(2**40), 2**40), min_size=0, max_size=4), which=st.integers(0, 39))
def test_move_indices_outside_each_roles_block_are_refused_before_the_compiled_code(indices: list[int], which: int) -> None:
    compiled, _ = machines()
    key = reachable_keys(compiled)[which]
    ranges = list(zip(compiled._offsets, (*compiled._offsets[1:], compiled.circuit.n_moves)))
    valid = len(indices) == len(ranges) and all(low <= i < high for i, (low, high) in zip(indices, ranges))
    if valid:
        compiled.key_next(key, indices)
    else:
        with pytest.raises(ValueError):
            compiled.key_next(key, indices)


@needs(find_compiler() is not None, "no c compiler (cc)")
def test_the_reported_bad_inputs_are_refused() -> None:
    compiled, _ = machines()
    key = compiled.state_key(compiled.initial_state())
    first = compiled._offsets[1]  # the second role's first move
    for bad in ([50_000_000, first], [5000, first], [first, 0], [0], [0, first, 0], [0.0, first], [True, first]):
        with pytest.raises(ValueError, match=r"move index|one move index per role"):
            compiled.key_next(key, bad)  # type: ignore[arg-type]
    for bad_key in (-1, 1 << compiled.circuit.n_fluents, 2**200):
        with pytest.raises(ValueError, match="not a packed state"):
            compiled.key_info(bad_key)


@needs(find_compiler() is not None, "no c compiler (cc)")
@FUZZ
@given(which=st.integers(0, 39), choice=st.lists(st.integers(0, 1000), min_size=2, max_size=2))
def test_the_c_library_and_numpy_agree_on_every_packed_query(which: int, choice: list[int]) -> None:
    compiled, reference = machines()
    key = reachable_keys(compiled)[which]
    info = compiled.key_info(key)
    assert info == reference.key_info(key)
    legal, terminal, _ = info
    if terminal:
        return
    per_role = [[i for i in legal if compiled.moves[i][0] == role] for role in compiled.roles]
    joint = [ids[c % len(ids)] for ids, c in zip(per_role, choice)]
    assert compiled.key_next(key, joint) == reference.key_next(key, joint)
