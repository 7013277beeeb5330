"""SBG -> GDL: the output parses back, validates, stays small, and plays exactly like the engine."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings

from ggp.gdl.parser import parse_kif
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Const
from ggp.gdl.validator import validate
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits, State
from ggp.testing import check_state_machine
from ggp.translators.sbg.engine import SbgState
from ggp.translators.sbg.machine import SbgStateMachine
from ggp.translators.sbg.model import SIDES, SbgGame
from ggp.translators.sbg.parser import parse_sbg
from ggp.translators.sbg.to_gdl import translate
from tests.conftest import GAMES_DIR
from tests.unit.sbg.sbg_strategies import sbg_games

GAME_FILES = sorted(GAMES_DIR.glob("*.sbg"))
SLOW = {"chess", "chess_simplified", "shatranj"}
"""8x8 games with riders: about 20-70 ms per clingo query, so the differential test skips them."""


def assert_same_play(game: SbgGame, playouts: int, seed: int, max_plies: int = 1000) -> int:
    """Random playouts on the reference engine and on clingo over the translation (spec gdl.md S9).

    In every state both machines must agree on the state itself, the legal moves of each role,
    terminal and goals. Returns the number of plies played.
    """
    reference = SbgStateMachine(game)
    machine = ClingoStateMachine(translate(game), GroundingLimits(isolate=False))
    assert machine.roles == reference.roles
    rng = random.Random(seed)
    plies = 0
    for _ in range(playouts):
        state, gdl_state = reference.initial_state(), machine.initial_state()
        for _ in range(max_plies):
            assert gdl_state == state
            where = str(reference.position(state))
            assert machine.is_terminal(gdl_state) == reference.is_terminal(state), where
            assert machine.goals(gdl_state) == reference.goals(state), where
            if reference.is_terminal(state):
                break
            for role in reference.roles:
                assert machine.legal_moves(gdl_state, role) == reference.legal_moves(state, role), where
            joint = rng.choice(reference.legal_joint_moves(state))
            state, gdl_state = reference.next_state(state, joint), machine.next_state(gdl_state, joint)
            plies += 1
    return plies


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_every_library_game_translates_to_small_valid_gdl(path: Path) -> None:
    description = translate(parse_sbg(path.read_text(), path.name))
    assert description.file == path.stem + ".kif"
    kif = to_kif(description)
    assert len(kif) < 100_000
    assert parse_kif(kif) == description
    assert [str(f) for f in validate(description) if f.severity == "error"] == []
    assert validate(description) == []


@settings(max_examples=25, deadline=None)
@given(sbg_games())
def test_random_games_translate_to_gdl_that_parses_back_and_validates(game: SbgGame) -> None:
    description = translate(game)
    assert parse_kif(to_kif(description)) == description
    assert [str(f) for f in validate(description)] == []


def test_translation_has_the_spec_conventions() -> None:
    game = parse_sbg((GAMES_DIR / "six_demo.sbg").read_text())
    rules = {str(rule) for rule in translate(game).rules}
    assert {"(role white)", "(role black)", "(init (control white))", "(init (step 0))", "(succ 119 120)"} <= rules
    assert "(init (cell 3 0 white k))" in rules and "(init (cell 0 4 black p))" in rules
    assert "(offx 0 m1 1)" not in rules and "(offx 1 m1 0)" in rules
    assert str(translate(game).rules[0]) == "(role white)"


def test_six_demo_initial_legal_moves_in_gdl_are_the_listed_eleven() -> None:
    game = parse_sbg((GAMES_DIR / "six_demo.sbg").read_text())
    machine = ClingoStateMachine(translate(game), GroundingLimits(isolate=False))
    moves = {str(m) for m in machine.legal_moves(machine.initial_state(), Const("white"))}
    assert len(moves) == 11 and "(move 3 0 2 0)" in moves and "(move 1 0 2 2)" in moves


@pytest.mark.parametrize("path", [p for p in GAME_FILES if p.stem not in SLOW], ids=lambda p: p.stem)
def test_engine_and_reasoner_agree_on_random_playouts(path: Path) -> None:
    assert assert_same_play(parse_sbg(path.read_text(), path.name), playouts=1, seed=7, max_plies=40) > 0


@pytest.mark.parametrize("name", sorted(SLOW))
def test_the_8x8_rider_games_agree_with_the_reasoner_on_a_short_playout(name: str) -> None:
    # The differential test above skips these for time; a few plies still cover their translation.
    path = GAMES_DIR / f"{name}.sbg"
    assert assert_same_play(parse_sbg(path.read_text(), path.name), playouts=1, seed=7, max_plies=6) == 6


def test_count_goals_above_zero_agree_with_the_engine() -> None:
    game = parse_sbg((GAMES_DIR / "gen_beta.sbg").read_text())
    reference = SbgStateMachine(game)
    machine = ClingoStateMachine(translate(game), GroundingLimits(isolate=False))
    board = list(reference.engine.initial_state().board)
    for x in range(1, 6):
        board[1 * 6 + x] = "."  # one white E left: black's '#E 1' goal holds
    for to_move in SIDES:
        state = reference.to_state(SbgState("".join(board), to_move, 5))
        assert reference.is_terminal(state) and reference.goals(state) == (0, 100)
        assert machine.is_terminal(state) and machine.goals(state) == (0, 100)


def test_the_reference_machine_keeps_the_state_machine_contract() -> None:
    machine = SbgStateMachine(parse_sbg((GAMES_DIR / "gen_gamma.sbg").read_text()))
    assert check_state_machine(machine, playouts=3, seed=2) > 3
    assert machine.position(State(machine.initial_state().facts)) == machine.engine.initial_state()


@settings(max_examples=8, deadline=None)
@given(sbg_games(max_side=4))
def test_random_games_play_the_same_in_engine_and_reasoner(game: SbgGame) -> None:
    assert_same_play(game, playouts=1, seed=1, max_plies=12)
