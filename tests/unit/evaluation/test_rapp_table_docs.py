"""docs/rapp_results.md's RAPP table is rebuilt exactly from the committed data (benchmarks/data/) by
``python benchmarks/rapp_table.py table``: every published figure can be recomputed without rerunning a play."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.benchmarks import load_benchmark
from tests.prerequisites import require_module

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "rapp_results.md"


def _load() -> ModuleType:
    return load_benchmark("rapp_table")


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
    derived = bench.derived_lines(bench.load_models(), tmp_path / "no-results", generations=20)
    block = doc.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    assert derived == block  # the Generated row's derived figures: by pawn reach, parameter set, mean D/B/Q


def test_an_evolution_runs_course_is_committed_and_summarised_from_its_first_middle_and_last_generation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_module("clingo")
    bench = _load()
    from ggp.evaluation.rapp import RappResult
    from ggp.generation.evolution import Individual

    def individual(fitness: float) -> Individual:
        return Individual(game=None, result=RappResult(fitness), origin="test", params="classic")  # type: ignore[arg-type]

    run = tmp_path / "k3-run0"
    run.mkdir()
    history = [[individual(f) for f in generation] for generation in ([0.2, 0.4], [0.5, 0.7], [0.9, 0.6])]
    bench.write_history(history, run / bench.HISTORY_GZ)
    monkeypatch.setattr(bench, "COMMITTED_EVOLVED", tmp_path)
    assert bench.history_lines(generations=2) == [
        "- k3-run0: generation 0 best 0.400 mean 0.300, generation 1 best 0.700 mean 0.600, "
        "generation 2 best 0.900 mean 0.750"]
