"""The methods benchmark (benchmarks/sokoban_methods.py) writes its records before its report and builds the
report from them alone, so ``--report-from`` recomputes every figure from the committed data file; a
``--methods`` rerun replaces only its methods' records and rows."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers.benchmarks import load_benchmark

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "sokoban_methods.md"

BASE = {"command": "python benchmarks/sokoban_methods.py --minutes 4 --seed 0", "date": "2026-01-02",
        "machine": "x86_64", "cores": 2, "python": "3.11.7"}
RERUN = {**BASE, "command": "python benchmarks/sokoban_methods.py --minutes 1 --seed 0 --methods mcts",
         "date": "2026-01-03"}


def _load() -> ModuleType:
    return load_benchmark("sokoban_methods")


def _method(method: str, run: dict[str, Any], **figures: Any) -> dict[str, Any]:
    return {"record": "method", "method": method, "run": run, "seconds": 60.0, "size": "8x8", "boxes": 3,
            "messages": [], **figures}


def _level(method: str, psh: float, len_: float, own: tuple[float, float] | None = (2.0, 3.0)) -> dict[str, Any]:
    return {"record": "level", "method": method, "title": f"{method} level", "width": 10, "height": 10, "boxes": 3,
            "pushes": round(psh * 29), "moves": round(len_ * 100), "psh": psh, "len": len_,
            "non_trivial": psh > 0.5 and len_ > 0.5, "own_psh": own and own[0], "own_len": own and own[1],
            "text": "#####\n#@$.#\n#####\n"}


RECORDS = [
    _method("pdb", BASE, wall=60.0, cpu=30.0, build=20.0, solve=9.5,
            outcomes={"accepted": 3, "invalid": 2, "trivial": 5}, rss_mb=28.4, tables_mb=4.04,
            messages=["attempt 3: stopped at the memory cap"],
            own_scores=[[0.6, 0.7], [1.2, 0.4], [0.9, 3.1], [0.2, 0.1]]),
    _level("pdb", 0.8, 0.6), _level("pdb", 1.3, 0.55), _level("pdb", 0.4, 1.2),
    _method("sym", BASE, wall=61.0, cpu=60.0, build=8.0, solve=50.0, outcomes={"trivial": 4}, rss_mb=31.6,
            tables_mb=0.0, own_scores=[]),
    _method("mcts", RERUN, wall=72.0, cpu=72.0, build=71.9, solve=0.1, outcomes={"accepted": 1}, rss_mb=23.0,
            tables_mb=0.6, own_scores=[[0.44, 1.78]]),
    _level("mcts", 0.44, 0.28, own=(0.44, 1.78)),
    {"record": "method", "method": "ppo", "run": BASE, "seconds": 48.0, "error": "No module named 'torch'"},
]


def test_the_report_is_built_from_a_records_file_alone_with_every_tables_figure(tmp_path: Path) -> None:
    bench = _load()
    data = tmp_path / "records.jsonl"
    assert bench.write_records(RECORDS, data) == data
    out = tmp_path / "report.md"
    out.write_text(f"old tables\n{bench.MARKER}\n\nexplanation\n", encoding="utf-8")
    assert bench.main(["--report-from", str(data), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[2].startswith("Measured with `python benchmarks/sokoban_methods.py --minutes 4 --seed 0` on "
                               "2026-01-02 (x86_64, 2 shared cores, Python 3.11.7)")
    assert f"The run's records are committed in `{data}`" in lines[2]
    assert f"`python benchmarks/sokoban_methods.py --report-from {data} --out {out}` rebuilds" in lines[2]
    assert lines[4] == ("Rows of MCTS re-measured with `python benchmarks/sokoban_methods.py --minutes 1 --seed 0 "
                        "--methods mcts` on 2026-01-03 (x86_64, 2 shared cores).")
    assert {  # best and mean of the kept levels, levels (non-trivial), non-trivial per CPU and wall minute
        "| PDB | 8x8, 3 boxes | 3.11 / 9.02 | 1.30 / 1.20 | 0.83 / 0.78 | 3 (2) | 14.21 | 4.0 | 2.0 |",
        "| SYM | 8x8, 3 boxes | 1.95 / 4.7 | - / - | - / - | 0 (0) | 437.12 | 0.0 | 0.0 |",
        "| MCTS | 8x8, 3 boxes | 1.02 / 3.32 | 0.44 / 0.28 | 0.44 / 0.28 | 1 (0) | 6.02 | 0.0 | 0.0 |",
        "| PPO | - | 0.33 / 0.64 | not run: No module named 'torch' | | | 0.0 | | |",
        # by own solution: best PSH / LEN, non-trivial of attempts, per CPU minute
        "| PDB | 3.11 / 9.02 | 1.20 / 3.10 | 2 of 10 | 4.0 | 14.21 |",
        "| SYM | 1.95 / 4.7 | 0.00 / 0.00 | 0 of 4 | 0.0 | 437.12 |",
        "| MCTS | 1.02 / 3.32 | 0.44 / 1.78 | 0 of 1 | 0.0 | 6.02 |",
        "| PPO | 0.33 / 0.64 | - | - | - | 0.0 |",
        "| PDB | 60.0 | 30.0 | 20.0 / 9.5 | 10: accepted 3, invalid 2, trivial 5 | 28 | 4.0 |",
        "| SYM | 61.0 | 60.0 | 8.0 / 50.0 | 4: trivial 4 | 32 | - |",
        "| MCTS | 72.0 | 72.0 | 71.9 / 0.1 | 1: accepted 1 | 23 | 0.6 |",
        "- PDB: attempt 3: stopped at the memory cap",
    } <= set(lines)
    assert not [line for line in lines if line.startswith("| PPO | 4")]  # no time row for a method that did not run
    assert text.endswith(f"{bench.MARKER}\n\nexplanation\n") and "old tables" not in text


def test_large_records_are_gzipped_with_stable_bytes_and_read_back(tmp_path: Path) -> None:
    bench = _load()
    many = [_method("sym", BASE, own_scores=[[0.5 + i / 10**6, 0.25] for i in range(20_000)])]
    path = bench.write_records(many, tmp_path / "big.jsonl")
    assert path.name == "big.jsonl.gz" and bench.read_records(path) == many
    first = path.read_bytes()
    assert bench.write_records(many, path) == path and path.read_bytes() == first


def _fake_measure(bench: ModuleType, mcts_cpu: float) -> Any:
    """``_measure`` without child processes: SYM really runs (in this process, a fraction of a second), the
    other methods return made-up records."""

    def measure(method: str, seconds: float, seed: int) -> list[dict[str, Any]]:
        if method == "sym":
            records: list[dict[str, Any]] = bench._child("sym", 0.05, seed)
            return records
        made = copy.deepcopy([record for record in RECORDS if record["method"] == method])
        made[0].pop("run")
        if method == "mcts":
            made[0]["cpu"] = mcts_cpu
        return made

    return measure


def test_a_runs_records_rebuild_its_report_and_a_methods_rerun_replaces_only_its_records_and_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _load()
    monkeypatch.setattr(bench, "_measure", _fake_measure(bench, mcts_cpu=72.0))
    out, data = tmp_path / "report.md", tmp_path / "run.jsonl"
    out.write_text(f"{bench.MARKER}\n\nexplanation\n", encoding="utf-8")
    assert bench.main(["--minutes", "0.01", "--data", str(data), "--out", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    records = bench.read_records(data)
    assert [r["method"] for r in records if r["record"] == "method"] == ["pdb", "sym", "mcts", "ppo"]
    sym_levels = [r for r in records if r["record"] == "level" and r["method"] == "sym"]
    assert sym_levels and all(r["non_trivial"] and r["text"] and r["own_psh"] >= r["psh"] for r in sym_levels)
    [sym] = [r for r in records if r["record"] == "method" and r["method"] == "sym"]
    assert len(sym["own_scores"]) >= len(sym_levels) and sym["cpu"] > 0
    sym_row = f"{len(sym_levels)} ({len(sym_levels)}) | 437.12 |"
    assert sym_row in written
    assert "`python benchmarks/sokoban_methods.py --minutes 0.01 --seed 0` on " in written
    assert written.endswith("explanation\n")

    assert bench.main(["--report-from", str(data), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == written  # the records alone give the same report

    monkeypatch.setattr(bench, "_measure", _fake_measure(bench, mcts_cpu=36.0))
    rerun = tmp_path / "rerun.jsonl"
    assert bench.main(["--minutes", "0.01", "--methods", "mcts", "--data", str(rerun), "--out", str(out)]) == 0
    merged = out.read_text(encoding="utf-8")
    again = bench.read_records(rerun)
    assert [r for r in again if r["method"] != "mcts"] == [r for r in records if r["method"] != "mcts"]
    [mcts] = [r for r in again if r["record"] == "method" and r["method"] == "mcts"]
    assert mcts["cpu"] == 36.0 and mcts["run"]["command"].endswith("--methods mcts")
    changed = {line for line in merged.splitlines()} ^ {line for line in written.splitlines()}
    assert all(line.startswith(("| MCTS |", "Rows of MCTS", "Measured with")) for line in changed)
    assert "| MCTS | 1.02 / 3.32 | 0.44 / 1.78 | 0 of 1 | 0.0 | 6.02 |" in merged
    assert "| MCTS | 72.0 | 36.0 | 71.9 / 0.1 | 1: accepted 1 | 23 | 0.6 |" in merged
    assert "Rows of MCTS re-measured with `python benchmarks/sokoban_methods.py --minutes 0.01 --seed 0 " \
           "--methods mcts` on " in merged
    assert bench.main(["--report-from", str(rerun), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == merged


def test_a_methods_rerun_needs_a_report_naming_its_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _load()
    monkeypatch.setattr(bench, "_measure", _fake_measure(bench, mcts_cpu=1.0))
    out = tmp_path / "report.md"
    out.write_text("# no data named\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        bench.main(["--methods", "mcts", "--data", str(tmp_path / "d.jsonl"), "--out", str(out)])
    assert out.read_text(encoding="utf-8") == "# no data named\n"


def test_the_docs_tables_are_rebuilt_exactly_from_the_data_file_they_name() -> None:
    bench = _load()
    doc = DOC.read_text(encoding="utf-8")
    named = bench.NAMED_DATA.search(doc)
    if named is None:  # figures measured before the benchmark kept records: the page must say so
        assert re.search(r"These figures predate the benchmark's records", doc)
        return
    data = ROOT / named.group(1)
    rebuilt = bench.report(bench.read_records(data), named.group(1), "docs/sokoban_methods.md")
    assert doc.split(bench.MARKER)[0] == rebuilt.split(bench.MARKER)[0]
