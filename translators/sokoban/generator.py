"""SYM-style Sokoban level generator: forward play carves the level, backward pulls spread the boxes.

Follows section 6 of the project's Sokoban specification (Wu Yueyang's SYM as the thesis describes
it, with the details the specification fixes). Forward play pushes boxes over a blank board and
carves floor wherever the player walks; where the boxes end up become goals. Backward play then
pulls boxes away from their goals. Reversing the backward log and appending the forward log gives a
(non-optimal) solution, so every accepted level is solvable; it is replayed to make sure, then
scored with the optimal solvers.

>>> settings = SymSettings(width=5, height=5, boxes=2, forward=10, backward=6)
>>> found = next(generate(settings, count=1, seed=3, keep_trivial=True))
>>> from ggp.translators.sokoban.moves import solves
>>> solves(found.level, found.solution), found.difficulty.moves <= len(found.solution)
(True, True)
"""

from __future__ import annotations

import heapq
import logging
import random
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ggp.errors import SokobanError
from ggp.translators.sokoban.candidates import GENERATOR_LIMITS, Generated, GenerationStats, accept
from ggp.translators.sokoban.level import Cell, Level, parse_level
from ggp.translators.sokoban.solver import SolverLimits

log = logging.getLogger(__name__)

BoxStrategy = Literal["random", "least-pushed", "in-order"]
PushStrategy = Literal["random", "farthest", "most-obstacles"]
PullStrategy = Literal["random", "farthest", "most-obstacles", "most-access"]
PathStrategy = Literal["direct", "closest-active-tile"]

_STEPS: tuple[tuple[str, Cell], ...] = (("u", (0, -1)), ("d", (0, 1)), ("l", (-1, 0)), ("r", (1, 0)))
_DELTA = dict(_STEPS)
_OPPOSITE = {"u": "d", "d": "u", "l": "r", "r": "l"}
_UNTOUCHED_COST = 4
"""Closest Active Tile path cost of carving a new cell (a floor cell costs 1)."""


@dataclass(frozen=True, slots=True)
class SymSettings:
    """Generator knobs; the defaults are the specification's (8x8 interior, 3 boxes, F=24, K=20)."""

    width: int = 8
    height: int = 8
    boxes: int = 3
    forward: int = 24
    backward: int = 20
    box: BoxStrategy = "least-pushed"
    push: PushStrategy = "farthest"
    pull: PullStrategy = "farthest"
    path: PathStrategy = "closest-active-tile"

    def __post_init__(self) -> None:
        if self.width < 2 or self.height < 2:
            raise ValueError(f"interior size {self.width}x{self.height} is too small; need at least 2x2")
        if not 1 <= self.boxes <= self.width * self.height - 1:
            raise ValueError(f"{self.boxes} boxes do not fit a {self.width}x{self.height} interior with a player")
        if self.forward < 1 or self.backward < 0:
            raise ValueError("forward iterations must be >= 1 and backward iterations >= 0")


def _add(a: Cell, d: Cell, k: int = 1) -> Cell:
    return (a[0] + k * d[0], a[1] + k * d[1])


class _Sym:
    """One generation attempt on a (width + 2) x (height + 2) grid whose outer ring stays wall."""

    def __init__(self, settings: SymSettings, rng: random.Random) -> None:
        self.s = settings
        self.rng = rng
        cells = [(x, y) for x in range(1, settings.width + 1) for y in range(1, settings.height + 1)]
        picked = rng.sample(cells, settings.boxes + 1)
        self.player: Cell = picked[0]
        self.boxes: list[Cell] = picked[1:]
        self.starts = list(self.boxes)
        self.pushed = [0] * settings.boxes
        self.floor: set[Cell] = set(picked)
        self.turn = 0

    def inner(self, c: Cell) -> bool:
        return 1 <= c[0] <= self.s.width and 1 <= c[1] <= self.s.height

    def box_order(self, indices: list[int]) -> list[int]:
        order = list(indices)
        self.rng.shuffle(order)
        if self.s.box == "least-pushed":
            order.sort(key=lambda i: self.pushed[i])
        elif self.s.box == "in-order":
            order.sort()
            k = self.turn % len(order)
            order = order[k:] + order[:k]
        self.turn += 1
        return order

    def path(self, start: Cell, end: Cell, boxes: set[Cell], carve: bool) -> list[str] | None:
        """Cheapest walk (letters); with ``carve`` untouched inner cells are passable at a cost."""
        carve_cost = _UNTOUCHED_COST if self.s.path == "closest-active-tile" else 1
        floor, width, height = self.floor, self.s.width, self.s.height
        push, pop = heapq.heappush, heapq.heappop
        best = {start: 0}
        back: dict[Cell, tuple[Cell, str]] = {}
        heap = [(0, start)]
        while heap:
            cost, here = pop(heap)
            if here == end:
                letters = []
                while here != start:
                    here, letter = back[here]
                    letters.append(letter)
                return letters[::-1]
            if cost > best[here]:
                continue
            x, y = here
            for letter, (dx, dy) in _STEPS:
                nxt = (x + dx, y + dy)
                if nxt in boxes:
                    continue
                if nxt in floor:
                    total = cost + 1
                elif carve and 1 <= nxt[0] <= width and 1 <= nxt[1] <= height:
                    total = cost + carve_cost
                else:
                    continue
                if total < best.get(nxt, total + 1):
                    best[nxt] = total
                    back[nxt] = (here, letter)
                    push(heap, (total, nxt))
        return None

    def forward(self) -> list[str]:
        """Forward phase: pushes that carve the level; returns the log in LURD."""
        steps: list[str] = []
        for _ in range(self.s.forward):
            if not self._forward_once(steps):
                break
        return steps

    def _forward_once(self, steps: list[str]) -> bool:
        occupied = set(self.boxes)
        for i in self.box_order(list(range(len(self.boxes)))):
            box = self.boxes[i]
            options = []
            for letter, d in _STEPS:
                t, q = _add(box, d), _add(box, d, -1)
                if self.inner(t) and self.inner(q) and t not in occupied and q not in occupied:
                    options.append((letter, d, t, q))
            self.rng.shuffle(options)
            if self.s.push == "farthest":
                start = self.starts[i]
                options.sort(key=lambda o: -(abs(o[2][0] - start[0]) + abs(o[2][1] - start[1])))
            elif self.s.push == "most-obstacles":
                options.sort(key=lambda o: -self._obstacles(o[2], occupied - {box}))
            for letter, _, t, q in options:
                walk = self.path(self.player, q, occupied, carve=True)
                if walk is None:
                    continue
                here = self.player
                for w in walk:
                    here = _add(here, _DELTA[w])
                    self.floor.add(here)
                self.floor.update((q, t))
                steps.extend(walk)
                steps.append(letter.upper())
                self.boxes[i] = t
                self.player = box
                self.pushed[i] += 1
                return True
        return False

    def _obstacles(self, cell: Cell, boxes: set[Cell]) -> int:
        return sum(1 for _, d in _STEPS if _add(cell, d) not in self.floor or _add(cell, d) in boxes)

    def freeze(self) -> tuple[list[Cell], list[Cell]] | None:
        """Unpushed boxes become walls; returns (start cells, goals) of the pushed boxes."""
        kept = [i for i in range(len(self.boxes)) if self.pushed[i]]
        if not kept:
            return None
        for i in range(len(self.boxes)):
            if not self.pushed[i]:
                self.floor.discard(self.boxes[i])
        return [self.starts[i] for i in kept], [self.boxes[i] for i in kept]

    def backward(self, boxes: list[Cell], goals: list[Cell], player: Cell) -> tuple[list[Cell], Cell, list[str]]:
        """Backward phase: pulls from the frozen start; returns boxes, player and the log.

        The log comes back undone (reversed, each step in the opposite direction), in lower case;
        :func:`_mark_pushes` upper-cases the steps that push once the start position is known.
        """
        dist = [self._distances(g) for g in goals]
        boxes = list(boxes)
        steps: list[str] = []
        for _ in range(self.s.backward):
            occupied = set(boxes)
            reach = self._reach(player, occupied)
            done = False
            for i in self.box_order(list(range(len(boxes)))):
                b = boxes[i]
                options = []
                for letter, d in _STEPS:
                    p, beyond = _add(b, d), _add(b, d, 2)
                    if p in reach and beyond in self.floor and beyond not in occupied:
                        options.append((letter, d, p, beyond))
                self.rng.shuffle(options)
                after = occupied - {b}
                if self.s.pull == "farthest":
                    options.sort(key=lambda o: -dist[i].get(o[2], 0))
                elif self.s.pull == "most-obstacles":
                    options.sort(key=lambda o: -self._obstacles(o[2], after))
                elif self.s.pull == "most-access":
                    options.sort(key=lambda o: self._obstacles(o[2], after))
                if not options:
                    continue
                letter, _, p, beyond = options[0]
                walk = self.path(player, p, occupied, carve=False)
                assert walk is not None  # p is in the player's region
                steps.extend(walk)
                steps.append(letter)  # the pull: player p -> beyond, box b -> p
                boxes[i] = p
                player = beyond
                done = True
                break
            if not done:
                break
        # Undo order: reverse the log; a walk in d becomes a walk in -d, a pull in d a push in -d.
        return boxes, player, [_OPPOSITE[x] for x in reversed(steps)]

    def _distances(self, goal: Cell) -> dict[Cell, int]:
        floor = self.floor
        dist = {goal: 0}
        queue = deque([goal])
        while queue:
            here = queue.popleft()
            x, y = here
            for _, (dx, dy) in _STEPS:
                nxt = (x + dx, y + dy)
                if nxt in floor and nxt not in dist:
                    dist[nxt] = dist[here] + 1
                    queue.append(nxt)
        return dist

    def _reach(self, player: Cell, boxes: set[Cell]) -> set[Cell]:
        floor = self.floor
        seen = {player}
        queue = deque([player])
        while queue:
            x, y = queue.popleft()
            for _, (dx, dy) in _STEPS:
                nxt = (x + dx, y + dy)
                if nxt in floor and nxt not in boxes and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return seen


def _mark_pushes(start: Cell, boxes: set[Cell], letters: list[str]) -> str:
    """Upper-case the letters that push a box, by replaying them on the floor-agnostic box set."""
    out = []
    here = start
    boxes = set(boxes)
    for letter in letters:
        d = _DELTA[letter.lower()]
        nxt = _add(here, d)
        if nxt in boxes:
            boxes.remove(nxt)
            boxes.add(_add(nxt, d))
            out.append(letter.upper())
        else:
            out.append(letter.lower())
        here = nxt
    return "".join(out)


def render_cells(floor: set[Cell], goals: set[Cell], boxes: set[Cell], player: Cell) -> str:
    """Clean-up: crop to the floor plus a wall border; walls with no floor around become spaces.

    Shared by every generator method (see :mod:`ggp.translators.sokoban.methods`).
    """
    xs = [c[0] for c in floor]
    ys = [c[1] for c in floor]
    rows = []
    for y in range(min(ys) - 1, max(ys) + 2):
        row = []
        for x in range(min(xs) - 1, max(xs) + 2):
            c = (x, y)
            if c in floor:
                ch = "@" if c == player else "$" if c in boxes else " "
                if c in goals:
                    ch = {"@": "+", "$": "*", " ": "."}[ch]
            elif any((x + dx, y + dy) in floor for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
                ch = "#"
            else:
                ch = " "
            row.append(ch)
        rows.append("".join(row).rstrip())
    return "\n".join(rows) + "\n"


def sym_attempt(settings: SymSettings, rng: random.Random) -> tuple[Level, str] | None:
    """One SYM run: a level and a solution for it, or None when the run yields no valid level."""
    sym = _Sym(settings, rng)
    player_start = sym.player
    forward = sym.forward()
    frozen = sym.freeze()
    if frozen is None:
        return None
    starts, goals = frozen
    boxes, player, undo = sym.backward(starts, goals, player_start)
    solution = _mark_pushes(player, set(boxes), undo) + "".join(forward)
    # Clean-up: keep the floor connected to the player (boxes do not block the fill).
    region = sym._reach(player, set())
    text = render_cells(region, set(goals), set(boxes), player)
    try:
        level = parse_level(text, "<sym>")
    except SokobanError as exc:
        log.debug("rejected SYM level: %s", exc)
        return None
    return level, solution


def generate(
    settings: SymSettings,
    count: int,
    seed: int = 0,
    *,
    keep_trivial: bool = False,
    limits: SolverLimits = GENERATOR_LIMITS,
    max_attempts: int | None = None,
    stats: GenerationStats | None = None,
) -> Iterator[Generated]:
    """Yield up to ``count`` accepted levels; attempt ``i`` uses its own RNG seeded ``"seed:i"``.

    A level is accepted when it is valid, both optimal searches finish within ``limits`` and (unless
    ``keep_trivial``) PSH > 0.5 and LEN > 0.5 (:func:`~ggp.translators.sokoban.candidates.accept`).
    Stops after ``max_attempts`` (default ``200 * count``) attempts; ``stats`` collects why attempts
    failed. Raises :class:`~ggp.translators.sokoban.candidates.GeneratorBug` when a SYM solution does
    not replay or the optimal solver finds none.
    """
    stats = stats if stats is not None else GenerationStats()
    limit = max_attempts if max_attempts is not None else 200 * count
    found = 0
    for attempt in range(limit):
        if found >= count:
            return
        rng = random.Random(f"{seed}:{attempt}")
        clock = time.process_time()
        result = sym_attempt(settings, rng)
        stats.sym_seconds += time.process_time() - clock
        if result is None:
            stats.outcomes["invalid"] += 1
            continue
        level, solution = result
        title = f"sym {settings.width}x{settings.height} boxes {settings.boxes} seed {seed} attempt {attempt}"
        item = accept(level, solution, keep_trivial=keep_trivial, limits=limits, stats=stats, title=title, seed=seed,
                      attempt=attempt)
        if item is not None:
            found += 1
            yield item
