"""``ggp translate sbg`` and ``ggp play-sbg`` (an alias of ``ggp play``) end to end through :func:`ggp.cli.main`."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ggp.cli import main
from ggp.commands.play import format_move, parse_move
from ggp.gdl.parser import parse_kif
from tests.conftest import GAMES_DIR

SIX = GAMES_DIR / "six_demo.sbg"


def test_translate_writes_kif_that_parses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "six.kif"
    assert main(["translate", "sbg", str(SIX), "-o", str(out)]) == 0
    description = parse_kif(out.read_text())
    assert str(description.roles[0]) == "white"
    assert main(["translate", "sbg", str(SIX)]) == 0
    assert capsys.readouterr().out == out.read_text()


def test_translated_kif_passes_validate_simulate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "six.kif"
    assert main(["translate", "sbg", str(SIX), "-o", str(out)]) == 0
    assert main(["validate", "--simulate", "3", str(out)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"{out}: valid, 0 errors"), last


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        ("<BOARD> 6 6", "<BOARD> 7 6", "10:1", "row 1 has 6 cells but the board width is 7"),
        ("R (1,0,e)^*", "R (1,0,x)^*", "20:8", "malformed move letter"),
        ("#k 0 &", "#z 0 &", "28:1", "goal names unknown piece 'z'"),
        ("<GOALS> 120 &", "<GOALS> &", "24:9", "expected the turn limit after '<GOALS>'"),
    ],
)
def test_play_sbg_and_translate_report_bad_files_with_their_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, where: str, message: str
) -> None:
    bad = tmp_path / "bad.sbg"
    assert old in SIX.read_text()
    bad.write_text(SIX.read_text().replace(old, new, 1))
    for command in (["translate", "sbg"], ["play-sbg"]):
        assert main([*command, str(bad)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{bad}:{where}: {message}" in err, err


def test_translate_reports_a_bad_file_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.sbg"
    bad.write_text(SIX.read_text().replace("<GOALS> 120", "<GOALS> 0"))
    assert main(["translate", "sbg", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:24:9: turn limit must be at least 1" in err


def test_translate_prints_warnings_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = tmp_path / "odd.sbg"
    odd.write_text(SIX.read_text().replace("#K 0 &", "#K 0 &\n@K 9 9 &"))
    assert main(["translate", "sbg", str(odd), "-o", str(tmp_path / "odd.kif")]) == 0
    assert "warning: goal square (9 9) is off the board" in capsys.readouterr().err


def test_moves_are_read_in_both_notations() -> None:
    assert parse_move("a2a3") == parse_move(" 0 1 0 2 ") == (0, 1, 0, 2)
    assert parse_move("b1-c3") == (1, 0, 2, 2)
    assert parse_move("hello") is None and parse_move("1 2 3") is None
    assert format_move((1, 0, 2, 2)) == "b1c3"


def test_play_rejects_bad_input_then_plays_against_the_opponent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("nonsense\na1a5\n0 1 0 2\nquit\n"))
    assert main(["play-sbg", str(SIX), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "'nonsense' is not a legal move now; type a number from 1 to 11" in out
    assert "'a1a5' is not a legal move now" in out and "1) (move 0 1 0 2) a2a3    2) (move 1 0 0 2) b1a3" in out
    assert "black plays" in out and out.rstrip().endswith("stopped.")


def test_play_as_black_lets_the_opponent_open(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play-sbg", str(SIX), "--as", "black", "--opponent", "random"]) == 0
    out = capsys.readouterr().out
    assert out.index("white plays") < out.index("black> ")
