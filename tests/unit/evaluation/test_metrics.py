"""The Ludi criteria on hand-computed plays (the test values of the metrics specification), measured through
the one catalogue under their catalogue names and their aliases."""

from __future__ import annotations

import pytest

from ggp.evaluation import metrics as m
from ggp.evaluation.ludii import single
from ggp.evaluation.ludii.catalogue import measure, resolve
from ggp.evaluation.ludii.trace import Observations, PlayTrace
from ggp.match.rules import EndReason


def play(goals: tuple[int, ...], length: int = 20, reason: EndReason = "terminal", first_mover: int = 0,
         branching: tuple[int, ...] | None = None,
         evaluations: tuple[tuple[float, ...], ...] | None = None) -> PlayTrace:
    legal = tuple((b, 1) for b in branching) if branching is not None else ((2, 1),) * length
    return PlayTrace(goals, reason, first_mover, Observations(legal=legal), evaluations)


def plays(first_wins: int, second_wins: int, draws: int, reason: EndReason = "terminal") -> list[PlayTrace]:
    return [play((100, 0))] * first_wins + [play((0, 100))] * second_wins + [play((50, 50), reason=reason)] * draws


def values(records: list[PlayTrace], *names: str) -> tuple[float | None, ...]:
    """The values of ``names`` (catalogue names or aliases), in the order given."""
    found = measure(records, names)
    return tuple(found[resolve(name)].value for name in names)


def test_seven_two_one_gives_the_published_outcome_metrics() -> None:
    found = measure(plays(7, 2, 1), ["completion", "drawishness", "balance", "advantage_first_player",
                                     "outcome_uniformity"])
    assert {name: f.value for name, f in found.items()} == pytest.approx(
        {"AdvantageP1": 0.75, "Balance": 0.5, "Completion": 0.9, "Drawishness": 0.1, "OutcomeUniformity": 0.35})


def test_seven_three_without_draws() -> None:
    assert values(plays(7, 3, 0), "Balance", "AdvantageP1", "Completion") == pytest.approx((0.6, 0.7, 1.0))


def test_even_results_with_two_draws() -> None:
    assert values(plays(4, 4, 2), "Balance", "Completion", "Drawishness") == pytest.approx((1.0, 0.8, 0.2))


def test_a_draw_at_the_turn_limit_is_a_timeout_not_a_natural_draw() -> None:
    assert values(plays(1, 0, 1, reason="turn_limit"), "Drawishness", "Timeouts") == pytest.approx((0.0, 0.5))


def test_aborted_and_failed_plays_are_excluded() -> None:
    records = plays(1, 1, 0) + [play((0, 0), 3, reason="aborted"), play((), 0, reason="error")]
    found = measure(records, ["Completion"])["Completion"]
    assert found.value == 1.0 and found.plays == 2


def test_first_player_advantage_follows_the_first_mover_index() -> None:
    records = [play((0, 100), first_mover=1), play((100, 0), first_mover=0)]
    assert values(records, "AdvantageP1") == (1.0,)


@pytest.mark.parametrize(
    ("lengths", "expected"), [([60, 30, 90, 60], 0.75), ([120], 0.0), ([180], 0.0), ([0], 0.0)]
)
def test_ludi_duration_is_clamped(lengths: list[int], expected: float) -> None:
    assert values([play((100, 0), n) for n in lengths], "duration_ludi") == pytest.approx((expected,))


def test_ludi_duration_uses_the_preferred_length_given() -> None:
    found = measure([play((100, 0), 100)], ["LudiDuration"], preferred_length=100)
    assert found["LudiDuration"].value == 1.0


@pytest.mark.parametrize(("length", "expected"), [(10, 0.5), (50, 1.0), (150, 0.5), (250, 0.0)])
def test_ideal_duration(length: int, expected: float) -> None:
    assert single.ideal_duration([play((100, 0), length)], 20, 100) == pytest.approx(expected)


def test_the_reference_evaluation_trace_under_ludiis_definitions() -> None:
    # The specification's trace: winner A, L = 4, e_A = [0.5, 0.6, 0.4, 0.7, 1.0], e_B = 1 - e_A. Ludii's
    # definitions (kept; see the catalogue's docstring), by hand on its scale 2e - 1: A = [0, .2, -.2, .4],
    # B = -A over s_0..s_3. Leaders: none -> {A, B} -> A -> B -> A, 4 changes in 4 moves; drama
    # max - A = [0, 0, .4, 0]: mean 0.1, max 0.4; threshold = B's best 0.2, A first above it at t = 3: 3/4.
    e_a = [0.5, 0.6, 0.4, 0.7, 1.0]
    trace = play((100, 0), 4, evaluations=tuple((a, 1 - a) for a in e_a))
    found = measure([trace], ["lead_change", "drama_mean", "drama_max", "decisiveness"])
    assert {name: f.value for name, f in found.items()} == pytest.approx(
        {"LeadChange": 1.0, "DramaAverage": 0.1, "DramaMaximum": 0.4, "DecisivenessMoves": 0.75})


def test_branching_factor_mean_of_means_and_the_largest() -> None:
    records = [play((100, 0), branching=(4, 2)), play((0, 100), branching=(9,))]
    assert values(records, "branching_mean", "branching_max") == pytest.approx((6.0, 9.0))


def test_utilities_share_tied_ranks() -> None:
    assert m.utilities((100, 100, 0)) == pytest.approx((0.5, 0.5, -1.0))
    assert m.winner((100, 100, 0)) is None and m.winner((0, 100, 50)) == 1


def test_pair_metrics_are_undefined_for_one_player() -> None:
    found = measure([play((100,), 5), play((0,), 7)], ["Balance", "AdvantageP1", "Completion"])
    assert found["Balance"].value is None and found["AdvantageP1"].value is None
    assert found["Completion"].value == 0.5
