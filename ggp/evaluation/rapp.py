"""RAPP: Relative Algorithm Performance Profiles (Kowalski & Szykula 2016) for two-player games.

A game is good when better algorithms beat worse ones the way they do on human-made games. For a game
G and algorithms A1..An, P_G[i, j] is Ai's mean score against Aj (win 1, draw 1/2, loss 0), played in
both seats. The fitness of a candidate game is f = (1 - D)(1 - B)(1 - Q): D its distance to the model
matrix (the mean matrix of the model games), B the colour imbalance, Q the share of too-short plays;
-1 for an unplayable game.

>>> import numpy as np
>>> g = np.array([[0.5, 0.9], [0.1, 0.5]]); h = np.array([[0.5, 0.7], [0.3, 0.5]])
>>> round(squared_distance(g, h), 4), round(absolute_distance(g, h), 4)
(0.04, 0.2)
>>> fitness(distance=0.1, balance=0.2, quickness=0.0)
0.72
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float64]

TOO_SHORT_PLIES = 10
"""A play that ends within this many plies counts towards quickness Q."""

UNPLAYABLE = -1.0


@dataclass(frozen=True, slots=True)
class Play:
    """One play between two algorithms: who sat where, how it ended.

    ``white``/``black`` are algorithm names (white = the first mover); ``score_white`` is 1, 1/2 or 0.
    """

    white: str
    black: str
    score_white: float
    plies: int


def performance_matrix(plays: Sequence[Play], algorithms: Sequence[str]) -> Matrix:
    """P[i, j] = mean score of algorithm i against j over all plays between them, both seats.

    The diagonal is 0.5 and unused. Pairs that never met get NaN.
    """
    index = {name: i for i, name in enumerate(algorithms)}
    n = len(algorithms)
    totals = np.zeros((n, n))
    counts = np.zeros((n, n))
    for play in plays:
        w, b = index[play.white], index[play.black]
        if w == b:
            continue
        totals[w, b] += play.score_white
        counts[w, b] += 1
        totals[b, w] += 1 - play.score_white
        counts[b, w] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        matrix = totals / counts
    np.fill_diagonal(matrix, 0.5)
    return matrix


def _upper(matrix: Matrix) -> NDArray[np.float64]:
    rows, cols = np.triu_indices(matrix.shape[0], k=1)
    return matrix[rows, cols]


def squared_distance(p_g: Matrix, p_h: Matrix) -> float:
    """dist(G, H) = mean over pairs i<j of (P_G - P_H)^2 (used to compare example games)."""
    return float(np.mean((_upper(p_g) - _upper(p_h)) ** 2))


def absolute_distance(p_g: Matrix, p_model: Matrix) -> float:
    """dist(G, model) = mean over pairs i<j of |P_G - P_model| (used in the fitness)."""
    return float(np.mean(np.abs(_upper(p_g) - _upper(p_model))))


def spread(p_model: Matrix) -> float:
    """Sum over pairs i<j of |P[i, j] - 0.5|^2: how clearly the algorithms are ordered."""
    return float(np.sum((_upper(p_model) - 0.5) ** 2))


def choose_model_games(matrices: Mapping[str, Matrix], anchor: str) -> tuple[str, ...]:
    """Split the example games in two groups with the least within-group distance; return anchor's group.

    Exhaustive over the 2^(g-1) splits; the distance is :func:`squared_distance`.
    """
    names = sorted(matrices)
    if anchor not in matrices:
        raise ValueError(f"anchor game {anchor!r} is not among the example games")
    distance = {(a, b): squared_distance(matrices[a], matrices[b]) for a, b in combinations(names, 2)}
    others = [n for n in names if n != anchor]
    best: tuple[float, tuple[str, ...]] | None = None
    for mask in range(1 << len(others)):
        group = [anchor] + [n for k, n in enumerate(others) if mask >> k & 1]
        rest = [n for n in names if n not in group]
        cost = sum(distance[a, b] for a, b in combinations(sorted(group), 2))
        cost += sum(distance[a, b] for a, b in combinations(sorted(rest), 2))
        candidate = (cost, tuple(sorted(group)))
        if best is None or candidate < best:
            best = candidate
    assert best is not None
    return best[1]


def model_matrix(matrices: Mapping[str, Matrix], games: Sequence[str]) -> Matrix:
    """Element-wise mean of the model games' matrices."""
    mean: Matrix = np.mean(np.stack([matrices[g] for g in games]), axis=0)
    return mean


def choose_model_algorithms(p_model: Matrix, algorithms: Sequence[str], k: int) -> tuple[str, ...]:
    """The k algorithms whose restricted model matrix has the largest spread (ties: name order)."""
    best: tuple[float, tuple[str, ...]] | None = None
    for subset in combinations(range(len(algorithms)), k):
        names = tuple(sorted(algorithms[i] for i in subset))
        value = spread(p_model[np.ix_(subset, subset)])
        if best is None or value > best[0] or (value == best[0] and names < best[1]):
            best = (value, names)
    if best is None:
        raise ValueError(f"cannot choose {k} of {len(algorithms)} algorithms")
    return best[1]


def colour_balance(plays: Sequence[Play]) -> float:
    """B = |score_white - score_black| / n over all plays (draws count 1/2 to each)."""
    if not plays:
        return 1.0
    white = sum(p.score_white for p in plays)
    return abs(white - (len(plays) - white)) / len(plays)


def quickness(plays: Sequence[Play], too_short: int = TOO_SHORT_PLIES) -> float:
    """Q = share of plays that ended within ``too_short`` plies."""
    if not plays:
        return 1.0
    return sum(p.plies <= too_short for p in plays) / len(plays)


def fitness(*, distance: float, balance: float, quickness: float) -> float:
    """f = (1 - D)(1 - B)(1 - Q), rounded to 12 digits to hide float noise."""
    return round((1 - distance) * (1 - balance) * (1 - quickness), 12)


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval [low, high] (95% unless said otherwise)."""

    low: float
    high: float

    @property
    def width(self) -> float:
        return self.high - self.low

    def __str__(self) -> str:
        return f"[{self.low:.3f}, {self.high:.3f}]"


MEASURES = ("distance", "balance", "quickness", "fitness")
"""The quantities a RAPP result reports, each with an interval."""

BOOTSTRAP_RESAMPLES = 1000


@dataclass(frozen=True, slots=True)
class RappResult:
    """The RAPP verdict on one game, with a 95% bootstrap interval for each measure when it was computed
    (``intervals`` maps a name of :data:`MEASURES` to its :class:`Interval`)."""

    fitness: float
    distance: float | None = None
    balance: float | None = None
    quickness: float | None = None
    reason: str = ""
    intervals: tuple[tuple[str, Interval], ...] = ()
    plays: int = 0

    @property
    def playable(self) -> bool:
        return self.fitness != UNPLAYABLE

    def interval(self, measure: str) -> Interval | None:
        """The interval of ``measure`` (one of :data:`MEASURES`), or None when none was computed."""
        return dict(self.intervals).get(measure)


def _point(plays: Sequence[Play], algorithms: Sequence[str], p_model: Matrix, too_short: int) -> tuple[float, ...] | None:
    """(D, B, Q, f) of the plays, or None when some pair of algorithms has no play."""
    p_game = performance_matrix(plays, algorithms)
    if np.isnan(_upper(p_game)).any():
        return None
    d = absolute_distance(p_game, p_model)
    b = colour_balance(plays)
    q = quickness(plays, too_short)
    return d, b, q, fitness(distance=d, balance=b, quickness=q)


def _resampled_points(groups: Mapping[tuple[str, str], Sequence[Play]], draws: Sequence[NDArray[np.int64]],
                      algorithms: Sequence[str], p_model: Matrix, too_short: int) -> NDArray[np.float64] | None:
    """(D, B, Q, f) of every resample at once, one row each: ``draws[g][r]`` are the indices of seating g's
    plays drawn for resample r. None when some pair of algorithms has no play (then no resample has one)."""
    index = {name: i for i, name in enumerate(algorithms)}
    n, resamples = len(algorithms), len(draws[0])
    totals = np.zeros((resamples, n, n))
    counts = np.zeros((n, n))
    white = np.zeros(resamples)
    short = np.zeros(resamples)
    size = 0
    for ((w_name, b_name), group), draw in zip(groups.items(), draws):
        wi, bi = index[w_name], index[b_name]
        won = np.array([p.score_white for p in group])[draw].sum(axis=1)
        white += won
        short += np.array([p.plies <= too_short for p in group])[draw].sum(axis=1)
        size += len(group)
        if wi != bi:
            totals[:, wi, bi] += won
            totals[:, bi, wi] += len(group) - won
            counts[wi, bi] += len(group)
            counts[bi, wi] += len(group)
    rows, cols = np.triu_indices(n, k=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        upper = totals[:, rows, cols] / counts[rows, cols]
    if np.isnan(upper).any():
        return None
    d = np.mean(np.abs(upper - _upper(p_model)), axis=1)
    b = np.abs(white - (size - white)) / size
    q = short / size
    f = [fitness(distance=x, balance=y, quickness=z) for x, y, z in zip(d.tolist(), b.tolist(), q.tolist())]
    return np.column_stack([d, b, q, np.array(f)])


def bootstrap_intervals(
    plays: Sequence[Play],
    algorithms: Sequence[str],
    p_model: Matrix,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
    too_short: int = TOO_SHORT_PLIES,
) -> dict[str, Interval]:
    """Percentile bootstrap intervals of D, B, Q and f over the plays.

    The resampling is stratified by pairing and seat (white, black): each resample draws, with
    replacement, as many plays of every seating as were played, as the evaluation's design fixes those
    counts; so every resample has every pair and the matrix is always defined. Seeded: the same plays
    and seed give the same intervals.
    """
    groups: dict[tuple[str, str], list[Play]] = {}
    for play in plays:
        groups.setdefault((play.white, play.black), []).append(play)
    if not groups or resamples <= 0:
        return {}
    rng = np.random.default_rng(seed)
    draws = [np.empty((resamples, len(group)), dtype=np.int64) for group in groups.values()]
    for r in range(resamples):  # one draw per seating in turn, as a resample of play lists would
        for draw, group in zip(draws, groups.values()):
            draw[r] = rng.integers(0, len(group), len(group))
    values = _resampled_points(groups, draws, algorithms, p_model, too_short)
    if values is None:
        return {}
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail], axis=0)
    return {name: Interval(round(float(lo), 12), round(float(hi), 12)) for name, lo, hi in zip(MEASURES, low, high)}


def evaluate_game(
    plays: Sequence[Play],
    algorithms: Sequence[str],
    p_model: Matrix,
    *,
    too_short: int = TOO_SHORT_PLIES,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> RappResult:
    """RAPP fitness of a game from its plays between ``algorithms`` (the model's order), with 95%
    bootstrap intervals (``resamples=0`` leaves them out)."""
    if not plays:
        return RappResult(UNPLAYABLE, reason="no plays were completed")
    point = _point(plays, algorithms, p_model, too_short)
    if point is None:
        return RappResult(UNPLAYABLE, reason="some algorithm pairs never completed a play", plays=len(plays))
    d, b, q, f = point
    intervals = bootstrap_intervals(plays, algorithms, p_model, resamples=resamples, seed=seed, too_short=too_short)
    return RappResult(f, d, b, q, intervals=tuple(intervals.items()), plays=len(plays))


def unplayable(reason: str) -> RappResult:
    """The verdict for a game that cannot be played, with the reason."""
    return RappResult(UNPLAYABLE, reason=reason)
