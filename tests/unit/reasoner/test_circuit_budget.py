"""The compiler's budget (ggp.reasoner.circuit.budget): a game is refused by what compiling it costs, in
CPU time and memory, with one line naming the budget and the figure reached; never by its rule count."""

from __future__ import annotations

import logging
import re
import time

import pytest

from ggp.files import load_kif
from ggp.gdl.parser import parse_kif
from ggp.reasoner.circuit import CircuitStateMachine, make_fast_machine
from ggp.reasoner.circuit.budget import BudgetMeter, CompileBudget
from ggp.reasoner.circuit.errors import CompileBudgetError
from ggp.reasoner.circuit.extract import ground_program
from ggp.reasoner.clingo_machine import _isolated_domain
from ggp.reasoner.machine import GroundingLimits
from tests.conftest import KIF_DIR
from tests.unit.reasoner.circuit_support import LOCAL

NUMBERS = " ".join(f"(n {i})" for i in range(40))

EXPLODING = f"""
(role a) (init s) {NUMBERS}
(<= (p ?a ?b ?c ?d ?e) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e))
(<= (legal a (m ?a)) (true s) (p ?a ?b ?c ?d ?e))
(<= (next s) (does a (m 0)))
(goal a 100) (<= terminal (not (true s)))
"""
"""40^5 = 102 million ground atoms of ``p``, in the domain phase already: a grounding that runs in C and
would not end for minutes."""

ENDLESS = ("(role a) (init s) (nat 0) (<= (nat (succ ?x)) (nat ?x)) (<= (legal a go) (true s))"
           "(<= (goal a 100) (nat ?x) (true s)) (<= (goal a 0) (not (true s))) (<= terminal (not (true s)))")
"""A static relation with no end: clingo hands over fact after fact, so the meter stops it in this process."""

ONE_LINE = re.compile(r"^exploding\.kif: compiling the circuit exceeded its budget of [0-9.]+ (s of CPU|MB of memory) \(.+\)$")


def test_a_grounding_that_would_not_end_is_stopped_in_the_child_at_the_budget_with_one_line() -> None:
    game = parse_kif(EXPLODING, "exploding.kif")
    with pytest.raises(CompileBudgetError) as info:
        CircuitStateMachine(game, GroundingLimits(seconds=600), evaluator="interpreter",
                            budget=CompileBudget(cpu_seconds=1.0, memory_mb=4096))
    message = str(info.value)
    assert ONE_LINE.match(message), message
    assert "the grounding phase 'domain' of its child process reached it" in message


def test_the_cpu_figure_named_is_the_budget_and_the_time_spent() -> None:
    with pytest.raises(CompileBudgetError) as info:
        CircuitStateMachine(parse_kif(ENDLESS, "endless.kif"), LOCAL, evaluator="interpreter",
                            budget=CompileBudget(cpu_seconds=0.5, memory_mb=100_000))
    found = re.search(r"budget of 0\.5 s of CPU \(([0-9.]+) s spent, while grounding, at ([0-9,]+) ground rules\)",
                      str(info.value))
    assert found, str(info.value)
    assert float(found[1]) >= 0.5 and int(found[2].replace(",", "")) > 4096


def test_the_memory_figure_named_is_the_budget_and_the_growth_reached() -> None:
    with pytest.raises(CompileBudgetError) as info:
        CircuitStateMachine(parse_kif(ENDLESS, "endless.kif"), LOCAL, evaluator="interpreter",
                            budget=CompileBudget(cpu_seconds=600, memory_mb=20))
    found = re.search(r"budget of 20 MB of memory \(([0-9,.]+) MB more than at its start, while grounding", str(info.value))
    assert found and float(found[1].replace(",", "")) > 20, str(info.value)


def test_the_fast_machine_goes_on_with_another_engine_when_the_budget_is_exceeded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO):
        machine = make_fast_machine(load_kif(KIF_DIR / "ticTacToe" / "ticTacToe.kif"), LOCAL, evaluator="interpreter",
                                    budget=CompileBudget(cpu_seconds=0.001, memory_mb=1024))
    assert not isinstance(machine, CircuitStateMachine)
    assert "exceeded its budget of 0.001 s of CPU" in caplog.text
    assert machine.legal_moves(machine.initial_state(), machine.roles[0])


CUBE = f"""
(role a) (init s) {NUMBERS}
(<= (p ?a ?b ?c) (n ?a) (n ?b) (n ?c))
(<= (legal a (m ?a)) (true s) (p ?a ?b ?c))
(<= (next s) (does a (m 0)))
(goal a 100) (<= terminal (not (true s)))
"""
"""40^3 = 64,000 atoms of ``p`` in the domain phase: work the child does that the budget must count."""


def test_the_domain_probes_cpu_counts_against_the_compiles_budget() -> None:
    game = parse_kif(CUBE, "cube.kif")
    spent: list[float] = []
    _isolated_domain(game, GroundingLimits(), cpu_seconds=60, main=False, charge=spent.append)
    assert len(spent) == 1 and 0 < spent[0] < 60
    meter = BudgetMeter(CompileBudget(), "cube.kif")
    before = time.thread_time()
    ground_program(game, GroundingLimits(), 10**6, meter)
    charged = meter.cpu_seconds() - (time.thread_time() - before)  # what the meter counts beyond this thread
    assert charged > 0.5 * spent[0], (charged, spent)
