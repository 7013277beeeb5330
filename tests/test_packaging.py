"""``pip install .`` puts one import name into site-packages: ``ggp`` (players and translators inside it)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from ggp.reasoner.circuit.codegen import RUNTIME_DIRS
from tests.prerequisites import require_module

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_holds_only_the_ggp_package(tmp_path: Path) -> None:
    require_module("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("ggp-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = "-".join(wheel.name.split("-")[:2]) + ".dist-info"
    assert {name.split("/")[0] for name in names} == {"ggp", dist_info}
    assert "ggp/players/mcts.py" in names and "ggp/translators/sbg/parser.py" in names
    assert "ggp/generation/evolution.py" in names
    # Data the code reads at run time: the C sources compiled on first use, the shipped RAPP models.
    assert "ggp/translators/sbg/minimax.c" in names
    runtime = {f"ggp/{file.relative_to(ROOT / 'ggp').as_posix()}" for folder in RUNTIME_DIRS for file in folder.iterdir()}
    assert len(runtime) >= 12 and runtime <= set(names)  # the circuit's and the search's .c and .h files
    assert {"ggp/evaluation/data/minimax3_model.json", "ggp/evaluation/data/mcts_model.json"} <= set(names)
    assert "ggp/translators/sokoban/data/ppo_turtle_5x5.pt" in names  # the shipped PPO policy
    # The piece pictures of games/ made ahead of time, so an installed manager draws them at once.
    assert sum(name.startswith("ggp/commands/piece_shapes/") and name.endswith(".svg") for name in names) >= 2 * 16
    assert not any(name.startswith(("players/", "translators/")) for name in names)
