"""docs/players.md's decisive-move and factored-search duels are the committed arena runs, row for row."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.benchmarks import load_benchmark

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "benchmarks" / "data" / "decisive_duels_2026-11-27.jsonl.gz"


def test_the_docs_decisive_duel_table_is_printed_from_the_committed_runs() -> None:
    arena_duels = load_benchmark("arena_duels")
    duels = arena_duels.read_duels(DATA)
    assert len(duels) == 10
    docs = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    for duel in duels:
        result = duel["result"]
        new, old = result["players"]
        assert duel["command"][-4:] == ["--player", new, "--player", old]
        games = int(duel["command"][duel["command"].index("--games") + 1])
        assert len(result["games"]) == result["standings"][0]["games"] == games
        assert sorted(game["seats"] for game in result["games"][:2]) == [[0, 1], [1, 0]]  # seats rotated
        assert arena_duels.row(duel) in docs


def test_the_docs_factored_search_duels_are_printed_from_the_committed_runs() -> None:
    arena_duels = load_benchmark("arena_duels")
    duels = arena_duels.read_duels(ROOT / "benchmarks" / "data" / "factored_duels_2026-11-29.jsonl.gz")
    assert len(duels) == 2
    docs = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    for duel in duels:
        new, old = duel["result"]["players"]
        assert "factor=1" in new and "factor=0" in old
        assert arena_duels.row(duel) in docs
