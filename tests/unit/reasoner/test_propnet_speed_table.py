"""docs/fastpath.md's table of our circuit beside Sancho's propnet is the committed run's, row for row
(``python benchmarks/propnet_speed.py table benchmarks/data/propnet_speed_2026-11-28.jsonl``)."""

from __future__ import annotations

import json

from tests.helpers.benchmarks import BENCHMARKS, load_benchmark

DATA = BENCHMARKS / "data" / "propnet_speed_2026-11-28.jsonl"
FASTPATH = BENCHMARKS.parent / "docs" / "fastpath.md"


def test_the_propnet_table_is_the_committed_run() -> None:
    propnet_speed = load_benchmark("propnet_speed")
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    assert len({row["game"] for row in rows}) == len(rows)  # one row a game
    table = propnet_speed.table(rows)
    assert table in FASTPATH.read_text(), "docs/fastpath.md does not hold the table the data gives"


def test_a_row_with_both_sides_gives_their_ratio_and_a_failed_side_gives_none() -> None:
    propnet_speed = load_benchmark("propnet_speed")
    both = {"game": "g", "ours": {"setup_s": 1.0, "playouts_per_s": 3000.0, "engine": "circuit (c)"},
            "sancho": {"setup_s": 2.0, "playouts_per_s": 1000.0}}
    failed = {"game": "h", "ours": {"setup_s": 1.0, "playouts_per_s": 10.0, "engine": "clingo"},
              "sancho": {"error": "did not finish within 150 s"}}
    lines = propnet_speed.table([both, failed]).splitlines()
    assert lines[2] == "| g | 3,000 (1.0 s) | 1,000 (2.0 s) | 3.0x |"
    assert lines[3] == "| h | 10 (1.0 s) (clingo: not compiled) | - (did not finish within 150 s) | - |"
