"""benchmarks/vs_sancho.py's table: a match Sancho never answered is a set-up failure shown apart from the points,
and checkers (Sancho's propnet build runs out of memory) counts in no overall row (issue 41)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.benchmarks import load_benchmark

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture
def vs_sancho(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # it imports its sibling ggp_base_host
    return load_benchmark("vs_sancho")


def row(game: str, share: float, silent: bool = False) -> dict[str, object]:
    zero = {"TO": 0, "IL": 0, "CE": 0}
    return {"game": game, "player": "mcts", "clock": "10/2", "share": share, "sancho_silent": silent,
            "errors": {"ours": zero, "sancho": {**zero, "TO": 30 if silent else 0}}, "load": [1.0, 1.0]}


def test_a_silent_sancho_is_a_set_up_failure_and_checkers_counts_in_no_overall_row(vs_sancho: ModuleType) -> None:
    assert vs_sancho.silent({"errors": [["", "TO"], ["", "CE"]]}, [1])
    assert not vs_sancho.silent({"errors": [["", "TO"], ["", ""]]}, [1])
    assert not vs_sancho.silent({"errors": []}, [1])
    rows = [row("connectFour", 1.0), row("connectFour", 0.0), row("connectFour", 1.0, silent=True),
            row("checkers", 1.0), row("checkers", 1.0)]
    lines = list(vs_sancho.summarize(rows))
    connect, checkers, overall = lines[2], lines[3], lines[4]
    assert connect.startswith("| connectFour | `mcts` | 10/2 s | 2 | 50% |") and "| 1 | 0 | 1.0 |" in connect
    assert checkers.startswith("| checkers (apart) | `mcts` | 10/2 s | 2 | 100% |")
    assert overall.startswith("| **overall** | `mcts` | 10/2 s | 2 | 50% |")  # neither the failure nor checkers


def docs_table(heading: str) -> list[str]:
    """The table lines of docs/strength.md's section that starts with ``heading``."""
    text = (BENCHMARKS.parent / "docs" / "strength.md").read_text(encoding="utf-8")
    start = text.index(heading)
    ends = [text.find(mark, start + 1) for mark in ("\n### ", "\n## ")]
    section = text[start:min(end for end in ends if end >= 0)]
    return [line for line in section.splitlines() if line.startswith("|")]


def printed_table(vs_sancho: ModuleType, files: list[str]) -> list[str]:
    rows = vs_sancho.read_rows([BENCHMARKS / "data" / name for name in files])
    return [line for line in vs_sancho.summarize(rows) if line.startswith("|")]


def test_the_fifth_runs_table_in_the_docs_is_printed_from_its_committed_rows(vs_sancho: ModuleType) -> None:
    printed = printed_table(vs_sancho, ["vs_sancho_2026-11-28b.jsonl"])
    assert docs_table("### Fifth run (10 s / 2 s, 2026-11-28)") == printed


def test_the_sixth_runs_table_in_the_docs_is_printed_from_its_committed_rows(vs_sancho: ModuleType) -> None:
    files = ["vs_sancho_2026-11-28b.jsonl", "vs_sancho_2026-11-28c.jsonl", "vs_sancho_2026-11-29a.jsonl"]
    assert docs_table("### Sixth run (10 s / 2 s, 2026-11-28 and 29)") == printed_table(vs_sancho, files)
    assert all(row.get("game") != "breakthrough" for row in vs_sancho.read_rows([BENCHMARKS / "data" / files[1]]))


def test_the_seventh_runs_table_at_30_s_5_s_is_printed_from_its_committed_rows(vs_sancho: ModuleType) -> None:
    printed = printed_table(vs_sancho, ["vs_sancho_2026-11-29b.jsonl"])
    assert docs_table("### Seventh run (30 s / 5 s, 2026-11-29)") == printed
    assert all("30/5 s" in line for line in printed[2:])
