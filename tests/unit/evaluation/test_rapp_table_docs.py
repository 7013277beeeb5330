"""docs/rapp_results.md's RAPP table is rebuilt exactly from the committed data (benchmarks/data/) by
``python benchmarks/rapp_table.py table``: every published figure can be recomputed without rerunning a play."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.prerequisites import require_module

ROOT = Path(__file__).resolve().parents[3]
BENCHMARK = ROOT / "benchmarks" / "rapp_table.py"
DOC = ROOT / "docs" / "rapp_results.md"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rapp_table_bench", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _published_table(doc: str, header: str) -> list[str]:
    lines = doc.splitlines()
    start = lines.index(header)
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


@pytest.mark.slow
def test_the_docs_rapp_table_and_example_games_are_rebuilt_exactly_from_the_committed_data(tmp_path: Path) -> None:
    require_module("clingo")
    bench = _load()
    rebuilt = bench.table_lines(tmp_path / "no-results", generations=20, promising=0.8)  # committed data only
    doc = DOC.read_text(encoding="utf-8")
    table = [line for line in rebuilt if line.startswith("|")]
    assert _published_table(doc, bench.TABLE_HEADER) == table
    three = rebuilt.index("\nExample games, 3-algorithm model:")
    examples = [line for line in rebuilt[three + 1:] if line.startswith("- ")][:9]
    published = [line for line in doc.splitlines() if line.startswith("- ") and line.split(":")[0] in
                 {example.split(":")[0] for example in examples}]
    assert published == examples
