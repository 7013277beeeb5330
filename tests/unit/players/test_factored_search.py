"""The default player's factored search (issue 41, item 2): chosen from the rules and a seeded measurement,
used where a decision's moves lie in one independent sub-game, overridden by the user's option."""

from __future__ import annotations

import logging

import pytest

from ggp.gdl.parser import parse_kif
from ggp.native import find_compiler
from ggp.player import Budget
from ggp.players.mcts import MctsPlayer
from ggp.players.registry import make_player
from ggp.players.selfconfig import FACTOR_SHARE_MIN, GameProfile, choose_settings, profile_game
from ggp.reasoner.circuit import CircuitStateMachine
from tests.conftest import KIF_DIR
from tests.helpers.two_boards import TWO_BOARDS
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine

needs_cc = needs(find_compiler() is not None, "no c compiler (cc)")


def profile(factors: int, one_factor: int, roles: int = 2, decisions: int = 200) -> GameProfile:
    return GameProfile(roles, False, decisions, 0, 0, 0, decisions, 8.0, 0.1, True, factors, one_factor)


def two_boards() -> CircuitStateMachine:
    return CircuitStateMachine(parse_kif(TWO_BOARDS, "two_boards.kif"), LOCAL, evaluator="c")


def test_the_factored_search_needs_factors_and_decisions_within_one_of_them() -> None:
    share = round(FACTOR_SHARE_MIN * 200)
    assert choose_settings(profile(2, share)).factored
    assert not choose_settings(profile(2, share - 1)).factored  # a decision spans factors too often
    assert not choose_settings(profile(1, 200)).factored  # one factor: the whole game
    assert not choose_settings(profile(2, 200, roles=1)).factored  # a puzzle is searched whole (NMCS, the line)
    assert "2 sub-games, a decision's moves in one in 100%" in choose_settings(profile(2, 200)).reason
    assert choose_settings(profile(2, 200)) == choose_settings(profile(2, 200))


@needs_cc
def test_the_measurement_finds_the_two_boards_and_every_decision_in_one() -> None:
    measured = profile_game(two_boards(), seed=3)
    assert measured.factors == 2 and measured.decisions > 0 and measured.one_factor == measured.decisions
    assert choose_settings(measured).factored
    connect_four = profile_game(circuit_machine(KIF_DIR / "connectFour" / "connectFour.kif", "c"), seed=3)
    assert connect_four.factors == 1 and not choose_settings(connect_four).factored


@needs_cc
def test_the_default_player_searches_each_board_alone_and_plays_legal_moves_to_the_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="ggp.players.mcts")
    machine = two_boards()
    players = [MctsPlayer(seed=seat) for seat in range(2)]
    for player, role in zip(players, machine.roles):
        player.start(machine, role, Budget(iterations=300))
        assert player.factored and player.configuration is not None and player.configuration.factored
    assert "factored search" in caplog.text
    state, steps = machine.initial_state(), 0
    while not machine.is_terminal(state):
        joint = tuple(player.choose(state, Budget(iterations=300)) for player in players)
        for role, move in zip(machine.roles, joint):
            assert move in machine.legal_moves(state, role)
        state = machine.next_state(state, joint)
        steps += 1
    assert 3 <= steps <= 9


@needs_cc
def test_an_option_given_by_the_user_is_kept() -> None:
    machine = two_boards()
    off = make_player("mcts:factor=0", seed=1)
    assert isinstance(off, MctsPlayer)
    off.start(machine, machine.roles[0], Budget(iterations=100))
    assert not off.factored and off.configuration is not None and off.configuration.factored
    on = make_player("mcts:factor=1,decisive=0", seed=1)
    assert isinstance(on, MctsPlayer)
    on.start(machine, machine.roles[0], Budget(iterations=100))
    assert on.factored and on.configuration is None
