"""The README's code blocks work as printed: the Python blocks run as plain scripts from the repository
root, and every line of the shell tour is a valid `ggp` invocation whose input files exist (or are made
by an earlier line); the quick lines (validate, translate, generate, nld) really run.

Slow lines (bench, arena, evaluate) are parsed, not run: their commands have their own tests, and the
tour would otherwise take minutes.
"""

from __future__ import annotations

import glob
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ggp.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RUN = {"validate", "translate", "generate", "nld"}


def blocks(language: str) -> list[str]:
    """The README's fenced code blocks in ``language``."""
    return re.findall(rf"^```{language}\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)


def tour_commands() -> list[list[str]]:
    """Each `ggp` command of the shell blocks as an argument list (comments and `&& other` dropped)."""
    commands = []
    for block in blocks("sh"):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            for part in line.split("&&"):
                words = shlex.split(part)
                if words and words[0] == "ggp":
                    commands.append(words[1:])
    return commands


def test_the_readme_has_a_python_block_and_a_shell_tour() -> None:
    assert blocks("python") and len(tour_commands()) >= 5


@pytest.mark.parametrize("code", blocks("python"), ids=lambda code: code.splitlines()[0][:40])
def test_each_python_block_runs_as_a_plain_script(code: str, tmp_path: Path) -> None:
    script = tmp_path / "snippet.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()


def test_every_tour_line_parses_and_the_quick_ones_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("kif", "games"):
        (tmp_path / name).symlink_to(ROOT / name)
    parser = build_parser()
    for words in tour_commands():
        argv = [match for word in words for match in (sorted(glob.glob(word)) if "*" in word else [word])]
        parser.parse_args(argv)  # exits 2 on an unknown command or option
        for before, word in zip(["", *argv], argv):
            if re.search(r"\.(kif|sbg)$", word) and before not in ("-o", "--out"):
                assert Path(word).exists(), f"{word} in 'ggp {' '.join(words)}' does not exist at that point"
        if argv[0] in RUN:
            assert main(argv) == 0, argv
