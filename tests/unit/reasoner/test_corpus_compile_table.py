"""The corpus-coverage figures of README.md and docs/fastpath.md are the committed sweep's
(benchmarks/data/corpus_compile_budget_2026-11-28.txt), and every game the sweep refused was refused by
the compiler's budget with one line naming it and the figure reached."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SWEEP = ROOT / "benchmarks" / "data" / "corpus_compile_budget_2026-11-28.txt"
REFUSAL = re.compile(
    r"^FAIL (\S+) CompileBudgetError: \S+\.kif: compiling the circuit exceeded its budget of "
    r"(10 s of CPU|1024 MB of memory) \((\d[\d.,]* s spent, .+|the grounding phase '\w+' of its child process reached it)\)"
    r" cpu=[\d.]+ probe=[\d.]+$")


def sweep() -> tuple[list[str], list[str], list[str]]:
    lines = [line for line in SWEEP.read_text().splitlines() if line and not line.startswith("#")]
    compiled = [line for line in lines if line.startswith("OK ")]
    refused = [line for line in lines if line.startswith("FAIL ")]
    assert len(compiled) + len(refused) == len(lines), "a line that is neither OK nor FAIL (a timeout?)"
    return lines, compiled, refused


def test_every_corpus_game_has_a_line_and_every_refusal_names_the_budget_and_the_figure() -> None:
    lines, _, refused = sweep()
    valid = (ROOT.parent / "shared" / "gdl-corpus" / "VALID.txt")
    assert len(lines) == 217
    if valid.exists():
        assert sorted(line.split()[1] for line in lines) == sorted(valid.read_text().split())
    for line in refused:
        assert REFUSAL.match(line), line


def test_the_published_coverage_is_the_sweeps() -> None:
    _, compiled, refused = sweep()
    split = [line for line in compiled if line.split()[2] == "split"]
    names = ", ".join(sorted(line.split()[1] for line in refused))
    header = SWEEP.read_text()
    plain = len(compiled) - len(split)
    assert f"Summary: {len(compiled)} compile within the budget ({plain} plain, {len(split)} split)" in header
    assert f"{len(refused)} are refused" in header and names in " ".join(header.replace("# ", "").split())
    assert f"{len(compiled)} of the 217 games compile within" in " ".join((ROOT / "README.md").read_text().split())
    fastpath = " ".join((ROOT / "docs" / "fastpath.md").read_text().split())
    assert f"**{len(compiled)} of the 217** games of VALID.txt compile within 10 s of CPU and 1 GB" in fastpath
    assert f"{len(compiled) - len(split)} as written and {len(split)} only with split rule bodies" in fastpath
    slowest = max(compiled, key=lambda line: float(line.split("cpu=")[1].split()[0]))
    assert f"{slowest.split()[1]} ({float(slowest.split('cpu=')[1].split()[0]):.1f} s)" in fastpath


def test_the_table_of_what_does_not_compile_names_every_refused_game_and_chess() -> None:
    _, _, refused = sweep()
    text = (ROOT / "docs" / "fastpath.md").read_text()
    section = text[text.index("## What does not compile yet"):text.index("\n## Tests")]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| Game")]
    listed = {name.split()[0] for row in rows for name in row.split("|")[1].split(",")}
    assert listed == {line.split()[1] for line in refused} | {"chess"}
