"""Locally stratified games play on every engine; a ground cycle through negation is refused by every engine."""

from __future__ import annotations

import pytest

from ggp.errors import GdlValidationError, NotStratifiedError
from ggp.gdl.parser import parse_kif
from ggp.gdl.validator import validate
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.stratification import ground_negative_cycle, negative_relation_cycle

LOCAL = GroundingLimits(isolate=False)
ENGINES = ["clingo", "per-state", "circuit", "auto", "naive"]

LOCALLY_STRATIFIED = """(role a) (init (c 0)) (<= (legal a step) (true (c 0))) (<= (next (c 1)) (does a step))
(<= terminal (true (c 1))) (<= (goal a 100) (true (c 1))) (<= (goal a 0) (not (goal a 100)))"""
"""hidato's goal: 'goal' negates itself, no ground atom does."""

DYNAMIC_CYCLE = """(role a) (init (link x y)) (init (link y x)) (<= (legal a step) (true (link x y)))
(<= (next (c 1)) (does a step)) (<= (p ?x) (true (link ?x ?y)) (not (p ?y))) (<= terminal (true (c 1)))
(<= (goal a 100) (p x)) (<= (goal a 0) (not (p x)))"""
"""(p x) <- not (p y) <- not (p x) in the initial state: only grounding shows the cycle."""

STATIC_CYCLE = """(role a) (r x y) (r y x) (init (c 0)) (<= (legal a step) (true (c 0))) (<= (next (c 1)) (does a step))
(<= (p ?x) (r ?x ?y) (not (p ?y))) (<= terminal (true (c 1))) (<= (goal a 100) (p x)) (<= (goal a 0) (not (p x)))"""
"""The same cycle through a static relation (the per-state engine computes those once, with clingo)."""

CYCLE_TEXT = r"not stratified: ground atoms depend on their own negation"


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_plays_a_locally_stratified_game(engine: str) -> None:
    machine = make_machine(parse_kif(LOCALLY_STRATIFIED, "local.kif"), engine, LOCAL)
    start = machine.initial_state()
    assert machine.goals(start) == (0,) and not machine.is_terminal(start)
    after = machine.next_state(start, machine.legal_joint_moves(start)[0])
    assert machine.is_terminal(after) and machine.goals(after) == (100,)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text", [DYNAMIC_CYCLE, STATIC_CYCLE], ids=["through-true", "through-a-static-relation"])
def test_every_engine_refuses_a_ground_negative_cycle_naming_its_atoms(engine: str, text: str) -> None:
    game = parse_kif(text, "loop.kif")
    assert {f.severity for f in validate(game) if f.check == "stratification"} == {"warning"}
    with pytest.raises(NotStratifiedError, match=rf"^loop\.kif: {CYCLE_TEXT}.*\(p x\).*\(p y\)|"
                                                 rf"^loop\.kif: {CYCLE_TEXT}.*\(p y\).*\(p x\)") as caught:
        machine = make_machine(game, engine, LOCAL)
        # The per-state engine evaluates the dynamic rules per state: the cycle shows in the first query.
        machine.goals(machine.initial_state())
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_ground_cycle_in_the_rules_is_refused_before_any_engine_runs(engine: str) -> None:
    game = parse_kif("(role a) (<= p (not q)) (<= q (not p)) (legal a go) (<= terminal p) (goal a 100)", "pq.kif")
    with pytest.raises(GdlValidationError, match=r"pq\.kif:1:10: .*: p <- not q <- not p$"):
        make_machine(game, engine, LOCAL)


def test_the_ground_graph_check_finds_a_cycle_only_through_negation() -> None:
    assert ground_negative_cycle([((1,), (-2,)), ((2,), (-1,))]) == [(2, True), (1, True)]
    assert ground_negative_cycle([((1,), (2,)), ((2,), (1,)), ((3,), (-1,))]) is None  # positive loop, negation out
    assert ground_negative_cycle([((1,), (2,)), ((2,), (-3,)), ((3,), (1,))]) == [(3, True), (1, False), (2, False)]


def test_only_games_with_a_negative_relation_cycle_pay_for_the_ground_check() -> None:
    assert negative_relation_cycle(parse_kif(LOCALLY_STRATIFIED).rules)
    assert not negative_relation_cycle(parse_kif("(<= p (not q)) (<= q r)").rules)


def test_a_static_cycle_found_in_an_isolated_child_is_still_a_not_stratified_error() -> None:
    # The per-state engine computes static relations in a child process under the default limits.
    with pytest.raises(NotStratifiedError, match=rf"^loop\.kif: {CYCLE_TEXT}: \(p [xy]\) <- not \(p [xy]\) <- not"):
        make_machine(parse_kif(STATIC_CYCLE, "loop.kif"), "per-state", GroundingLimits(seconds=60, memory_mb=1024))
