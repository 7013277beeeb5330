"""The CLI turns a missing or unreadable file into one plain line naming it, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.cli import main


@pytest.mark.parametrize("command", [["translate", "sbg"], ["translate", "sokoban"], ["replay"], ["nld"]])
def test_a_missing_file_is_one_line_naming_it(command: list[str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.txt"
    extra = [str(tmp_path / "trace.json")] if command == ["replay"] else []
    assert main([*command, str(missing), *extra]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.endswith(f"{missing}: no such file or directory"), err
    assert "Errno" not in err


def test_a_directory_given_as_a_game_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["translate", "sbg", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == f"ggp translate: {tmp_path}: is a directory"
