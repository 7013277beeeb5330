"""Visual metrics of an outline (§4.1.2), computed with shapely from the flattened SVG path.

All eleven are scaled to roughly [0, 1] so that no metric dominates a distance:

- v_w, v_h: width and height of the bounding box / canvas side;
- v_a: enclosed area / canvas area;
- v_t1, v_t2, v_t3: share of the area in the top, middle and bottom third of the bounding box;
- v_sy: left-right symmetry, the overlap (intersection over union) of the shape and its mirror image
  about the bounding box's vertical centre line;
- v_pe: compactness of the perimeter, 4*pi*area / perimeter**2 (1 for a disc, small for a spiky outline);
- v_sl: share of the perimeter made of straight runs at least :data:`STRAIGHT_MIN` long;
- v_sa, v_ga: the number of sharp corners (interior turn of more than :data:`SHARP_TURN` degrees) and of
  gentle corners (:data:`GENTLE_TURN` to :data:`SHARP_TURN` degrees), each divided by :data:`CORNER_SCALE`.

>>> from ggp.generation.shapes.outline import parse_path
>>> square = parse_path("M40 40L160 40L160 160L40 160Z")
>>> metrics = visual_metrics(square)
>>> metrics.v_w, metrics.v_a, metrics.v_sy, metrics.v_sl, metrics.v_sa
(0.6, 0.36, 1.0, 1.0, 0.4)
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields

import numpy as np
import shapely
import shapely.errors
from shapely import affinity
from shapely.geometry.base import BaseGeometry

from ggp.generation.shapes.outline import CANVAS, FloatArray, Shape, flatten, to_geometry

STRAIGHT_MIN = 10.0
"""Canvas units a run of (nearly) collinear edges must reach to count as a straight line."""
COLLINEAR_TURN = 2.0
"""Degrees below which consecutive edges count as one straight run (sampled curves turn more per edge)."""
FINE_CHORD = 3.0
"""Curves are sampled this finely for the line and corner metrics, so a curve never passes for a chain of
straight lines or corners; only a curve flatter than 2 degrees per 3 units (radius over 86) merges into
a straight run."""
GENTLE_TURN = 30.0
SHARP_TURN = 75.0
CORNER_SCALE = 10.0


@dataclass(frozen=True, slots=True)
class VisualMetrics:
    """The visual metrics of one outline (see the module docstring for each)."""

    v_w: float
    v_h: float
    v_a: float
    v_t1: float
    v_t2: float
    v_t3: float
    v_sy: float
    v_pe: float
    v_sl: float
    v_sa: float
    v_ga: float

    def vector(self) -> tuple[float, ...]:
        return astuple(self)

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(f.name for f in fields(VisualMetrics))


def visual_metrics(shape: Shape, geometry: BaseGeometry | None = None) -> VisualMetrics:
    """The metrics of a valid outline; raises ``ValueError`` when it crosses itself or has no area."""
    geometry = geometry if geometry is not None else to_geometry(shape)
    if geometry is None:
        raise ValueError("the outline crosses itself or encloses no area")
    x0, y0, x1, y1 = geometry.bounds
    area = geometry.area
    third = (y1 - y0) / 3
    thirds = [shapely.clip_by_rect(geometry, x0, y0 + i * third, x1, y0 + (i + 1) * third).area / area
              for i in range(3)]
    symmetry = overlap(geometry, affinity.scale(geometry, xfact=-1, origin=((x0 + x1) / 2, 0)))
    perimeter = geometry.length
    straight, sharp, gentle = _edges(flatten(shape, chord=FINE_CHORD))
    return VisualMetrics(
        v_w=(x1 - x0) / CANVAS, v_h=(y1 - y0) / CANVAS, v_a=area / CANVAS**2,
        v_t1=thirds[0], v_t2=thirds[1], v_t3=thirds[2], v_sy=symmetry,
        v_pe=4 * math.pi * area / perimeter**2, v_sl=straight / perimeter,
        v_sa=sharp / CORNER_SCALE, v_ga=gentle / CORNER_SCALE,
    )


def overlap(a: BaseGeometry, b: BaseGeometry) -> float:
    """Intersection over union of two areas (1 = the same area, 0 = disjoint). When GEOS cannot overlay
    them (outlines that nearly touch themselves, made invalid by rounding, e.g. in a mirror image), both are
    cleaned with a zero-width buffer and overlaid again; raises ``ValueError`` if that fails too."""
    try:
        return _iou(a, b)
    except shapely.errors.GEOSException:
        pass
    try:
        return _iou(a.buffer(0), b.buffer(0))
    except shapely.errors.GEOSException as exc:
        raise ValueError(f"cannot overlay the outlines: {exc}") from exc


def _iou(a: BaseGeometry, b: BaseGeometry) -> float:
    union = shapely.union(a, b).area
    return float(shapely.intersection(a, b).area / union) if union else 0.0


def _edges(points: FloatArray) -> tuple[float, int, int]:
    """(length of the straight runs, sharp corners, gentle corners) of a closed ring of points (rows)."""
    edges = np.roll(points, -1, axis=0) - points
    edges = edges[np.any(edges != 0.0, axis=1)]
    following = np.roll(edges, -1, axis=0)
    cross = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    dot = np.einsum("ij,ij->i", edges, following)
    turns = np.abs(np.degrees(np.arctan2(cross, dot)))  # turns[i]: from edge i to edge i + 1
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    # Merge nearly collinear edges into runs; a run ends at a turn of COLLINEAR_TURN or more.
    breaks = np.flatnonzero(turns >= COLLINEAR_TURN)
    straight = 0.0
    if breaks.size:
        shifted = np.roll(lengths, -(int(breaks[-1]) + 1))  # start just after the last break: runs never wrap
        ends = np.sort((breaks - breaks[-1] - 1) % len(lengths))
        totals = np.diff(np.concatenate(([0.0], np.cumsum(shifted)[np.sort(ends)])))
        straight = float(totals[totals >= STRAIGHT_MIN].sum())
    sharp = int(np.count_nonzero(turns > SHARP_TURN))
    gentle = int(np.count_nonzero((turns >= GENTLE_TURN) & (turns <= SHARP_TURN)))
    return straight, sharp, gentle
