"""Playing translated Sokoban levels under the clingo reasoner (grounds in a subprocess, ~0.5 s a game)."""

from __future__ import annotations

import pytest

from ggp.gdl.terms import Const, Description
from tests.unit.sokoban.levels import L2, L3, Known
from translators.sokoban.generator import SymSettings, generate
from translators.sokoban.level import parse_level
from translators.sokoban.solver import solve_moves
from translators.sokoban.to_gdl import move_term, translate

clingo_machine = pytest.importorskip("ggp.reasoner.clingo_machine")

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
