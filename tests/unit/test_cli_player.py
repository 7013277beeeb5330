"""``ggp player`` and ``ggp arena`` argument handling (the servers themselves are tested elsewhere)."""

from __future__ import annotations

import pytest

from ggp.cli import build_parser, main
from ggp.commands.player import player_spec
from ggp.protocol.server import PlayerLimits


def test_player_spec_adds_the_per_move_limit() -> None:
    parser = build_parser()
    assert player_spec(parser.parse_args(["player", "mcts"])) == "mcts"
    assert player_spec(parser.parse_args(["player", "mcts", "--iterations", "50"])) == "mcts:iterations=50"
    args = parser.parse_args(["player", "mcts:exploration=0.5", "--seconds", "2"])
    assert player_spec(args) == "mcts:exploration=0.5,seconds=2.0"
    assert (args.port, args.host, args.engine, args.seed) == (9147, "127.0.0.1", "auto", 0)
    defaults = PlayerLimits()
    assert (args.max_memory_mb, args.max_call_s) == (defaults.memory_mb, defaults.max_call_s) == (2048, 300.0)
    args = parser.parse_args(["player", "random", "--max-memory-mb", "512", "--max-call-s", "30"])
    assert (args.max_memory_mb, args.max_call_s) == (512, 30.0)


def test_iterations_and_seconds_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["player", "mcts", "--iterations", "5", "--seconds", "1"])
    assert caught.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_an_unknown_player_type_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["player", "negamax"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ggp player: unknown player type 'negamax'") and err.count("\n") == 1


def test_arena_needs_players_and_known_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "ticTacToe"]) == 1
    assert "give one --player per role" in capsys.readouterr().err
    assert main(["arena", "ticTacToe", "--player", "mcts:speed=3", "--player", "random"]) == 1
    assert "no option 'speed'" in capsys.readouterr().err
