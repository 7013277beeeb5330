"""Games whose grounding explodes are refused with a ReasonerError naming the game and the phase."""

from __future__ import annotations

import time

import pytest

from ggp.errors import GdlValidationError, ReasonerError
from ggp.gdl.parser import parse_kif
from ggp.gdl.terms import Description
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import GroundingLimits


def product_game(size: int, factors: int) -> Description:
    """A tiny game whose relation ``big`` ranges over the product of ``factors`` domains of ``size`` values."""
    variables = " ".join(f"?v{i}" for i in range(factors))
    domains = " ".join(f"(dom ?v{i})" for i in range(factors))
    facts = " ".join(f"(dom {n})" for n in range(size))
    return parse_kif(
        f"""(role p) {facts} (init (at 0))
        (<= (big {variables}) {domains})
        (<= (legal p (go ?v0)) (big {variables}))
        (<= (next (at ?v0)) (does p (go ?v0)))
        (<= terminal (true (at 1))) (goal p 100)""",
        "product.kif",
    )


def test_a_huge_product_domain_is_refused_within_the_time_limit_in_isolated_mode() -> None:
    started = time.monotonic()
    with pytest.raises(ReasonerError) as info:
        ClingoStateMachine(product_game(100, 4), GroundingLimits(seconds=1.5, memory_mb=1024, isolate=True))
    elapsed = time.monotonic() - started
    message = str(info.value)
    assert message.startswith("product.kif: grounding phase 'domain'")
    assert "time limit of 1.5 s" in message or "memory limit" in message
    assert elapsed < 10


def test_max_atoms_refuses_a_large_grounding_without_isolation() -> None:
    with pytest.raises(ReasonerError, match=r"product\.kif: grounding phase 'domain' made [\d,]+ atoms, more than "
                                            r"the limit of 10,000"):
        ClingoStateMachine(product_game(30, 3), GroundingLimits(max_atoms=10_000, isolate=False))


def test_max_atoms_is_reported_from_the_isolated_probe_with_the_phase() -> None:
    with pytest.raises(ReasonerError, match=r"product\.kif: grounding phase 'domain' made .* atoms"):
        ClingoStateMachine(product_game(30, 3), GroundingLimits(max_atoms=10_000, seconds=20, isolate=True))


def test_the_same_game_with_small_domains_grounds_and_plays() -> None:
    machine = ClingoStateMachine(product_game(3, 3), GroundingLimits(isolate=False))
    state = machine.initial_state()
    assert [str(m) for m in machine.legal_moves(state, machine.roles[0])] == ["(go 0)", "(go 1)", "(go 2)"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(role p) (<= (legal p ?m) (true (at ?x))) (<= terminal (true (at 1))) (goal p 100)", "unsafe"),
        (
            "(role p) (<= q (not r)) (<= r (not q)) (legal p go) (<= terminal q) (goal p 100)",
            "depends on its own negation",
        ),
    ],
)
def test_make_machine_rejects_unsafe_or_unstratified_games_before_grounding(text: str, expected: str) -> None:
    with pytest.raises(GdlValidationError, match=expected):
        make_machine(parse_kif(text, "bad.kif"), "clingo", GroundingLimits(isolate=False))
