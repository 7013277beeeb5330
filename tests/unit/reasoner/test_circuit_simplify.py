"""The circuit is simplified before use (issue 11): constants folded, dead nodes dropped, terms shared."""

from __future__ import annotations

import pytest

from ggp.gdl.parser import parse_kif
from ggp.reasoner.circuit import CircuitStateMachine
from tests.conftest import CORPUS
from tests.prerequisites import missing
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine

BASE = """(role a) (init x) (init y)
(<= (legal a go) (true x)) (<= (legal a stop) (true y))
(<= (next x) (true y)) (<= (next y) (does a go) (true x))
(<= terminal (true y) (not (true x)))
(<= (goal a 100) (true y)) (<= (goal a 0) (not (true y)))
"""

VARIANTS = {
    # Relations that reach no output (legal, next, terminal, goal, sees) leave no node behind.
    "dead": BASE + "(num 1) (num 2) (num 3) (<= (junk ?v) (true x) (num ?v)) (<= junk2 (junk 1) (not (true y)))",
    # A rule repeated with its body reordered, and a repeated literal, add nothing.
    "shared": BASE + "(<= terminal (not (true x)) (true y)) (<= (next x) (true y) (true y))",
    # A literal that is always true disappears; a rule with one that is always false is dropped.
    "constant": BASE.replace("(<= (legal a go) (true x))",
                             "(always) (<= (legal a go) (true x) (always)) (<= (legal a go) (true y) (not (always)))"),
}


def _machine(text: str, name: str) -> CircuitStateMachine:
    return CircuitStateMachine(parse_kif(text, f"{name}.kif"), LOCAL, evaluator="interpreter")


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_redundant_rules_leave_the_circuit_as_small_as_the_plain_game(name: str) -> None:
    base, variant = _machine(BASE, "base"), _machine(VARIANTS[name], name)
    assert variant.circuit.ground_rules > base.circuit.ground_rules  # the extra rules were grounded ...
    assert variant.circuit.size() == base.circuit.size()  # ... and simplified away
    state = variant.initial_state()
    for _ in range(3):  # and the answers stay those of the plain game
        assert variant.state_info(state) == base.state_info(state)
        if variant.is_terminal(state):
            break
        joint = variant.legal_joint_moves(state)[0]
        assert variant.next_state(state, joint) == base.next_state(state, joint)
        state = variant.next_state(state, joint)


def test_the_corpus_breakthrough_compiles_to_a_small_fraction_of_its_ground_rules() -> None:
    path = CORPUS / "breakthrough.kif"
    if not path.is_file():
        missing(f"{path} is not present")
    machine = circuit_machine(path)
    statements, literals = machine.circuit.size()
    assert machine.circuit.ground_rules > 40_000
    assert statements * 20 < machine.circuit.ground_rules and literals < machine.circuit.ground_rules
