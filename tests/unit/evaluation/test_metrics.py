"""The metrics on hand-computed records (the test values of the metrics specification)."""

from __future__ import annotations

import pytest

from ggp.evaluation import metrics as m
from ggp.evaluation.metrics import PlayRecord
from ggp.match.rules import EndReason


def plays(first_wins: int, second_wins: int, draws: int, reason: EndReason = "terminal") -> list[PlayRecord]:
    return (
        [PlayRecord((100, 0), 20)] * first_wins
        + [PlayRecord((0, 100), 20)] * second_wins
        + [PlayRecord((50, 50), 20, end_reason=reason)] * draws
    )


def test_seven_two_one_gives_the_published_outcome_metrics() -> None:
    records = plays(7, 2, 1)
    assert m.completion(records) == pytest.approx(0.9)
    assert m.drawishness(records) == pytest.approx(0.1)
    assert m.score_rates(records) == pytest.approx((0.75, 0.25))
    assert m.balance(records) == pytest.approx(0.5)
    assert m.advantage_first_player(records) == pytest.approx(0.75)
    assert m.outcome_uniformity(records) == pytest.approx(0.35)


def test_seven_three_without_draws() -> None:
    records = plays(7, 3, 0)
    assert (m.balance(records), m.advantage_first_player(records), m.completion(records)) == pytest.approx(
        (0.6, 0.7, 1.0)
    )


def test_even_results_with_two_draws() -> None:
    records = plays(4, 4, 2)
    assert (m.balance(records), m.completion(records), m.drawishness(records)) == pytest.approx((1.0, 0.8, 0.2))


def test_a_draw_at_the_turn_limit_is_a_timeout_not_a_natural_draw() -> None:
    records = plays(1, 0, 1, reason="turn_limit")
    assert m.timeouts(records) == pytest.approx(0.5)
    assert m.drawishness(records) == 0.0


def test_aborted_plays_are_excluded() -> None:
    records = plays(1, 1, 0) + [PlayRecord((0, 0), 3, end_reason="aborted")]
    assert m.completion(records) == 1.0 and m.all_metrics(records)["plays"] == 2.0


def test_first_player_advantage_follows_the_first_mover_index() -> None:
    records = [PlayRecord((0, 100), 10, first_mover=1), PlayRecord((100, 0), 10, first_mover=0)]
    assert m.advantage_first_player(records) == 1.0


@pytest.mark.parametrize(
    ("lengths", "expected"), [([60, 30, 90, 60], 0.75), ([120], 0.0), ([180], 0.0), ([0], 0.0)]
)
def test_ludi_duration_is_clamped(lengths: list[int], expected: float) -> None:
    assert m.ludi_duration([PlayRecord((100, 0), n) for n in lengths]) == pytest.approx(expected)


@pytest.mark.parametrize(("length", "expected"), [(10, 0.5), (50, 1.0), (150, 0.5), (250, 0.0)])
def test_ideal_duration(length: int, expected: float) -> None:
    assert m.ideal_duration([PlayRecord((100, 0), length)], 20, 100) == pytest.approx(expected)


def evaluation_trace() -> PlayRecord:
    e_a = [0.5, 0.6, 0.4, 0.7, 1.0]
    return PlayRecord((100, 0), 4, evaluations=tuple((a, 1 - a) for a in e_a))


def test_lead_change_drama_and_decisiveness_on_the_reference_trace() -> None:
    records = [evaluation_trace()]
    assert m.lead_change(records) == pytest.approx(0.75)
    assert m.drama(records) == pytest.approx((0.05, 0.2))
    assert m.decisiveness(records) == pytest.approx(0.75)


def test_branching_factor_mean_of_means_and_max() -> None:
    records = [PlayRecord((100, 0), 2, branching=(4, 2)), PlayRecord((0, 100), 1, branching=(9,))]
    assert m.branching_factor(records) == pytest.approx((6.0, 9))


def test_utilities_share_tied_ranks() -> None:
    assert m.utilities((100, 100, 0)) == pytest.approx((0.5, 0.5, -1.0))
    assert m.winner((100, 100, 0)) is None and m.winner((0, 100, 50)) == 1


def test_pair_metrics_are_undefined_for_one_player() -> None:
    records = [PlayRecord((100,), 5), PlayRecord((0,), 7)]
    assert m.balance(records) is None and m.advantage_first_player(records) is None
    assert m.completion(records) == 0.5
