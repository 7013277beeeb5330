"""docs/evaluation.md's three tables of Ludii's own figures beside ours are rebuilt exactly from the committed data
(benchmarks/data/ludii_published.json and ludii_compare.json) by ``python benchmarks/ludii_compare.py --table``."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from tests.helpers.benchmarks import load_benchmark

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "evaluation.md"


def _load() -> ModuleType:
    return load_benchmark("ludii_compare")


def test_both_ludii_tables_in_the_docs_are_rebuilt_from_the_committed_data() -> None:
    bench = _load()
    data = json.loads((ROOT / "benchmarks" / "data" / "ludii_compare.json").read_text())
    doc = DOC.read_text(encoding="utf-8")
    for rebuilt in (bench.table(data), bench.more_table(data), bench.differences(data)):
        assert rebuilt in doc


def test_the_published_figures_resolve_every_concept_id_kept() -> None:
    figures = _load().published()
    assert set(figures) == {"ticTacToe", "connectFour", "breakthrough", "rockPaperScissors", "chess", "shatranj",
                            "los_alamos"}
    assert figures["ticTacToe"]["DurationTurns"] == 7.8 and figures["ticTacToe"]["AdvantageP1"] == 0.61
    assert figures["ticTacToe"]["BranchingFactorAverage"] is None  # a 0 in the file: not computed
