"""Rule decomposition (ggp.reasoner.decompose) keeps every relation's meaning and shrinks groundings."""

from __future__ import annotations

import clingo
import pytest

from ggp.gdl.parser import parse_kif
from ggp.gdl.terms import Rule
from ggp.reasoner.asp import rules_to_asp
from ggp.reasoner.decompose import decompose_rules
from ggp.reasoner.relations import literal_vars

FACTS = """(num 1) (num 2) (num 3) (num 4) (succ 1 2) (succ 2 3) (succ 3 4)
(e 1 2) (e 2 3) (e 3 1) (e 4 4) (t 2) (t 3) (c 1 a) (c 2 b) (c 3 a) (mark a) (mark b)
"""

PROGRAMS = {
    # A variable outside the head joined with only part of the body (hex's next connected).
    "projection": "(<= (h ?k ?x) (t ?e) (e ?e ?x) (num ?k))",
    # A negated literal whose variable is bound only by another literal: the binder moves with it.
    "safety": "(<= (h ?x) (num ?x) (e ?x ?y) (not (t ?y)) (c ?z ?m) (distinct ?z ?y))",
    # distinct, or, constants and a head without variables.
    "or": "(<= h (e ?x ?y) (or (t ?y) (c ?y b)) (distinct ?x 4) (succ ?x ?w) (num ?w))",
    # Positive recursion through a split body, and negation of the recursive relation afterwards.
    "recursion": "(<= (r ?x ?y) (e ?x ?y)) (<= (r ?x ?z) (r ?x ?y) (e ?y ?z) (num ?w) (succ ?w ?v))"
                 "(<= (h ?x) (num ?x) (not (r ?x 4)))",
    # A long chain: four variables outside the head.
    "chain": "(<= (h ?a) (succ ?a ?b) (succ ?b ?c) (e ?c ?d) (c ?d ?m) (mark ?m))",
}


def _model(rules: tuple[Rule, ...]) -> set[str]:
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], rules_to_asp(rules))
    ctl.ground([("base", [])])
    with ctl.solve(yield_=True) as handle:
        model = next(iter(handle))
        return {str(symbol) for symbol in model.symbols(atoms=True) if "~" not in symbol.name
                and not symbol.name.startswith("ggp_x")}


def _ground_rules(rules: tuple[Rule, ...]) -> int:
    counted = []

    class Observer:
        def rule(self, choice: bool, head: list[int], body: list[int]) -> None:
            counted.append(1)

    ctl = clingo.Control(["--warn=none"])
    ctl.register_observer(Observer())  # type: ignore[arg-type]  # duck-typed, as clingo documents
    ctl.add("base", [], rules_to_asp(rules) + "\n#external p(X) : num(X).")  # p is not known while grounding
    ctl.ground([("base", [])])
    return len(counted)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_split_rules_have_the_same_model(name: str) -> None:
    rules = parse_kif(FACTS + PROGRAMS[name]).rules
    split = decompose_rules(rules)
    assert len(split) > len(rules)  # something was split ...
    assert _model(split) == _model(rules)  # ... and every original relation holds exactly as before
    assert any(symbol.startswith("h") for symbol in _model(rules))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_split_rule_is_safe(name: str) -> None:
    for rule in decompose_rules(parse_kif(FACTS + PROGRAMS[name]).rules):
        positive = set().union(*(literal_vars(lit) for lit in rule.body if not str(lit).startswith(("(not", "(distinct"))))
        assert literal_vars(rule.head) | set().union(*(literal_vars(lit) for lit in rule.body)) <= positive | (
            set() if rule.body else literal_vars(rule.head)), rule


def test_a_variable_meeting_the_head_nowhere_no_longer_multiplies_the_grounding() -> None:
    numbers = " ".join(f"(num {i})" for i in range(40))
    game = parse_kif(numbers + " (<= (h ?k ?x) (p ?e) (p ?x) (distinct ?e ?x) (p ?k))")
    split = decompose_rules(game.rules)
    assert _ground_rules(game.rules) > 40 * 40 * 39  # every (k, x, e)
    assert _ground_rules(split) < 3 * 40 * 40  # (x, e) once, then (k, x)


def test_rules_without_a_split_are_kept_as_they_are() -> None:
    rules = parse_kif("(<= (h ?x ?y) (e ?x ?y) (not (t ?y))) (<= (g ?x) (t ?x)) (t 1) (e 1 1)").rules
    assert decompose_rules(rules) == rules
