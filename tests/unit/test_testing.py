"""ggp.testing.check_state_machine accepts a correct machine and catches each broken contract rule."""

from __future__ import annotations

import pytest

from ggp.gdl.parser import parse_kif
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits, JointMove, Move, Role, State
from ggp.testing import check_state_machine

GAME = """(role a) (role b) (init (n 0)) (succ 0 1) (succ 1 2)
(<= (legal a (up ?m)) (true (n ?k)) (succ ?k ?m)) (<= (legal a zz) (true (n ?k))) (legal b noop)
(<= (next (n ?m)) (does a (up ?m))) (<= (next (n ?k)) (does a zz) (true (n ?k)))
(<= terminal (true (n 2))) (goal a 100) (goal b 0)"""


def machine() -> ClingoStateMachine:
    return ClingoStateMachine(parse_kif(GAME), GroundingLimits(isolate=False))


class UnsortedMoves(ClingoStateMachine):
    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        return tuple(reversed(super().legal_moves(state, role)))


class AcceptsAnything(ClingoStateMachine):
    def next_state(self, state: State, joint_move: JointMove) -> State:
        return state


class ForgetsGoals(ClingoStateMachine):
    def goals(self, state: State) -> tuple[int, ...]:
        return (100,)


def test_a_correct_machine_passes_and_reports_the_states_checked() -> None:
    assert check_state_machine(machine(), playouts=3, seed=0) >= 6


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (UnsortedMoves, "not sorted by KIF text"),
        (AcceptsAnything, "accepted the illegal move"),
        (ForgetsGoals, "one value per role"),
    ],
)
def test_a_broken_machine_fails_with_the_rule_it_broke(cls: type[ClingoStateMachine], message: str) -> None:
    broken = cls(parse_kif(GAME), GroundingLimits(isolate=False))
    with pytest.raises(AssertionError, match=message):
        check_state_machine(broken, playouts=3, seed=0)
