"""PerStateMachine: the contract, agreement with the ground-once clingo engine, and the rule compiler's corners."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

from ggp.errors import IllegalMoveError, NotStratifiedError, ReasonerError
from ggp.files import load_kif
from ggp.gdl.parser import parse_kif, parse_term
from ggp.gdl.terms import Description
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.engines import ENGINES, make_machine
from ggp.reasoner.machine import GroundingLimits, State
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.relations import dynamic_relations, to_term, to_value
from ggp.reasoner.rulecode import compile_rules
from ggp.testing import check_state_machine
from tests.conftest import kif_games
from tests.helpers.agreement import assert_agree as agree
from tests.prerequisites import missing

LOCAL = GroundingLimits(isolate=False)


def assert_agree(description: Description, playouts: int, seed: int, max_steps: int = 200) -> None:
    """Both engines give the same legal moves, successors, percepts, terminal flags and goals."""
    agree(PerStateMachine(description), ClingoStateMachine(description, LOCAL), playouts, seed, max_steps)


@pytest.mark.parametrize("path", kif_games(), ids=lambda p: Path(p).stem)
def test_per_state_agrees_with_clingo_on_the_project_games(path: Path) -> None:
    assert_agree(load_kif(path), playouts=2, seed=1)


def test_per_state_passes_the_state_machine_contract() -> None:
    path = Path(__file__).resolve().parents[3] / "kif" / "ticTacToe" / "ticTacToe.kif"
    if not path.is_file():
        missing("kif/ticTacToe is not present")
    assert check_state_machine(PerStateMachine(load_kif(path)), playouts=2, seed=3) > 5


TRICKY = """(role a) (role b)
(init (at a (pos 1))) (init (at b (pos 3))) (init (wall 2)) (init (turn a))
(edge 1 2) (edge 2 3) (edge 3 4) (edge 4 1) (other a b) (other b a)
(<= (reach ?x ?y) (edge ?x ?y) (not (true (wall ?y))))
(<= (reach ?x ?z) (reach ?x ?y) (reach ?y ?z))
(<= (legal ?r (go (pos ?y))) (true (turn ?r)) (true (at ?r (pos ?x))) (reach ?x ?y) (distinct ?x ?y))
(<= (legal ?r (build ?w)) (true (turn ?r)) (or (edge ?w 2) (edge 3 ?w)) (not (true (wall ?w))))
(<= (legal ?r noop) (role ?r) (not (true (turn ?r))))
(<= (next (at ?r ?p)) (does ?r (go ?p)))
(<= (next (at ?r ?p)) (true (at ?r ?p)) (not (moves ?r)))
(<= (moves ?r) (does ?r (go ?p)))
(<= (next (wall ?w)) (does ?r (build ?w)))
(<= (next (wall ?w)) (true (wall ?w)) (not (builds ?w)))
(<= (builds ?w) (does ?r (build ?w)))
(<= (next (turn ?s)) (true (turn ?r)) (other ?r ?s))
(<= (sees ?s (did ?r ?m)) (does ?r ?m) (other ?r ?s) (distinct ?m noop))
(<= terminal (true (at ?r (pos 4))))
(<= terminal (true (at a ?p)) (true (at b ?p)))
(<= (goal ?r 100) (true (at ?r (pos 4))))
(<= (goal ?r 0) (role ?r) (not (true (at ?r (pos 4)))))"""


def test_recursion_negation_or_and_nested_terms_agree_with_clingo() -> None:
    assert_agree(parse_kif(TRICKY, "tricky.kif"), playouts=6, seed=5, max_steps=30)


def test_recursive_relations_are_computed_to_their_fixpoint() -> None:
    machine = PerStateMachine(parse_kif(TRICKY))
    a = parse_term("a")

    def goes(*facts: str) -> set[str]:
        state = State(frozenset(parse_term(f) for f in ("(at a (pos 1))", "(at b (pos 3))", "(turn a)", *facts)))
        return {str(m) for m in machine.legal_moves(state, a) if str(m).startswith("(go")}

    assert goes() == {"(go (pos 2))", "(go (pos 3))", "(go (pos 4))"}  # around the cycle 1-2-3-4
    assert goes("(wall 3)") == {"(go (pos 2))"}
    assert goes("(wall 2)") == set()


def test_illegal_and_wrong_length_joint_moves_are_refused() -> None:
    machine = PerStateMachine(parse_kif(TRICKY, "tricky.kif"))
    start = machine.initial_state()
    with pytest.raises(IllegalMoveError, match=r"\(go \(pos 3\)\) is not a legal move for a"):
        machine.next_state(start, (parse_term("(go (pos 3))"), parse_term("noop")))
    with pytest.raises(IllegalMoveError, match="needs 2 moves"):
        machine.next_state(start, (parse_term("noop"),))
    with pytest.raises(ValueError, match="unknown role 'c'"):
        machine.legal_moves(start, parse_term("c"))


def test_unstratified_and_unsafe_rules_are_reasoner_errors() -> None:
    loop = "(role a) (init s) (<= (p ?x) (true ?x) (not (q ?x))) (<= (q ?x) (true ?x) (not (p ?x))) (<= (legal a go) (p s))"
    machine = PerStateMachine(parse_kif(loop, "loop.kif"))
    with pytest.raises(NotStratifiedError,
                       match=r"loop\.kif: not stratified: ground atoms depend on their own negation in this state: "
                             r"\(p s\), \(q s\)$"):
        machine.legal_moves(machine.initial_state(), parse_term("a"))
    unsafe = "(role a) (init s) (<= (legal a ?m) (true s) (not (true ?m)))"
    with pytest.raises(ReasonerError, match="unsafe"):
        PerStateMachine(parse_kif(unsafe, "unsafe.kif"))


def test_negation_inside_a_group_stratified_on_ground_atoms_is_solved() -> None:
    game = parse_kif("""(role r) (init s) (<= (legal r go) (true s)) (<= (next done) (true s))
        (<= (goal r 0) (true done)) (<= (goal r 100) (not (goal r 0))) (<= terminal (true done))""")
    machine = PerStateMachine(game)
    start = machine.initial_state()
    assert machine.goals(start) == (100,)
    assert machine.goals(machine.next_state(start, (parse_term("go"),))) == (0,)


def test_a_static_table_too_big_to_compute_is_refused_on_time_when_isolated() -> None:
    values = " ".join(f"(dom {n})" for n in range(100))
    game = parse_kif(f"""(role a) {values} (init (at 0)) (<= (big ?a ?b ?c ?d) (dom ?a) (dom ?b) (dom ?c) (dom ?d))
        (<= (legal a (go ?a)) (true (at 0)) (big ?a ?b ?c ?d)) (<= terminal (true (at 1))) (goal a 1)""", "big.kif")
    with pytest.raises(ReasonerError, match=r"big\.kif: grounding phase 'static' (exceeded the time limit|failed)"):
        PerStateMachine(game, GroundingLimits(seconds=1.5, memory_mb=1024))


def test_a_rule_with_many_filters_compiles_past_pythons_block_limit() -> None:
    filters = " ".join(f"(not (true (f{i})))" for i in range(40))
    game = parse_kif(f"(role a) (init s) (<= (legal a go) (true s) {filters}) (<= terminal (true t)) (goal a 1)")
    machine = PerStateMachine(game)
    assert [str(m) for m in machine.legal_moves(machine.initial_state(), parse_term("a"))] == ["go"]


def test_only_rules_that_depend_on_the_state_are_dynamic() -> None:
    game = parse_kif(TRICKY)
    dynamic = {name for name, _ in dynamic_relations(game.rules)}
    assert {"reach", "legal", "next", "moves", "builds", "sees", "terminal", "goal"} <= dynamic
    assert not {"edge", "other", "role", "init"} & dynamic
    program = compile_rules(game)
    assert ("edge", 2) in program.static and ("reach", 2) not in program.static


def test_two_threads_sharing_one_machine_with_a_tiny_cache_get_the_sequential_answers() -> None:
    machine = PerStateMachine(parse_kif(TRICKY), cache_size=3)

    def playout(seed: int) -> list[State]:
        rng, state, seen = random.Random(seed), machine.initial_state(), []
        for _ in range(25):
            joints = machine.legal_joint_moves(state)
            if machine.is_terminal(state) or not joints:
                break
            state = machine.next_state(state, rng.choice(joints))
            seen.append(state)
        return seen

    expected = {seed: playout(seed) for seed in range(6)}
    results: dict[int, list[State]] = {}

    def worker(seeds: range) -> None:
        for seed in seeds:
            results[seed] = playout(seed)

    threads = [threading.Thread(target=worker, args=(range(i, 6, 2),)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == expected


def test_a_zero_argument_term_is_the_constant_as_in_clingo() -> None:
    game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= (next (flag)) (true s)) "
                     "(<= terminal (true flag)) (goal a 100)")
    assert_agree(game, playouts=1, seed=0)
    machine = PerStateMachine(game)
    after = machine.next_state(machine.initial_state(), (parse_term("go"),))
    assert after.facts == frozenset({parse_term("flag")}) and machine.is_terminal(after)


def test_compact_values_round_trip() -> None:
    for text in ["a", "12", "(f a (g 1 b))", "(cell 1 1 x)"]:
        term = parse_term(text)
        assert to_term(to_value(term)) == term


def test_the_engine_registry_builds_the_per_state_machine() -> None:
    assert "per-state" in ENGINES
    game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
    assert isinstance(make_machine(game, "per-state"), PerStateMachine)
