"""Evolving outlines towards target visual vectors (§4.1.5-4.1.6), seeded and reproducible.

Each piece has its own population of :class:`~ggp.generation.shapes.outline.Shape` genomes. Fitness is
minimised: the distance between the outline's visual metrics and the piece's target (each metric
divided by its spread over the base set), plus, while novelty counts, a penalty for the largest area
overlap (intersection over union) with the current best outline of any other piece of the game, so the
pieces of one game stay easy to tell apart: 0 up to :attr:`EvolutionParams.novelty_floor`, growing
linearly to :attr:`EvolutionParams.novelty_weight` at a full overlap. Populations take turns, in sorted
order, each generation seeing the other pieces' latest best outlines. A generation keeps the
:attr:`~EvolutionParams.elite` best and fills up with children of tournament-selected parents:
half-and-half crossover (the first half of one parent's segments, the second half of the other's),
then mutations (move a point, change a segment's kind, split a segment, remove a segment, stretch the
shape, break its symmetry). Variants:

- ``individual``: every piece evolves alone for ``generations`` generations, novelty never counts;
- ``one-stage``: all pieces evolve side by side for ``generations`` generations with novelty;
- ``two-stage``: ``individual`` first, then ``novelty_generations`` more generations with novelty.

Everything random comes from one :class:`random.Random` seeded with ``seed`` and pieces are handled in
sorted order, so the same game, variant, parameters and seed give the same outlines.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Literal, get_args

from shapely.geometry.base import BaseGeometry

from ggp.errors import InputError
from ggp.generation.shapes.base_set import BASE_SET
from ggp.generation.shapes.mapping import Target
from ggp.generation.shapes.outline import AXIS, CANVAS, MARGIN, Point, Segment, Shape, full_outline, to_geometry
from ggp.generation.shapes.visual import overlap, visual_metrics

Variant = Literal["two-stage", "one-stage", "individual"]
VARIANTS: tuple[str, ...] = get_args(Variant)


@dataclass(frozen=True, slots=True)
class EvolutionParams:
    """Tunables (defaults: shapes for a 6-piece game in well under 30 s on one core)."""

    population: int = 24
    generations: int = 40
    novelty_generations: int = 40
    tournament: int = 3
    elite: int = 2
    crossover_rate: float = 0.6
    mutation_rate: float = 0.9
    novelty_weight: float = 2.0
    novelty_floor: float = 0.8
    """Overlaps up to this count as different shapes (the six chess silhouettes overlap each other by 0.62
    to 0.80); above it the penalty grows linearly to ``novelty_weight`` at a full overlap."""
    base_share: float = 0.5
    """Share of the first population made of (mutated) base-set silhouettes, drawn by the piece's weights."""
    step: float = 10.0
    """Standard deviation, in canvas units, of a point's move."""

    def __post_init__(self) -> None:
        if self.population < 2 or self.tournament < 1 or not 0 <= self.elite < self.population:
            raise InputError("population must be at least 2, with 0 <= elite < population and tournament >= 1")
        if not 0 <= self.novelty_floor < 1:
            raise InputError("novelty_floor must be in [0, 1)")
        if self.generations < 0 or self.novelty_generations < 0:
            raise InputError("generation counts must not be negative")


@dataclass(frozen=True, slots=True)
class _Scored:
    shape: Shape
    geometry: BaseGeometry
    distance: float


class _Scales:
    """Per visual metric, its spread over the base set (at least 0.05), dividing differences."""

    def __init__(self) -> None:
        vectors = [visual_metrics(shape).vector() for shape in BASE_SET.values()]
        self.values = []
        for column in zip(*vectors):
            mean = sum(column) / len(column)
            self.values.append(max(0.05, math.sqrt(sum((v - mean) ** 2 for v in column) / len(column))))

    def distance(self, a: tuple[float, ...], b: tuple[float, ...]) -> float:
        return math.sqrt(sum(((x - y) / s) ** 2 for x, y, s in zip(a, b, self.values)) / len(self.values))


def evolve(targets: Mapping[str, Target], variant: Variant = "two-stage", seed: int = 0,
           params: EvolutionParams | None = None) -> dict[str, Shape]:
    """The best outline found for every piece (keyed like ``targets``); raises :class:`InputError` for an
    unknown variant."""
    if variant not in VARIANTS:
        raise InputError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    return _Run(targets, seed, params or EvolutionParams()).run(variant)


class _Run:
    def __init__(self, targets: Mapping[str, Target], seed: int, params: EvolutionParams) -> None:
        self.targets = {letter: targets[letter] for letter in sorted(targets)}
        self.rng = random.Random(seed)
        self.params = params
        self.scales = _Scales()

    def run(self, variant: Variant) -> dict[str, Shape]:
        p = self.params
        populations = {letter: self._initial(letter) for letter in self.targets}
        plan = {"individual": [(p.generations, False)], "one-stage": [(p.generations, True)],
                "two-stage": [(p.generations, False), (p.novelty_generations, True)]}[variant]
        for generations, novelty in plan:
            for _ in range(generations):
                bests = {letter: self._best(pop, {}) for letter, pop in populations.items()}
                for letter in populations:
                    others = {k: b.geometry for k, b in bests.items() if k != letter} if novelty else {}
                    populations[letter] = self._generation(populations[letter], letter, others)
                    bests[letter] = self._best(populations[letter], others)
        novelty_at_end = plan[-1][1]
        result: dict[str, _Scored] = {}
        bests = {letter: self._best(pop, {}) for letter, pop in populations.items()}
        for letter, pop in populations.items():
            others = {k: b.geometry for k, b in bests.items() if k != letter} if novelty_at_end else {}
            result[letter] = bests[letter] = self._best(pop, others)
        return {letter: scored.shape for letter, scored in result.items()}

    # --- fitness -------------------------------------------------------------------------------

    def _score(self, shape: Shape, letter: str) -> _Scored | None:
        geometry = to_geometry(shape)
        if geometry is None:
            return None
        try:
            vector = visual_metrics(shape, geometry).vector()
        except ValueError:  # GEOS could not overlay it with its mirror image: treat it as malformed
            return None
        return _Scored(shape, geometry, self.scales.distance(vector, self.targets[letter].visual))

    def _fitness(self, scored: _Scored, others: Mapping[str, BaseGeometry]) -> float:
        if not others:
            return scored.distance
        floor = self.params.novelty_floor
        worst = max(_safe_overlap(scored.geometry, g) for g in others.values())
        return scored.distance + self.params.novelty_weight * max(0.0, worst - floor) / (1 - floor)

    def _best(self, population: list[_Scored], others: Mapping[str, BaseGeometry]) -> _Scored:
        return min(population, key=lambda s: self._fitness(s, others))

    # --- populations ---------------------------------------------------------------------------

    def _initial(self, letter: str) -> list[_Scored]:
        target = self.targets[letter]
        letters, weights = list(target.weights), list(target.weights.values())
        population: list[_Scored] = []
        from_base = round(self.params.base_share * self.params.population)
        attempts = 0
        while len(population) < self.params.population:
            attempts += 1
            if len(population) < from_base or attempts > 50 * self.params.population:
                shape = BASE_SET[self.rng.choices(letters, weights)[0]]
                for _ in range(self.rng.randrange(3) if population else 0):
                    shape = self._mutate(shape)
            else:
                shape = self._random_shape()
            scored = self._score(shape, letter)
            if scored is not None:
                population.append(scored)
        return population

    def _generation(self, population: list[_Scored], letter: str, others: Mapping[str, BaseGeometry]) -> list[_Scored]:
        p = self.params
        fitness = [self._fitness(s, others) for s in population]
        order = sorted(range(len(population)), key=lambda i: fitness[i])
        children = [population[i] for i in order[:p.elite]]
        while len(children) < p.population:
            first = population[self._tournament(fitness)]
            child = first.shape
            if self.rng.random() < p.crossover_rate:
                child = _crossover(child, population[self._tournament(fitness)].shape)
            if self.rng.random() < p.mutation_rate:
                child = self._mutate(child)
            scored = self._score(child, letter)
            children.append(scored if scored is not None else first)
        return children

    def _tournament(self, fitness: list[float]) -> int:
        entrants = [self.rng.randrange(len(fitness)) for _ in range(self.params.tournament)]
        return min(entrants, key=lambda i: fitness[i])

    # --- variation -----------------------------------------------------------------------------

    def _random_shape(self) -> Shape:
        rng = self.rng
        if rng.random() < 0.75:
            top, bottom = rng.uniform(15, 70), rng.uniform(165, 185)
            ys = sorted(rng.uniform(top, bottom) for _ in range(rng.randint(2, 6)))
            ends = [(rng.uniform(AXIS + 10, CANVAS - 25), y) for y in ys] + [(AXIS, bottom)]
            return _repair(Shape((AXIS, top), self._segments((AXIS, top), ends), True))
        count = rng.randint(5, 9)
        angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(count))
        points = [(AXIS + rng.uniform(30, 80) * math.cos(a), 110 + rng.uniform(30, 80) * math.sin(a)) for a in angles]
        return _repair(Shape(points[0], self._segments(points[0], points[1:]), False))

    def _segments(self, start: Point, ends: list[Point]) -> tuple[Segment, ...]:
        segments = []
        current = start
        for end in ends:
            kind = self.rng.choice(("L", "L", "Q", "C"))
            segments.append(_with_kind(Segment("L", (end,)), current, kind, self.rng))
            current = end
        return tuple(segments)

    def _mutate(self, shape: Shape) -> Shape:
        rng = self.rng
        operator = rng.choices(("move", "kind", "split", "remove", "stretch", "asymmetry"), (6, 2, 2, 1.5, 1, 0.3))[0]
        segments = list(shape.segments)
        index = rng.randrange(len(segments))
        starts = [shape.start, *(s.end for s in segments)]
        if operator == "move":
            segment = segments[index]
            which = rng.randrange(len(segment.points) + (1 if index == 0 else 0))
            if which == len(segment.points):
                shape = replace(shape, start=_jitter(shape.start, self.params.step, rng))
            else:
                points = list(segment.points)
                points[which] = _jitter(points[which], self.params.step, rng)
                segments[index] = Segment(segment.kind, tuple(points))
        elif operator == "kind":
            segments[index] = _with_kind(segments[index], starts[index], rng.choice(("L", "Q", "C")), rng)
        elif operator == "split":
            first, second = _split(starts[index], segments[index])
            segments[index:index + 1] = [Segment(first.kind, (*first.points[:-1], _jitter(first.end, 4, rng))), second]
        elif operator == "remove" and len(segments) > 2:
            del segments[index]
        elif operator == "stretch":
            fx, fy = rng.uniform(0.85, 1.15), rng.uniform(0.85, 1.15)
            shape = _scale(shape, fx, fy)
            segments = list(shape.segments)
        elif operator == "asymmetry" and shape.symmetric:
            start, whole = full_outline(shape)
            return _repair(Shape(start, whole, False))
        return _repair(replace(shape, segments=tuple(segments)))


def _safe_overlap(a: BaseGeometry, b: BaseGeometry) -> float:
    """:func:`overlap`, counting outlines GEOS cannot overlay as fully overlapping (the worst case)."""
    try:
        return overlap(a, b)
    except ValueError:
        return 1.0


def _jitter(point: Point, sigma: float, rng: random.Random) -> Point:
    return (point[0] + rng.gauss(0, sigma), point[1] + rng.gauss(0, sigma))


def _lerp(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _with_kind(segment: Segment, start: Point, kind: str, rng: random.Random) -> Segment:
    """The segment redrawn as a line, a quadratic or a cubic Bezier with the same end points."""
    end = segment.end
    if kind == segment.kind:
        return segment
    if kind == "L":
        return Segment("L", (end,))
    if kind == "C" and segment.kind == "Q":  # degree elevation: the same curve
        control = segment.points[0]
        return Segment("C", (_lerp(start, control, 2 / 3), _lerp(end, control, 2 / 3), end))
    bulge = rng.gauss(0, 0.25)
    normal = (-(end[1] - start[1]) * bulge, (end[0] - start[0]) * bulge)
    if kind == "Q":
        middle = _lerp(start, end, 0.5)
        return Segment("Q", ((middle[0] + normal[0], middle[1] + normal[1]), end))
    a, b = _lerp(start, end, 1 / 3), _lerp(start, end, 2 / 3)
    return Segment("C", ((a[0] + normal[0], a[1] + normal[1]), (b[0] + normal[0], b[1] + normal[1]), end))


def _split(start: Point, segment: Segment) -> tuple[Segment, Segment]:
    """The segment cut in two at its middle (de Casteljau at t = 1/2 for curves: the same outline)."""
    points = [start, *segment.points]
    left, right = [points[0]], [points[-1]]
    layer = points
    while len(layer) > 1:
        layer = [_lerp(a, b, 0.5) for a, b in pairwise(layer)]
        left.append(layer[0])
        right.append(layer[-1])
    right.reverse()
    return Segment(segment.kind, tuple(left[1:])), Segment(segment.kind, tuple(right[1:]))


def _scale(shape: Shape, fx: float, fy: float) -> Shape:
    """The shape stretched about the middle of the canvas's bottom part (its foot stays put)."""
    def point(p: Point) -> Point:
        return (AXIS + (p[0] - AXIS) * fx, 180 + (p[1] - 180) * fy)
    return Shape(point(shape.start), tuple(Segment(s.kind, tuple(point(p) for p in s.points)) for s in shape.segments),
                 shape.symmetric)


def _crossover(first: Shape, second: Shape) -> Shape:
    """Half-and-half: the first half of ``first``'s segments, then the second half of ``second``'s (each
    segment keeps its own points, so the join is where the halves meet). Shapes of different symmetry
    do not mix: ``first`` comes back unchanged."""
    if first.symmetric != second.symmetric:
        return first
    head = first.segments[:max(1, (len(first.segments) + 1) // 2)]
    tail = second.segments[len(second.segments) // 2:]
    return _repair(Shape(first.start, (*head, *tail), first.symmetric))


def _repair(shape: Shape) -> Shape:
    """Points kept inside the canvas; a symmetric half kept right of the axis with both ends on it."""
    low, high = MARGIN, CANVAS - MARGIN

    def clamp(p: Point, left: float = low) -> Point:
        return (round(min(high, max(left, p[0])), 1), round(min(high, max(low, p[1])), 1))

    left = AXIS if shape.symmetric else low
    segments = [Segment(s.kind, tuple(clamp(p, left) for p in s.points)) for s in shape.segments]
    start = clamp(shape.start, left)
    if shape.symmetric:
        start = (AXIS, start[1])
        last = segments[-1]
        segments[-1] = Segment(last.kind, (*last.points[:-1], (AXIS, last.end[1])))
    return Shape(start, tuple(segments), shape.symmetric)
