"""The comparison view: normalisation per metric, n/a kept apart."""

from __future__ import annotations

from pathlib import Path

from ggp.evaluation.compare import COMPARED, normalise, shown_metrics, write_comparison


def test_each_metric_is_scaled_over_the_games_that_have_it() -> None:
    rows = normalise({"a": {"x": 2.0, "y": 5.0}, "b": {"x": 4.0, "y": None}, "c": {"x": 3.0, "y": 5.0}}, ["x", "y"])
    assert rows == {"a": [0.0, 0.5], "b": [1.0, None], "c": [0.5, 0.5]}


def test_the_view_shows_singles_and_family_averages_with_values() -> None:
    assert "Completion" in COMPARED and "DramaAverage" in COMPARED and "DramaChangeAverage" not in COMPARED
    assert shown_metrics({"a": {"Completion": 1.0, "Balance": None}, "b": {"Balance": None}}) == ["Completion"]


def test_one_game_draws_nothing(tmp_path: Path) -> None:
    assert write_comparison({"a": {"Completion": 1.0}}, tmp_path) == []
    assert write_comparison({"a": {"Completion": 1.0}, "b": {"Completion": None}}, tmp_path) == [
        "compare-heatmap.png", "compare-parallel.png"]
