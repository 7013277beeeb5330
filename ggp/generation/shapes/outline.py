"""Piece outlines (§4.1.5): closed paths of straight lines and quadratic or cubic Bezier segments.

A :class:`Shape` is the genome the evolution works on and what the SVG files draw. A symmetric shape
stores only its right half, from a point on the vertical axis (x = 100) down to another point on it;
the left half is its mirror image. An asymmetric shape stores the whole outline from its start point
round to the last end point, closed by a straight line. Coordinates are on the 200x200 canvas with y
growing downwards, as in SVG.

>>> shape = parse_path("M 100 20 L 160 180 L 100 180", symmetric=True)
>>> format_path(shape)
'M100 20L160 180L100 180L40 180L100 20Z'
>>> round(to_polygon(shape).area)
9600
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

import numpy as np
import numpy.typing as npt
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from ggp.errors import InputError

CANVAS = 200.0
AXIS = CANVAS / 2
MARGIN = 6.0
"""Points stay this far inside the canvas, so the drawn outline is never clipped."""
CURVE_STEPS = 8
"""Straight pieces each Bezier segment is flattened into for the geometry (visual metrics, overlap)."""

Point = tuple[float, float]
FloatArray = npt.NDArray[np.float64]
Kind = Literal["L", "Q", "C"]
_ARITY = {"L": 1, "Q": 2, "C": 3}


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of outline from the previous end point: ``L`` (end), ``Q`` (control, end) or ``C``
    (two controls, end); ``points[-1]`` is the end point."""

    kind: Kind
    points: tuple[Point, ...]

    @property
    def end(self) -> Point:
        return self.points[-1]


@dataclass(frozen=True, slots=True)
class Shape:
    """A closed outline: ``start``, then ``segments``; the right half only when ``symmetric``."""

    start: Point
    segments: tuple[Segment, ...]
    symmetric: bool


def mirror(point: Point) -> Point:
    """The point reflected in the canvas's vertical axis."""
    return (2 * AXIS - point[0], point[1])


def full_outline(shape: Shape) -> tuple[Point, tuple[Segment, ...]]:
    """The start point and every segment of the whole outline (a symmetric shape's left half added)."""
    if not shape.symmetric:
        return shape.start, shape.segments
    back: list[Segment] = []
    previous = [shape.start, *(s.end for s in shape.segments)]
    for index in range(len(shape.segments) - 1, -1, -1):
        segment = shape.segments[index]
        controls = tuple(mirror(p) for p in reversed(segment.points[:-1]))
        back.append(Segment(segment.kind, (*controls, mirror(previous[index]))))
    return shape.start, (*shape.segments, *back)


def _bezier(p0: Point, controls: tuple[Point, ...], steps: int) -> FloatArray:
    """``steps`` points of a Bezier curve at t = 1/steps ... 1 (Bernstein form), one per row."""
    points = np.array([p0, *controls])
    degree = len(points) - 1
    t = np.arange(1, steps + 1)[:, None] / steps
    weights = np.hstack([math.comb(degree, k) * t**k * (1 - t) ** (degree - k) for k in range(degree + 1)])
    result: FloatArray = weights @ points
    return result


def flatten(shape: Shape, steps: int = CURVE_STEPS, chord: float | None = None) -> FloatArray:
    """The outline as a ring of points (one per row), not repeated at the end: each curve sampled at
    ``steps`` points, or more where ``chord`` is given, so that no chord is much longer than ``chord``
    canvas units."""
    start, segments = full_outline(shape)
    parts = [np.array([start])]
    current = start
    for segment in segments:
        if segment.kind == "L":
            parts.append(np.array([segment.end]))
        else:
            count = steps
            if chord is not None:
                hull = sum(math.dist(a, b) for a, b in pairwise((current, *segment.points)))
                count = max(steps, math.ceil(hull / chord))
            parts.append(_bezier(current, segment.points, count))
        current = segment.end
    ring: FloatArray = np.vstack(parts)
    if len(ring) > 1 and np.array_equal(ring[-1], ring[0]):
        ring = ring[:-1]
    return ring


def to_polygon(shape: Shape, steps: int = CURVE_STEPS) -> Polygon:
    """The outline as a shapely polygon (possibly invalid when the outline crosses itself)."""
    ring = flatten(shape, steps)
    # Repeated points (a zero-length segment) make GEOS's overlay operations fail: drop them.
    keep = np.any(ring != np.roll(ring, 1, axis=0), axis=1)
    ring = ring[keep] if keep.any() else ring[:1]
    return Polygon(ring) if len(ring) >= 3 else Polygon()


def to_geometry(shape: Shape) -> BaseGeometry | None:
    """The area the outline encloses as a valid shapely geometry, or ``None`` when the outline is not a
    simple closed curve of positive area (it crosses itself or is degenerate)."""
    polygon = to_polygon(shape)
    if polygon.is_empty or not polygon.is_valid or polygon.area < 1.0:
        return None
    shapely.prepare(polygon)
    return polygon


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def format_path(shape: Shape) -> str:
    """SVG path data (absolute M, L, Q, C, Z; one decimal) of the whole outline."""
    start, segments = full_outline(shape)
    parts = [f"M{_num(start[0])} {_num(start[1])}"]
    for segment in segments:
        parts.append(segment.kind + " ".join(f"{_num(x)} {_num(y)}" for x, y in segment.points))
    return "".join(parts) + "Z"


_TOKEN = re.compile(r"[MLQCZ]|-?\d+(?:\.\d+)?")


def parse_path(data: str, symmetric: bool = False) -> Shape:
    """A shape from SVG path data in the subset :func:`format_path` writes (absolute ``M`` once, then
    ``L``/``Q``/``C``, an optional final ``Z``). With ``symmetric`` the path is the right half (start and
    end on x = 100). Raises :class:`~ggp.errors.InputError` for anything else."""
    tokens = _TOKEN.findall(data)
    if "".join(tokens).replace(" ", "") != re.sub(r"[\s,]+", "", data):
        raise InputError(f"unsupported path data {data[:40]!r}: only absolute M, L, Q, C and Z")
    if not tokens or tokens[0] != "M":
        raise InputError(f"path data must start with 'M': {data[:40]!r}")
    numbers: list[float] = []
    segments: list[Segment] = []
    kind: str = "M"
    start: Point | None = None

    def flush() -> None:
        nonlocal start
        if kind == "M":
            if len(numbers) != 2:
                raise InputError(f"'M' takes one point in {data[:40]!r}")
            start = (numbers[0], numbers[1])
            return
        arity = _ARITY[kind] * 2
        if not numbers or len(numbers) % arity:
            raise InputError(f"{kind!r} needs {arity} numbers per segment in {data[:40]!r}")
        for i in range(0, len(numbers), arity):
            chunk = numbers[i:i + arity]
            points = tuple((chunk[j], chunk[j + 1]) for j in range(0, arity, 2))
            segments.append(Segment(kind, points))  # type: ignore[arg-type]

    for token in tokens[1:]:
        if token in _ARITY or token in ("M", "Z"):
            flush()
            if token in ("M", "Z"):
                if token == "M":
                    raise InputError(f"only one 'M' is supported in {data[:40]!r}")
                kind = "Z"
                break
            kind, numbers = token, []
        else:
            numbers.append(float(token))
    else:
        flush()
    assert start is not None
    if not segments:
        raise InputError(f"path data has no segments: {data[:40]!r}")
    if symmetric and (start[0] != AXIS or segments[-1].end[0] != AXIS):
        raise InputError("a symmetric half must start and end on x = 100")
    return Shape(start, tuple(segments), symmetric)


def svg_document(shape: Shape, fill: str, stroke: str, title: str = "") -> str:
    """A standalone 200x200 SVG image of the outline (no scripts, no external references)."""
    label = f"<title>{_escape(title)}</title>" if title else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="200" height="200">{label}'
            f'<path d="{format_path(shape)}" fill="{fill}" stroke="{stroke}" stroke-width="6" '
            f'stroke-linejoin="round"/></svg>\n')


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
