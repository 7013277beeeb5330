"""RAPP: the performance matrix, distances, model selection and fitness on hand-computed data."""

from __future__ import annotations

import numpy as np
import pytest

from ggp.evaluation import rapp
from ggp.evaluation.rapp import Play


def test_matrix_counts_both_seats_and_mirrors() -> None:
    plays = [Play("a", "b", 1.0, 30), Play("b", "a", 0.5, 30), Play("a", "b", 0.0, 30), Play("b", "a", 0.0, 30)]
    p = rapp.performance_matrix(plays, ["a", "b"])
    # a scored 1 + 0.5 + 0 + 1 = 2.5 of 4 against b.
    assert p[0, 1] == pytest.approx(0.625) and p[1, 0] == pytest.approx(0.375)


def test_unplayed_pairs_are_nan_and_make_the_game_unplayable() -> None:
    plays = [Play("a", "b", 1.0, 30)]
    p = rapp.performance_matrix(plays, ["a", "b", "c"])
    assert np.isnan(p[0, 2])
    result = rapp.evaluate_game(plays, ["a", "b", "c"], np.full((3, 3), 0.5))
    assert result.fitness == -1 and "never" in result.reason


def test_balance_and_quickness() -> None:
    plays = [Play("a", "b", 1.0, 5), Play("a", "b", 1.0, 40), Play("b", "a", 0.5, 40), Play("b", "a", 0.0, 9)]
    # white points 2.5 of 4, black 1.5: B = 1/4; two plays within 10 plies: Q = 1/2.
    assert rapp.colour_balance(plays) == pytest.approx(0.25)
    assert rapp.quickness(plays) == pytest.approx(0.5)


def test_fitness_of_a_game_equal_to_the_model() -> None:
    model = np.array([[0.5, 0.75], [0.25, 0.5]])
    plays = [Play("a", "b", 1.0, 30), Play("b", "a", 0.0, 30), Play("a", "b", 0.5, 30), Play("b", "a", 0.5, 30)]
    # a scores 1 + 1 + 0.5 + 0.5 = 3 of 4: equal to the model, D = 0; white 2 of 4: B = 0.
    result = rapp.evaluate_game(plays, ["a", "b"], model)
    assert result.distance == pytest.approx(0.0) and result.balance == pytest.approx(0.0)
    assert result.fitness == pytest.approx(1.0)


def matrix(values: dict[tuple[int, int], float], n: int = 3) -> np.ndarray:
    m = np.full((n, n), 0.5)
    for (i, j), v in values.items():
        m[i, j], m[j, i] = v, 1 - v
    return m


def test_model_games_are_the_closest_group_containing_the_anchor() -> None:
    matrices = {
        "chess": matrix({(0, 1): 0.9, (0, 2): 0.9, (1, 2): 0.8}),
        "shatranj": matrix({(0, 1): 0.85, (0, 2): 0.9, (1, 2): 0.75}),
        "odd1": matrix({(0, 1): 0.2, (0, 2): 0.5, (1, 2): 0.5}),
        "odd2": matrix({(0, 1): 0.25, (0, 2): 0.45, (1, 2): 0.5}),
    }
    assert rapp.choose_model_games(matrices, "chess") == ("chess", "shatranj")
    model = rapp.model_matrix(matrices, ["chess", "shatranj"])
    assert model[0, 1] == pytest.approx(0.875)


def test_model_algorithms_maximise_the_spread() -> None:
    # d is indistinguishable from a; b and c are clearly ordered.
    names = ["a", "b", "c", "d"]
    m = np.full((4, 4), 0.5)
    for (i, j), v in {(0, 1): 0.9, (0, 2): 1.0, (1, 2): 0.8, (3, 1): 0.9, (3, 2): 1.0, (0, 3): 0.5}.items():
        m[i, j], m[j, i] = v, 1 - v
    assert rapp.choose_model_algorithms(m, names, 3) == ("a", "b", "c")
    assert rapp.spread(m[np.ix_((0, 1), (0, 1))]) == pytest.approx(0.16)
