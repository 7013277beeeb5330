"""The argument types every subcommand shares refuse bad text with one argparse error line."""

from __future__ import annotations

import argparse

import pytest

from ggp.cli import main
from ggp.commands._args import non_negative_int, positive_float, positive_int, size_arg


@pytest.mark.parametrize(("parse", "text"), [
    (positive_int, "0"), (positive_int, "-3"), (positive_int, "2.5"), (positive_int, "x"),
    (non_negative_int, "-1"), (non_negative_int, ""),
    (positive_float, "0"), (positive_float, "-0.1"), (positive_float, "nan"), (positive_float, "fast"),
    (size_arg, "8"), (size_arg, "8x"), (size_arg, "-1x3"),
])
def test_bad_text_is_refused_with_a_message_naming_it(parse: object, text: str) -> None:
    assert callable(parse)
    with pytest.raises(argparse.ArgumentTypeError, match="expected") as caught:
        parse(text)
    assert repr(text) in str(caught.value)


def test_good_text_is_parsed() -> None:
    assert (positive_int(" 7"), non_negative_int("0"), positive_float("1e-3"), size_arg("5 x 6")) == (7, 0, 0.001, (5, 6))


@pytest.mark.parametrize("argv", [
    ["bench", "kif/ticTacToe/ticTacToe.kif", "--depth", "-2"],
    ["trace", "kif/ticTacToe/ticTacToe.kif", "out.json", "--playouts", "0"],
    ["player", "random", "--max-call-s", "0"],
    ["generate", "sokoban", "--size", "8by8"],
    ["evaluate", "kif/ticTacToe/ticTacToe.kif", "--workers", "0"],
    ["evaluate", "kif/ticTacToe/ticTacToe.kif", "--precision", "-1"],
    ["match", "kif/ticTacToe/ticTacToe.kif", "--playclock", "0"],
    ["demo", "--matches-per-pairing", "0"],
    ["serve", "--suspend-after", "-1"],
    ["translate", "sokoban", "level.txt", "--level", "0"],
    ["replay", "kif/ticTacToe/ticTacToe.kif", "trace.json", "--playouts", "0"],
    ["arena", "kif/ticTacToe/ticTacToe.kif", "--games", "0"],
])
def test_every_command_uses_them(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert "expected" in capsys.readouterr().err
