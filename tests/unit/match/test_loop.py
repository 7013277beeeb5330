"""The match loop's rules on pure-Python games: step cap, forced moves, chance, fallbacks, broken games."""

from __future__ import annotations

import pytest

from ggp.errors import InputError
from ggp.gdl.terms import Const
from ggp.match.local import Transcript, play_local
from ggp.match.rules import STEP_CAP_DRAW_GOAL, MatchRules
from ggp.player import Budget
from ggp.players.legal_player import LegalPlayer
from ggp.players.random_player import RandomPlayer
from ggp.reasoner.machine import Move, State, StateMachine
from tests.helpers.nim_machine import ChanceMachine, NimMachine, StuckNim


class Counting(LegalPlayer):
    """A legal player that counts how often it is asked, forced moves included."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.asked = 0

    def choose(self, state: State, budget: Budget) -> Move:
        self.asked += 1
        return super().choose(state, budget)


class Raising(LegalPlayer):
    def choose(self, state: State, budget: Budget) -> Move:
        raise RuntimeError("cannot think")


class Illegal(LegalPlayer):
    def choose(self, state: State, budget: Budget) -> Move:
        return Const("nonsense")


def test_every_seat_is_asked_every_step_even_for_a_forced_move() -> None:
    first, second = Counting(), Counting()
    transcript = Transcript()
    ending = play_local(NimMachine((2, 2)), [first, second], seed=1, listener=transcript)
    assert ending.reason == "terminal" and ending.completed
    # Nim is turn-taking: in every step one of the two has only noop, and both are asked anyway.
    assert first.asked == second.asked == ending.steps == len(transcript.steps)
    assert all(min(len(moves) for moves in step.legal) == 1 for step in transcript.steps)


@pytest.mark.parametrize("outcome", ["draw", "abort"])
def test_the_step_cap_ends_the_match_as_configured(outcome: str) -> None:
    rules = MatchRules(step_cap=2, step_cap_outcome=outcome)  # type: ignore[arg-type]
    ending = play_local(NimMachine((9, 9)), [LegalPlayer(), LegalPlayer()], seed=0, rules=rules)
    assert ending.reason == "step_cap" and ending.steps == 2
    assert ending.goals == ((STEP_CAP_DRAW_GOAL,) * 2 if outcome == "draw" else None)


def test_the_chance_role_is_played_by_the_loop_and_a_player_there_is_refused() -> None:
    machine = ChanceMachine()
    transcript = Transcript()
    ending = play_local(machine, [LegalPlayer()], seed=3, listener=transcript)  # chance seat left out
    assert ending.completed and transcript.steps[0].errors == ("", "")
    with pytest.raises(InputError, match="role 'random' is chance"):
        play_local(machine, [RandomPlayer(), LegalPlayer()], seed=3)


def test_the_chance_moves_are_fixed_by_the_seed() -> None:
    def coins(seed: int) -> list[str]:
        results = []
        for game in range(8):
            transcript = Transcript()
            play_local(ChanceMachine(), [Gambler()], seed=seed * 100 + game, listener=transcript)
            results.append(str(transcript.steps[-1].joint[0]))
        return results

    assert coins(1) == coins(1) and len(set(coins(1))) > 1


class Gambler(LegalPlayer):
    def choose(self, state: State, budget: Budget) -> Move:
        legal = self._legal(state)
        return Const("gamble") if Const("gamble") in legal else legal[0]

    def _legal(self, state: State) -> tuple[Move, ...]:
        assert self._machine is not None and self._role is not None
        return self._machine.legal_moves(state, self._role)


def test_a_raising_player_plays_a_legal_move_and_an_illegal_one_gets_the_fallback_with_its_error() -> None:
    transcript = Transcript()
    ending = play_local(NimMachine((1, 1)), [Raising(), Illegal()], seed=2, listener=transcript)
    assert ending.reason == "terminal"
    first = transcript.steps[0]
    # The raising player's seat answers its first legal move (as the player server would): no error code,
    # but counted among the fallbacks.
    assert first.errors == ("", "IL nonsense")
    machine = NimMachine((1, 1))
    assert first.joint[0] == machine.legal_moves(machine.initial_state(), machine.roles[0])[0]
    assert transcript.fallbacks == 2 * len(transcript.steps)


def test_a_match_of_fallback_moves_logs_one_warning_with_the_counts_not_one_per_move(
    caplog: pytest.LogCaptureFixture,
) -> None:
    transcript = Transcript()
    with caplog.at_level("INFO", logger="ggp.match"):
        play_local(NimMachine((2, 2)), [Raising(), Illegal()], seed=2, listener=transcript)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    steps = len(transcript.steps)
    roles = [str(role) for role in NimMachine((2, 2)).roles]
    # The loop's one line counts the illegal moves it replaced; the in-process seat's one line counts the
    # legal moves it answered for the player that raised (as the player server answers one).
    loop = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and r.name == "ggp.match.loop"]
    seat = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and r.name == "ggp.match.local"]
    assert steps > 1 and len(warnings) == 2 and len(loop) == 1 and len(seat) == 1, warnings
    assert f"{steps} moves: {steps} x {roles[1]} (" in loop[0]
    assert f"role {roles[0]} (" in seat[0] and f"{steps} moves: {steps} x RuntimeError: cannot think" in seat[0]
    assert transcript.fallbacks_by_role() == (steps, steps)
    assert sum("playing the fallback" in r.getMessage() for r in caplog.records if r.levelname == "INFO") == steps



def test_a_role_without_a_legal_move_ends_the_match_with_error_naming_it() -> None:
    machine: StateMachine = StuckNim((3, 3))
    ending = play_local(machine, [LegalPlayer(), LegalPlayer()], seed=0)
    assert ending.reason == "error" and ending.goals is None and ending.steps == 1
    assert "role 'second' has no legal move in a non-terminal state after 1 steps" in ending.detail
