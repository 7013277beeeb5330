"""``ggp bench --engine circuit --batch B`` reports the same figures as for the clingo engine (issue 11).

Only the shape and the consistency of the figures are checked here; the rates themselves are quoted from
``ggp bench`` runs and ``benchmarks/circuit_bench.py``, never asserted by a test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ggp.cli import main
from tests.conftest import KIF_DIR

TTT = KIF_DIR / "ticTacToe" / "ticTacToe.kif"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # compiled circuits go to a fresh cache


def _bench_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["bench", str(TTT), "--seconds", "0.2", "--json", *argv]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def test_the_batched_circuit_reports_the_clingo_figures(capsys: pytest.CaptureFixture[str]) -> None:
    clingo = _bench_json(capsys, "--engine", "clingo")
    circuit = _bench_json(capsys, "--engine", "circuit", "--batch", "64")
    assert set(circuit) == set(clingo)
    assert circuit["engine"] == "circuit (c)" and circuit["batched"] is True and clingo["batched"] is False
    assert circuit["playouts"] >= 64 and circuit["states"] > circuit["playouts"]
    # Random tic-tac-toe lasts 5 to 9 moves; both engines count states the same way.
    for data in (clingo, circuit):
        assert 5 <= data["mean_depth"] <= 9
        assert data["mean_depth"] == pytest.approx(data["states"] / data["playouts"])
        assert data["state_step_seconds"] > 0


def test_without_batch_the_circuit_is_measured_through_the_state_machine(capsys: pytest.CaptureFixture[str]) -> None:
    data = _bench_json(capsys, "--engine", "circuit")
    assert data["engine"] == "circuit (c)" and data["batched"] is False and data["playouts"] >= 1
    assert main(["bench", str(TTT), "--engine", "circuit", "--batch", "32", "--seconds", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "engine      circuit (c) (batched)" in out and "legal + next, batched" in out


def test_auto_measures_the_circuit_a_player_switches_to_and_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ggp.reasoner import upgrade

    monkeypatch.setattr(upgrade, "_BUILDS", {})  # this test's build, not one another test left behind
    data = _bench_json(capsys, "--engine", "auto")
    assert data["engine"] == "circuit (c)"  # waited for the background build, as a player's search does
    assert data["chosen"] == "circuit (c) (auto: a player plays on clingo until it is built)"
    # Built already (kept for the next match of the game): the switch can come before the line is written;
    # it still names the engine that answers first.
    assert _bench_json(capsys, "--engine", "auto")["chosen"] == data["chosen"]
    assert _bench_json(capsys, "--engine", "auto", "--quick")["engine"] == "clingo"  # auto's choice by grounding


def test_auto_measures_the_quick_engine_when_the_circuit_does_not_build_and_says_why(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ggp.reasoner import upgrade

    monkeypatch.setattr(upgrade, "_BUILDS", {})
    monkeypatch.setattr(upgrade, "UPGRADE_CPU_SECONDS", 0.001)  # ticTacToe is over the budget now
    assert main(["bench", str(TTT), "--seconds", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "engine      clingo (auto: what a player uses; the circuit did not build: " in out
    assert "compiling the circuit exceeded its budget of 0.001 s of CPU" in out
