"""Browne's intrinsic criteria from the rules alone, on a GDL and an SBG game."""

from __future__ import annotations

from ggp.commands._boards import board_of
from ggp.commands._games import load_game
from ggp.evaluation.intrinsic import CRITERIA, intrinsic_criteria
from tests.conftest import ROOT


def test_tic_tac_toe_read_from_its_rules() -> None:
    game = load_game("ticTacToe")
    found = intrinsic_criteria(game.description, board_of(game))
    assert list(found) == list(CRITERIA)
    # A 3x3 board, empty at the start; moves (mark x y) and noop; goals 0, 50 and 100.
    assert (found["BoardSites"], found["BoardWidth"], found["PiecesAtStart"], found["PieceTypes"]) == (9, 3, 0, 0)
    assert (found["Roles"], found["MoveKinds"], found["GoalValues"]) == (2, 2, 3)


def test_an_sbg_game_through_its_translation() -> None:
    game = load_game(ROOT / "games" / "gardner.sbg")
    found = intrinsic_criteria(game.description, board_of(game))
    # Gardner minichess: 5x5, five pawns and five pieces a side, six types a side.
    assert (found["BoardSites"], found["PiecesAtStart"], found["PieceTypes"]) == (25, 20, 12)


def test_a_game_without_board_has_n_a_board_criteria() -> None:
    game = load_game("rockPaperScissors")
    found = intrinsic_criteria(game.description, board_of(game))
    assert found["BoardSites"] is None and found["PieceTypes"] is None and found["Roles"] == 2
