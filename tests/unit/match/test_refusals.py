"""A player that refuses a game stops the match with its reason; seat checks say what would fit."""

from __future__ import annotations

import pytest

from ggp.match.local import Transcript, play_local, players_problem, refusal, seating_problem
from ggp.player import Budget, Player
from ggp.players.legal_player import LegalPlayer
from ggp.players.random_player import RandomPlayer
from ggp.reasoner.machine import Move, Role, State, StateMachine
from tests.helpers.nim_machine import NimMachine


class NeedsABoard(LegalPlayer):
    """Refuses every game at START, as min-max with a board heuristic refuses plain GDL."""

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        raise ValueError("needs a board game with piece rules (SBG)")


class FailsToChoose(LegalPlayer):
    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        raise ValueError("cannot think")


def make(spec: str, seed: int) -> Player:
    return NeedsABoard(seed) if spec == "board" else RandomPlayer(seed)


def test_a_player_refusing_the_game_ends_the_match_before_any_move_with_its_reason() -> None:
    transcript = Transcript()
    ending = play_local(NimMachine((2, 2)), [NeedsABoard(0), RandomPlayer(1)], seed=3, listener=transcript)
    assert ending.reason == "error" and ending.goals is None and ending.steps == 0
    assert ending.detail == "player 'legal' (role first) refused the game: needs a board game with piece rules (SBG)"
    assert transcript.steps == [] and transcript.fallbacks == 0


def test_a_player_failing_mid_game_is_counted_per_role() -> None:
    transcript = Transcript()
    ending = play_local(NimMachine((2, 2)), [FailsToChoose(0), LegalPlayer(1)], seed=3, listener=transcript)
    assert ending.reason == "terminal"
    by_role = transcript.fallbacks_by_role()
    assert by_role[0] > 0 and by_role[1] == 0 and sum(by_role) == transcript.fallbacks


def test_refusal_and_players_problem_name_the_spec_and_role() -> None:
    machine = NimMachine((2, 2))
    assert refusal(RandomPlayer(0), machine, 0) is None
    assert refusal(NeedsABoard(0), machine, 1) == "needs a board game with piece rules (SBG)"
    assert players_problem(machine, ["random", "random"], make) is None
    assert players_problem(machine, ["random", "board"], make) == (
        "player board cannot play role first: needs a board game with piece rules (SBG)")


@pytest.mark.parametrize(("roles", "players", "exact", "expected"), [
    (["a", "b"], 2, True, None),
    (["a", "b", "random"], 2, True, None),
    (["a", "b", "c"], 2, True, "the game has 3 player roles (a, b, c) but 2 players were given; give one per role"),
    (["a"], 2, True, "the game has 1 player role (a) but 2 players were given; give one per role"),
    (["a", "b", "c"], 4, False, None),
    (["a", "b", "c"], 2, False, "the game has 3 player roles (a, b, c) but 2 players were given; give at least 3"),
])
def test_seating_problem_says_what_would_fit(roles: list[str], players: int, exact: bool,
                                             expected: str | None) -> None:
    assert seating_problem(roles, players, exact=exact) == expected
