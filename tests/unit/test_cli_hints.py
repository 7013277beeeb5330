"""The command line's hints for a newcomer's slips: a misspelt option of a subcommand gets that
subcommand's usage and the closest option; an unknown game names the closest game files."""

from __future__ import annotations

import pytest

from ggp.cli import main
from tests.conftest import ROOT


def test_a_misspelt_option_shows_the_subcommands_usage_and_the_closest_option(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["evaluate", "ticTacToe", "--matchs", "2"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ggp evaluate ")
    assert err.splitlines()[-1] == "ggp evaluate: error: unrecognized arguments: --matchs 2 (did you mean --matches?)"


def test_a_nested_subcommand_shows_its_own_usage_and_no_hint_when_nothing_is_close(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["translate", "sbg", "--zzz", "games/gardner.sbg"])
    err = capsys.readouterr().err
    assert err.startswith("usage: ggp translate sbg ")
    assert err.splitlines()[-1] == "ggp translate sbg: error: unrecognized arguments: --zzz"


def test_an_unknown_game_names_the_closest_game_files(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["demo", "--games", "gardner", "--once", "--port", "0"]) == 1
    assert capsys.readouterr().err == (
        "ggp demo: no game 'gardner': not a file, and not a key in kif/ (did you mean games/gardner.sbg?)\n")
    assert main(["match", "tictactoe", "--player", "random"]) == 1
    assert "(did you mean ticTacToe?)" in capsys.readouterr().err
    assert main(["match", "qqqqzz", "--player", "random"]) == 1
    assert capsys.readouterr().err.endswith("not a key in kif/ (e.g. ticTacToe)\n")
