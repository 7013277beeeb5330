"""Simulation checks S1-S8 (spec §6.3) on tiny games built to break exactly one property each."""

from __future__ import annotations

import pytest

from ggp.gdl.parser import parse_kif
from ggp.gdl.validator import Finding
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.simulate import simulate_checks

LOCAL = GroundingLimits(isolate=False)

# The player to move wins or concedes at once: terminates, playable, constant-sum, winnable for both.
CLEAN = """
(role a) (role b)
(init (turn a))
(<= (legal ?r win) (true (turn ?r)))
(<= (legal ?r lose) (true (turn ?r)))
(<= (legal ?r noop) (role ?r) (not (true (turn ?r))))
(<= (next (won ?r)) (does ?r win))
(<= (next (won b)) (does a lose))
(<= (next (won a)) (does b lose))
(<= terminal (true (won ?r)))
(<= (goal ?r 100) (true (won ?r)))
(<= (goal ?r 0) (role ?r) (not (true (won ?r))))
"""


def checks(text: str, playouts: int = 4, **options: object) -> list[Finding]:
    return simulate_checks(parse_kif(text, "game.kif"), playouts=playouts, limits=LOCAL, **options)  # type: ignore[arg-type]


def ids(findings: list[Finding]) -> set[tuple[str, str]]:
    return {(f.severity, f.check) for f in findings}


def test_a_clean_game_has_no_findings() -> None:
    assert checks(CLEAN, playouts=10) == []


def test_s1_a_game_that_never_ends_hits_the_depth_bound() -> None:
    game = "(role a) (init s) (<= (legal a go) (true s)) (<= (next s) (true s)) (<= terminal (true t)) (goal a 100)"
    findings = checks(game, depth=20)
    assert ("error", "S1-termination") in ids(findings)
    assert "no terminal state within 20 steps" in findings[0].message


def test_s2_a_role_without_legal_moves_is_an_error() -> None:
    game = """(role a) (role b) (init s) (<= (legal a go) (true s)) (<= (next t) (true s))
              (<= terminal (true t)) (goal a 100) (goal b 100)"""
    findings = checks(game)
    assert ids(findings) == {("error", "S2-playability")}
    assert "role b has no legal move" in findings[0].message


def test_s3_two_goal_values_or_none_are_errors() -> None:
    two = "(role a) (init s) (<= (legal a go) (true s)) (<= (next t) (true s)) (<= terminal (true t)) (goal a 100) (goal a 0)"
    none = "(role a) (init s) (<= (legal a go) (true s)) (<= (next t) (true s)) (<= terminal (true t)) (<= (goal a 100) (true s))"
    assert "role a has 2 goal values (0, 100)" in checks(two)[0].message
    assert "role a has 0 goal values (none)" in checks(none)[0].message


def test_s3_goal_outside_0_to_100_is_a_warning_and_an_error_when_strict() -> None:
    game = "(role a) (init s) (<= (legal a go) (true s)) (<= (next t) (true s)) (<= terminal (true t)) (goal a 150)"
    assert ("warning", "S3-goals") in ids(checks(game))
    assert ("error", "S3-goals") in ids(checks(game, strict=True))


def test_s4b_an_empty_initial_state_is_a_warning() -> None:
    game = "(role a) (legal a go) (<= (next t) (does a go)) (<= terminal (true t)) (goal a 100)"
    assert ids(checks(game)) == {("warning", "S4b-empty-init")}


def test_s5_s6_fluents_and_moves_outside_base_and_input_are_errors() -> None:
    game = """(role a) (base s) (input a stay) (init s) (<= (legal a go) (true s)) (<= (next t) (does a go))
              (<= terminal (true t)) (goal a 100)"""
    findings = checks(game)
    assert {("error", "S5-base"), ("error", "S6-input")} <= ids(findings)
    messages = " ".join(f.message for f in findings)
    assert "fluent t is not in the base set" in messages
    assert "legal move go of role a is not in its input set" in messages


def test_s7_a_role_that_never_wins_and_s8_a_varying_sum_are_warnings() -> None:
    game = """(role a) (role b) (init s) (<= (legal ?r x) (role ?r) (true s)) (<= (legal ?r y) (role ?r) (true s))
              (<= (next (did ?m)) (does a ?m)) (<= terminal (true (did ?m)))
              (<= (goal a 50) (true (did x))) (<= (goal a 100) (true (did y))) (goal b 0)"""
    findings = checks(game, playouts=12)
    assert ids(findings) == {("warning", "S7-winnability"), ("warning", "S8-constant-sum")}
    assert any("role b never scored 100" in f.message for f in findings)


def test_a_grounding_failure_is_one_error_naming_the_phase() -> None:
    facts = " ".join(f"(dom {n})" for n in range(30))
    game = f"""(role a) {facts} (init s) (<= (big ?x ?y ?z) (dom ?x) (dom ?y) (dom ?z))
               (<= (legal a (go ?x)) (big ?x ?y ?z)) (<= terminal (true t)) (goal a 100)"""
    findings = simulate_checks(parse_kif(game, "big.kif"), playouts=1,
                               limits=GroundingLimits(max_atoms=1000, isolate=False))
    assert [(f.severity, f.check) for f in findings] == [("error", "grounding")]
    # The finding is printed after the file name: its message names the engine and the limit.
    assert findings[0].message.startswith("the clingo engine cannot play this game: grounding phase 'domain' made ")


@pytest.mark.parametrize("seed", [0, 7])
def test_findings_repeat_for_a_seed(seed: int) -> None:
    game = (
        "(role a) (init s) (<= (legal a go) (true s)) (<= (legal a stay) (true s)) (<= (next t) (does a go))"
        " (<= (next s) (does a stay)) (<= terminal (true t)) (goal a 100)"
    )
    assert checks(game, seed=seed, depth=3) == checks(game, seed=seed, depth=3)
