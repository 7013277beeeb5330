"""The evolution (§4.1.5-4.1.6): variation keeps outlines well formed, runs are seeded, novelty separates."""

from __future__ import annotations

import random

import pytest

from ggp.errors import InputError
from ggp.generation.shapes import EvolutionParams, piece_shapes
from ggp.generation.shapes.base_set import BASE_SET, CHESS
from ggp.generation.shapes.evolution import _crossover, _Run, _split, evolve
from ggp.generation.shapes.files import piece_documents
from ggp.generation.shapes.mapping import Target
from ggp.generation.shapes.outline import AXIS, MARGIN, Segment, Shape, to_geometry, to_polygon
from ggp.generation.shapes.visual import overlap, visual_metrics

SMALL = EvolutionParams(population=8, generations=4, novelty_generations=3)


def test_the_same_seed_gives_identical_svg_bytes_and_another_seed_other_shapes() -> None:
    def files(seed: int) -> dict[str, str]:
        return piece_documents(CHESS.name, piece_shapes(CHESS, "two-stage", seed, SMALL))

    first = files(3)
    assert first == files(3)
    other = files(4)
    assert set(other) == set(first) and any(other[name] != first[name] for name in first)


@pytest.mark.parametrize("variant", ["two-stage", "one-stage", "individual"])
def test_every_variant_gives_a_valid_outline_for_every_piece(variant: str) -> None:
    pieces = piece_shapes(CHESS, variant, 1, SMALL)  # type: ignore[arg-type]
    assert [p.letter for p in pieces] == list("BKNPQR")
    assert all(to_geometry(p.shape) is not None for p in pieces)


def test_unknown_variants_and_bad_parameters_are_refused() -> None:
    with pytest.raises(InputError, match="unknown variant 'three-stage'"):
        evolve({}, "three-stage")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="population"):
        EvolutionParams(population=1)
    with pytest.raises(InputError, match="novelty_floor"):
        EvolutionParams(novelty_floor=1.0)


def test_mutation_and_crossover_keep_points_on_the_canvas_and_symmetric_halves_on_the_axis() -> None:
    run = _Run({"P": Target({"P": 1.0}, visual_metrics(BASE_SET["P"]).vector())}, 5, SMALL)
    shapes = list(BASE_SET.values())
    rng = random.Random(9)
    for _ in range(300):
        shape = run._mutate(rng.choice(shapes))
        if rng.random() < 0.5:
            shape = _crossover(shape, rng.choice(shapes))
        points = [shape.start, *(p for s in shape.segments for p in s.points)]
        assert all(MARGIN <= c <= 200 - MARGIN for p in points for c in p)
        if shape.symmetric:
            assert shape.start[0] == shape.segments[-1].end[0] == AXIS and all(x >= AXIS for x, _ in points)
        shapes.append(shape)


def test_splitting_a_curve_keeps_its_outline() -> None:
    start = (100.0, 20.0)
    cubic = Segment("C", ((160.0, 20.0), (180.0, 120.0), (100.0, 180.0)))
    first, second = _split(start, cubic)
    assert first.kind == second.kind == "C" and second.end == cubic.end
    whole = to_polygon(Shape(start, (cubic,), False), steps=64)
    halves = to_polygon(Shape(start, (first, second), False), steps=32)
    assert whole.symmetric_difference(halves).area < 1.0


def test_novelty_pulls_apart_two_pieces_that_want_the_same_silhouette() -> None:
    knight = Target({"N": 1.0}, visual_metrics(BASE_SET["N"]).vector())
    targets = {"A": knight, "B": knight}
    params = EvolutionParams(population=10, generations=6, novelty_generations=12)
    alone = evolve(targets, "individual", 2, params)
    together = evolve(targets, "two-stage", 2, params)
    found = {k: to_geometry(s) for k, s in alone.items()} | {k + "2": to_geometry(s) for k, s in together.items()}
    geometry = {k: g for k, g in found.items() if g is not None}
    assert len(geometry) == 4
    assert overlap(geometry["A"], geometry["B"]) > 0.9  # both stay (near) the knight
    assert overlap(geometry["A2"], geometry["B2"]) < overlap(geometry["A"], geometry["B"]) - 0.05
