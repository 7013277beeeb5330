"""``ggp play GAME --against SPEC``: a person at the terminal, driven through stdin, on KIF, SBG and GDL-II games."""

from __future__ import annotations

import io
import re

import pytest

from ggp.cli import main
from tests.conftest import GAMES_DIR, KIF_DIR
from tests.prerequisites import missing

SIX = GAMES_DIR / "six_demo.sbg"


def play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], typed: str, *argv: str) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = main(["play", *argv])
    return code, capsys.readouterr().out


def test_a_whole_tic_tac_toe_game_with_bad_input_re_asked(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # Bad input first (re-asked, one line each), then always the first legal move until the game ends.
    code, out = play(monkeypatch, capsys, "hello there(\n0\n(mark 9 9)\n" + "1\n" * 5, "ticTacToe", "--against", "random",
                     "--seed", "2")
    assert code == 0
    assert "cannot read 'hello there('; type a number from 1 to 9 or a move" in out
    assert "there is no move 0; type a number from 1 to 9" in out
    assert "'(mark 9 9)' is not a legal move now; type a number from 1 to 9" in out
    assert "    1 2 3\n  3 . . .\n  2 . . .\n  1 . . .\n(control xplayer)" in out  # the empty board, row 1 at the bottom
    assert "  1) (mark 1 1)" in out and "oplayer plays (mark " in out
    result = re.search(r"game over after \d+ steps: (you won|you lost|draw) \(xplayer (\d+), oplayer (\d+)\)", out)
    assert result is not None, out
    verdict, xgoal, ogoal = result.groups()
    assert verdict == {(100, 0): "you won", (0, 100): "you lost", (50, 50): "draw"}[(int(xgoal), int(ogoal))]


def test_the_end_of_input_stops_cleanly_and_the_second_role_can_be_played(monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out = play(monkeypatch, capsys, "", "ticTacToe", "--as", "oplayer", "--against", "random")
    assert code == 0 and out.index("xplayer plays") < out.index("oplayer> ") and out.rstrip().endswith("stopped.")


def test_an_sbg_game_takes_squares_and_draws_the_board_with_empty_rows(monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out = play(monkeypatch, capsys, "a2a3\nquit\n", str(SIX), "--against", "random")
    assert code == 0 and "six_demo: white (you), black random" in out
    assert "  5 r n . k n r\n  4 p p p p p p\n  3 . . . . . .\n  2 . . . . . .\n  1 P P P P P P\n  0 R N . K N R" in out
    after = out.split("black plays")[1]
    assert "  2 P . . . . ." in after or "  2 P" in after.split("(control white)")[0]
    assert out.rstrip().endswith("stopped.")


def test_a_gdl2_game_shows_only_the_persons_percepts(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    guess = KIF_DIR / "guessNumber" / "guessNumber.kif"
    if not guess.is_file():
        missing("kif/guessNumber is not present")
    code, out = play(monkeypatch, capsys, "(ask 5)\n(ask 3)\n", str(guess), "--seed", "4")
    assert code == 0 and "guesser (you), random (chance)" in out
    assert re.search(r"turn 2: you played \(ask 5\); you see \(answer 5 (yes|no)\)", out)
    assert "secret" not in out.split("stopped.")[0]  # never the state: the secret stays hidden


def test_bad_roles_and_player_counts_are_one_line_errors(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "ticTacToe", "--as", "nobody"]) == 1
    assert capsys.readouterr().err == "ggp play: no role 'nobody' to play in ticTacToe; choose one of xplayer, oplayer\n"
    assert main(["play", "ticTacToe", "--against", "random", "--against", "legal"]) == 1
    assert "2 --against players for 1 other roles (oplayer)" in capsys.readouterr().err
    assert main(["play", "ticTacToe", "--against", "nosuch"]) == 1
    assert "unknown player type 'nosuch'" in capsys.readouterr().err


def test_an_opponent_that_cannot_play_the_game_is_refused_before_it_starts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 5))
    assert main(["play", "ticTacToe", "--against", "minimax:h=WGCM"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().startswith(
        "ggp play: ticTacToe: player minimax:h=WGCM cannot play role oplayer: min-max WGCM: heuristic term W")
