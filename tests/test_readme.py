"""The README's code blocks work as printed: the Python blocks run as plain scripts from the repository
root, and every line of the shell tour is a valid `ggp` invocation whose input files exist (or are made
by an earlier line); the quick lines (validate, translate, generate, nld) really run.

Slow lines (bench, arena, evaluate) are parsed, not run: their commands have their own tests, and the
tour would otherwise take minutes.
"""

from __future__ import annotations

import glob
import itertools
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


def tour_lines() -> list[list[str]]:
    """Each command of the shell blocks as its words (comments dropped, ``a && b`` split)."""
    commands = []
    for block in blocks("sh"):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            for part in line.split("&&"):
                words = shlex.split(part)
                if words:
                    commands.append(words)
    return commands


def tour_commands() -> list[list[str]]:
    """Each `ggp` command of the shell blocks as an argument list (other commands dropped)."""
    return [words[1:] for words in tour_lines() if words[0] == "ggp"]


def ignored_folders() -> set[str]:
    """The repository-root folders .gitignore names (``/out/``): where the tour may write."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return {line.strip("/") for line in lines if line.startswith("/") and line.endswith("/")}


def expected_output(code: str) -> str | None:
    """The ``# ...`` lines that end a Python block: what it prints."""
    lines = code.rstrip().splitlines()
    tail: list[str] = []
    while lines and lines[-1].startswith("# "):
        tail.insert(0, lines.pop()[2:])
    return "\n".join(tail) or None


def test_the_readme_has_a_python_block_and_a_shell_tour() -> None:
    assert blocks("python") and len(tour_commands()) >= 5


@pytest.mark.parametrize("code", blocks("python"), ids=lambda code: code.splitlines()[0][:40])
def test_each_python_block_runs_as_a_plain_script(code: str, tmp_path: Path) -> None:
    script = tmp_path / "snippet.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()
    expected = expected_output(code)
    if expected is not None:
        assert done.stdout.strip() == expected


def test_the_python_block_prints_moves_as_kif() -> None:
    printed = [expected_output(code) for code in blocks("python")]
    assert any(text and text.startswith("((mark 1 1), (mark 1 2)") for text in printed), printed


def test_every_tour_line_parses_and_the_quick_ones_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("kif", "games"):
        (tmp_path / name).symlink_to(ROOT / name)
    parser = build_parser()
    for line in tour_lines():
        if line[:2] == ["mkdir", "-p"]:
            for folder in line[2:]:
                (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        if line[0] != "ggp":
            continue
        words = line[1:]
        argv = [match for word in words for match in (sorted(glob.glob(word)) if "*" in word else [word])]
        parser.parse_args(argv)  # exits 2 on an unknown command or option
        for before, word in zip(["", *argv], argv):
            if re.search(r"\.(kif|sbg)$", word) and before not in ("-o", "--out"):
                assert Path(word).exists(), f"{word} in 'ggp {' '.join(words)}' does not exist at that point"
        if argv[0] in RUN:
            assert main(argv) == 0, argv
    left = {path.name for path in tmp_path.iterdir()} - {"kif", "games"}
    assert left <= ignored_folders(), f"the tour leaves {sorted(left)} in the repository root"


def test_the_tour_writes_only_into_folders_git_ignores() -> None:
    # The tour used to leave six_demo.kif and levels.txt in the repository root.
    ignored = ignored_folders()
    outputs = [after for words in tour_commands() for before, after in itertools.pairwise(words)
               if before in ("-o", "--out")]
    assert outputs and all(Path(path).parts[0] in ignored for path in outputs), (outputs, ignored)
