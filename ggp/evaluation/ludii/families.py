"""Ludii's nine multi-metric families: a list of values per play, and the eleven aggregates of a list.

A family gives each play a list (one value per state or per move); an aggregate turns the list into
one number; the metric is the mean of that number over the plays (Ludii's ``MultiMetricFramework``).
The metric's name is the family's and the aggregate's, e.g. ``DramaAverage``, ``BranchingFactorMaximum``.

Two departures from Ludii's code, where it contradicts its own names: ``Maximum`` and ``Minimum`` are the
list's maximum and minimum (Ludii starts both from 0, so its Minimum of non-negative values is always 0),
and an empty list (or, for the change statistics, a list of one value) leaves the play out instead of
dividing by zero.

>>> AGGREGATES["ChangeNumTimes"]([1.0, 2.0, 2.0, 1.0, 3.0])
0.75
>>> AGGREGATES["Median"]([3.0, 1.0, 2.0, 4.0])
3.0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations, pairwise
from statistics import fmean, pvariance

from ggp.evaluation.ludii.single import top_players
from ggp.evaluation.ludii.trace import PlayTrace

Aggregate = Callable[[Sequence[float]], float | None]


def _changes(values: Sequence[float]) -> list[float]:
    return [b - a for a, b in pairwise(values)]


def average(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def median(values: Sequence[float]) -> float | None:
    """The upper median, ``sorted(values)[n // 2]``, as Ludii takes it."""
    return sorted(values)[len(values) // 2] if values else None


def maximum(values: Sequence[float]) -> float | None:
    return max(values) if values else None


def minimum(values: Sequence[float]) -> float | None:
    return min(values) if values else None


def variance(values: Sequence[float]) -> float | None:
    """Population variance."""
    return pvariance(values) if values else None


def change_average(values: Sequence[float]) -> float | None:
    """(last - first) / (n - 1): the mean change from one value to the next."""
    return (values[-1] - values[0]) / (len(values) - 1) if len(values) > 1 else None


def change_sign(values: Sequence[float]) -> float | None:
    """Mean sign of the changes: +1 a rise, -1 a fall, 0 no change."""
    changes = _changes(values)
    return sum((c > 0) - (c < 0) for c in changes) / len(changes) if changes else None


def change_line_best_fit(values: Sequence[float]) -> float | None:
    """Slope of the least-squares line through (index, value)."""
    n = len(values)
    if n < 2:
        return None
    mean_x, mean_y = (n - 1) / 2, fmean(values)
    spread = sum((x - mean_x) ** 2 for x in range(n))
    return sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values)) / spread


def change_num_times(values: Sequence[float]) -> float | None:
    """Times the direction of change turned (a rise or fall after anything else, a flat step resetting
    the direction), over n - 1."""
    if len(values) < 2:
        return None
    turns, direction = 0, 0
    for change in _changes(values):
        step = (change > 0) - (change < 0)
        turns += step != 0 and step != direction
        direction = step
    return turns / (len(values) - 1)


def max_increase(values: Sequence[float]) -> float | None:
    """The largest rise from one value to the next (0 when it never rises)."""
    return max([0.0, *_changes(values)]) if values else None


def max_decrease(values: Sequence[float]) -> float | None:
    """The largest fall from one value to the next, as a change (<= 0; 0 when it never falls)."""
    return min([0.0, *_changes(values)]) if values else None


AGGREGATES: dict[str, Aggregate] = {
    "Average": average,
    "Median": median,
    "Maximum": maximum,
    "Minimum": minimum,
    "Variance": variance,
    "ChangeAverage": change_average,
    "ChangeSign": change_sign,
    "ChangeLineBestFit": change_line_best_fit,
    "ChangeNumTimes": change_num_times,
    "MaxIncrease": max_increase,
    "MaxDecrease": max_decrease,
}
"""Ludii's MultiMetricValue aggregates under the names of its concepts (DramaAverage, DramaMaximum...)."""


# --- the families ------------------------------------------------------------------------------------


def drama(play: PlayTrace) -> list[float]:
    """Per state s_0..s_{L-1}: the highest evaluation of any role minus the top roles' (mean) evaluation."""
    top = top_players(play)
    values = []
    for t in range(play.length):
        best = max(play.value(t, r) for r in range(play.roles))
        values.append(fmean(best - play.value(t, w) for w in top))
    return values


def move_evaluation(play: PlayTrace) -> list[float]:
    """Per move: the mover's (:meth:`PlayTrace.movers`) evaluation of the state the move led to."""
    return [play.value(t + 1, mover[0]) for t, mover in enumerate(play.movers()) if len(mover) == 1]


def state_evaluation_difference(play: PlayTrace) -> list[float]:
    """Per state s_0..s_L: the largest difference between two roles' evaluations."""
    assert play.evaluations is not None
    return [max((abs(play.value(t, a) - play.value(t, b)) for a, b in combinations(range(play.roles), 2)), default=0.0)
            for t in range(len(play.evaluations))]


def board_sites_occupied(play: PlayTrace) -> list[float]:
    """Per state s_0..s_L: the share of the board's sites holding a piece."""
    sites = play.observed.sites or 1
    return [count / sites for count in play.observed.occupied]


def branching_factor(play: PlayTrace) -> list[float]:
    """Per move: the number of legal (joint) moves."""
    return [float(play.branching(t)) for t in range(play.length)]


def decision_factor(play: PlayTrace) -> list[float]:
    """Per move with a choice: the number of legal moves (moves with one option are left out)."""
    return [float(b) for t in range(play.length) if (b := play.branching(t)) > 1]


def move_distance(play: PlayTrace) -> list[float]:
    """Per move that carried a piece to another site: the distance (king steps on the board)."""
    return [float(d) for d in play.observed.distances]


def piece_number(play: PlayTrace) -> list[float]:
    """Per state s_0..s_L: the pieces on the board."""
    return [float(n) for n in play.observed.pieces]


def score_difference(play: PlayTrace) -> list[float]:
    """Per state s_0..s_L: the largest difference between two roles' scores (GDL: goal values)."""
    scores = play.observed.scores or ()
    return [float(max((abs(a - b) for a, b in combinations(row, 2)), default=0)) for row in scores]


FAMILIES: dict[str, Callable[[PlayTrace], list[float]]] = {
    "Drama": drama,
    "MoveEvaluation": move_evaluation,
    "StateEvaluationDifference": state_evaluation_difference,
    "BoardSitesOccupied": board_sites_occupied,
    "BranchingFactor": branching_factor,
    "DecisionFactor": decision_factor,
    "MoveDistance": move_distance,
    "PieceNumber": piece_number,
    "ScoreDifference": score_difference,
}
"""The nine families in Ludii's order."""
