"""Engine registry: make_machine picks the engine by name and the engines answer alike."""

from __future__ import annotations

import random

import pytest

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.files import load_kif
from ggp.gdl.parser import parse_kif, parse_term
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.engines import ENGINES, make_machine
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.naive import NaiveStateMachine
from ggp.reasoner.wrappers import CachedStateMachine
from ggp.testing import check_state_machine
from tests.conftest import KIF_DIR
from tests.prerequisites import missing

LOCAL = GroundingLimits(isolate=False)
GAME = "(role a) (init s) (<= (legal a go) (true s)) (<= (next t) (does a go)) (<= terminal (true t)) (goal a 100)"


def test_the_registry_names_the_three_engines() -> None:
    assert {"clingo", "naive", "circuit"} <= set(ENGINES)


def test_make_machine_builds_the_named_engine() -> None:
    game = parse_kif(GAME)
    clingo = make_machine(game, "clingo", LOCAL)
    assert isinstance(clingo, CachedStateMachine) and isinstance(clingo.inner, ClingoStateMachine)
    assert isinstance(make_machine(game, "naive", LOCAL), NaiveStateMachine)


def test_an_unknown_engine_is_a_reasoner_error_listing_the_choices() -> None:
    with pytest.raises(ReasonerError, match="unknown engine 'fast'; expected one of auto, circuit, clingo, naive, per-state"):
        make_machine(parse_kif(GAME), "fast")


def test_the_naive_engine_refuses_illegal_moves() -> None:
    machine = NaiveStateMachine(parse_kif(GAME, "g.kif"))
    with pytest.raises(IllegalMoveError, match="stop is not a legal move for a"):
        machine.next_state(machine.initial_state(), (parse_term("stop"),))


@pytest.mark.parametrize("key", ["ticTacToe", "rockPaperScissors"])
def test_naive_and_clingo_agree_on_random_playouts(key: str) -> None:
    path = KIF_DIR / key / f"{key}.kif"
    if not path.is_file():
        missing(f"{path} is not present")
    description = load_kif(path)
    clingo_machine = ClingoStateMachine(description, LOCAL)
    naive = NaiveStateMachine(description)
    check_state_machine(naive, playouts=1, seed=1)
    rng = random.Random(0)
    for _ in range(2):
        state = clingo_machine.initial_state()
        assert naive.initial_state() == state
        while not clingo_machine.is_terminal(state):
            assert naive.legal_joint_moves(state) == clingo_machine.legal_joint_moves(state)
            joint = rng.choice(clingo_machine.legal_joint_moves(state))
            following = clingo_machine.next_state(state, joint)
            assert naive.next_state(state, joint) == following
            state = following
        assert naive.is_terminal(state)
        assert naive.goals(state) == clingo_machine.goals(state)


def test_circuit_options_pick_the_evaluator_and_bad_options_are_refused() -> None:
    from ggp.reasoner.circuit import CircuitStateMachine

    game = parse_kif(GAME)
    machine = make_machine(game, "circuit:numpy")
    assert isinstance(machine, CircuitStateMachine) and machine.evaluator.name == "numpy"
    with pytest.raises(ReasonerError, match="unknown circuit evaluator 'gpu'"):
        make_machine(game, "circuit:gpu")
    with pytest.raises(ReasonerError, match="engine 'clingo' takes no option"):
        make_machine(game, "clingo:fast")
