"""The engine wrappers: CachedStateMachine (answers per state, capabilities passed through) and
first_that_builds (the one fallback mechanism)."""

from __future__ import annotations

import logging

import pytest

from ggp.errors import GgpError, ReasonerError
from ggp.gdl.parser import parse_kif
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import (
    GroundingLimits,
    JointMove,
    Move,
    PerceptMachine,
    PlayoutGoalsMachine,
    Role,
    State,
    StateMachine,
)
from ggp.reasoner.wrappers import CachedStateMachine, first_that_builds
from ggp.testing import check_state_machine
from tests.helpers.nim_machine import NimMachine

LOCAL = GroundingLimits(isolate=False)
COUNT = parse_kif("""(role a) (init (c 0)) (<= (legal a up) (true (c 0))) (<= (legal a up) (true (c 1)))
(<= (next (c 1)) (true (c 0))) (<= (next (c 2)) (true (c 1))) (<= terminal (true (c 2)))
(<= (goal a 100) (true (c 2))) (<= (sees a tick) (true (c 0)))""", "count.kif")


class Counting:
    """A StateMachine that counts the questions it is asked (and asks them of Nim)."""

    def __init__(self) -> None:
        self.inner = NimMachine((2, 1))
        self.roles = self.inner.roles
        self.asked = {"legal": 0, "terminal": 0, "goals": 0, "next": 0}

    def initial_state(self) -> State:
        return self.inner.initial_state()

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        self.asked["legal"] += 1
        return self.inner.legal_moves(state, role)

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        raise AssertionError("the cache builds joint moves itself")

    def is_terminal(self, state: State) -> bool:
        self.asked["terminal"] += 1
        return self.inner.is_terminal(state)

    def goals(self, state: State) -> tuple[int, ...]:
        self.asked["goals"] += 1
        if not self.inner.is_terminal(state):
            raise GgpError("no goal values in a non-terminal state")
        return self.inner.goals(state)

    def next_state(self, state: State, joint_move: JointMove) -> State:
        self.asked["next"] += 1
        return self.inner.next_state(state, joint_move)


def test_a_cached_machine_passes_the_state_machine_contract() -> None:
    check_state_machine(CachedStateMachine(ClingoStateMachine(COUNT, LOCAL)), playouts=5, seed=1)
    check_state_machine(CachedStateMachine(NimMachine((2, 2))), playouts=5, seed=1)


def test_each_question_about_a_state_reaches_the_engine_once() -> None:
    inner = Counting()
    cached = CachedStateMachine(inner)
    state = cached.initial_state()
    for _ in range(3):
        for role in cached.roles:
            cached.legal_moves(state, role)
        cached.is_terminal(state)
        move = cached.legal_joint_moves(state)[0]
        cached.next_state(state, move)
        with pytest.raises(GgpError):
            cached.goals(state)  # no goals before the end: the error is remembered too
    assert inner.asked == {"legal": len(cached.roles), "terminal": 1, "goals": 1, "next": 1}
    assert cached.hits > 0


def test_the_cache_forgets_the_least_recently_used_states() -> None:
    inner = Counting()
    cached = CachedStateMachine(inner, size=1)
    first = cached.initial_state()
    cached.is_terminal(first)
    second = cached.next_state(first, cached.legal_joint_moves(first)[0])
    cached.is_terminal(second)
    cached.is_terminal(first)  # evicted by the second state: asked again
    assert inner.asked["terminal"] == 3


def test_capabilities_of_the_engine_stay_visible_through_the_cache() -> None:
    cached = CachedStateMachine(ClingoStateMachine(COUNT, LOCAL))
    assert isinstance(cached, PerceptMachine) and not isinstance(cached, PlayoutGoalsMachine)
    _, percepts = cached.next_state_and_percepts(cached.initial_state(), (parse_kif("up").rules[0].head,))
    assert [str(p) for p in percepts[0]] == ["tick"]
    assert not isinstance(CachedStateMachine(NimMachine((1,))), PerceptMachine)


def test_the_first_engine_that_builds_is_chosen_and_the_refusal_logged(caplog: pytest.LogCaptureFixture) -> None:
    def refuses(game: object) -> StateMachine:
        raise ReasonerError("count.kif: grounding phase 'domain' exceeded the time limit of 1 s")

    with caplog.at_level(logging.INFO, logger="ggp.reasoner"):
        machine = first_that_builds(COUNT, [("fast", refuses), ("slow", lambda game: NimMachine((1,)))])
    assert isinstance(machine, NimMachine)
    assert "count.kif: the fast engine cannot play this game (count.kif: grounding phase 'domain'" in caplog.text
    assert "trying the slow engine" in caplog.text and "reasoner engine slow" in caplog.text
    assert "playing it with the slow engine" in caplog.text


def test_when_no_engine_builds_one_line_names_the_game_each_engine_and_its_limit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refuses(game: object) -> StateMachine:
        raise ReasonerError(f"{COUNT.file}: grounding phase 'domain' exceeded the time limit of 1 s")

    with caplog.at_level(logging.WARNING), pytest.raises(ReasonerError) as caught:
        first_that_builds(COUNT, [("fast", refuses), ("again", refuses)])
    assert str(caught.value) == (
        f"{COUNT.file}: no engine can play this game within its limits: fast: grounding phase 'domain' exceeded "
        "the time limit of 1 s; again: grounding phase 'domain' exceeded the time limit of 1 s"
    )
    assert caplog.text == ""  # nothing printed before the one line
