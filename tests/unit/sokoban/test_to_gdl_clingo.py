"""Playing translated Sokoban levels under the clingo reasoner (grounds in a subprocess, ~0.5 s a game)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.gdl.terms import Const, Description
from ggp.translators.sokoban.generator import SymSettings, generate
from ggp.translators.sokoban.level import parse_level
from ggp.translators.sokoban.solver import solve_moves, solve_pushes
from ggp.translators.sokoban.to_gdl import move_term, translate
from tests.prerequisites import require_module
from tests.unit.sokoban.levels import L2, L3, Known

clingo_machine = require_module("ggp.reasoner.clingo_machine")

def _play(game: Description, moves: str) -> tuple[bool, tuple[int, ...], int]:
    """Replay LURD moves; returns (terminal, goals, moves played before the game ended)."""
    machine = clingo_machine.ClingoStateMachine.from_description(game)
    state = machine.initial_state()
    played = 0
    for letter in moves:
        if machine.is_terminal(state):
            break
        assert move_term(letter) in machine.legal_moves(state, machine.roles[0])
        state = machine.next_state(state, (move_term(letter),))
        played += 1
    return machine.is_terminal(state), machine.goals(state), played


@pytest.mark.parametrize("known", [L2, L3], ids=lambda k: k.name)
def test_replaying_the_optimal_solution_in_gdl_reaches_goal_100(known: Known) -> None:
    level = parse_level(known.text)
    solution = solve_moves(level)
    assert solution is not None
    assert _play(translate(level), solution.moves) == (True, (100,), known.moves)


def test_l3_is_lost_with_horizon_32_and_won_with_33() -> None:
    level = parse_level(L3.text)
    solution = solve_moves(level)
    assert solution is not None
    assert _play(translate(level, 32), solution.moves) == (True, (0,), 32)
    assert _play(translate(level, 33), solution.moves) == (True, (100,), 33)


def test_legal_moves_at_the_start_match_the_specification() -> None:
    machine = clingo_machine.ClingoStateMachine.from_description(translate(parse_level(L2.text)))
    legal = machine.legal_moves(machine.initial_state(), Const("player"))
    assert [str(m) for m in legal] == ["(move left)", "(move right)", "(move up)"]
    assert machine.goals(machine.initial_state()) == (0,)


def test_a_generated_level_is_won_by_its_sym_solution_in_gdl() -> None:
    item = next(generate(SymSettings(width=5, height=5, boxes=2, forward=12, backward=8), 1, seed=9, keep_trivial=True))
    game = translate(item.level, solution_length=len(item.solution))
    assert _play(game, item.solution) == (True, (100,), len(item.solution))


@pytest.mark.parametrize("known", [L2, L3], ids=lambda k: k.name)
def test_replaying_the_push_optimal_solution_in_gdl_reaches_goal_100(known: Known) -> None:
    level = parse_level(known.text)
    solution = solve_pushes(level)
    assert solution is not None and solution.pushes == known.pushes
    assert _play(translate(level), solution.moves) == (True, (100,), solution.length)


def test_generated_levels_are_won_in_gdl_by_the_move_optimal_solution_and_lost_one_step_short() -> None:
    for item in generate(SymSettings(width=5, height=5, boxes=2, forward=12, backward=8), 2, seed=4, keep_trivial=True):
        solution = solve_moves(item.level)
        assert solution is not None and solution.length == item.difficulty.moves
        game = translate(item.level, solution_length=solution.length)
        assert _play(game, solution.moves) == (True, (100,), solution.length)
        # One step short of the optimum the same line hits the horizon unsolved: goal 0.
        assert _play(translate(item.level, solution.length - 1), solution.moves) == (True, (0,), solution.length - 1)


@pytest.mark.parametrize("known", [L2, L3], ids=lambda k: k.name)
def test_translations_pass_the_simulation_checks_of_ggp_validate(known: Known) -> None:
    from ggp.reasoner.simulate import simulate_checks

    game = translate(parse_level(known.text), solution_length=known.moves)
    findings = simulate_checks(game, playouts=10, seed=1, strict=True)
    assert [f for f in findings if f.severity == "error"] == []
    # Random play almost never solves these, which the checks report as a warning only.
    assert {f.check for f in findings} <= {"S7-winnability"}


def test_ggp_validate_simulate_accepts_a_translated_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ggp.cli import main

    source, out = tmp_path / "l2.txt", tmp_path / "l2.kif"
    source.write_text(L2.text)
    assert main(["translate", "sokoban", str(source), "--solve", "-o", str(out)]) == 0
    assert main(["validate", "--simulate", "5", str(out)]) == 0
    assert f"{out}: valid, 0 errors" in capsys.readouterr().out
