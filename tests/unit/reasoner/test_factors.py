"""Factors of a game read from its circuit (issue 41, item 2: Günther, Schiffel & Thielscher 2009) and the
C search of one factor alone (``ggp_mcts_set_factor``)."""

from __future__ import annotations

import pytest

from ggp.gdl.parser import parse_kif, parse_term
from ggp.native import find_compiler
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.factors import find_factors
from ggp.reasoner.factoring import Factor, Factoring, factor_of_moves
from ggp.reasoner.machine import State
from tests.conftest import KIF_DIR
from tests.helpers.two_boards import TWO_BOARDS
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine

pytestmark = needs(find_compiler() is not None, "no c compiler (cc)")


def two_boards() -> CircuitStateMachine:
    return CircuitStateMachine(parse_kif(TWO_BOARDS, "two_boards.kif"), LOCAL, evaluator="c")


def names(machine: CircuitStateMachine, fluents: frozenset[int]) -> set[str]:
    return {str(machine.circuit.fluents[f]) for f in fluents}


def after(machine: CircuitStateMachine, *joints: str) -> State:
    state = machine.initial_state()
    for joint in joints:
        state = machine.next_state(state, tuple(parse_term(text) for text in joint.split("|")))
    return state


def test_two_independent_boards_are_two_factors_and_the_step_counter_belongs_to_neither() -> None:
    machine = two_boards()
    factoring = machine.factoring
    assert factoring.factored and len(factoring.factors) == 2
    first, second = factoring.factors
    assert names(machine, first.fluents) == {f"(cell {m} {n} 1 {c})" for m in (1, 2, 3) for n in (1, 2, 3)
                                             for c in ("x", "o", "b")} | {"(control x 1)", "(control o 1)"}
    assert all(" 2 " in name or name.endswith(" 2)") for name in names(machine, second.fluents))
    assert names(machine, factoring.free_fluents) == {f"(step {k})" for k in range(10)}  # changes by itself
    moves = machine.circuit.moves
    offsets = machine.circuit.move_offsets()
    board_of = {offsets[r] + i: str(move).split()[-1].rstrip(")") for r, row in enumerate(moves) for i, move in enumerate(row)}
    assert {board_of[m] for m in first.moves} == {"1"} and {board_of[m] for m in second.moves} == {"2"}
    assert len(first.moves) == 18  # both roles' marks on board 1
    assert factoring.describe() == "2 independent factors (29 fluents / 18 moves, 29 fluents / 18 moves)"


@pytest.mark.parametrize("game", ["ticTacToe", "connectFour", "rockPaperScissors"])
def test_a_game_of_one_board_is_one_factor(game: str) -> None:
    factoring = find_factors(circuit_machine(KIF_DIR / game / f"{game}.kif", "c").circuit)
    assert not factoring.factored and factoring.describe() == "one factor"


def test_a_role_s_moves_lie_in_the_factor_of_the_board_it_marks_this_turn() -> None:
    machine = two_boards()
    x, o = machine.roles
    first, second = machine.factoring.factors
    state = machine.initial_state()
    assert machine.factor_at(state, x) == first and machine.factor_at(state, o) == second
    state = after(machine, "(mark 1 1 1)|(mark 1 1 2)")
    assert machine.factor_at(state, x) == second and machine.factor_at(state, o) == first


def test_moves_spanning_factors_or_free_moves_alone_have_no_single_factor() -> None:
    a, b = Factor(frozenset({0}), frozenset({0, 1})), Factor(frozenset({1}), frozenset({2, 3}))
    factoring = Factoring((a, b), frozenset(), frozenset({4}))
    assert factor_of_moves(factoring, [0, 1, 4]) == a  # a free move (a noop) goes with any factor
    assert factor_of_moves(factoring, [1, 2]) is None
    assert factor_of_moves(factoring, [4]) is None
    assert factor_of_moves(Factoring((a,), frozenset(), frozenset()), [0]) is None  # one factor: not factored


def test_the_factored_search_holds_the_other_board_and_lets_the_other_role_pass() -> None:
    """o wins at once on board 2 this turn: searching the whole game, every move of x loses; searching x's
    board alone, the other board is held as it is (o's threat there is no part of x's choice) and x blocks
    o's threat on board 1, where o moves next turn."""
    machine = two_boards()
    x = machine.roles[0]
    state = after(machine, "(mark 1 1 1)|(mark 1 1 2)", "(mark 3 3 2)|(mark 3 3 1)", "(mark 2 3 1)|(mark 1 2 2)",
                  "(mark 2 1 2)|(mark 3 1 1)")
    values = {}
    for factor in (None, machine.factor_at(state, x)):
        tree = machine.mcts_tree(state, exploration=0.4, playouts_per_leaf=1, chance=[False, False], seed=1,
                                 max_nodes=100_000, factor=factor)
        assert tree is not None and tree.search(3000, float("inf")) > 0
        mine, other = tree.root_statistics(0), tree.root_statistics(1)
        best = max(range(len(mine.visits)), key=mine.visits.__getitem__)
        values[factor is not None] = (str(mine.moves[best]), mine.totals[best] / mine.visits[best], other.branching[1])
    assert values[False][1] < 0.1 and values[False][2] == 5  # o's five marks on board 2, one of them winning
    move, value, passes = values[True]
    assert move == "(mark 3 2 1)" and value > 0.3 and passes == 1


def test_a_factored_search_needs_one_playout_per_leaf() -> None:
    machine = two_boards()
    state = machine.initial_state()
    with pytest.raises(ValueError, match="one playout per leaf"):
        machine.mcts_tree(state, exploration=0.4, playouts_per_leaf=4, chance=[False, False], seed=1,
                          max_nodes=1000, factor=machine.factor_at(state, machine.roles[0]))
