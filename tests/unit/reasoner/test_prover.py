"""ProverMachine: the contract, agreement with the ground-once clingo engine, and tabled resolution's corners
(recursion through cycles, relations with no finite bottom-up extension, negative cycles, limits)."""

from __future__ import annotations

import inspect
import logging
import sys
from pathlib import Path

import pytest

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.files import load_kif
from ggp.gdl.parser import parse_kif, parse_term
from ggp.gdl.terms import Description
from ggp.reasoner import auto
from ggp.reasoner import prover as prover_module
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import GroundingLimits, State
from ggp.reasoner.prover import ProverMachine
from ggp.testing import check_state_machine
from tests.conftest import CORPUS, ROOT, kif_games, needs_shared
from tests.helpers.agreement import assert_agree as agree
from tests.prerequisites import missing
from tests.unit.reasoner.test_per_state import TRICKY

LOCAL = GroundingLimits(isolate=False)

SMALL_CORPUS_GAMES = ("tictactoe_3player", "nineBoardTicTacToe", "mummyMaze2p_2007", "kalah", "knightsTour", "sum15")
"""Corpus games that clingo grounds in about a second: recursion (mummyMaze2p_2007), arithmetic (kalah), locally
stratified goals (nineBoardTicTacToe), three roles, static geometry."""


def assert_agree(description: Description, playouts: int, seed: int, max_steps: int = 200) -> None:
    """The prover and clingo give the same legal moves, successors, percepts, terminal flags and goals."""
    agree(ProverMachine(description), ClingoStateMachine(description, LOCAL), playouts, seed, max_steps)


@pytest.mark.parametrize("path", kif_games(), ids=lambda p: Path(p).stem)
def test_the_prover_agrees_with_clingo_on_the_project_games(path: Path) -> None:
    assert_agree(load_kif(path), playouts=2, seed=1)


@pytest.mark.parametrize("path", needs_shared([CORPUS / f"{key}.kif" for key in SMALL_CORPUS_GAMES]),
                         ids=lambda p: Path(p).stem)
def test_the_prover_agrees_with_clingo_on_small_corpus_games(path: Path) -> None:
    assert_agree(load_kif(path), playouts=1, seed=2, max_steps=60)


def test_the_prover_passes_the_state_machine_contract() -> None:
    path = Path(__file__).resolve().parents[3] / "kif" / "ticTacToe" / "ticTacToe.kif"
    if not path.is_file():
        missing("kif/ticTacToe is not present")
    assert check_state_machine(ProverMachine(load_kif(path)), playouts=3, seed=3) > 5


def test_recursion_negation_or_and_nested_terms_agree_with_clingo() -> None:
    assert_agree(parse_kif(TRICKY, "tricky.kif"), playouts=6, seed=5, max_steps=30)


def test_left_and_right_recursion_through_a_cycle_reach_the_fixpoint() -> None:
    machine = ProverMachine(parse_kif(TRICKY))
    a = parse_term("a")

    def goes(*facts: str) -> set[str]:
        state = State(frozenset(parse_term(f) for f in ("(at a (pos 1))", "(at b (pos 3))", "(turn a)", *facts)))
        return {str(m) for m in machine.legal_moves(state, a) if str(m).startswith("(go")}

    assert goes() == {"(go (pos 2))", "(go (pos 3))", "(go (pos 4))"}  # around the cycle 1-2-3-4
    assert goes("(wall 3)") == {"(go (pos 2))"}
    assert goes("(wall 2)") == set()
    left = parse_kif("""(role a) (edge 1 2) (edge 2 3) (edge 3 1) (edge 3 4) (init (at 1))
        (<= (path ?x ?y) (edge ?x ?y)) (<= (path ?x ?y) (path ?x ?z) (edge ?z ?y))
        (<= (legal a (go ?y)) (true (at ?x)) (path ?x ?y)) (<= terminal (true (at 4))) (goal a 1)""")
    moves = ProverMachine(left).legal_moves(State(frozenset({parse_term("(at 2)")})), a)
    assert [str(m) for m in moves] == ["(go 1)", "(go 2)", "(go 3)", "(go 4)"]


LISTS = """(role a) (el x) (el y) (el z) (init (holds (cons x (cons y nil))))
(isList nil) (<= (isList (cons ?h ?t)) (el ?h) (isList ?t))
(<= (member ?e (cons ?e ?t)) (isList ?t)) (<= (member ?e (cons ?h ?t)) (member ?e ?t))
(<= (legal a (drop ?e)) (true (holds ?l)) (isList ?l) (member ?e ?l))
(<= (next (holds ?t)) (true (holds (cons ?h ?t))))
(<= terminal (true (holds nil))) (goal a 100)"""


def test_relations_without_a_finite_extension_are_answered_where_a_query_needs_them() -> None:
    # isList and member hold for infinitely many lists: bottom-up grounding cannot enumerate them.
    machine = ProverMachine(parse_kif(LISTS))
    state = machine.initial_state()
    assert [str(m) for m in machine.legal_moves(state, parse_term("a"))] == ["(drop x)", "(drop y)"]
    state = machine.next_state(state, (parse_term("(drop x)"),))
    state = machine.next_state(state, (parse_term("(drop y)"),))
    assert machine.is_terminal(state) and machine.goals(state) == (100,)


def test_illegal_and_wrong_length_joint_moves_are_refused() -> None:
    machine = ProverMachine(parse_kif(TRICKY, "tricky.kif"))
    start = machine.initial_state()
    with pytest.raises(IllegalMoveError, match=r"\(go \(pos 3\)\) is not a legal move for a"):
        machine.next_state(start, (parse_term("(go (pos 3))"), parse_term("noop")))
    with pytest.raises(IllegalMoveError, match="needs 2 moves"):
        machine.next_state(start, (parse_term("noop"),))
    with pytest.raises(ValueError, match="unknown role 'c'"):
        machine.legal_moves(start, parse_term("c"))


def test_a_negative_cycle_met_while_evaluating_is_a_reasoner_error() -> None:
    loop = "(role a) (init s) (<= (p ?x) (true ?x) (not (q ?x))) (<= (q ?x) (true ?x) (not (p ?x))) (<= (legal a go) (p s))"
    machine = ProverMachine(parse_kif(loop, "loop.kif"))
    with pytest.raises(ReasonerError, match=r"loop\.kif: \(\w s\) depends on its own negation"):
        machine.legal_moves(machine.initial_state(), parse_term("a"))


def test_negation_stratified_only_on_ground_atoms_is_solved() -> None:
    game = parse_kif("""(role r) (init s) (<= (legal r go) (true s)) (<= (next done) (true s))
        (<= (goal r 0) (true done)) (<= (goal r 100) (not (goal r 0))) (<= terminal (true done))""")
    machine = ProverMachine(game)
    start = machine.initial_state()
    assert machine.goals(start) == (100,)
    assert machine.goals(machine.next_state(start, (parse_term("go"),))) == (0,)


def test_a_query_that_never_ends_stops_at_the_answer_limit_with_one_line() -> None:
    game = parse_kif("""(role a) (init s) (nat 0) (<= (nat (succ ?x)) (nat ?x))
        (<= (legal a (go ?x)) (true s) (nat ?x)) (<= terminal (true t)) (goal a 1)""", "nat.kif")
    machine = ProverMachine(game, GroundingLimits(max_atoms=300))
    with pytest.raises(ReasonerError, match=r"^nat\.kif: the prover stopped a query after more than 300 answers"):
        machine.legal_moves(machine.initial_state(), parse_term("a"))
    slow = ProverMachine(game, GroundingLimits(seconds=0.5))
    with pytest.raises(ReasonerError, match=r"^nat\.kif: the prover stopped a query after \d+\.\d s \(limits: "):
        slow.legal_moves(slow.initial_state(), parse_term("a"))
    # The machine stays usable: a later query on another state starts from clean tables.
    assert machine.is_terminal(State(frozenset({parse_term("t")})))


def test_a_zero_argument_term_is_the_constant_as_in_clingo() -> None:
    game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= (next (flag)) (true s)) "
                     "(<= terminal (true flag)) (goal a 100)")
    assert_agree(game, playouts=1, seed=0)


def test_the_engine_registry_builds_the_prover() -> None:
    game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
    machine = make_machine(game, "prover")
    assert isinstance(machine, ProverMachine)


GROUPS = """(role a) (init (stone 1)) (init (stone 2)) (init (free 3))
(adjacent 1 2) (adjacent 2 1) (adjacent 2 3) (adjacent 3 2)
(<= (liberty ?x) (true (stone ?x)) (adjacent ?x ?y) (liberty ?y))
(<= (liberty ?x) (true (stone ?x)) (adjacent ?x ?y) (true (free ?y)))
(<= (legal a wait) (liberty 2)) (<= (next (stone ?x)) (true (stone ?x)))
(<= terminal (true (stone 1)) (not (liberty 1))) (goal a 0)"""


def test_a_cycle_member_that_met_a_ground_call_before_its_answer_is_evaluated_again() -> None:
    # legal asks liberty 2, which asks liberty 1, which asks liberty 2 (no answer yet) and fails; then
    # liberty 2 finds the free point 3. liberty 1 must not be left final without its answer.
    machine = ProverMachine(parse_kif(GROUPS))
    state = machine.initial_state()
    assert [str(m) for m in machine.legal_moves(state, parse_term("a"))] == ["wait"]
    assert not machine.is_terminal(state)
    assert_agree(parse_kif(GROUPS), playouts=1, seed=0, max_steps=2)


def test_auto_falls_back_to_the_prover_when_grounding_and_the_per_state_engine_fail(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # isList has no finite extension: neither the ground-once nor the per-state child can ground it.
    monkeypatch.setattr(auto, "_FAILED", {})
    monkeypatch.setattr(auto, "_PER_STATE_FAILED", {})
    limits = GroundingLimits(seconds=1.5, memory_mb=1024)
    with caplog.at_level(logging.INFO, logger="ggp.reasoner"):
        machine = auto.choose_machine(parse_kif(LISTS, "lists.kif"), limits, budget_seconds=1.0)
    assert isinstance(machine, ProverMachine)
    assert "the per-state engine cannot play this game" in caplog.text
    assert "reasoner engine prover" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ggp.reasoner"):  # a second match of the game: no children
        assert isinstance(auto.choose_machine(parse_kif(LISTS, "lists.kif"), limits, budget_seconds=1.0), ProverMachine)
    assert "failed earlier in this process" in caplog.text and "probe failed earlier" in caplog.text
    assert machine.limits.seconds == 1.5  # the probe's own per-query limit is not kept
    assert [str(m) for m in machine.legal_moves(machine.initial_state(), parse_term("a"))] == ["(drop x)", "(drop y)"]


def test_a_recursion_deeper_than_python_allows_is_one_reasoner_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    chain = " ".join(f"(succ {i} {i + 1})" for i in range(400))
    game = parse_kif(f"""(role a) (init s) {chain} (reach 0) (<= (reach ?x) (succ ?y ?x) (reach ?y))
        (<= (legal a go) (true s) (reach 400)) (<= terminal (true t)) (goal a 1)""", "chain.kif")
    machine = ProverMachine(game)
    limit = sys.getrecursionlimit()
    # Far less than 400 levels of rules need.
    monkeypatch.setattr(prover_module, "_RECURSION_LIMIT", len(inspect.stack()) + 200)
    with pytest.raises(ReasonerError, match=r"^chain\.kif: the prover's recursion went deeper than"):
        machine.legal_moves(machine.initial_state(), parse_term("a"))
    assert sys.getrecursionlimit() == limit
    monkeypatch.undo()
    assert [str(m) for m in machine.legal_moves(machine.initial_state(), parse_term("a"))] == ["go"]


def test_the_deep_recursion_limit_holds_only_while_a_query_runs() -> None:
    """Deep C recursion (json on 100,000 brackets) must still raise RecursionError after the prover ran:
    under the prover's raised limit it would overflow the C stack and crash the process."""
    import json

    limit = sys.getrecursionlimit()
    machine = ProverMachine(load_kif(ROOT / "kif" / "ticTacToe" / "ticTacToe.kif"))
    assert machine.legal_moves(machine.initial_state(), parse_term("xplayer"))
    assert sys.getrecursionlimit() == limit
    with pytest.raises(RecursionError):
        json.loads("[" * 100_000)


def test_auto_plays_a_game_on_the_prover_when_the_grounded_machine_is_many_times_slower_per_step(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """The speed check of ``auto``: a grounded machine over the slow-step threshold is timed against the
    prover, the faster by the required factor plays, and the verdict is kept for the game."""
    game = parse_kif((ROOT / "kif" / "ticTacToe" / "ticTacToe.kif").read_text(), "ticTacToe.kif")
    limits = GroundingLimits(isolate=False)
    monkeypatch.setattr(auto, "_PREFER", {})
    monkeypatch.setattr(auto, "_per_state_or_none", lambda game, limits: None)  # the prover alone (see below)
    monkeypatch.setattr(auto, "SLOW_STEP_SECONDS", float("inf"))  # fast enough: no timing of the prover
    assert not isinstance(auto.choose_machine(game, limits), ProverMachine)
    assert auto._PREFER[game] == "grounded"
    monkeypatch.setattr(auto, "_PREFER", {})
    monkeypatch.setattr(auto, "SLOW_STEP_SECONDS", 0.0)  # every grounded step counts as slow
    monkeypatch.setattr(auto, "PROVER_SPEEDUP", 0.0)  # and the prover as fast enough
    with caplog.at_level(logging.INFO, logger="ggp.reasoner.auto"):
        machine = auto.choose_machine(game, limits)
    assert isinstance(machine, ProverMachine)
    assert "ms grounded (clingo)" in caplog.text and "playing with the prover" in caplog.text
    monkeypatch.setattr(auto, "PROVER_SPEEDUP", float("inf"))  # the verdict stands for the game
    assert isinstance(auto.choose_machine(game, limits), ProverMachine)
    assert [str(m) for m in machine.legal_moves(machine.initial_state(), parse_term("xplayer"))][:2] == [
        "(mark 1 1)", "(mark 1 2)"]
    monkeypatch.setattr(auto, "_PREFER", {})  # a prover slower than the factor asks: grounded
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ggp.reasoner.auto"):
        assert not isinstance(auto.choose_machine(game, limits), ProverMachine)
    assert "playing with the grounded machine" in caplog.text


def test_auto_plays_a_game_on_the_prover_when_the_per_state_reasoner_is_many_times_slower_per_step(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """A game that did not ground within the limits goes to the per-state reasoner, which
    gets the grounded machine's speed check: the prover plays when it is the required factor faster
    (chineseCheckers3 on a loaded machine was played per state at 254 ms a step, every reply late)."""
    from ggp.reasoner.per_state import PerStateMachine

    game = parse_kif((ROOT / "kif" / "ticTacToe" / "ticTacToe.kif").read_text(), "ticTacToe.kif")
    limits = GroundingLimits()
    for attr in ("_PER_STATE_FAILED", "_PREFER"):
        monkeypatch.setattr(auto, attr, {})
    # As if grounding had run out of time earlier in this process: auto goes to the per-state reasoner.
    monkeypatch.setattr(auto, "_FAILED", {game: (GroundingLimits(seconds=1e9, max_atoms=10**12), "timed out")})
    monkeypatch.setattr(auto, "SLOW_STEP_SECONDS", 0.0)  # every per-state step counts as slow
    monkeypatch.setattr(auto, "PROVER_SPEEDUP", 0.0)  # and the prover as fast enough
    with caplog.at_level(logging.INFO, logger="ggp.reasoner.auto"):
        machine = auto.choose_machine(game, limits)
    assert isinstance(machine, ProverMachine)
    assert "ms per-state" in caplog.text and "playing with the prover" in caplog.text
    monkeypatch.setattr(auto, "PROVER_SPEEDUP", float("inf"))  # a prover slower than the factor asks
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ggp.reasoner.auto"):
        assert isinstance(auto.choose_machine(game, limits), PerStateMachine)
    assert "playing with the per-state machine" in caplog.text
    monkeypatch.setattr(auto, "SLOW_STEP_SECONDS", float("inf"))  # fast enough: no timing at all
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ggp.reasoner.auto"):
        assert isinstance(auto.choose_machine(game, limits), PerStateMachine)
    assert "on the prover" not in caplog.text


def test_auto_plays_a_slow_grounded_game_on_the_faster_of_the_per_state_reasoner_and_the_prover(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """checkers: clingo 71 ms a step, the prover 3.8 ms, the per-state reasoner 0.55 ms; the per-state
    reasoner plays (before, only the prover was timed, and checkers played 7x slower than it could)."""
    from ggp.reasoner.per_state import PerStateMachine

    game = parse_kif((ROOT / "kif" / "ticTacToe" / "ticTacToe.kif").read_text(), "ticTacToe.kif")
    limits = GroundingLimits(isolate=False)
    monkeypatch.setattr(auto, "_PREFER", {})
    seconds = {PerStateMachine: 0.00055, ProverMachine: 0.0038}
    monkeypatch.setattr(auto, "_step_seconds", lambda machine: seconds.get(type(machine), 0.071))
    with caplog.at_level(logging.INFO, logger="ggp.reasoner.auto"):
        machine = auto.choose_machine(game, limits)
    assert isinstance(machine, PerStateMachine) and auto._PREFER[game] == "per-state"
    assert "71.00 ms grounded (clingo), 0.55 ms per-state, 3.80 ms prover: playing with the per-state machine" in caplog.text
    assert isinstance(auto.choose_machine(game, limits), PerStateMachine)  # the verdict stands for the game
    monkeypatch.setattr(auto, "_PREFER", {})
    seconds[PerStateMachine] = 0.05  # slower than the prover: the prover plays
    assert isinstance(auto.choose_machine(game, limits), ProverMachine) and auto._PREFER[game] == "prover"
    monkeypatch.setattr(auto, "_PREFER", {})
    seconds[ProverMachine] = 0.05  # neither is 3x faster: grounded
    assert not isinstance(auto.choose_machine(game, limits), PerStateMachine | ProverMachine)
    assert auto._PREFER[game] == "grounded"
