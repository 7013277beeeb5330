"""The chance role: finding it, drawing its moves uniformly, and clear errors when a game breaks it."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from ggp.errors import ReasonerError
from ggp.files import load_kif
from ggp.gdl.parser import parse_kif, parse_term
from ggp.gdl.terms import Description
from ggp.reasoner.chance import (
    chance_moves,
    chance_roles,
    has_chance,
    random_joint_move,
    sample_chance_moves,
    terminal_goals,
)
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits, StateMachine
from ggp.reasoner.naive import NaiveStateMachine
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.prover import ProverMachine
from tests.conftest import KIF_DIR

Factory = Callable[[Description], StateMachine]
ENGINES: dict[str, Factory] = {
    "clingo": lambda d: ClingoStateMachine(d, GroundingLimits(isolate=False)),
    "per-state": PerStateMachine,
    "prover": ProverMachine,
    "circuit": lambda d: CircuitStateMachine(d, GroundingLimits(isolate=False), evaluator="interpreter"),
    "naive": NaiveStateMachine,
}

DIE = """(role p) (role random) (init start)
(<= (legal random (roll ?n)) (true start) (face ?n)) (face 1) (face 2) (face 3)
(<= (legal p noop) (true start)) (<= (next (rolled ?n)) (does random (roll ?n)))
(<= terminal (true (rolled ?n))) (<= (goal p 12) (true (rolled 3))) (<= (goal p 6) (true (rolled ?n)) (distinct ?n 3))
(goal random 0)"""

STUCK = """(role p) (role random) (init start)
(<= (legal random go) (true start)) (legal p noop) (<= (next stuck) (true start))
(<= terminal (true done)) (goal p 0) (goal random 0)"""

NO_GOAL = """(role p) (role random) (init start)
(legal random go) (legal p noop) (<= (next over) (true start))
(<= terminal (true over)) (goal random 0)"""


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> Factory:
    return ENGINES[request.param]


def test_chance_roles_are_the_roles_named_random(engine: Factory) -> None:
    assert chance_roles(engine(parse_kif(DIE))) == (1,)
    ttt = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
    if ttt.is_file():
        assert chance_roles(engine(load_kif(ttt))) == ()
        assert not has_chance(engine(load_kif(ttt)))


def test_chance_moves_are_drawn_uniformly_and_repeat_with_the_seed(engine: Factory) -> None:
    machine = engine(parse_kif(DIE))
    state = machine.initial_state()
    noop = parse_term("noop")
    draws = Counter(str(sample_chance_moves(machine, state, (noop, None), random.Random(i))[1]) for i in range(600))
    assert set(draws) == {"(roll 1)", "(roll 2)", "(roll 3)"}
    assert all(140 <= count <= 260 for count in draws.values()), draws
    first = [sample_chance_moves(machine, state, (noop, None), random.Random(5)) for _ in range(3)]
    assert first[0] == first[1] == first[2]
    assert first[0][0] == noop


def test_raw_point_goals_come_back_as_integers(engine: Factory) -> None:
    machine = engine(parse_kif(DIE))
    start = machine.initial_state()
    outcomes = {
        str(move): terminal_goals(machine, machine.next_state(start, (parse_term("noop"), move)))
        for move in chance_moves(machine, start)
    }
    assert outcomes == {"(roll 1)": (6, 0), "(roll 2)": (6, 0), "(roll 3)": (12, 0)}


def test_random_without_a_legal_move_in_a_live_state_is_an_error_naming_the_state(engine: Factory) -> None:
    machine = engine(parse_kif(STUCK, "stuck.kif"))
    stuck = machine.next_state(machine.initial_state(), (parse_term("noop"), parse_term("go")))
    with pytest.raises(ReasonerError, match=r"role random has no legal move in the non-terminal state stuck"):
        sample_chance_moves(machine, stuck, (parse_term("noop"), None), random.Random(0))
    with pytest.raises(ReasonerError, match="no legal move"):
        random_joint_move(machine, stuck, random.Random(0))


def test_a_missing_goal_at_a_terminal_state_is_an_error_naming_role_and_state(engine: Factory) -> None:
    machine = engine(parse_kif(NO_GOAL, "nogoal.kif"))
    over = machine.next_state(machine.initial_state(), (parse_term("noop"), parse_term("go")))
    with pytest.raises(ReasonerError, match=r"nogoal\.kif: role p has 0 goal values \(none\) in state over"):
        terminal_goals(machine, over)


def test_terminal_goals_refuse_a_live_state_and_chance_refuses_a_finished_one(engine: Factory) -> None:
    machine = engine(parse_kif(DIE))
    start = machine.initial_state()
    with pytest.raises(ReasonerError, match="non-terminal state: start"):
        terminal_goals(machine, start)
    over = machine.next_state(start, (parse_term("noop"), parse_term("(roll 1)")))
    with pytest.raises(ReasonerError, match="terminal state"):
        chance_moves(machine, over)


def test_a_partial_joint_move_must_name_every_non_chance_move(engine: Factory) -> None:
    machine = engine(parse_kif(DIE))
    state = machine.initial_state()
    with pytest.raises(ValueError, match="no move given for role p"):
        sample_chance_moves(machine, state, (None, None), random.Random(0))
    with pytest.raises(ValueError, match="needs 2 entries"):
        sample_chance_moves(machine, state, (None,), random.Random(0))


def test_a_game_without_chance_has_no_chance_moves() -> None:
    machine = PerStateMachine(parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (true t)) (goal a 1)"))
    with pytest.raises(ReasonerError, match="no role named random"):
        chance_moves(machine, machine.initial_state())
