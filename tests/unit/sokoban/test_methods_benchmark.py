"""The methods benchmark reruns a subset of methods and replaces only their rows of the report."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARK = Path(__file__).resolve().parents[3] / "benchmarks" / "sokoban_methods.py"

OLD = """# title

Measured with `python benchmarks/sokoban_methods.py --minutes 4 --seed 0` on a day.

| method | board | x |
|---|---|---|
| PDB | 8x8 | old pdb |
| MCTS | 8x8 | old mcts |

| method | wall s |
|---|---|
| PDB | 1.0 |
| MCTS | 2.0 |

<!-- explanation (kept by the benchmark) -->

text
"""

NEW = """| MCTS | 8x8 | new mcts |
| PDB | 8x8 | not rerun |
| MCTS | 9.0 |
"""


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sokoban_methods_bench", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_merging_a_rerun_replaces_only_the_rerun_methods_rows_and_notes_the_command() -> None:
    merged = _load()._merge(OLD, NEW, ["mcts"], "python benchmarks/sokoban_methods.py --methods mcts")
    lines = merged.splitlines()
    assert "| MCTS | 8x8 | new mcts |" in lines and "| MCTS | 9.0 |" in lines
    assert "| PDB | 8x8 | old pdb |" in lines and "| PDB | 1.0 |" in lines
    assert "old mcts" not in merged and merged.endswith("text\n")
    assert lines[3] == lines[5] == ""
    assert lines[4].startswith("Rows of MCTS re-measured with `python benchmarks/sokoban_methods.py --methods mcts`")
    again = _load()._merge(merged, NEW, ["mcts"], "cmd")
    assert again.replace("`cmd`", "`python benchmarks/sokoban_methods.py --methods mcts`") == merged  # note replaced
