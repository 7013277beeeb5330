"""Outlines (parsing, mirroring, SVG) and their visual metrics (§4.1.2)."""

from __future__ import annotations

import math
from xml.etree import ElementTree

import pytest

from ggp.errors import InputError
from ggp.generation.shapes.base_set import BASE_SET
from ggp.generation.shapes.outline import format_path, parse_path, svg_document, to_geometry, to_polygon
from ggp.generation.shapes.visual import VisualMetrics, visual_metrics


def test_paths_round_trip_and_symmetric_halves_are_mirrored() -> None:
    for letter, shape in BASE_SET.items():
        again = parse_path(format_path(shape))
        assert to_polygon(again).symmetric_difference(to_polygon(shape)).area < 1.0, letter
    half = parse_path("M100 40L150 100L100 160", symmetric=True)
    assert format_path(half) == "M100 40L150 100L100 160L50 100L100 40Z"
    assert to_polygon(half).area == pytest.approx(6000)


@pytest.mark.parametrize(("data", "message"), [
    ("", "must start with 'M'"), ("M10 10 A 5 5 0 0 1 20 20", "only absolute"), ("M10 10L5", "needs 2 numbers"),
    ("M1 1M2 2L3 3", "only one 'M'"), ("M10 10", "no segments"),
])
def test_unsupported_path_data_is_refused_with_a_reason(data: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_path(data)
    with pytest.raises(InputError, match="start and end on x = 100"):
        parse_path("M90 10L150 100L100 160", symmetric=True)


def test_a_self_crossing_outline_has_no_geometry() -> None:
    bow_tie = parse_path("M20 20L180 180L180 20L20 180Z")
    assert to_geometry(bow_tie) is None
    with pytest.raises(ValueError, match="crosses itself"):
        visual_metrics(bow_tie)


def test_visual_metrics_of_simple_figures() -> None:
    square = visual_metrics(parse_path("M40 40L160 40L160 160L40 160Z"))
    assert (square.v_w, square.v_h, square.v_a, square.v_sy, square.v_sl) == (0.6, 0.6, 0.36, 1.0, 1.0)
    assert square.v_t1 == square.v_t2 == square.v_t3 == pytest.approx(1 / 3)
    assert (square.v_sa, square.v_ga) == (0.4, 0.0)  # four right angles, counted per ten
    assert square.v_pe == pytest.approx(math.pi / 4)
    triangle = visual_metrics(parse_path("M100 20L190 180L10 180Z"))  # apex up: area grows 1 : 3 : 5 by thirds
    assert (triangle.v_t1, triangle.v_t2, triangle.v_t3) == pytest.approx((1 / 9, 3 / 9, 5 / 9))
    disc = visual_metrics(parse_path("M100 20C144 20 180 56 180 100C180 144 144 180 100 180"
                                     "C56 180 20 144 20 100C20 56 56 20 100 20Z"))
    assert disc.v_pe > 0.99 and disc.v_sl == 0 and disc.v_sa == disc.v_ga == 0
    leaning = visual_metrics(parse_path("M20 180L60 20L100 20L180 180Z"))
    assert leaning.v_sy < 0.9


def test_the_base_set_silhouettes_are_valid_distinct_and_only_the_knight_is_asymmetric() -> None:
    vectors = {letter: visual_metrics(shape) for letter, shape in BASE_SET.items()}
    assert len({m.vector() for m in vectors.values()}) == 6
    assert [k for k, m in vectors.items() if m.v_sy < 0.99] == ["N"]
    assert all(len(m.vector()) == len(VisualMetrics.names()) == 11 for m in vectors.values())


def test_svg_documents_are_well_formed_and_coloured() -> None:
    document = svg_document(BASE_SET["K"], "#000000", "#ffffff", "King <&>")
    root = ElementTree.fromstring(document)
    assert root.get("viewBox") == "0 0 200 200"
    path = root.find("{http://www.w3.org/2000/svg}path")
    assert path is not None and path.get("fill") == "#000000" and path.get("stroke") == "#ffffff"
    assert "<script" not in document


def test_an_outline_with_a_repeated_point_still_gets_its_metrics() -> None:
    # Found by the evolution: the zero-length segment "L52 178L52 178" made GEOS's union with the mirror fail.
    shape = parse_path("M100 20C110 20 112 32 105 36C126 52 136 78 126 100L112 110L126 116L114 124C120 146 136 158 146 166"
                       "L148 178L92.5 177.6L53.2 170.8L52 178L52 178L54 166C64 158 80 146 86 124L74 116L88 110L74 100"
                       "C71.5 94.5 70.2 88.8 63.7 89.8C70.2 78.1 71.5 73.2 74 69.3C76.8 54.5 84.5 44 95 36C88 32 90 20 100 20Z")
    metrics = visual_metrics(shape)
    assert 0.5 < metrics.v_sy < 1.0 and 0 < metrics.v_a < 1
