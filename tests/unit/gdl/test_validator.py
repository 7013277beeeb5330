"""The static validator: one small broken game per check, the graph helper, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.errors import GdlError, GdlValidationError, SourcePos
from ggp.gdl.dependencies import dependency_graph
from ggp.gdl.parser import parse_kif
from ggp.gdl.terms import Const, Description, Func, Not, Or, Rule, Var
from ggp.gdl.validator import CHECKS, Finding, check_or_raise, validate
from tests.strategies import well_formed_games

# A complete, clean game: 8 lines, so a snippet appended below starts on line 9.
GAME = """\
(role x)
(init (c 1))
(base (c 1))
(input x a)
(<= (legal x a) (true (c 1)))
(<= (next (c 1)) (does x a))
(<= terminal (true (c 1)))
(goal x 100)
"""


def findings_of(snippet: str, *, strict: bool = False) -> list[Finding]:
    return validate(parse_kif(GAME + snippet, "game.kif"), strict=strict)


def positions(findings: list[Finding], check: str, severity: str = "error") -> list[tuple[int, int]]:
    return [
        (f.pos.line, f.pos.column) for f in findings
        if f.check == check and f.severity == severity and f.pos is not None
    ]


def test_the_base_game_is_clean() -> None:
    assert validate(parse_kif(GAME)) == []


# (check id, severity, snippet appended at line 9, expected positions of that check's findings)
CASES = [
    ("arity", "error", "(<= (legal x) (true (c 1)))", [(9, 1)]),
    ("arity", "error", "(<= terminal (true (c 1) (c 1)))", [(9, 1)]),
    ("arity", "error", "(<= (terminal 1) (true (c 1)))", [(9, 1)]),
    ("arity", "error", "(<= (sees x) (true (c 1)))", [(9, 1)]),
    ("arity", "error", "(<= (sees x y z) (true (c 1)))", [(9, 1)]),
    ("reserved", "error", "(init (c not))", [(9, 1)]),
    ("reserved", "error", "(<= terminal (distinct 1))", [(9, 1)]),
    ("reserved", "error", "(<= terminal or)", [(9, 1)]),
    ("keyword-function", "error", "(init (c (true 1)))", [(9, 1)]),
    ("keyword-function", "error", "(<= (legal x (does x a)) (true (c 1)))", [(9, 1)]),
    ("keyword-constant", "warning", "\n  (init (c terminal))", [(10, 3)]),
    ("role", "error", "(<= (role y) (true (c 1)))", [(9, 1)]),
    ("placement", "error", "(true (c 1))", [(9, 1)]),
    ("placement", "error", "(<= (does x a) (true (c 1)))", [(9, 1)]),
    ("placement", "error", "(<= terminal (init (c 1)))", [(9, 1)]),
    ("placement", "error", "(<= terminal (next (c 1)))\n(<= terminal (base (c 1)))\n(<= terminal (input x a))",
     [(9, 1), (10, 1), (11, 1)]),
    ("placement", "error", "(<= terminal (sees x (c 1)))", [(9, 1)]),
    ("placement", "error", "(<= (not (c 1)) (true (c 1)))", [(9, 1)]),
    ("dependency", "error", "(<= (init (c 2)) (true (c 1)))", [(9, 1)]),
    ("dependency", "error", "(<= (base (c 2)) (h))\n(<= (h) (does x a))", [(9, 1)]),
    ("dependency", "error", "(<= (legal x b) (moved))\n(<= (moved) (does x a))", [(9, 1)]),
    ("dependency", "error", "(<= (goal x 0) (not (does x a)))", [(9, 1)]),
    ("dependency", "error", "(<= terminal (or (true (c 1)) (does x a)))", [(9, 1)]),
    ("negation", "error", "(<= terminal (not (not (true (c 1)))))", [(9, 1)]),
    ("negation", "error", "(<= terminal (true (c 1)) (not (distinct 1 2)))", [(9, 1)]),
    ("safety", "error", "(<= (legal x ?m) (true (c 1)))", [(9, 1)]),
    ("safety", "error", "(<= (legal x a) (true (c ?v)) (not (true (d ?w))))", [(9, 1)]),
    ("safety", "error", "(<= (legal x a) (true (c ?v)) (distinct ?v ?w))", [(9, 1)]),
    ("safety", "error", "(<= (legal x ?m) (or (true (c ?m)) (true (d 1))))", [(9, 1)]),
    ("safety", "error", "(<= (legal x ?m) (true (c ?m)))\n  (<= (legal ?r ?m) (true (c ?m)))", [(10, 3)]),
    ("stratification", "error", "(<= (p 1) (not (q 1)))\n(<= (q ?x) (p ?x))\n(<= terminal (q 1))", [(9, 1)]),
    ("stratification", "error", "(<= p (not q))\n(<= q (not p))\n(<= terminal p)", [(9, 1), (10, 1)]),
    ("stratification", "warning", "(<= (goal x 0) (not (goal x 100)))", [(9, 1)]),
    ("stratification", "warning", "(<= (p ?x) (r ?x ?y) (not (p ?y)))\n(r a b)\n(<= terminal (p a))", [(9, 1)]),
    ("recursion", "error", "(<= (p 1) (true (c 1)))\n(<= (p (s ?x)) (p ?x))\n(<= terminal (p 2))", [(10, 1)]),
    ("recursion", "error",
     "(<= (p ?x) (true (c ?x)))\n(<= (p ?y) (p (f ?y)) (true (c ?y)))\n(<= terminal (p 2))", [(10, 1)]),
    ("fact-variables", "error", "(init (c ?x))", [(9, 1)]),
    ("unknown-keyword", "error", "(<= terminal (and (true (c 1)) (true (c 1))))", [(9, 1)]),
    ("unknown-keyword", "error", "(=> (true (c 1)) terminal)\n(<= (legal x b) (exists ?y (true (c ?y))))",
     [(9, 1), (10, 1)]),
    ("unknown-keyword", "error", "(<= terminal (true (c 1)) (forall ?y (true (c ?y))))\n(<=> p q)",
     [(9, 1), (10, 1)]),
    ("goal-value", "error", "(goal x win)", [(9, 1)]),
    ("goal-value", "error", "(goal x (f 1))", [(9, 1)]),
    ("goal-value", "warning", "(goal x 200)\n(goal x -5)", [(9, 1), (10, 1)]),
    ("duplicate-role", "error", "(role x)", [(9, 1)]),
    ("arity-mismatch", "warning", "(<= terminal (true (c 1 2)))", [(9, 1)]),
    ("arity-mismatch", "warning", "(p 1)\n(<= terminal (p 1 2))\n(<= terminal (p 1))", [(10, 1)]),
    ("relation-function", "warning", "(c 1)\n(<= terminal (c 1))", [(2, 1)]),
    ("charset", "warning", "(init (c 1.5))", [(9, 1)]),
    ("charset", "warning", "(<= terminal (true (c ?x*)))", [(9, 1)]),
    ("capitalisation", "warning", "(INIT (c 2))", [(2, 2)]),
    ("zero-arity-parens", "warning", "(<= terminal (true (c 1)) (p))\np", [(9, 28)]),
    ("nested-or", "warning", "(<= terminal (or (or (true (c 1)))))", [(9, 1)]),
    ("empty-or", "warning", "(<= terminal (or))", [(9, 1)]),
    ("empty-body", "warning", "(<= (init (c 2)))", [(9, 1)]),
    ("undefined", "warning", "(<= terminal (q 1))", [(9, 1)]),
    ("unused", "warning", "(q 1)", [(9, 1)]),
    ("duplicate-rule", "warning", "(goal x 100)", [(9, 1)]),
]


@pytest.mark.parametrize(("check", "severity", "snippet", "expected"), CASES,
                         ids=[f"{case[0]}-{i}" for i, case in enumerate(CASES)])
def test_each_check_reports_the_broken_sentence(
    check: str, severity: str, snippet: str, expected: list[tuple[int, int]]
) -> None:
    findings = findings_of(snippet)
    assert positions(findings, check, severity) == expected, "\n".join(map(str, findings))
    assert all(f.pos is not None and f.pos.file == "game.kif" for f in findings)


def test_a_locally_stratified_goal_is_a_warning_and_an_error_when_strict() -> None:
    # hidato, majorities, hex: the loser's goal is the negation of the winner's.
    snippet = "(<= (goal x 0) (not (goal x 100)))"
    default = [f for f in findings_of(snippet) if f.check == "stratification"]
    assert [f.severity for f in default] == ["warning"]
    assert "locally stratified" in default[0].message and "(not (goal x 100))" in default[0].message
    strict = [f for f in findings_of(snippet, strict=True) if f.check == "stratification"]
    assert [f.severity for f in strict] == ["error"]
    check_or_raise(parse_kif(GAME + snippet))  # only a warning: the game is accepted


def test_a_ground_negative_cycle_is_an_error_that_prints_the_cycle() -> None:
    findings = [f for f in findings_of("(<= p (not q))\n(<= q (not p))\n(<= terminal p)") if f.check == "stratification"]
    assert [(f.severity, f.message) for f in findings] == [
        ("error", "a ground atom of 'p' depends on its own negation: p <- not q <- not p"),
        ("error", "a ground atom of 'q' depends on its own negation: q <- not p <- not q"),
    ]
    with pytest.raises(GdlValidationError, match=r"game.kif:9:1: .*p <- not q <- not p"):
        check_or_raise(parse_kif(GAME + "(<= p (not q))\n(<= q (not p))\n(<= terminal p)", "game.kif"))


def test_a_cycle_through_variables_that_closes_on_ground_atoms_is_an_error() -> None:
    # (q ?x) is only ever needed as (q 1): unification grounds the whole cycle.
    findings = findings_of("(<= (p 1) (not (q 1)))\n(<= (q ?x) (p ?x))\n(<= terminal (q 1))")
    errors = [f.message for f in findings if f.check == "stratification" and f.severity == "error"]
    assert errors == ["a ground atom of 'p' depends on its own negation: (p 1) <- not (q 1) <- (p 1)"]


def test_every_check_is_documented_and_exercised_here() -> None:
    exercised = {case[0] for case in CASES} | {"missing", "no-base-input"}
    assert exercised == set(CHECKS)


def test_missing_keywords_are_errors_at_the_start_of_the_file() -> None:
    findings = validate(parse_kif("(rol x)\n(init (c 1))", "g.kif"))
    missing = sorted(f.message for f in findings if f.check == "missing")
    assert missing == [
        "the game has no (role ...) fact",
        "the game has no rule or fact for 'goal'",
        "the game has no rule or fact for 'legal'",
        "the game has no rule or fact for 'terminal'",
    ]
    assert all(f.pos == SourcePos("g.kif", 1, 1) for f in findings if f.check == "missing")
    unused = [f for f in findings if f.check == "unused"]
    assert len(unused) == 1 and "did you mean 'role'?" in unused[0].message


def test_a_kif_operator_gives_one_error_and_no_follow_on_warnings() -> None:
    findings = findings_of("(<= terminal (and (true (c 1)) (p 1)))\n(=> (true (c 1)) terminal)")
    assert [(f.severity, f.check, f.pos.line if f.pos else None) for f in findings] == [
        ("error", "unknown-keyword", 9), ("error", "unknown-keyword", 10),
    ]
    assert findings[0].message == (
        "'and' is not a GDL keyword: a rule body is already a conjunction: list the literals directly"
    )


def test_missing_base_and_input_is_only_a_warning() -> None:
    text = "".join(line + "\n" for line in GAME.splitlines() if not line.startswith(("(base", "(input")))
    findings = validate(parse_kif(text))
    assert [(f.severity, f.check) for f in findings] == [("warning", "no-base-input")]


def test_goal_values_outside_0_to_100_are_errors_when_strict() -> None:
    assert positions(findings_of("(goal x 200)", strict=True), "goal-value") == [(9, 1)]
    assert positions(findings_of("(goal x 200)"), "goal-value") == []


def test_goal_values_from_variables_are_not_judged() -> None:
    assert findings_of("(score 7)\n(<= (goal x ?v) (score ?v))") == []


def test_or_binds_a_variable_only_when_every_disjunct_binds_it() -> None:
    assert findings_of("(<= (legal x ?m) (or (true (c ?m)) (true (d ?m))) (distinct ?m 2))") == []
    assert positions(findings_of("(<= (legal x ?m) (or (true (c ?m)) (not (true (d ?m)))))"), "safety") == [(9, 1)]


def test_recursion_through_a_non_recursive_atom_is_allowed() -> None:
    snippet = (
        "(succ 1 2)\n(succ 2 3)\n(<= (lt ?x ?y) (succ ?x ?y))\n"
        "(<= (lt ?x ?z) (succ ?x ?y) (lt ?y ?z))\n(<= terminal (lt 1 3))"
    )
    assert findings_of(snippet) == []


def test_gdl_ii_sees_and_the_random_role_are_legal() -> None:
    snippet = "(role random)\n(<= (legal random a) (true (c 1)))\n(<= (sees ?r (c 1)) (role ?r) (does x a))"
    assert findings_of(snippet) == []


def test_every_problem_is_reported_at_once() -> None:
    snippet = "(true (c 1))\n(init (c ?x))\n(<= (legal x ?m) (true (c 1)))"
    checks = [f.check for f in findings_of(snippet) if f.severity == "error"]
    assert checks == ["placement", "fact-variables", "safety"]


def test_a_finding_prints_as_one_line_with_position_and_shortened_rule() -> None:
    long_rule = "(<= (legal x ?m) " + " ".join(f"(true (cell {i} {i}))" for i in range(20)) + ")"
    finding = next(f for f in findings_of(long_rule) if f.check == "safety")
    text = str(finding)
    assert "\n" not in text
    assert text.startswith("game.kif:9:1: error[safety]: unsafe variable '?m'")
    assert text.endswith("...") and "  in: (<= (legal x ?m) (true (cell 0 0))" in text
    assert str(Finding("warning", "s7", "no win for 'x'")) == "warning[s7]: no win for 'x'"


def test_control_characters_are_escaped_in_the_printed_line() -> None:
    finding = next(f for f in findings_of("(unused \x1b[31m\x7fx)") if f.check == "unused")
    assert str(finding).endswith("  in: (unused \\x1b[31m\\x7fx)")
    assert str(Finding("error", "syntax", "bad\rline")) == "error[syntax]: bad\\rline"


def test_findings_come_sorted_by_position() -> None:
    findings = findings_of("(q 1)\n(<= (legal x ?m) (true (c 1)))\n(init (c ?x))")
    keys = [(f.pos.line, f.pos.column) for f in findings if f.pos is not None]
    assert keys == sorted(keys)


def test_check_or_raise_raises_the_first_error_and_returns_warnings() -> None:
    with pytest.raises(GdlValidationError) as caught:
        check_or_raise(parse_kif(GAME + "(q 1)\n(init (c ?x))\n(<= (legal x ?m) (true (c 1)))", "g.kif"))
    assert caught.value.pos == SourcePos("g.kif", 10, 1)
    assert str(caught.value).startswith("g.kif:10:1: fact contains variables")
    warnings = check_or_raise(parse_kif(GAME + "(q 1)"))
    assert [w.check for w in warnings] == ["unused"]


def test_dependency_graph_records_negative_edges_and_components() -> None:
    graph = dependency_graph(parse_kif("(<= (p ?x) (q ?x) (not (r ?x)))\n(<= (q ?x) (p ?x))\n(<= (r 1) (or s t))"))
    assert graph.nodes == frozenset({"p", "q", "r", "s", "t"})
    assert dict(graph.edges["r"]) == {"p": True}
    assert dict(graph.edges["q"]) == {"p": False}
    component = graph.components()
    assert component["p"] == component["q"]
    assert len({component[n] for n in ("p", "r", "s", "t")}) == 4
    assert graph.reachable_from("s") == {"r": "s", "p": "r", "q": "p"}


def test_components_handle_long_chains_without_recursion() -> None:
    text = "".join(f"(<= (p{i + 1} ?x) (p{i} ?x))\n" for i in range(5000)) + "(<= (p0 ?x) (p5000 ?x))"
    component = dependency_graph(parse_kif(text)).components()
    assert len(set(component.values())) == 1


def test_descriptions_built_in_code_validate_without_positions() -> None:
    rule = Rule(Func("legal", (Var("r"), Const("a"))), (Not(Or(())),))
    findings = validate(Description((rule,)))
    assert {f.check for f in findings} >= {"safety", "negation", "empty-or", "missing"}
    safety = next(f for f in findings if f.check == "safety")
    assert safety.pos is None and safety.rule == str(rule)


@settings(max_examples=40, deadline=None)
@given(well_formed_games())
def test_well_formed_games_have_no_errors(game: Description) -> None:
    errors = [f for f in validate(game) if f.severity == "error"]
    assert errors == []


@settings(max_examples=40, deadline=None)
@given(well_formed_games(), st.sampled_from(["safety", "stratification", "dependency", "recursion"]))
def test_breaking_a_well_formed_game_is_caught(game: Description, check: str) -> None:
    x, y = Var("x"), Var("y")
    breakage = {
        "safety": Rule(Func("reach", (x, y)), (Func("edge", (x, x)),)),
        "stratification": Rule(Func("reach", (x, y)), (Func("edge", (x, y)), Not(Func("reach", (y, x))))),
        "dependency": Rule(Const("terminal"), (Func("does", (Var("r"), Const("a"))),)),
        "recursion": Rule(Func("reach", (x, y)), (Func("reach", (Func("s", (x,)), y)), Func("val", (x,)),
                                                  Func("val", (y,)))),
    }[check]
    broken = Description((*game.rules, breakage))
    # The stratification breakage cycles only through variables: a warning by default (only grounding
    # can tell whether an instance cycles), an error under GDL's relation-level rule (strict).
    assert check in {f.check for f in validate(broken, strict=True) if f.severity == "error"}


def test_check_or_raise_errors_are_gdl_errors() -> None:
    with pytest.raises(GdlError):
        check_or_raise(parse_kif("(p 1)"))
