"""GDL-II: percepts of the kif/ GDL-II games in both engines, percept histories and determinization."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from ggp.errors import ReasonerError
from ggp.files import load_kif
from ggp.gdl.parser import parse_term
from ggp.gdl.terms import Description, Term
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.gdl2 import PerceptHistory, percepts_of, sample_states
from ggp.reasoner.machine import GroundingLimits, PerceptMachine
from ggp.reasoner.naive import NaiveStateMachine
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.prover import ProverMachine
from tests.conftest import KIF_DIR
from tests.prerequisites import missing

Factory = Callable[[Description], PerceptMachine]
ENGINES: dict[str, Factory] = {
    "clingo": lambda d: ClingoStateMachine(d, GroundingLimits(isolate=False)),
    "per-state": PerStateMachine,
    "prover": ProverMachine,
    "circuit": lambda d: CircuitStateMachine(d, GroundingLimits(isolate=False), evaluator="interpreter"),
}
"""Every engine that reports percepts (the naive baseline does not: see the refusal test below)."""


def t(text: str) -> Term:
    return parse_term(text)


def seen(*texts: str) -> frozenset[Term]:
    return frozenset(t(text) for text in texts)


def game(key: str) -> Description:
    path = KIF_DIR / key / f"{key}.kif"
    if not path.is_file():
        missing(f"{path} is not present")
    return load_kif(path)


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> Factory:
    return ENGINES[request.param]


def test_guess_number_shows_the_guesser_only_the_answers(engine: Factory) -> None:
    machine = engine(game("guessNumber"))
    assert [str(r) for r in machine.roles] == ["guesser", "random"]
    state, percepts = percepts_of(machine, machine.initial_state(), (t("noop"), t("(choose 5)")))
    assert percepts == (frozenset(), frozenset())
    state, percepts = percepts_of(machine, state, (t("(ask 4)"), t("noop")))
    assert percepts == (seen("(answer 4 no)"), frozenset())
    state, percepts = percepts_of(machine, state, (t("(ask 6)"), t("noop")))
    assert percepts == (seen("(answer 6 yes)"), frozenset())
    state, percepts = percepts_of(machine, state, (t("(guess 5)"), t("noop")))
    assert percepts == (frozenset(), frozenset())
    assert machine.is_terminal(state) and machine.goals(state) == (100, 0)


def test_kuhn_poker_shows_own_cards_opponent_actions_and_cards_at_showdown(engine: Factory) -> None:
    machine = engine(game("kuhnPoker"))
    assert [str(r) for r in machine.roles] == ["first", "second", "random"]
    state, percepts = percepts_of(machine, machine.initial_state(), (t("noop"), t("noop"), t("(deal queen king)")))
    assert percepts == (seen("(yourcard queen)"), seen("(yourcard king)"), frozenset())
    state, percepts = percepts_of(machine, state, (t("bet"), t("noop"), t("noop")))
    assert percepts == (frozenset(), seen("(did first bet)"), frozenset())
    state, percepts = percepts_of(machine, state, (t("noop"), t("call"), t("noop")))
    assert percepts == (seen("(did second call)", "(shows second king)"), seen("(shows first queen)"), frozenset())
    assert machine.is_terminal(state) and machine.goals(state) == (0, 100, 0)


def test_a_machine_without_percepts_is_refused_clearly() -> None:
    machine = NaiveStateMachine(game("guessNumber"))
    with pytest.raises(ReasonerError, match="does not report GDL-II percepts"):
        percepts_of(machine, machine.initial_state(), (t("noop"), t("(choose 1)")))  # type: ignore[arg-type]


def test_a_percept_history_grows_immutably_and_checks_its_role() -> None:
    machine = PerStateMachine(game("guessNumber"))
    empty = PerceptHistory.empty(machine, t("guesser"))
    longer = empty.extend(t("noop"), frozenset())
    assert len(empty) == 0 and len(longer) == 1 and longer.moves == (t("noop"),)
    with pytest.raises(ValueError, match="unknown role 'nobody'"):
        PerceptHistory.empty(machine, t("nobody"))
    with pytest.raises(ValueError, match="1 moves but 0 percept sets"):
        PerceptHistory(t("guesser"), (t("noop"),), ())


def test_sampled_kuhn_states_keep_the_own_card_and_vary_the_hidden_one(engine: Factory) -> None:
    machine = engine(game("kuhnPoker"))
    history = PerceptHistory.empty(machine, t("first")).extend(t("noop"), seen("(yourcard queen)"))
    states = sample_states(machine, history, random.Random(1), count=24)
    assert len(states) == 24
    assert all(t("(holds first queen)") in state.facts for state in states)
    assert {str(f) for state in states for f in state.facts if str(f).startswith("(holds second")} == {
        "(holds second jack)", "(holds second king)"
    }


def test_sampled_guess_number_secrets_agree_with_every_answer() -> None:
    machine = PerStateMachine(game("guessNumber"))
    history = (
        PerceptHistory.empty(machine, t("guesser"))
        .extend(t("noop"), frozenset())
        .extend(t("(ask 5)"), seen("(answer 5 no)"))
        .extend(t("(ask 7)"), seen("(answer 7 yes)"))
    )
    states = sample_states(machine, history, random.Random(2), count=20)
    secrets = {str(f) for state in states for f in state.facts if str(f).startswith("(secret")}
    assert secrets == {"(secret 5)", "(secret 6)"}


def test_an_impossible_history_yields_no_state_within_the_tries() -> None:
    machine = PerStateMachine(game("guessNumber"))
    history = PerceptHistory.empty(machine, t("guesser")).extend(t("noop"), seen("(answer 5 yes)"))
    assert sample_states(machine, history, random.Random(0), count=5, max_tries=50) == []
