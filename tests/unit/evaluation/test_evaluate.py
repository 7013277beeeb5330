"""Playability checks, per-game reports and RAPP models built from self-play results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ggp.errors import GgpError
from ggp.evaluation.evaluate import (
    RappModel,
    build_model,
    check_playable,
    default_model,
    model_named,
    plays_of,
    report_game,
    unplayable_report,
)
from ggp.evaluation.ludii.catalogue import CORE
from ggp.evaluation.selfplay import GameSource, MatchResult, round_robin, run_jobs
from ggp.players.registry import make_player
from ggp.reasoner.engines import KifMachines
from tests.unit.evaluation.tiny_games import ENDLESS, MISSING_GOAL, NIM, NO_LEGAL_MOVE


@pytest.mark.parametrize(
    ("key", "kif", "reason"),
    [
        ("no_legal_move", NO_LEGAL_MOVE, "white has no legal move in the initial state"),
        ("endless", ENDLESS, "did not end within 30 steps"),
        ("missing_goal", MISSING_GOAL, "black has 0 goal values"),
    ],
    ids=["no-legal-move", "endless", "missing-goal"],
)
def test_unplayable_games_get_a_reason(key: str, kif: str, reason: str) -> None:
    found = check_playable(GameSource(f"eval-{key}", kif), KifMachines("clingo"), step_cap=30)
    assert found is not None and reason in found


def test_a_playable_game_passes_the_check() -> None:
    assert check_playable(GameSource("eval-nim", NIM), KifMachines("clingo")) is None


def test_rules_that_cannot_be_built_are_unplayable() -> None:
    reason = check_playable(GameSource("eval-broken", "(role a) (<= (legal a ?x) (true b))"), KifMachines("clingo"))
    assert reason is not None and reason.startswith("the rules cannot be used")


def test_an_unplayable_report_has_fitness_minus_one_and_the_reason() -> None:
    report = unplayable_report("g", ("a", "b"), "no move")
    assert report.fitness.fitness == -1 and report.fitness.reason == "no move" and report.unplayable == "no move"
    assert report.to_json()["rapp"]["fitness"] == -1


def _nim_results(specs: tuple[str, ...], key: str = "nim", seed: int = 2) -> list[MatchResult]:
    jobs = round_robin(GameSource(key, NIM), specs, matches_per_seat=3, seed=seed, estimate_playouts=4)
    return run_jobs(jobs, make_player, KifMachines("clingo"))


def test_a_report_has_the_ludi_criteria_matrix_and_fitness_against_a_model() -> None:
    specs = ("random", "mcts:iterations=40")
    results = _nim_results(specs)
    model = RappModel(specs, ("x",), ((0.5, 0.2), (0.8, 0.5)))
    report = report_game("nim", results, specs, model)
    assert report.matches == 6 and report.failed == 0
    assert report.metrics["Completion"].value == 1.0
    assert report.metrics["LeadChange"].value is not None and report.metrics["DramaAverage"].value is not None
    assert set(report.metrics) == set(CORE)  # the Ludi criteria, each once under its catalogue name
    p = report.matrix[1][0]
    assert p is not None and report.matrix[0][1] == pytest.approx(1 - p)
    # Every nim match is at most 7 plies: all too short, so Q = 1 and the fitness is 0.
    assert report.fitness.quickness == 1.0 and report.fitness.fitness == 0.0
    assert report.fitness.distance == pytest.approx(abs(report.matrix[0][1] - 0.2))  # type: ignore[operator]
    json.dumps(report.to_json(), allow_nan=False)


def test_a_report_of_failed_matches_only_is_unplayable() -> None:
    failed = [MatchResult("j1", "g", ("a", "b"), 1, error="boom")]
    report = report_game("g", failed, ("a", "b"), None)
    assert report.fitness.fitness == -1 and report.fitness.reason == "boom" and report.failed == 1


def test_plays_score_white_from_the_goals_and_skip_failures() -> None:
    results = [
        MatchResult("1", "g", ("a", "b"), 1, goals=(100, 0), length=20),
        MatchResult("2", "g", ("b", "a"), 2, goals=(50, 50), length=30),
        MatchResult("3", "g", ("a", "b"), 3, error="x"),
    ]
    assert [(p.white, p.score_white, p.plies) for p in plays_of(results)] == [("a", 1.0, 20), ("b", 0.5, 30)]


def test_a_model_is_built_from_complete_games_and_saved_as_json(tmp_path: Path) -> None:
    specs = ("random", "mcts:iterations=40")
    by_game = {"nim": _nim_results(specs), "nim2": _nim_results(specs, "nim2", 3), "empty": []}
    model = build_model(by_game, specs, anchor="nim")
    assert "nim" in model.games and "empty" not in model.games and model.algorithms == specs
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model.to_json()))
    assert RappModel.load(path) == model
    with pytest.raises(GgpError, match="anchor"):
        build_model(by_game, specs, anchor="empty")


def test_a_bad_model_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text('{"algorithms": ["a"],')
    with pytest.raises(GgpError, match=r"model.json:1:\d+: not valid JSON"):
        RappModel.load(path)
    path.write_text('{"algorithms": ["a", "b"], "matrix": [[0.5]]}')
    with pytest.raises(GgpError, match="does not match"):
        RappModel.load(path)


def test_the_default_model_is_used_only_when_the_ladder_has_its_algorithms(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(RappModel(("a", "b"), ("g",), ((0.5, 0.7), (0.3, 0.5))).to_json()))
    assert default_model(("a", "b", "c"), path) is not None
    assert default_model(("a", "c"), path) is None
    assert default_model(("a", "b"), tmp_path / "missing.json") is None


@pytest.mark.parametrize("name", ["minimax3", "minimax4", "mcts"])
def test_the_shipped_models_are_valid_and_named(name: str) -> None:
    from ggp.players.registry import make_player

    model = model_named(name)
    assert model.games and all(0 <= v <= 1 for row in model.matrix for v in row)
    for spec in model.algorithms:
        make_player(spec)  # every algorithm is a player spec the registry knows
    if name.startswith("minimax"):
        assert len(model.algorithms) == int(name[-1])
        assert all(spec.startswith("minimax:h=") for spec in model.algorithms)
        assert "chess" in model.games  # the spec's anchor


def test_the_default_model_is_the_papers_three_algorithm_min_max_model() -> None:
    assert default_model() == model_named("minimax3")


def test_an_unknown_model_name_is_a_clear_error() -> None:
    with pytest.raises(GgpError, match=r"no RAPP model 'minimax9'.*minimax3, minimax4, mcts"):
        model_named("minimax9")


def test_an_unknown_circuit_evaluator_is_a_clear_reason() -> None:
    reason = check_playable(GameSource("eval-nim-bogus", NIM), KifMachines("circuit:bogus"))
    assert reason is not None and "unknown circuit evaluator 'bogus'" in reason


def test_fallback_moves_are_recorded_per_player_and_marked_in_the_summary_and_report(tmp_path: Path) -> None:
    from ggp.evaluation.report import fallback_note, summary, write_html
    from ggp.evaluation.selfplay import MatchJob, play_match
    from ggp.player import Budget, Player
    from ggp.players.legal_player import LegalPlayer
    from ggp.reasoner.machine import Move, State

    class Failing(LegalPlayer):
        def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
            raise ValueError("cannot think")

    def players(spec: str, seed: int) -> Player:
        return Failing(seed) if spec == "failing" else make_player(spec, seed)

    job = MatchJob(GameSource("nim", NIM), ("failing", "random"), seed=4)
    result = play_match(job, players, KifMachines("clingo"))
    assert result.error is None and result.fallback_roles[0] == result.fallbacks > 0 and result.fallback_roles[1] == 0
    assert MatchResult.from_json(json.loads(json.dumps(result.to_json()))) == result
    report = report_game("nim", [result], ("failing", "random"), None)
    assert report.fallbacks == {"failing": result.fallbacks} and report.to_json()["fallbacks"] == report.fallbacks
    row = summary([report])[0]
    assert fallback_note(row).endswith(f"failing {result.fallbacks}")
    assert "moves played by the fallback" in write_html([report], tmp_path).read_text()
    clean = report_game("nim", [MatchResult("1", "nim", ("a", "b"), 1, goals=(100, 0), length=3)], ("a", "b"), None)
    assert clean.fallbacks == {} and fallback_note(summary([clean])[0]) == ""


def test_metrics_of_matches_recorded_with_less_say_why_and_the_rest_are_measured() -> None:
    from ggp.evaluation.ludii.trace import Observations

    # A result line from before every match kept its legal-move counts: the branching per step stands in.
    bare = MatchResult("1", "g", ("a", "b"), 1, goals=(100, 0), length=2, branching=(3, 2))
    # A match of --metrics rapp: only the legal-move counts.
    counted = MatchResult("2", "g", ("b", "a"), 2, goals=(0, 100), length=1,
                          observed=Observations(legal=((2, 1),), recorded="legal"))
    wanted = ("Completion", "DurationMoves", "DurationTurns", "SituationalRepetition")
    report = report_game("g", [bare, counted], ("a", "b"), None, metrics=wanted)
    assert report.metrics["Completion"].value == 1.0 and report.metrics["DurationMoves"].value == 1.5
    assert report.metrics["BranchingFactorLargest"].value == 3.0  # a Ludi criterion: always measured
    assert "before per-role legal-move counts" in (report.metrics["DurationTurns"].reason or "")
    assert "--metrics rapp" in (report.metrics["SituationalRepetition"].reason or "")
    alone = report_game("g", [counted], ("a", "b"), None, metrics=wanted).metrics
    assert alone["DurationTurns"].value == 1.0 and alone["SituationalRepetition"].value is None
    assert set(report_game("g", [counted], ("a", "b"), None).metrics) == set(CORE)
