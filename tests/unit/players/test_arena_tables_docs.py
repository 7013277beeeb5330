"""Every arena table of docs/players.md and docs/strength.md is rebuilt from committed data, row for row,
or its row says it is not: ``(not rebuilt from committed data)``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType

from tests.helpers.benchmarks import load_benchmark

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "benchmarks" / "data"
PLAYERS = ROOT / "docs" / "players.md"
STRENGTH = ROOT / "docs" / "strength.md"
NOT_REBUILT = "(not rebuilt from committed data)"

DUELS_HEADER = "| Game | New | Before | Games | New W / D / L | New's score | 95% CI |"
RESULTS_HEADER = "| Game (engine) | Player | vs | Games | Wins | Draws | Losses |"
ENHANCEMENTS_HEADER = "| Enhancement (new vs before) | Game | Iterations a move | Seed(s) | Games | New W / D / L |"
PUZZLES_HEADER = "| Enhancement (new vs before) | Game | Iterations a move | Seed(s) | Games | New's mean goal (full tours) |"
STRENGTH_HEADER = "| Game | Claim | Player | Opponent | Engine | Games | W / D / L | Score | 95% CI |"


def benchmark(name: str) -> ModuleType:
    return load_benchmark(name)


def tables(path: Path, header: str) -> list[list[str]]:
    """The rows (lines) of every Markdown table of ``path`` whose header line starts with ``header``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for index, line in enumerate(lines):
        if line.startswith(header):
            rows = []
            for row in lines[index + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(row)
            found.append(rows)
    assert found, f"no table {header!r} in {path.name}"
    return found


def test_the_arena_results_table_is_the_committed_runs_row_for_row() -> None:
    arena_duels = benchmark("arena_duels")
    duels = arena_duels.read_duels(DATA / "arena_results_2026-11-28.jsonl")
    [rows] = tables(PLAYERS, RESULTS_HEADER)
    assert rows == [arena_duels.results_row(duel) for duel in duels]
    for duel in duels:  # the recorded command made the recorded result: seed 0, the players in order
        command, result = duel["command"], duel["result"]
        assert command[command.index("--seed") + 1] == "0"
        assert [s["player"] for s in result["standings"][:2]] == command[-3::2]


def test_the_duel_tables_have_no_row_beside_the_committed_runs() -> None:
    # The decisive-move duels, then the self-configuration's (issue 41): two tables of the same kind.
    arena_duels = benchmark("arena_duels")
    files = ("decisive_duels_2026-11-27.jsonl.gz", "selfconfig_duels_2026-11-28.jsonl.gz")
    assert tables(PLAYERS, DUELS_HEADER) == [[arena_duels.row(duel) for duel in arena_duels.read_duels(DATA / name)]
                                            for name in files]


def test_the_puzzle_rows_are_the_committed_knights_tour_runs_or_say_they_are_not() -> None:
    runs = [json.loads(line) for line in (DATA / "nmcs_knightsTour_arena_2026-11-27.jsonl").read_text().splitlines()]
    shown = {(run["player"], run["games"]): f"{run['mean']:.1f} ({run['at100']})" for run in runs}
    [rows] = tables(PLAYERS, PUZZLES_HEADER)
    rebuilt = 0
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if NOT_REBUILT in cells[0]:
            continue
        level = re.search(r"nested=(\d)", cells[0])
        assert level, row
        iterations, games = cells[2].replace(",", ""), int(cells[4])
        assert cells[5] == shown[(f"mcts:iterations={iterations},nested={level[1]}", games)], row
        assert cells[6] == shown[(f"mcts:iterations={iterations}", games)], row
        rebuilt += 1
    assert rebuilt == 3


def test_the_enhancement_duels_without_committed_runs_say_so() -> None:
    [rows] = tables(PLAYERS, ENHANCEMENTS_HEADER)
    assert rows and all(NOT_REBUILT in row.split(" | ")[0] for row in rows)


def test_the_strength_table_is_printed_from_the_committed_rows() -> None:
    strength = benchmark("strength")
    printed = strength.markdown(strength.load_rows(DATA / "strength.jsonl")).splitlines()
    [rows] = tables(STRENGTH, STRENGTH_HEADER)
    assert rows == [line for line in printed if line.startswith("|") and not line.startswith(("| Game", "|---"))]
