"""``ggp evolve --objective``: a weighted sum of Ludii's metrics (and RAPP) measured on the model's plays."""

from __future__ import annotations

from functools import partial

import pytest

from ggp.commands._games import GameMachines
from ggp.errors import InputError
from ggp.evaluation.evaluate import default_model, report_game
from ggp.generation.fitness import Objective, game_source, objective_fitness
from ggp.translators.sbg.parser import parse_sbg
from tests.conftest import ROOT


def test_an_objective_is_a_weighted_list_of_known_metrics() -> None:
    objective = Objective.parse("DurationTurns:0.01, DramaAverage:2,rapp")
    assert objective.terms == (("DurationTurns", 0.01), ("DramaAverage", 2.0), ("rapp", 1.0))
    assert objective.ludii == ("DurationTurns", "DramaAverage") and not objective.is_rapp
    assert objective.score({"DurationTurns": 50, "DramaAverage": 0.25, "rapp": 0.5}) == pytest.approx(1.5)
    assert Objective.parse("drama_mean:2").terms == (("DramaAverage", 2.0),)  # an alias: its catalogue name
    with pytest.raises(InputError, match="unknown objective metric 'Length'"):
        Objective.parse("Length")
    with pytest.raises(InputError, match="weight 'x'"):
        Objective.parse("Completion:x")


def test_choose_fitness_wires_the_objective() -> None:
    from ggp.commands.evolve import choose_fitness

    if default_model() is None:
        pytest.skip("no RAPP model installed")
    fitness, label = choose_fitness("rapp", 2, objective="DurationTurns:0.01")
    assert isinstance(fitness, partial) and label == "objective DurationTurns:0.01"
    assert fitness.keywords["objective"] == Objective.parse("DurationTurns:0.01")
    with pytest.raises(ValueError, match="needs --fitness rapp"):
        choose_fitness("playout", 2, objective="DurationTurns")


def test_the_objective_is_the_weighted_sum_of_the_metrics_on_the_ladder_plays() -> None:
    model = default_model()
    if model is None:
        pytest.skip("no RAPP model installed")
    game = parse_sbg((ROOT / "games" / "gardner.sbg").read_text(), "gardner.sbg")
    machines = GameMachines("auto")
    objective = Objective.parse("DurationTurns:0.01,BoardCoverageDefault:2")
    found = objective_fitness(game, seed=3, objective=objective, matches_per_seat=1, machines=machines)
    # The same plays, reported directly (the machine cache and the seeds make them the same matches).
    from ggp.evaluation.selfplay import round_robin, run_jobs
    from ggp.players.registry import make_player

    source = game_source(game)
    results = run_jobs(round_robin(source, model.algorithms, matches_per_seat=1, seed=3), make_player, machines)
    report = report_game(source.key, results, model.algorithms, model, metrics=objective.ludii)
    turns, coverage = report.metrics["DurationTurns"].value, report.metrics["BoardCoverageDefault"].value
    assert turns is not None and coverage is not None and 0 < coverage <= 1
    assert found.fitness == pytest.approx(0.01 * turns + 2 * coverage)
    assert "DurationTurns" in found.reason
