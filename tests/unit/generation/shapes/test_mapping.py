"""The mapping from strategic to target visual vectors (§4.1.3)."""

from __future__ import annotations

import math

import pytest

from ggp.generation.shapes.base_set import BASE_SET, CHESS
from ggp.generation.shapes.mapping import map_to_targets, z_scores
from ggp.generation.shapes.strategic import StrategicMetrics, strategic_metrics
from ggp.generation.shapes.visual import visual_metrics


def test_z_scores_have_mean_zero_and_unit_spread_and_constant_columns_are_zero() -> None:
    z = z_scores({"a": (1.0, 5.0), "b": (3.0, 5.0), "c": (5.0, 5.0)})
    column = [v[0] for v in z.values()]
    assert sum(column) == pytest.approx(0) and sum(v * v for v in column) / 3 == pytest.approx(1)
    assert all(v[1] == 0 for v in z.values())


def test_every_chess_piece_maps_onto_its_own_silhouette() -> None:
    targets = map_to_targets(strategic_metrics(CHESS))
    for letter, target in targets.items():
        assert target.weights == {letter: 1.0}
        assert target.visual == visual_metrics(BASE_SET[letter]).vector()


def test_a_new_piece_is_a_normalised_blend_of_the_chess_pieces_nearest_to_it() -> None:
    chess = strategic_metrics(CHESS)
    # Halfway between the rook and the bishop in every metric: equally near both, far from the rest.
    blend = StrategicMetrics(*((r + b) / 2 for r, b in zip(chess["R"].vector(), chess["B"].vector())))
    target = map_to_targets({"X": blend})["X"]
    assert set(target.weights) == {"B", "R"}
    assert sum(target.weights.values()) == pytest.approx(1)
    expected = [target.weights["B"] * b + target.weights["R"] * r for b, r in
                zip(visual_metrics(BASE_SET["B"]).vector(), visual_metrics(BASE_SET["R"]).vector())]
    assert all(math.isclose(a, b) for a, b in zip(target.visual, expected))
    everything = map_to_targets({"X": blend}, threshold=0.0)["X"]
    assert set(everything.weights) == set("BKNPQR")
