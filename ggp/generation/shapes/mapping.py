"""From strategic metrics to a target visual vector (§4.1.3).

1. Z-standardise each strategic metric over the chess pieces and the game's pieces together (a metric
   that does not vary is left out: its z-scores are all 0).
2. For a piece p and each chess piece i, the distance d_i between their z-vectors and the distance
   ratio W_i = d_min / d_i (1 for the nearest chess piece; W_i = 1 exactly for chess pieces at distance
   0, and every other W_i = 0 then).
3. Ratios under the threshold (:data:`WEIGHT_THRESHOLD`) become 0, so only chess pieces about as near
   as the nearest one shape the target; the rest are normalised to weights w_i summing to 1.
4. The target visual vector is sum_i w_i * v(chess piece i).

>>> from ggp.generation.shapes.base_set import CHESS
>>> from ggp.generation.shapes.strategic import strategic_metrics
>>> targets = map_to_targets(strategic_metrics(CHESS))
>>> targets["Q"].weights
{'Q': 1.0}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from ggp.generation.shapes.base_set import BASE_SET, CHESS
from ggp.generation.shapes.strategic import StrategicMetrics, strategic_metrics
from ggp.generation.shapes.visual import visual_metrics

_K = TypeVar("_K")

WEIGHT_THRESHOLD = 0.8
"""Distance ratios W_i below this are dropped: a chess piece more than 1/0.8 = 1.25 times as far as the nearest
one does not shape the target."""


@dataclass(frozen=True, slots=True)
class Target:
    """The target of one piece: weights per chess letter (summing to 1) and the visual vector."""

    weights: dict[str, float]
    visual: tuple[float, ...]


def z_scores(vectors: Mapping[_K, tuple[float, ...]]) -> dict[_K, tuple[float, ...]]:
    """Each vector's components standardised over all vectors (population standard deviation); a
    component with no spread becomes 0."""
    columns = list(zip(*vectors.values()))
    means = [sum(c) / len(c) for c in columns]
    stds = [math.sqrt(sum((v - m) ** 2 for v in c) / len(c)) for c, m in zip(columns, means)]
    return {key: tuple((v - m) / s if s > 1e-12 else 0.0 for v, m, s in zip(vector, means, stds))
            for key, vector in vectors.items()}


def map_to_targets(pieces: Mapping[str, StrategicMetrics], threshold: float = WEIGHT_THRESHOLD) -> dict[str, Target]:
    """The target of every piece of a game, keyed like ``pieces``."""
    chess = strategic_metrics(CHESS)
    base_visual = {letter: visual_metrics(shape).vector() for letter, shape in BASE_SET.items()}
    vectors = {("chess", k): m.vector() for k, m in chess.items()} | {("game", k): m.vector() for k, m in pieces.items()}
    z = z_scores(vectors)
    targets = {}
    for letter in pieces:
        here = z[("game", letter)]
        distances = {k: math.dist(here, z[("chess", k)]) for k in chess}
        nearest = min(distances.values())
        if nearest < 1e-9:
            ratios = {k: 1.0 if d < 1e-9 else 0.0 for k, d in distances.items()}
        else:
            ratios = {k: nearest / d for k, d in distances.items()}
        kept = {k: r for k, r in sorted(ratios.items()) if r >= threshold}
        total = sum(kept.values())
        weights = {k: r / total for k, r in kept.items()}
        visual = tuple(sum(w * base_visual[k][i] for k, w in weights.items())
                       for i in range(len(next(iter(base_visual.values())))))
        targets[letter] = Target(weights, visual)
    return targets
