"""Games over the node limit as written compile with their rule bodies split (ggp.reasoner.decompose)."""

from __future__ import annotations

import logging
import random

import pytest

from ggp.gdl.parser import parse_kif
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import State
from tests.unit.reasoner.circuit_support import LOCAL

CELLS = 8
STEPS = CELLS

LINKS = f"""
(role a) (role b)
{" ".join(f"(cell {i})" for i in range(CELLS))}
{" ".join(f"(adj {i} {j}) (adj {j} {i})" for i in range(CELLS) for j in (i + 1, i + 2) if j < CELLS)}
{" ".join(f"(succ {i} {i + 1})" for i in range(STEPS))}
(init (step 0)) (init (control a))
(<= (legal ?r (place ?x)) (true (control ?r)) (cell ?x) (not (true (taken ?x))))
(<= (legal a noop) (true (control b))) (<= (legal b noop) (true (control a)))
(<= (next (taken ?x)) (does ?r (place ?x)))
(<= (next (taken ?x)) (true (taken ?x)))
(<= (next (control a)) (true (control b))) (<= (next (control b)) (true (control a)))
(<= (next (step ?n)) (true (step ?s)) (succ ?s ?n))
(<= (next (owner ?k ?r)) (true (step ?k)) (true (control ?r)))
(<= (next (owner ?k ?r)) (true (owner ?k ?r)))
; (group ?k ?x): cell ?x belongs to the group labelled by the step ?k that founded it; a stone joins every
; group of its owner next to it, relabelled to the new step (hex's connectivity kept in the state)
(<= (joins ?k) (does ?r (place ?x)) (true (owner ?k ?r)) (true (group ?k ?y)) (adj ?x ?y))
(<= (next (group ?k ?x)) (does ?r (place ?x)) (true (step ?k)))
(<= (next (group ?k ?x)) (joins ?e) (true (group ?e ?x)) (true (step ?k)))
(<= (next (group ?k ?x)) (true (group ?k ?x)) (not (joins ?k)))
(<= (wins ?r) (true (owner ?k ?r)) (true (group ?k 0)) (true (group ?k 4)))
(<= terminal (wins ?r)) (<= terminal (true (step {STEPS})))
(<= (goal ?r 100) (wins ?r)) (<= (goal ?r 0) (role ?r) (not (wins ?r)))
"""
"""A small game keeping connectivity in the state as hex does: its ``next group`` rule joins a variable
(``?e``) that meets the head nowhere, so splitting it shrinks the grounding most."""


def _random_states(machine: ClingoStateMachine, seed: int, playouts: int = 12) -> list[State]:
    rng = random.Random(seed)
    states = []
    for _ in range(playouts):
        state = machine.initial_state()
        while True:
            states.append(state)
            if machine.is_terminal(state):
                break
            state = machine.next_state(state, rng.choice(machine.legal_joint_moves(state)))
    return states


def _ground_rules(text: str) -> int:
    return CircuitStateMachine(parse_kif(text, "links.kif"), LOCAL, evaluator="interpreter").circuit.ground_rules


def test_a_game_over_the_limit_as_written_compiles_with_split_bodies_and_agrees_with_clingo(
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = parse_kif(LINKS, "links.kif")
    plain = CircuitStateMachine(game, LOCAL, evaluator="interpreter").circuit.ground_rules
    with caplog.at_level(logging.INFO):
        machine = CircuitStateMachine(game, LOCAL, evaluator="interpreter", max_nodes=plain * 2 // 3)
    assert "with the rule bodies split" in caplog.text
    assert machine.circuit.ground_rules * 3 < plain * 2
    clingo = ClingoStateMachine(game, LOCAL)
    rng = random.Random(5)
    states = _random_states(clingo, seed=5)
    assert any(clingo.is_terminal(s) and 100 in clingo.goals(s) for s in states)  # someone connected the ends
    for state in states:
        assert machine.state_info(state) == clingo.state_info(state), state
        if not clingo.is_terminal(state):
            joints = clingo.legal_joint_moves(state)
            for joint in rng.sample(joints, min(2, len(joints))):
                assert machine.next_state(state, joint) == clingo.next_state(state, joint)
    summary = machine.random_playouts(200, seed=1, batch=64)
    assert summary.playouts == 200 and summary.stuck == 0 and summary.cut == 0


def test_a_game_over_the_node_limit_both_ways_still_compiles_within_its_budget() -> None:
    # The node limit only decides when to split; what refuses a game is its budget (test_circuit_budget.py).
    game = parse_kif(LINKS, "links.kif")
    machine = CircuitStateMachine(game, LOCAL, evaluator="interpreter", max_nodes=50)
    assert machine.circuit.ground_rules > 50
    clingo = ClingoStateMachine(game, LOCAL)
    for state in _random_states(clingo, seed=3, playouts=3):
        assert machine.state_info(state) == clingo.state_info(state), state


FRAME = """
(role white) (role black)
(file 1) (file 2) (file 3) (file 4) (file 5)
(<= (cell ?x ?y) (file ?x) (file ?y))
(init (control white))
(<= (init (at ?x 1 white)) (file ?x)) (<= (init (at ?x 5 black)) (file ?x))
(<= (legal ?r (move ?x1 ?y1 ?x2 ?y2)) (true (control ?r)) (true (at ?x1 ?y1 ?r)) (cell ?x2 ?y2)
    (not (true (at ?x2 ?y2 white))) (not (true (at ?x2 ?y2 black))))
(<= (legal white noop) (true (control black))) (<= (legal black noop) (true (control white)))
(<= (next (control white)) (true (control black))) (<= (next (control black)) (true (control white)))
(<= (next (at ?x2 ?y2 ?r)) (does ?r (move ?x1 ?y1 ?x2 ?y2)))
; the frame: every piece stays unless a move starts or ends on its cell
(<= (next (at ?x ?y ?p)) (true (at ?x ?y ?p)) (role ?r) (does ?r (move ?x1 ?y1 ?x2 ?y2))
    (other ?x ?y ?x1 ?y1) (other ?x ?y ?x2 ?y2))
(<= (other ?x ?y ?u ?v) (cell ?x ?y) (cell ?u ?v) (distinct ?x ?u))
(<= (other ?x ?y ?u ?v) (cell ?x ?y) (cell ?u ?v) (distinct ?y ?v))
(<= (home white) (true (at ?x 5 white))) (<= (home black) (true (at ?x 1 black)))
(<= terminal (home ?r))
(<= (goal ?r 100) (home ?r)) (<= (goal ?r 0) (role ?r) (not (home ?r)))
"""
"""A skirmish-shaped frame rule: one ground rule per (cell, piece, move) as written."""


def test_a_split_frame_rule_agrees_with_clingo_at_a_few_times_the_plain_circuit() -> None:
    game = parse_kif(FRAME, "frame.kif")
    plain = CircuitStateMachine(game, LOCAL, evaluator="interpreter")
    split = CircuitStateMachine(game, LOCAL, evaluator="interpreter", max_nodes=plain.circuit.ground_rules // 2)
    assert split.circuit.ground_rules * 2 < plain.circuit.ground_rules
    # "some move that touches neither cell" is built in two steps: ORs over the moves from one cell
    # (shared), then their OR; written directly (as the plain game is) it is the negation of the few
    # moves that touch the cell, about three times smaller
    assert split.circuit.size()[1] <= 3 * plain.circuit.size()[1]
    clingo = ClingoStateMachine(game, LOCAL)
    rng = random.Random(2)
    for state in _random_states(clingo, seed=2, playouts=4)[:60]:
        assert split.state_info(state) == clingo.state_info(state)
        if not clingo.is_terminal(state):
            joints = clingo.legal_joint_moves(state)
            for joint in rng.sample(joints, min(2, len(joints))):
                assert split.next_state(state, joint) == clingo.next_state(state, joint)


COUNT = """
(role a)
(spot n) (spot s) (spot c) (spot e) (spot w) (spot u) (spot d)
(colour red) (colour blue) (colour green) (colour white)
(init (at c red))
(<= (legal a (paint ?x ?c)) (spot ?x) (colour ?c))
(<= (next (at ?x ?c)) (does a (paint ?x ?c)))
(<= (next (at ?x ?c)) (true (at ?x ?c)) (not (repainted ?x)))
(<= (repainted ?x) (does a (paint ?x ?c)))
(<= (next (turn ?n)) (true (turn ?m)) (succ ?m ?n)) (init (turn 0)) (succ 0 1) (succ 1 2) (succ 2 3)
; a general relation over every triple of spots and colours, asked with constants only
(<= (three ?x ?y ?z ?c) (true (at ?x ?c)) (true (at ?y ?c)) (true (at ?z ?c)) (distinct ?x ?y) (distinct ?y ?z)
    (distinct ?x ?z))
(<= terminal (true (turn 3)))
(<= (goal a 100) (three n s c red)) (<= (goal a 0) (not (three n s c red)))
"""


def test_a_general_relation_asked_with_constants_is_grounded_for_those_constants_only() -> None:
    game = parse_kif(COUNT, "count.kif")
    plain = CircuitStateMachine(game, LOCAL, evaluator="interpreter")
    split = CircuitStateMachine(game, LOCAL, evaluator="interpreter", max_nodes=plain.circuit.ground_rules // 2)
    assert split.circuit.ground_rules * 2 < plain.circuit.ground_rules
    clingo = ClingoStateMachine(game, LOCAL)
    for state in _random_states(clingo, seed=4, playouts=8):
        assert split.state_info(state) == clingo.state_info(state)
        if not clingo.is_terminal(state):
            joint = clingo.legal_joint_moves(state)[0]
            assert split.next_state(state, joint) == clingo.next_state(state, joint)


def test_static_facts_do_not_count_against_the_node_limit() -> None:
    table = " ".join(f"(pair {i} {j})" for i in range(60) for j in range(60))
    game = parse_kif(f"(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100) {table}")
    machine = CircuitStateMachine(game, LOCAL, evaluator="interpreter", max_nodes=1000)
    assert machine.circuit.ground_rules > 3600  # the table was grounded as written, and cost nothing
    assert machine.legal_moves(machine.initial_state(), machine.roles[0])
