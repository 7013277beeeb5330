"""ClingoStateMachine on small hand-written games: queries, errors, percepts and the domain extras."""

from __future__ import annotations

import random

import pytest

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.files import load_kif
from ggp.gdl.parser import parse_kif, parse_term
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits, State
from tests.conftest import KIF_DIR
from tests.prerequisites import missing

COUNTER = """
(role a) (role b)
(init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal a (add ?n)) (true (count ?c)) (succ ?c ?n))
(<= (legal a wait) (true (count ?c)))
(legal b noop)
(<= (next (count ?n)) (does a (add ?n)))
(<= (next (count ?c)) (does a wait) (true (count ?c)))
(<= (sees b (told ?n)) (does a (add ?n)))
(<= terminal (true (count 3)))
(<= (goal a 100) (true (count 3)))
(<= (goal a 0) (not (true (count 3))))
(goal b 50)
(<= (goal b 60) (true (count 2)))
"""

LOCAL = GroundingLimits(isolate=False)


@pytest.fixture(scope="module")
def machine() -> ClingoStateMachine:
    return ClingoStateMachine(parse_kif(COUNTER, "counter.kif"), LOCAL)


def test_initial_state_holds_the_init_facts(machine: ClingoStateMachine) -> None:
    assert machine.initial_state().sorted_texts() == ["(count 0)"]


def test_legal_moves_are_sorted_by_kif_text_per_role(machine: ClingoStateMachine) -> None:
    state = machine.initial_state()
    assert [str(m) for m in machine.legal_moves(state, parse_term("a"))] == ["(add 1)", "wait"]
    assert [str(m) for m in machine.legal_moves(state, parse_term("b"))] == ["noop"]
    assert len(machine.legal_joint_moves(state)) == 2


def test_next_state_follows_the_joint_move_and_reports_percepts(machine: ClingoStateMachine) -> None:
    state = machine.initial_state()
    after, percepts = machine.next_state_and_percepts(state, (parse_term("(add 1)"), parse_term("noop")))
    assert after.sorted_texts() == ["(count 1)"]
    assert percepts == (frozenset(), frozenset({parse_term("(told 1)")}))
    same = machine.next_state(state, (parse_term("wait"), parse_term("noop")))
    assert same == state


def test_terminal_and_goals_at_the_end(machine: ClingoStateMachine) -> None:
    state = machine.initial_state()
    for n in ("1", "2", "3"):
        assert not machine.is_terminal(state)
        state = machine.next_state(state, (parse_term(f"(add {n})"), parse_term("noop")))
    assert machine.is_terminal(state)
    assert machine.goals(state) == (100, 50)


def test_a_role_with_two_goal_values_is_an_error(machine: ClingoStateMachine) -> None:
    state = State(frozenset({parse_term("(count 2)")}))
    with pytest.raises(ReasonerError, match=r"role b has 2 goal values \(50, 60\)"):
        machine.goals(state)


def test_an_illegal_move_raises_illegal_move_error_naming_move_and_role(machine: ClingoStateMachine) -> None:
    state = machine.initial_state()
    with pytest.raises(IllegalMoveError, match=r"\(add 2\) is not a legal move for a"):
        machine.next_state(state, (parse_term("(add 2)"), parse_term("noop")))
    with pytest.raises(IllegalMoveError, match="needs 2 moves"):
        machine.next_state(state, (parse_term("wait"),))


def test_an_unknown_role_or_fluent_is_refused(machine: ClingoStateMachine) -> None:
    with pytest.raises(ValueError, match="unknown role 'c'"):
        machine.legal_moves(machine.initial_state(), parse_term("c"))
    with pytest.raises(ReasonerError, match=r"fluent \(count 9\) can never hold"):
        machine.is_terminal(State(frozenset({parse_term("(count 9)")})))


def test_domains_over_approximate_reachable_fluents_and_moves(machine: ClingoStateMachine) -> None:
    assert {str(f) for f in machine.fluent_domain} == {f"(count {n})" for n in range(4)}
    assert {str(m) for m in machine.move_domain(parse_term("a"))} == {"(add 1)", "(add 2)", "(add 3)", "wait"}


def test_answers_do_not_depend_on_the_query_order(machine: ClingoStateMachine) -> None:
    fresh = ClingoStateMachine(parse_kif(COUNTER, "counter.kif"), LOCAL)
    one = State(frozenset({parse_term("(count 1)")}))
    two = State(frozenset({parse_term("(count 2)")}))
    assert [str(m) for m in fresh.legal_moves(two, parse_term("a"))] == ["(add 3)", "wait"]
    assert [str(m) for m in fresh.legal_moves(one, parse_term("a"))] == ["(add 2)", "wait"]
    assert fresh.next_state(two, (parse_term("wait"), parse_term("noop"))) == two


def test_a_game_without_roles_is_refused() -> None:
    with pytest.raises(ReasonerError, match="defines no role"):
        ClingoStateMachine(parse_kif("(init p) terminal", "empty.kif"), LOCAL)


def test_names_clingo_cannot_spell_round_trip() -> None:
    game = parse_kif(
        """(role player-1) (init (at cell-1 01)) (<= (legal player-1 (go ?x)) (true (at ?x ?y)))
           (<= (next (at x.y 01)) (does player-1 (go cell-1))) (<= terminal (true (at x.y ?z)))
           (goal player-1 100)""",
        "names.kif",
    )
    machine = ClingoStateMachine(game, LOCAL)
    state = machine.initial_state()
    assert state.sorted_texts() == ["(at cell-1 01)"]
    assert [str(m) for m in machine.legal_moves(state, parse_term("player-1"))] == ["(go cell-1)"]
    after = machine.next_state(state, (parse_term("(go cell-1)"),))
    assert after.sorted_texts() == ["(at x.y 01)"] and machine.is_terminal(after)


@pytest.mark.parametrize("key", ["ticTacToe", "kuhnPoker", "breakthrough"])
def test_grounded_and_fresh_query_modes_answer_alike(key: str) -> None:
    path = KIF_DIR / key / f"{key}.kif"
    if not path.is_file():
        missing(f"{path} is not present")
    description = load_kif(path)
    machines = [ClingoStateMachine(description, LOCAL, query_mode=mode) for mode in ("grounded", "fresh", "auto")]
    rng = random.Random(3)
    state = machines[0].initial_state()
    assert all(m.initial_state() == state for m in machines)
    for _ in range(30):
        infos = [m.state_info(state) for m in machines]
        assert infos[1] == infos[0] and infos[2] == infos[0]
        if infos[0].terminal:
            break
        joint = tuple(rng.choice(moves) for moves in infos[0].legal)
        results = [m.next_state_and_percepts(state, joint) for m in machines]
        assert results[1] == results[0] and results[2] == results[0]
        state = results[0][0]
