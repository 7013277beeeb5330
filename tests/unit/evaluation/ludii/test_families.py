"""The nine families and the eleven aggregates, by hand."""

from __future__ import annotations

import pytest

from ggp.evaluation.ludii import families as f
from ggp.evaluation.ludii.trace import Observations, PlayTrace

from .plays import FORCED, SWING


def test_aggregates_of_a_short_list() -> None:
    values = [3.0, 2.0, 2.0]
    expected = {
        "Average": 7 / 3, "Median": 2.0, "Maximum": 3.0, "Minimum": 2.0,
        "Variance": ((2 / 3) ** 2 + 2 * (1 / 3) ** 2) / 3,
        "ChangeAverage": -0.5,  # (2 - 3) / 2
        "ChangeSign": -0.5,  # signs -1, 0
        "ChangeLineBestFit": -0.5,  # slope through (0, 3), (1, 2), (2, 2)
        "ChangeNumTimes": 0.5,  # one turn downwards in two changes
        "MaxIncrease": 0.0, "MaxDecrease": -1.0,
    }
    for name, aggregate in f.AGGREGATES.items():
        assert aggregate(values) == pytest.approx(expected[name]), name


def test_aggregates_leave_out_what_they_cannot_say() -> None:
    assert f.AGGREGATES["Average"]([]) is None
    assert f.AGGREGATES["ChangeAverage"]([1.0]) is None
    assert f.AGGREGATES["ChangeNumTimes"]([1.0]) is None


def test_evaluation_families_of_a_swinging_play() -> None:
    # v_A = [0, 0.5, -0.5, 1], v_B = -v_A, A wins.
    assert f.drama(SWING) == pytest.approx([0.0, 0.0, 1.0])
    assert f.move_evaluation(SWING) == pytest.approx([0.5, 0.5, 1.0])  # A, B, A after their moves
    assert f.state_evaluation_difference(SWING) == pytest.approx([0.0, 1.0, 1.0, 2.0])


def test_evaluation_families_of_a_comeback() -> None:
    # v_A = [0, 0.8, 0.2, -1], B wins; the forced step 1 is still A's turn.
    assert f.drama(FORCED) == pytest.approx([0.0, 1.6, 0.4])
    assert f.move_evaluation(FORCED) == pytest.approx([0.8, 0.2, 1.0])


def test_a_forced_last_move_is_evaluated_by_its_mover() -> None:
    # A, B, then A's forced last move (tic-tac-toe's ninth): e_A = [0.5, 0.6, 0.4, 1.0], so
    # v_A = [0, 0.2, -0.2, 1] and v_B = -v_A; the last move is A's, evaluated 1 (not B's -1).
    play = PlayTrace((100, 0), observed=Observations(legal=((3, 1), (1, 2), (1, 1))),
                     evaluations=((0.5, 0.5), (0.6, 0.4), (0.4, 0.6), (1.0, 0.0)))
    assert play.movers() == ((0,), (1,), (0,))
    assert f.move_evaluation(play) == pytest.approx([0.2, 0.2, 1.0])


def test_board_and_move_families() -> None:
    assert f.board_sites_occupied(SWING) == [0.25, 0.5, 0.5, 0.25]
    assert f.piece_number(SWING) == [1.0, 2.0, 2.0, 1.0]
    assert f.move_distance(SWING) == [1.0, 2.0]
    assert f.branching_factor(FORCED) == [2.0, 1.0, 3.0]
    assert f.decision_factor(FORCED) == [2.0, 3.0]
    assert f.score_difference(SWING) == [0.0, 20.0, 40.0, 100.0]
