"""``ggp evaluate`` end to end on tiny KIF games: JSON output, unplayable games, resuming, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ggp.cli import main
from ggp.evaluation.ludii.catalogue import CORE
from tests.unit.evaluation.tiny_games import ENDLESS, MISSING_GOAL, NIM, NO_LEGAL_MOVE


def _games(folder: Path) -> list[str]:
    paths = []
    for name, text in (("cli_nim", NIM), ("cli_stuck", NO_LEGAL_MOVE), ("cli_endless", ENDLESS), ("cli_nogoal", MISSING_GOAL)):
        path = folder / f"{name}.kif"
        path.write_text(text)
        paths.append(str(path))
    return paths


def test_evaluate_prints_json_reports_unplayable_games_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["evaluate", *_games(tmp_path), "--matches", "2", "--players", "random;mcts:iterations=20", "--engine", "clingo",
            "--step-cap", "40", "--estimate-playouts", "4", "--out", str(out), "--json"]
    assert main(argv) == 0
    rows = {row["game"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["cli_nim"]["matches"] == 4 and rows["cli_nim"]["failed"] == 0
    assert rows["cli_nim"]["fitness"] is None  # the shipped model's ladder differs: no fitness
    assert "no RAPP model" in rows["cli_nim"]["reason"]
    for name, reason in (("cli_stuck", "no legal move"), ("cli_endless", "did not end"), ("cli_nogoal", "goal")):
        assert rows[name]["fitness"] == -1 and reason in rows[name]["reason"]
    page = (out / "report.html").read_text()
    assert "cli_endless" in page and (out / "fitness.png").is_file() and (out / "cli_nim-matrix.png").is_file()
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4
    # A rerun finds every match on disk and plays nothing more.
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == list(rows.values())
    assert (out / "results.jsonl").read_text().splitlines() == lines


def test_evaluate_with_a_model_file_reports_a_fitness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"algorithms": ["random", "mcts:iterations=20"], "games": ["x"],
                                 "matrix": [[0.5, 0.3], [0.7, 0.5]]}))
    nim = tmp_path / "nim.kif"
    nim.write_text(NIM)
    argv = ["evaluate", str(nim), "--matches", "1", "--players", "random;mcts:iterations=20", "--engine", "clingo",
            "--model", str(model), "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    text = capsys.readouterr().out
    # Nim plays are all too short (Q = 1), so the fitness is exactly 0.
    assert "nim: RAPP fitness 0.000 (95% CI 0.000-0.000; D 0.300, B 0.000, Q 1.000), 2 matches, 0 failed" in text
    assert "report:" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--players", "random;wizard"], "unknown player type 'wizard'"),
        (["--players", "random"], "at least two player specs"),
        (["--matches", "0"], "--matches must be at least 1"),
    ],
)
def test_bad_options_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    nim = tmp_path / "nim.kif"
    nim.write_text(NIM)
    assert main(["evaluate", str(nim), "--out", str(tmp_path / "out"), *extra]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("ggp evaluate: ")


def test_the_shipped_model_is_used_when_the_ladder_has_its_algorithms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ggp.evaluation.evaluate import DEFAULT_MODEL_PATH, RappModel
    from tests.conftest import GAMES_DIR

    model = RappModel.load(DEFAULT_MODEL_PATH)
    # The ladder holds the model's algorithms and one more: the fitness is computed against the model.
    argv = ["evaluate", str(GAMES_DIR / "petty.sbg"), "--matches", "1", "--players", ";".join([*model.algorithms, "random"]),
            "--out", str(tmp_path / "out"), "--json"]
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["matches"] == 12 and row["reason"] == ""
    assert isinstance(row["fitness"], float) and 0 <= row["fitness"] <= 1
    # A ladder without the model's algorithms gets no fitness.
    argv[5] = "random;legal"
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["fitness"] is None and "no RAPP model" in row["reason"]


@pytest.mark.timeout(180)
def test_sigterm_stops_the_run_and_keeps_the_finished_matches(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    nim = tmp_path / "nim.kif"
    nim.write_text(NIM)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "ggp", "evaluate", str(nim), "--matches", "20", "--players",
               "random;mcts:iterations=3000", "--engine", "clingo", "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline and process.poll() is None:
        if results.is_file() and results.read_text().count("\n") >= 1:
            break
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "run the same command again to resume" in err
    lines = results.read_text().splitlines()
    assert 1 <= len(lines) < 40 and all(json.loads(line)["error"] is None for line in lines)


def test_evaluate_with_no_options_uses_the_papers_model_and_prints_a_fitness_with_an_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import GAMES_DIR

    monkeypatch.chdir(tmp_path)  # the default --out is ./evaluation
    assert main(["evaluate", str(GAMES_DIR / "gardner.sbg")]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("gardner:"))
    # 3 algorithms, 10 matches per pairing per seat: 60 plays, a fitness and its 95% interval.
    assert "RAPP fitness 0." in line and "(95% CI 0." in line and "60 matches, 0 failed" in line, line
    summary = json.loads((tmp_path / "evaluation" / "summary.json").read_text())
    assert summary["games"][0]["algorithms"] == [
        "minimax:h=C,depth=2", "minimax:h=CCM,depth=2", "minimax:h=WCM,depth=2"]


def test_a_gdl_game_without_options_gets_the_knowledge_free_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ggp.evaluation.evaluate import model_named
    from tests.conftest import KIF_DIR

    # The min-max model needs a board with piece rules; a GDL game is played by the MCTS model's ladder.
    assert main(["evaluate", str(KIF_DIR / "ticTacToe" / "ticTacToe.kif"), "--matches", "1",
                 "--out", str(tmp_path / "out"), "--json"]) == 0
    captured = capsys.readouterr()
    assert "knowledge-free MCTS model" in captured.err
    (row,) = json.loads(captured.out)
    assert row["reason"] == "" and isinstance(row["fitness"], float)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert tuple(summary["games"][0]["algorithms"]) == model_named("mcts").algorithms


def test_evaluate_reports_ludii_metrics_for_a_three_player_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    argv = ["evaluate", "threePlayerTicTacToe", "rockPaperScissors", "--matches", "1", "--players", "random;mcts:iterations=5",
            "--engine", "clingo", "--metrics", "rapp,outcome,Drama,BoardCoverageDefault", "--estimate-playouts", "2",
            "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "threePlayerTicTacToe: RAPP fitness n/a, 6 matches, 0 failed; RAPP compares two players; this game has 3 roles" in text
    assert "  threePlayerTicTacToe: Balance " in text and "metrics in summary.json" in text
    games = {g["game"]: g for g in json.loads((out / "summary.json").read_text())["games"]}
    three = games["threePlayerTicTacToe"]
    assert three["roles"] == 3 and three["matches"] == 6  # two specs, every seat: 6 seatings
    assert three["intrinsic"]["BoardSites"] == 16 and three["intrinsic"]["Roles"] == 3
    assert set(three["metrics"]) == set(CORE) | {"AdvantageP1", "Balance", "Completion", "Drawishness", "Timeouts",
                                                 "OutcomeUniformity", "BoardCoverageDefault"} | {
        f"Drama{a}" for a in ("Average", "Median", "Maximum", "Minimum", "Variance", "ChangeAverage", "ChangeSign",
                              "ChangeLineBestFit", "ChangeNumTimes", "MaxIncrease", "MaxDecrease")}
    assert "criteria" not in three  # the Ludi criteria are catalogue metrics, each once
    assert three["metrics"]["Completion"]["value"] is not None and "interval" in three["metrics"]["Completion"]
    assert three["metrics"]["DramaAverage"]["value"] is not None
    rps = games["rockPaperScissors"]["metrics"]
    assert rps["BoardCoverageDefault"] == {"value": None, "plays": 0, "reason": "the game has no board the rules show"}
    assert "at once" in rps["DramaAverage"]["reason"]
    page = (out / "report.html").read_text()
    assert "compare-heatmap.png" in page and "<span class=na>n/a</span>" in page


def test_an_unknown_metric_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "ticTacToe", "--metrics", "Dramatic", "--out", str(tmp_path)]) == 1
    assert "unknown metric 'Dramatic'" in capsys.readouterr().err
