"""Every arena table of docs/players.md and docs/strength.md is rebuilt from committed data, row for row (no
row is left marked ``(not rebuilt from committed data)``)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers.benchmarks import load_benchmark

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "benchmarks" / "data"
PLAYERS = ROOT / "docs" / "players.md"
STRENGTH = ROOT / "docs" / "strength.md"
NOT_REBUILT = "(not rebuilt from committed data)"
ENHANCEMENT_DUELS = DATA / "enhancement_duels_2026-11-28.jsonl.gz"
RAVE_FIRST_CODE = DATA / "rave_first_code_2026-11-28.jsonl.gz"

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
    # The decisive-move duels, then the self-configuration's and the playout cut-off's (issue 41): three
    # tables of the same kind.
    arena_duels = benchmark("arena_duels")
    files = ("decisive_duels_2026-11-27.jsonl.gz", "selfconfig_duels_2026-11-28.jsonl.gz",
             "factored_duels_2026-11-29.jsonl.gz", "cutoff_duels_2026-11-28.jsonl.gz")
    assert tables(PLAYERS, DUELS_HEADER) == [[arena_duels.row(duel) for duel in arena_duels.read_duels(DATA / name)]
                                            for name in files]


def test_the_puzzle_rows_are_the_committed_knights_tour_runs() -> None:
    # NMCS rows from the NMCS runs of 2026-11-27, then the best-line rows from the enhancement runs.
    runs = [json.loads(line) for line in (DATA / "nmcs_knightsTour_arena_2026-11-27.jsonl").read_text().splitlines()]
    shown = {(run["player"], run["games"]): f"{run['mean']:.1f} ({run['at100']})" for run in runs}
    [rows] = tables(PLAYERS, PUZZLES_HEADER)
    for row in rows[:3]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        level = re.search(r"^NMCS .*nested=(\d)", cells[0])
        assert level, row
        iterations, games = cells[2].replace(",", ""), int(cells[4])
        assert cells[5] == shown[(f"mcts:iterations={iterations},nested={level[1]}", games)], row
        assert cells[6] == shown[(f"mcts:iterations={iterations}", games)], row
    arena_duels = benchmark("arena_duels")
    duels = arena_duels.read_duels(ENHANCEMENT_DUELS)
    assert rows[3:] == [arena_duels.puzzle_row(plan, duels) for plan in arena_duels.ENHANCEMENTS if plan.puzzle]


def test_the_enhancement_table_is_the_committed_duels_row_for_row() -> None:
    arena_duels = benchmark("arena_duels")
    duels = arena_duels.read_duels(ENHANCEMENT_DUELS)
    [rows] = tables(PLAYERS, ENHANCEMENTS_HEADER)
    assert rows == [arena_duels.enhancement_row(plan, duels) for plan in arena_duels.ENHANCEMENTS if not plan.puzzle]
    planned = [command for plan in arena_duels.ENHANCEMENTS for command in plan.commands()]
    assert sorted(duel["command"] for duel in duels) == sorted(planned)  # no run beside the rows' runs
    for duel in duels:  # each recorded result is its command's: players in order, decisive pinned on every side
        command, result = duel["command"], duel["result"]
        specs = command[command.index("--player") + 1::2]
        assert [name.split("#")[0] for name in result["players"]] == specs
        assert all(spec.endswith(",decisive=0") for spec in specs)
        assert len(result["games"]) == int(command[command.index("--games") + 1])
        assert all(game["fallbacks"] == [0] * len(specs) for game in result["games"])


def points(result: dict[str, Any], entrant: int, games: int | None = None) -> float:
    """An entrant's wins + draws / 2 over the first ``games`` games (all by default) of a two-player arena result."""
    total = 0.0
    for game in result["games"][:games]:
        mine, theirs = game["goals"][game["seats"].index(entrant)], game["goals"][1 - game["seats"].index(entrant)]
        total += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return total


def runs_at(duels: list[dict[str, Any]], game: str, seed: int) -> dict[tuple[str, ...], dict[str, Any]]:
    """The results of the runs of ``game`` at base ``seed``, by their player specs in entrant order."""
    found = {}
    for duel in duels:
        command = duel["command"]
        if command[2].endswith(game) and command[command.index("--seed") + 1] == str(seed):
            found[tuple(command[command.index("--player") + 1::2])] = duel["result"]
    return found


def test_the_figures_below_the_enhancement_table_are_the_committed_runs() -> None:
    duels = benchmark("arena_duels").read_duels(ENHANCEMENT_DUELS)
    text = " ".join(PLAYERS.read_text(encoding="utf-8").split())
    solver, plain, rave = "mcts:iterations=1000,decisive=0", "mcts:iterations=1000,solver=0,decisive=0", \
        "mcts:iterations=1000,rave=500,decisive=0"
    seed0, seed9000 = runs_at(duels, "breakthrough.kif", 0), runs_at(duels, "breakthrough.kif", 9000)
    s0, n0 = points(seed0[(solver, plain)], 0), points(seed0[(plain, plain)], 0)
    s9, n9 = points(seed9000[(solver, plain)], 0), points(seed9000[(plain, plain)], 0)
    assert (f"the solver scored {s0:g} where the identical player scored {n0:g} (seed 0) and {s9:g} where it "
            f"scored {n9:g} (seed 9000): {s0 + s9:g} against {n0 + n9:g} of 120") in text
    # RAVE on breakthrough against the identical players' first 30 games of the same schedule
    r = points(seed0[(rave, "mcts:iterations=1000,decisive=0")], 0)
    assert r == points(seed0[(plain, plain)], 0, games=30)
    assert f"its {r:g} of 30 are exactly what the identical players of the seed-0 null check scored" in text
    mix, mcts = "mcts:iterations=3000,mix=0,decisive=0", "mcts:iterations=3000,decisive=0"
    m0 = points(runs_at(duels, "connectFourSimultaneous.kif", 0)[(mix, mcts)], 0)
    m5 = points(runs_at(duels, "connectFourSimultaneous.kif", 5000)[(mix, mcts)], 0)
    assert f"seed 0: {m0:g} of 20, seed 5000: {m5:g} of 100" in text
    with gzip.open(DATA / "mix_duel_connectFourSimultaneous_seed5000_2026-11-27.json.gz", "rt") as first:
        assert runs_at(duels, "connectFourSimultaneous.kif", 5000)[(mix, mcts)]["games"] == json.load(first)["games"]
    assert "the seed-5000 mix duel game for game as its first output" in text


def test_the_first_rave_figures_do_not_reproduce_on_that_days_committed_code() -> None:
    today = runs_at(benchmark("arena_duels").read_duels(ENHANCEMENT_DUELS), "connectFour.kif", 0)[
        ("mcts:iterations=3000,rave=500,decisive=0", "mcts:iterations=3000,decisive=0")]
    first = benchmark("arena_duels").read_duels(RAVE_FIRST_CODE)
    assert [run["commit"][:7] for run in first] == ["cd57e97", "b6d7e1d"]
    for run in first:
        new = run["result"]["standings"][0]
        assert new["player"] == run["command"][-3] == "mcts:iterations=3000,rave=500"
        assert (new["wins"], new["draws"], new["losses"]) == (45, 7, 48)
        assert [(g["seats"], g["goals"]) for g in run["result"]["games"]] == [(g["seats"], g["goals"]) for g in today["games"]]
    longer = [a["length"] - b["length"] for a, b in zip(first[0]["result"]["games"], today["games"])]
    assert len([change for change in longer if change]) == 15  # cd57e97 lacks the proof move (40c98d7)
    assert [a["length"] for a in first[1]["result"]["games"]] == [b["length"] for b in today["games"]]
    text = " ".join(PLAYERS.read_text(encoding="utf-8").split())
    assert "k = 500 on connectFour plays 45 / 7 / 48 as today: at b6d7e1d game for game (goals and lengths), at cd57e97" in text
    assert "every game's outcome the same and 15 of them a few moves shorter or longer" in text


def test_no_arena_table_row_is_left_unrebuilt() -> None:
    for doc in (PLAYERS, STRENGTH):
        assert NOT_REBUILT not in doc.read_text(encoding="utf-8"), doc.name


def test_the_strength_table_is_printed_from_the_committed_rows() -> None:
    strength = benchmark("strength")
    printed = strength.markdown(strength.load_rows(DATA / "strength.jsonl")).splitlines()
    [rows] = tables(STRENGTH, STRENGTH_HEADER)
    assert rows == [line for line in printed if line.startswith("|") and not line.startswith(("| Game", "|---"))]


def test_the_cut_off_figures_below_its_table_are_the_committed_runs() -> None:
    duels = benchmark("arena_duels").read_duels(DATA / "cutoff_duels_2026-11-28.jsonl.gz")
    cut, plain, off = ("mcts:iterations=1000,decisive=0,cutoff=8", "mcts:iterations=1000,decisive=0",
                       "mcts:iterations=1000,decisive=0,cutoff=-1")
    runs = [runs_at(duels, "checkersTiny.kif", seed) for seed in (0, 5000)]

    def tally(pairs: list[tuple[dict[str, Any], int]]) -> str:
        w = d = lost = 0
        for result, entrant in pairs:
            for game in result["games"]:
                mine, theirs = game["goals"][game["seats"].index(entrant)], game["goals"][1 - game["seats"].index(entrant)]
                w, d, lost = w + (mine > theirs), d + (mine == theirs), lost + (mine < theirs)
        return f"{w} / {d} / {lost} over 100 games at equal iterations ({w + d / 2:.1f}%)" if w + d + lost == 100 \
            else f"{w} / {d} / {lost} ({100 * (w + d / 2) / (w + d + lost):.1f}%)"

    text = " ".join(PLAYERS.read_text(encoding="utf-8").split())
    assert tally([(run[(cut, plain)], 0) for run in runs]) in text
    null = tally([(run[(off, off)], 0) for run in runs]).replace(" over 100 games at equal iterations", "")
    assert f"where identical players scored {null}" in text
    breakthrough = runs_at(duels, "breakthrough.kif", 0)
    shown = [points(breakthrough[(f"{plain},cutoff={k}", plain)], 0) for k in (2, 8, 32)]
    assert (f"at K = 2, 8 and 32 the cut-off player scored {shown[0]:g}, {shown[1]:g} and {shown[2]:g} of 40 where "
            f"identical players scored {points(breakthrough[(plain, plain)], 0):g}") in text


def test_the_large_games_table_against_ggp_base_is_printed_from_the_committed_rows(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # it imports its sibling ggp_base_host
    benchmark("strength_ggp_base").table(DATA / "strength_ggp_base_2026-11-28_large.jsonl")
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("|")]
    assert len(printed) == 5  # header, rule, hex, cylinder-checkers, skirmish
    text = STRENGTH.read_text(encoding="utf-8")
    start = text.index("### Fifth run: the large games on their compiled form")
    section = text[start:text.index("\n## ", start)]
    assert [line for line in section.splitlines() if line.startswith("|")] == printed
