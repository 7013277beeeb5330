"""Randomized differential test (issue 11): the circuit's batch API against clingo on thousands of states.

For every game of ``kif/`` and a sample of the corpus, seeded random walks (driven by the circuit's
packed-state API, so collecting the states is cheap) gather up to :data:`STATES` distinct reachable
states. All of them go through the batch API in one pass (``legal_mask``, ``terminal``,
``goals_batch``, then ``next_states`` with one random legal joint move per live state) and every answer
is compared with ``ClingoStateMachine`` state by state: legal moves, terminal flag, goal values,
successor and GDL-II percepts. ``GGP_CIRCUIT_DIFF_STATES=N`` changes the number of states per game;
``GGP_CIRCUIT_DIFF_ALL=1`` runs every game of the corpus's VALID.txt instead of the sample (slow: building
the machines dominates).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from ggp.errors import ReasonerError
from ggp.files import load_kif
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.errors import CompileBudgetError
from ggp.reasoner.circuit.machine import DEFAULT_MAX_NODES
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import State
from tests.conftest import CORPUS, kif_games, needs_shared, valid_corpus_keys
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine, clingo_machine
from tests.unit.reasoner.test_circuit import CORPUS_SAMPLE

STATES = int(os.environ.get("GGP_CIRCUIT_DIFF_STATES", "2000"))
"""Distinct states per game (fewer when a game has fewer reachable within the walk budget)."""

ALL = os.environ.get("GGP_CIRCUIT_DIFF_ALL") == "1"


def _games() -> list[Path]:
    keys = valid_corpus_keys() if ALL else list(CORPUS_SAMPLE)
    return [CORPUS / f"{key}.kif" for key in keys if (CORPUS / f"{key}.kif").is_file()]


def walk_states(machine: CircuitStateMachine, count: int, seed: int, max_depth: int = 200) -> list[State]:
    """Up to ``count`` distinct states from seeded random walks (initial and terminal states included)."""
    rng = random.Random(seed)
    n_roles = len(machine.roles)
    owner = [machine.roles.index(role) for role, _ in machine.moves]
    seen: dict[int, None] = {}
    for _ in range(max(50, 30 * count // max_depth)):  # walk budget: small games run out of new states
        key = machine.state_key(machine.initial_state())
        for _ in range(max_depth):
            seen.setdefault(key)
            if len(seen) >= count:
                return [machine.key_state(k) for k in seen]
            legal, terminal, _ = machine.key_info(key)
            if terminal:
                break
            per_role: list[list[int]] = [[] for _ in range(n_roles)]
            for index in legal:
                per_role[owner[index]].append(index)
            if not all(per_role):
                break
            key = machine.key_next(key, [rng.choice(ids) for ids in per_role])
    return [machine.key_state(k) for k in seen]


def _role_offsets(machine: CircuitStateMachine) -> list[int]:
    offsets = [0]
    for moves in machine.circuit.moves:
        offsets.append(offsets[-1] + len(moves))
    return offsets


def assert_batch_agrees(circuit: CircuitStateMachine, clingo: ClingoStateMachine, states: list[State], seed: int) -> int:
    """Compare every batch answer on ``states`` with clingo; returns the number of successors compared."""
    rng = random.Random(seed)
    roles = circuit.roles
    assert roles == clingo.roles
    offsets = _role_offsets(circuit)
    bits = circuit.states_to_bits(states)
    mask, terminal, goals = circuit.legal_mask(bits), circuit.terminal(bits), circuit.goals_batch(bits)
    live_rows: list[int] = []
    joints: list[list[int]] = []
    for row, state in enumerate(states):
        want = clingo.state_info(state)
        legal = tuple(
            tuple(circuit.circuit.moves[r][i] for i in np.flatnonzero(mask[row, offsets[r]:offsets[r + 1]]))
            for r in range(len(roles))
        )
        assert legal == want.legal, f"legal moves differ in {state}"
        assert bool(terminal[row]) == want.terminal, f"terminal differs in {state}"
        got_values = circuit.goal_values(state)
        assert [sorted(map(str, g)) for g in got_values] == [sorted(map(str, g)) for g in want.goal_values], state
        if all(len(values) == 1 and str(values[0]).isdigit() for values in want.goal_values):
            assert tuple(goals[row]) == tuple(int(str(values[0])) for values in want.goal_values), state
        if not want.terminal and all(want.legal):
            live_rows.append(row)
            joints.append([rng.randrange(len(moves)) for moves in want.legal])
    if not live_rows:
        return 0
    joint_array = np.array(joints, dtype=np.int64)
    # Legal moves are sorted by KIF text in both engines, so an index among a state's legal moves
    # maps to the circuit's per-role move index through the mask.
    move_index = np.zeros_like(joint_array)
    for k, row in enumerate(live_rows):
        for r in range(len(roles)):
            move_index[k, r] = np.flatnonzero(mask[row, offsets[r]:offsets[r + 1]])[joint_array[k, r]]
    after = circuit.bits_to_states(circuit.next_states(bits[live_rows], move_index))
    for k, row in enumerate(live_rows):
        state = states[row]
        joint = tuple(circuit.circuit.moves[r][move_index[k, r]] for r in range(len(roles)))
        want_next, want_percepts = clingo.next_state_and_percepts(state, joint)
        assert after[k] == want_next, f"next state differs after {joint} in {state}"
        assert circuit.next_state_and_percepts(state, joint) == (want_next, want_percepts), (state, joint)
    return len(live_rows)


@pytest.mark.parametrize("path", kif_games() + needs_shared(_games()), ids=lambda p: getattr(p, "stem", "none"))
def test_the_batch_api_agrees_with_clingo_on_thousands_of_random_states(path: Path | None) -> None:
    assert path is not None
    if ALL:
        try:
            circuit = CircuitStateMachine(load_kif(path), LOCAL, evaluator="interpreter", max_nodes=DEFAULT_MAX_NODES)
            clingo = ClingoStateMachine(load_kif(path), LOCAL)
        except CompileBudgetError:
            pytest.skip("over the compiler's budget (make_fast_machine falls back to auto)")
        except ReasonerError as exc:
            pytest.skip(f"the game cannot be grounded: {exc}")
    else:
        circuit, clingo = circuit_machine(path), clingo_machine(path)
    states = walk_states(circuit, STATES, seed=17)
    assert states and states[0] == clingo.initial_state()
    compared = assert_batch_agrees(circuit, clingo, states, seed=17)
    assert compared > 0 or all(clingo.is_terminal(s) for s in states)


def test_the_walk_collects_thousands_of_distinct_states_where_the_game_has_them() -> None:
    machine = circuit_machine(sorted(p for p in kif_games() if p.stem == "connectFour")[0])
    states = walk_states(machine, 2000, seed=1)
    assert len(states) == len(set(states)) == 2000
    again = walk_states(machine, 2000, seed=1)
    assert again == states  # seeded
