"""Every command given the wrong kind of game says so in one line, naming what would fit, before any work.

KIF where an SBG game is needed (nld, shapes, translate sbg), an SBG game or KIF where a Sokoban level is
needed (translate sokoban, generate --layout), and games the chosen players cannot seat: three players,
one player, GDL-II (evaluate, arena, match, play).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ggp.cli import main
from tests.conftest import GAMES_DIR, KIF_DIR

TICTACTOE = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
GARDNER = GAMES_DIR / "gardner.sbg"
SOLO = "(role solo) (init (s 0)) (<= (legal solo go) (true (s 0))) (<= (next (s 1)) (does solo go)) " \
       "(<= terminal (true (s 1))) (goal solo 100)"


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run ``ggp ARGV``, which must fail with one line on stderr and nothing on stdout; return the line."""
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    return captured.err.strip()


@pytest.mark.parametrize("command", [["nld"], ["shapes", "--out", "OUT"], ["translate", "sbg"]])
def test_sbg_commands_given_kif_say_they_need_an_sbg_game(command: list[str], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    argv = [part.replace("OUT", str(tmp_path / "out")) for part in command]
    name = " ".join(command[:2] if command[0] == "translate" else command[:1])
    assert one_line(capsys, [*argv, str(TICTACTOE)]) == (
        f"ggp {command[0]}: {TICTACTOE}: this is a GDL (KIF) game; ggp {name} needs an SBG game (.sbg, e.g. "
        "games/gardner.sbg)")
    assert not (tmp_path / "out").exists()


def test_translate_sokoban_given_an_sbg_game_says_it_needs_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert one_line(capsys, ["translate", "sokoban", str(GARDNER)]) == (
        f"ggp translate: {GARDNER}: this is a Simplified Boardgames (SBG) game; ggp translate sokoban needs a "
        "Sokoban level (.sok, .xsb or .txt)")


def test_generate_with_a_kif_layout_says_it_needs_a_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line(capsys, ["generate", "sokoban", "--method", "pdb", "--layout", str(TICTACTOE),
                             "--out", str(tmp_path / "levels.txt")])
    assert line.endswith("this is a GDL (KIF) game; ggp generate sokoban --layout needs a Sokoban level (.sok, .xsb "
                         "or .txt)")


@pytest.mark.parametrize(("game", "reason"), [  # one and three roles are seated (test_cli_evaluate.py)
    ("kuhnPoker", "a GDL-II game (sees): self-play would show every player the true state"),
])
def test_evaluate_refuses_a_game_its_players_cannot_seat_before_any_match(
        game: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "evaluation"
    line = one_line(capsys, ["evaluate", game, "--matches", "10", "--out", str(out)])
    key = Path(game).stem
    assert line.startswith(f"ggp evaluate: {key}: {reason}"), line
    assert not out.exists()  # no match was played, no report written


@pytest.mark.parametrize(("argv", "expected"), [
    (["threePlayerTicTacToe", "--player", "random", "--player", "random"],
     "the game has 3 player roles (red, green, blue) but 2 players were given; give one per role"),
    (["SOLO", "--player", "random", "--player", "random"],
     "the game has 1 player role (solo) but 2 players were given; give one per role"),
    (["kuhnPoker", "--player", "mcts", "--player", "random"],
     "player mcts cannot play role first: this player does not support GDL-II (this game uses sees: seat GDL-II "
     "players, e.g. dmcts or random)"),
])
def test_arena_refuses_a_game_its_players_cannot_seat(argv: list[str], expected: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    if argv[0] == "SOLO":
        (tmp_path / "solo.kif").write_text(SOLO)
        argv = [str(tmp_path / "solo.kif"), *argv[1:]]
    assert one_line(capsys, ["arena", *argv]) == f"ggp arena: {argv[0]}: {expected}"


def test_arena_plays_a_gdl2_game_with_gdl2_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "kuhnPoker", "--player", "dmcts:iterations=10", "--player", "random", "--games", "2",
                 "--quiet"]) == 0
    assert "dmcts:iterations=10" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "expected"), [
    (["threePlayerTicTacToe", "--player", "random", "--player", "random"],
     "ggp match: threePlayerTicTacToe.kif has 3 roles ['red', 'green', 'blue']; give one --player per role"),
    (["kuhnPoker", "--player", "mcts", "--player", "random"],
     "ggp match: kuhnPoker.kif: player mcts cannot play role first: this player does not support GDL-II (this "
     "game uses sees: seat GDL-II players, e.g. dmcts or random)"),
])
def test_match_refuses_players_that_cannot_seat_the_game(argv: list[str], expected: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert one_line(capsys, ["match", *argv, "--quiet"]) == expected


@pytest.mark.parametrize(("argv", "expected"), [
    (["kuhnPoker", "--against", "mcts"],
     "ggp play: kuhnPoker: player mcts cannot play role second: this player does not support GDL-II (this game "
     "uses sees: seat GDL-II players, e.g. dmcts or random)"),
    (["threePlayerTicTacToe", "--against", "random", "--against", "random", "--against", "random"],
     "ggp play: 3 --against players for 2 other roles (green, blue); give one for all or one per role"),
])
def test_play_refuses_opponents_that_cannot_seat_the_game(argv: list[str], expected: str,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert one_line(capsys, ["play", *argv]) == expected


def test_play_sbg_given_kif_points_to_play(capsys: pytest.CaptureFixture[str]) -> None:
    assert one_line(capsys, ["play-sbg", str(TICTACTOE)]) == (
        f"ggp play-sbg: {TICTACTOE}: play-sbg plays .sbg files; use 'ggp play' for other games")
