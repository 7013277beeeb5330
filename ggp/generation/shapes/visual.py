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

import shapely
from shapely import affinity
from shapely.geometry.base import BaseGeometry

from ggp.generation.shapes.outline import CANVAS, Shape, flatten, to_geometry

STRAIGHT_MIN = 10.0
"""Canvas units a run of (nearly) collinear edges must reach to count as a straight line."""
COLLINEAR_TURN = 2.0
"""Degrees below which consecutive edges count as one straight run (sampled curves turn more per edge)."""
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
    mirrored = affinity.scale(geometry, xfact=-1, origin=((x0 + x1) / 2, 0))
    union = shapely.union(geometry, mirrored).area
    symmetry = shapely.intersection(geometry, mirrored).area / union if union else 0.0
    perimeter = geometry.length
    straight, sharp, gentle = _edges(flatten(shape))
    return VisualMetrics(
        v_w=(x1 - x0) / CANVAS, v_h=(y1 - y0) / CANVAS, v_a=area / CANVAS**2,
        v_t1=thirds[0], v_t2=thirds[1], v_t3=thirds[2], v_sy=symmetry,
        v_pe=4 * math.pi * area / perimeter**2, v_sl=straight / perimeter,
        v_sa=sharp / CORNER_SCALE, v_ga=gentle / CORNER_SCALE,
    )


def _edges(ring: list[tuple[float, float]]) -> tuple[float, int, int]:
    """(length of the straight runs, sharp corners, gentle corners) of a closed ring of points."""
    n = len(ring)
    edges = [(ring[(i + 1) % n][0] - ring[i][0], ring[(i + 1) % n][1] - ring[i][1]) for i in range(n)]
    edges = [e for e in edges if e != (0.0, 0.0)]
    turns = []
    for (ax, ay), (bx, by) in zip(edges, edges[1:] + edges[:1]):
        turns.append(abs(math.degrees(math.atan2(ax * by - ay * bx, ax * bx + ay * by))))
    # Merge nearly collinear edges into runs; a run starts after a turn of COLLINEAR_TURN or more.
    breaks = [i for i, turn in enumerate(turns) if turn >= COLLINEAR_TURN]
    straight = 0.0
    if breaks:
        for start, stop in zip(breaks, breaks[1:] + [breaks[0] + len(edges)]):
            run = sum(math.hypot(*edges[(i + 1) % len(edges)]) for i in range(start, stop))
            straight += run if run >= STRAIGHT_MIN else 0.0
    sharp = sum(turn > SHARP_TURN for turn in turns)
    gentle = sum(GENTLE_TURN <= turn <= SHARP_TURN for turn in turns)
    return straight, sharp, gentle
