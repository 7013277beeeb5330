"""The catalogue: every metric under Ludii's name, n/a with reasons, intervals, ranges on random plays."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.evaluation.ludii.catalogue import (
    ALIASES,
    CORE,
    FAMILY_METRICS,
    LUDI_METRICS,
    METRICS,
    SINGLE_METRICS,
    alias_rows,
    markdown_rows,
    measure,
    resolve,
    select,
)
from ggp.evaluation.ludii.trace import Observations, PlayTrace
from ggp.match.rules import EndReason

from .plays import DRAW, FORCED, SWING, TIMEOUT


def test_every_family_has_the_eleven_aggregates_under_ludii_concept_names() -> None:
    assert len(FAMILY_METRICS) == 99 and len(SINGLE_METRICS) == 25
    assert {"DramaAverage", "BranchingFactorChangeNumTimes", "ScoreDifferenceMaxDecrease"} <= set(METRICS)
    assert all(m.source.startswith("Evaluation/src/metrics/") and m.definition for m in (*SINGLE_METRICS, *FAMILY_METRICS))
    assert all(m.source.startswith("Browne & Maire") and m.definition for m in LUDI_METRICS)


def test_the_catalogue_has_each_name_once_published_names_aliases_and_python_names() -> None:
    published = [m.name for m in (*SINGLE_METRICS, *LUDI_METRICS, *FAMILY_METRICS)]
    assert len(published) == len(set(published)) == len(METRICS) == 126
    aliases = [alias for m in METRICS.values() for alias in m.aliases]
    assert sorted(aliases) == sorted(ALIASES) and not set(aliases) & set(METRICS)  # an alias names no other metric
    python = [m.python for m in METRICS.values()]
    assert len(python) == len(set(python)) and all(name == name.lower() and name.isidentifier() for name in python)
    assert METRICS["AdvantageP1"].python == "advantage_p1" and METRICS["DramaAverage"].python == "drama_average"


def test_every_alias_resolves_to_its_metric_and_is_accepted_wherever_names_are() -> None:
    for alias, name in ALIASES.items():
        assert resolve(alias) == name and alias in METRICS[name].aliases
        assert select(alias).metrics == (name,)
        assert resolve(name) == name
    assert set(CORE) == set(ALIASES.values())  # the Ludi criteria, each once
    plays = [PlayTrace((100, 0), observed=Observations(legal=((2, 1),) * 4))]
    by_alias, by_name = measure(plays, list(ALIASES)), measure(plays, list(ALIASES.values()))
    assert list(by_alias) == list(by_name) == [n for n in METRICS if n in CORE] and by_alias == by_name


def test_metrics_that_do_not_apply_say_why() -> None:
    found = measure([DRAW, TIMEOUT])
    assert found["BoardCoverageDefault"].reason == "the game has no board the rules show"
    assert found["LeadChange"].value is None and "estimate-playouts" in (found["LeadChange"].reason or "")
    solo = measure([PlayTrace((100,), observed=Observations(legal=((2,),)))], ["AdvantageP1", "Balance", "Completion"])
    assert solo["AdvantageP1"].reason == solo["Balance"].reason == "the game has one role"
    assert solo["Completion"].value == 1.0
    simultaneous = PlayTrace((50, 50), observed=Observations(legal=((2, 2),)), evaluations=((0.5, 0.5), (0.5, 0.5)))
    assert "at once" in (measure([simultaneous], ["Stability"])["Stability"].reason or "")


def test_a_mean_over_plays_has_an_interval_around_it() -> None:
    found = measure([SWING, FORCED, SWING, FORCED], ["DecisionMoves", "LeadChange", "Balance"])
    decision = found["DecisionMoves"]
    assert decision.value is not None and decision.interval is not None
    assert decision.interval[0] <= decision.value <= decision.interval[1]
    assert decision.plays == 4 and found["Balance"].interval is None


def _play(roles: int, draw: st.DrawFn) -> PlayTrace:
    length = draw(st.integers(0, 12))
    legal = tuple(tuple(draw(st.integers(1, 5)) for _ in range(roles)) for _ in range(length))
    goals = tuple(draw(st.sampled_from((0, 50, 100))) for _ in range(roles))
    unit = st.floats(0, 1, allow_nan=False)
    evaluations = tuple(tuple(draw(unit) for _ in range(roles)) for _ in range(length + 1))
    sites = draw(st.integers(1, 9))
    occupied = tuple(draw(st.integers(0, sites)) for _ in range(length + 1))
    covered = tuple(sorted(draw(st.sets(st.integers(0, sites - 1), max_size=sites))))
    situations: list[int] = []
    for _ in range(length + 1):
        situations.append(draw(st.integers(0, max(situations, default=-1) + 1)))
    clarity = tuple((draw(unit), draw(st.floats(0, 1))) for _ in range(length))
    scores = tuple(tuple(draw(st.sampled_from((0, 50, 100))) for _ in range(roles)) for _ in range(length + 1))
    observed = Observations(legal, tuple(situations), scores, sites, occupied, occupied, tuple(situations), covered,
                            ("x",), tuple(draw(st.integers(1, 3)) for _ in range(length)), clarity)
    reasons: tuple[EndReason, ...] = ("terminal", "turn_limit", "step_cap")
    reason = draw(st.sampled_from(reasons))
    return PlayTrace(goals, reason, draw(st.integers(0, roles - 1)), observed, evaluations)


@st.composite
def games(draw: st.DrawFn) -> list[PlayTrace]:
    roles = draw(st.integers(1, 3))
    return [_play(roles, draw) for _ in range(draw(st.integers(1, 4)))]


@settings(max_examples=60, deadline=None)
@given(games())
def test_bounded_metrics_stay_in_their_range_on_random_plays(plays: list[PlayTrace]) -> None:
    for name, found in measure(plays, resamples=0).items():
        metric = METRICS[name]
        if found.value is None:
            assert found.reason, name  # n/a always says why
            continue
        assert math.isfinite(found.value), name
        if metric.low is not None:
            assert found.value >= metric.low - 1e-9, (name, found.value)
        if metric.high is not None:
            assert found.value <= metric.high + 1e-9, (name, found.value)


def test_the_evaluation_guide_lists_every_metric_with_its_source() -> None:
    from ggp.evaluation.ludii.families import FAMILIES
    from tests.conftest import ROOT

    guide = (ROOT / "docs" / "evaluation.md").read_text()
    for row in (*markdown_rows(), *alias_rows()):  # every single metric, Ludi criterion and alias, as generated
        assert row in guide, row
    for metric in (*SINGLE_METRICS, *LUDI_METRICS):
        assert f"| {metric.name} | " in guide and metric.source.removeprefix("Evaluation/src/metrics/") in guide
    for family in FAMILIES:
        assert f"| {family} | quality |" in guide and f"multiple/metrics/{family}.java" in guide
