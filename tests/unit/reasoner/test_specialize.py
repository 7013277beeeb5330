"""Call-pattern specialisation (ggp.reasoner.specialize): same answers, fewer tuples."""

from __future__ import annotations

from pathlib import Path

from ggp.files import load_kif
from ggp.gdl.parser import parse_kif
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.prover import ProverMachine
from ggp.reasoner.relations import dynamic_relations, relation_key, to_value
from ggp.reasoner.rulecode import compile_rules
from ggp.reasoner.specialize import MAX_PATTERNS, specialize_calls
from tests.helpers.agreement import assert_agree

LOCAL = GroundingLimits(isolate=False)

# Calls with constants (plain, nested in a function term, all-ground, negated), a call no head unifies
# with (positive: the rule never fires; negated: always true), a chain of copies (terminal -> goal ->
# count), a recursive relation (left alone), a call inside `or` (left alone) and a static table.
GAME = """
(role red) (role blue)
(init (cell 1 red)) (init (cell 2 blank)) (init (cell 3 blue)) (init (cell 4 blank)) (init (control red))
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(adj 1 2) (adj 2 3) (adj 3 4) (adj 4 1)
(<= (legal ?p (move ?x ?y)) (true (control ?p)) (true (cell ?x ?p)) (adj ?x ?y) (true (cell ?y blank)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (legal ?p wait) (true (control ?p)) (not (mobile ?p)))
(<= (mobile ?p) (legal ?p (move ?x ?y)))
(<= (next (cell ?y ?p)) (does ?p (move ?x ?y)))
(<= (next (cell ?x blank)) (does ?p (move ?x ?y)))
(<= (next (cell ?z ?c)) (true (cell ?z ?c)) (does ?p (move ?x ?y)) (distinct ?z ?x) (distinct ?z ?y))
(<= (next (cell ?z ?c)) (true (cell ?z ?c)) (does ?p wait))
(<= (next (control blue)) (true (control red)))
(<= (next (control red)) (true (control blue)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (count ?x ?y ?p 100) (true (cell ?x ?p)) (true (cell ?y ?p)))
(<= (count ?x ?y ?p 50) (true (cell ?x ?p)) (true (cell ?y blank)))
(<= (count ?x ?y ?p 50) (true (cell ?x blank)) (true (cell ?y ?p)))
(<= (count ?x ?y ?p 0) (true (cell ?x blank)) (true (cell ?y blank)) (role ?p))
(<= (owner (sq ?x) ?p) (true (cell ?x ?p)))
(<= (path ?x ?y) (true (cell ?x ?p)) (adj ?x ?y) (true (cell ?y ?p)))
(<= (path ?x ?z) (path ?x ?y) (path ?y ?z))
(<= (goal red ?v) (count 2 3 red ?v))
(<= (goal blue ?v) (count 4 1 blue ?v) (not (owner (sq 1) blue)))
(<= (goal blue 25) (owner (sq 1) blue))
(<= (goal ?p 10) (role ?p) (owner (pt 9) ?p))
(<= (goal red 5) (not (owner (pt 9) red)) (path 1 3))
(<= (goal blue 5) (or (owner (sq 2) red) (path 3 1)))
(<= terminal (goal ?p 100))
(<= terminal (true (step 6)))
"""


def test_specialised_rules_give_clingo_s_answers() -> None:
    game = parse_kif(GAME, "special.kif")
    assert_agree(PerStateMachine(game), ClingoStateMachine(game, LOCAL), playouts=30, seed=4, max_steps=8)


def test_calls_with_constants_use_copies_and_the_rest_is_left_alone() -> None:
    game = parse_kif(GAME, "special.kif")
    rules = specialize_calls(game.rules, dynamic_relations(game.rules))
    texts = {str(rule) for rule in rules}
    names = {relation_key(rule.head)[0] for rule in rules}
    # goal calls count with three constants: a copy with the constants in place.
    assert "(<= (goal red ?v) (count@2@3@red ?v))" in texts
    assert "(<= (count@2@3@red 100) (true (cell 2 red)) (true (cell 3 red)))" in texts
    # terminal's (goal ?p 100) chains down: goal@100 calls count with four constants.
    assert "(<= terminal (goal@100 ?p))" in texts and "count@2@3@red@100" in names
    # (owner (pt 9) ?p) matches no rule head: the positive call drops its rule, the negated one goes.
    assert not any("(pt 9)" in text for text in texts) and "(<= (goal ?p 10)" not in " ".join(texts)
    assert "(<= (goal red 5) (path 1 3))" in texts
    # The recursive relation, the `or` and the static table keep their calls.
    assert "path@1@3" not in names and any("(or " in text for text in texts) and "adj" in names
    # The original rules stay for the outputs.
    assert "(<= (goal red ?v) (count 2 3 red ?v))" not in texts
    assert any(relation_key(rule.head) == ("count", 4) for rule in rules)


def test_a_relation_is_specialised_for_at_most_max_patterns_calls() -> None:
    calls = " ".join(f"(<= (goal r {i}) (p {i}))" for i in range(MAX_PATTERNS + 5))
    game = parse_kif(f"(role r) (<= (p ?x) (true (c ?x))) {calls}", "many.kif")
    rules = specialize_calls(game.rules, dynamic_relations(game.rules))
    copies = {relation_key(rule.head)[0] for rule in rules if relation_key(rule.head)[0].startswith("p@")}
    assert len(copies) == MAX_PATTERNS
    assert sum(1 for rule in rules if str(rule).endswith(f"(p {MAX_PATTERNS}))")) == 1  # past the cap: the general call


def test_chinese_checkers_goal_no_longer_joins_every_cell_triple(shared_dir: Path) -> None:
    # Before, a state's goal evaluation built ~240,000 count tuples (blank cells included); the copies
    # read three cells per role. The per-state machine still agrees with the prover (itself checked
    # against clingo in test_prover; clingo needs 10 s to ground this game) along playouts.
    path = shared_dir / "gdl-corpus" / "chineseCheckers3.kif"
    game = load_kif(path)
    program = compile_rules(game)
    state = PerStateMachine(game).initial_state()
    derived = program.query("state", frozenset(to_value(fact) for fact in state.facts), ())
    assert sum(len(rows) for rows in derived.values()) < 5_000
    assert_agree(PerStateMachine(game), ProverMachine(game, LOCAL), playouts=2, seed=1, max_steps=60)
