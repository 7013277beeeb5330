"""``ggp generate sbg``, ``ggp nld`` and ``ggp evolve`` through :func:`ggp.cli.main`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ggp.cli import main
from ggp.gdl.parser import parse_kif
from ggp.translators.sbg.parser import parse_sbg
from tests.conftest import GAMES_DIR

from .restrictions import rapp_violations


def test_generate_sbg_writes_valid_games_and_kif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "sbg", "--count", "3", "--seed", "5", "--out", str(tmp_path), "--kif"]) == 0
    files = sorted(tmp_path.glob("*.sbg"))
    assert len(files) == 3
    for path in files:
        game = parse_sbg(path.read_text(), str(path))
        assert rapp_violations(game) == [] and not game.warnings
        assert parse_kif(path.with_suffix(".kif").read_text()).roles
    assert "3 game(s) written" in capsys.readouterr().out


def test_generate_sbg_reports_a_bad_params_file_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "p.yaml"
    bad.write_text("p_rider: 7\n")
    assert main(["generate", "sbg", "--params", str(bad), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "p_rider must be a probability" in err


def test_nld_prints_descriptions_and_the_score(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nld", str(GAMES_DIR / "six_demo.sbg")]) == 0
    out = capsys.readouterr().out
    assert "f_NLD = 160" in out and "Moves like a knight." in out
    assert main(["nld", "--json", str(GAMES_DIR / "shatranj.sbg")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["nld"] == 166 and {p["letter"]: p["value"] for p in data["pieces"]}["A"] == 3


def test_nld_reports_a_bad_file_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.sbg"
    bad.write_text("<<X>> <BOARD> 2")
    assert main(["nld", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err


def test_evolve_runs_resumes_and_exports_the_best(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evolve", "--population", "3", "--seed", "2", "--out", str(tmp_path), "--fitness", "playout",
            "--playouts", "2", "--no-gdl-check", "--best", "2", "--params", "classic"]
    assert main([*args, "--generations", "1"]) == 0
    assert main([*args, "--generations", "2", "--resume", "--nld"]) == 0
    out = capsys.readouterr().out
    assert "Pareto front" in out and "#1 " in out
    assert sorted(p.name for p in tmp_path.glob("gen_*")) == ["gen_0000", "gen_0001", "gen_0002"]
    best = tmp_path / "best"
    assert parse_sbg((best / "rank_01.sbg").read_text())
    assert parse_kif((best / "rank_01.kif").read_text()).roles
    assert "fitness" in json.loads((best / "rank_01.json").read_text())
    front = json.loads((tmp_path / "pareto.json").read_text())
    assert front and all(isinstance(entry["nld"], int) for entry in front)


def test_evolve_takes_an_engine_that_defaults_to_auto() -> None:
    from functools import partial

    from ggp.cli import build_parser
    from ggp.commands._games import GameMachines
    from ggp.commands.evolve import choose_fitness
    from ggp.evaluation.evaluate import default_model

    parser = build_parser()
    assert parser.parse_args(["evolve", "--out", "x"]).engine == "auto"
    assert parser.parse_args(["evolve", "--out", "x", "--engine", "prover"]).engine == "prover"
    if default_model() is None:
        pytest.skip("no RAPP model installed: the fitness is the playout proxy, which plays no GDL")
    fitness, label = choose_fitness("rapp", 2, engine="prover")
    assert isinstance(fitness, partial) and label == "rapp"
    assert fitness.keywords["machines"] == GameMachines("prover")
