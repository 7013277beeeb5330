"""Optimal Sokoban solvers: fewest pushes (breadth-first) and fewest moves (A*, or a breadth-first
wave when a known solution bounds the search), all with limits.

Boards are compiled to bit masks over the text grid (bit ``y * width + x``), so the player's region
is a few shifts per step and a search state is a pair of Python ints, which makes a cheap
transposition key. Both searches prune boxes on dead squares (from which no push sequence reaches a
goal, even with no other box around) and 2x2 blocks of walls and boxes that are not all on goals.

>>> from ggp.translators.sokoban.level import parse_level
>>> level = parse_level("######\\n#    #\\n# $$ #\\n# .. #\\n#  @ #\\n######\\n")
>>> solve_pushes(level).pushes, solve_moves(level).length
(2, 9)
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from ggp.errors import SokobanError
from ggp.translators.sokoban.level import Level


class SolverLimitError(SokobanError):
    """The search hit its node or time limit; the message reads ``too large: <limit>``."""


@dataclass(frozen=True, slots=True)
class SolverLimits:
    """Bounds on one search: stored states (each costs about 200 bytes) and wall-clock seconds."""

    max_nodes: int = 500_000
    max_seconds: float = 60.0


DEFAULT_LIMITS = SolverLimits()
"""500,000 states (roughly 100 MB) and one minute per search."""


@dataclass(frozen=True, slots=True)
class Solution:
    """A solution in LURD notation (upper case = push) and how many states the search stored."""

    moves: str
    explored: int

    @property
    def length(self) -> int:
        """Number of player moves (pushes included)."""
        return len(self.moves)

    @property
    def pushes(self) -> int:
        """Number of pushes."""
        return sum(1 for letter in self.moves if letter.isupper())


_FAR = 1 << 20
"""Distance standing for "this box cannot reach that goal"."""


class _Board:
    """A level compiled to bit masks; shifts stand for the four directions.

    Read-only after construction except for the ``estimates`` cache, so the searches of one level
    share one board (see :func:`_board`).
    """

    def __init__(self, level: Level) -> None:
        self.level = level
        self.w = level.width
        self.floor = self._mask(level.floor)
        self.goals = self._mask(level.goals)
        self.boxes = self._mask(level.boxes)
        self.player = self._bit(level.player)
        # (letter, shift): moving by +shift bits; "up" is one row back.
        self.dirs = (("u", -self.w), ("d", self.w), ("l", -1), ("r", 1))
        self.goal_dist = [self._goal_distances(1 << g) for g in bits(self.goals)]
        self.dist = self._goal_distances(self.goals)
        self.live = sum(1 << c for c in self.dist)
        # Lower bound on pushes: the cheapest assignment of boxes to distinct goals (tried in full
        # for up to 4 boxes), else each box to its nearest goal.
        n = len(self.goal_dist)
        self.perms = list(itertools.permutations(range(n))) if n <= 4 else []
        self.table = {c: tuple(d.get(c, _FAR) for d in self.goal_dist) for c in self.dist}
        self.estimates: dict[int, int] = {}
        size = level.width * level.height
        self.solid = ((1 << size) - 1) & ~self.floor
        w = self.w
        # The four 2x2 squares around each interior cell (interior cells never touch the border).
        self.squares = {
            c: tuple(sum(1 << q for q in (k, k + 1, k + w, k + w + 1)) for k in (c, c - 1, c - w, c - w - 1))
            for c in bits(self.floor)
        }

    def _bit(self, cell: tuple[int, int]) -> int:
        return cell[1] * self.w + cell[0]

    def _mask(self, cells: frozenset[tuple[int, int]]) -> int:
        return sum(1 << self._bit(c) for c in cells)

    def is_floor(self, c: int) -> bool:
        return c >= 0 and (self.floor >> c) & 1 == 1

    def estimate(self, boxes: int) -> int:
        """A consistent lower bound on the pushes still needed (every box on a live cell); cached."""
        known = self.estimates.get(boxes)
        if known is not None:
            return known
        if len(self.perms) == 6:  # the generator's default, 3 boxes: the six assignments written out
            table = self.table
            low = boxes & -boxes
            rest = boxes ^ low
            mid = rest & -rest
            (a0, a1, a2), (b0, b1, b2), (c0, c1, c2) = (
                table[low.bit_length() - 1], table[mid.bit_length() - 1], table[(rest ^ mid).bit_length() - 1]
            )
            value = min(a0 + b1 + c2, a0 + b2 + c1, a1 + b0 + c2, a1 + b2 + c0, a2 + b0 + c1, a2 + b1 + c0)
        elif not self.perms:
            value = sum(self.dist[b] for b in bits(boxes))
        else:
            rows = [self.table[b] for b in bits(boxes)]
            n = len(rows)
            if n == 1:
                value = rows[0][0]
            elif n == 2:
                (a0, a1), (b0, b1) = rows
                value = min(a0 + b1, a1 + b0)
            else:
                value = min(sum(row[g] for row, g in zip(rows, perm)) for perm in self.perms)
        self.estimates[boxes] = value
        return value

    def _goal_distances(self, goals: int) -> dict[int, int]:
        """Fewest pushes from each cell to the nearest of ``goals`` for a box alone on the board."""
        dist = {g: 0 for g in bits(goals)}
        queue = deque(dist)
        while queue:
            b = queue.popleft()
            for _, s in self.dirs:
                a = b - s  # the box came from a, pushed by a player standing on a - s
                if self.is_floor(a) and self.is_floor(a - s) and a not in dist:
                    dist[a] = dist[b] + 1
                    queue.append(a)
        return dist

    def region(self, player: int, boxes: int) -> int:
        """Cells the player reaches without pushing, as a mask."""
        return region(self.floor, self.w, player, boxes)

    def layers(self, player: int, boxes: int) -> list[int]:
        """Breadth-first layers of the player's walk: ``layers[k]`` = cells at distance k."""
        free = self.floor & ~boxes
        w = self.w
        seen = frontier = 1 << player
        out = [frontier]
        while True:
            frontier = ((frontier << 1) | (frontier >> 1) | (frontier << w) | (frontier >> w)) & free & ~seen
            if not frontier:
                return out
            seen |= frontier
            out.append(frontier)

    def pushes(self, reach: int, boxes: int) -> Iterator[tuple[int, int, str]]:
        """Pushes the player can make from its region: (box bit, shift, letter)."""
        target_ok = self.floor & ~boxes & self.live
        for letter, s in self.dirs:
            if s > 0:
                can = boxes & (reach << s) & (target_ok >> s)
            else:
                can = boxes & (reach >> -s) & (target_ok << -s)
            for b in bits(can):
                yield b, s, letter

    def frozen(self, boxes: int, c: int) -> bool:
        """True when the box on ``c`` closes a 2x2 block of walls and boxes not all on goals."""
        blocked = self.solid | boxes
        w = self.w
        # Every 2x2 square through c holds one horizontal and one vertical neighbour of c: most pushes
        # fail this cheap test and skip the four square checks.
        if not ((blocked >> (c - 1)) | (blocked >> (c + 1))) & 1 or not ((blocked >> (c - w)) | (blocked >> (c + w))) & 1:
            return False
        loose = boxes & ~self.goals
        return any(square & blocked == square and square & loose for square in self.squares[c])

    def walk(self, start: int, end: int, boxes: int) -> str:
        """Letters of a shortest walk from ``start`` to ``end`` avoiding boxes (must exist)."""
        layers = self.layers(start, boxes)
        k = next(i for i, layer in enumerate(layers) if (layer >> end) & 1)
        path = []
        here = end
        for i in range(k - 1, -1, -1):
            for letter, s in self.dirs:
                prev = here - s
                if prev >= 0 and (layers[i] >> prev) & 1:
                    path.append(letter)
                    here = prev
                    break
        return "".join(reversed(path))

    def spell(self, pushes: list[tuple[int, int, str]]) -> str:
        """Turn a list of pushes into a full LURD solution by walking to each push."""
        out = []
        player, boxes = self.player, self.boxes
        for b, s, letter in pushes:
            out.append(self.walk(player, b - s, boxes))
            out.append(letter.upper())
            boxes = (boxes & ~(1 << b)) | (1 << (b + s))
            player = b
        return "".join(out)


_LAST_BOARD: list[_Board] = []


def _board(level: Level) -> _Board:
    """The board of ``level``, reused when the previous search was on the same (immutable) level:
    the generators run several searches per candidate, and the push-bound cache carries over."""
    last = _LAST_BOARD[0] if _LAST_BOARD else None
    if last is not None and last.level is level:
        return last
    board = _Board(level)
    _LAST_BOARD[:] = [board]
    return board


def _start(level: Level, limits: SolverLimits) -> tuple[_Board, _Budget, tuple[Solution | None] | None]:
    """The board and budget of a search on ``level``, and its answer when no search is needed (in a
    1-tuple: the empty solution when the boxes are on the goals, None when a box starts on a dead
    cell), else None."""
    board = _board(level)
    budget = _Budget(limits, level)
    if board.boxes == board.goals:
        return board, budget, (Solution("", 1),)
    if board.boxes & ~board.live:
        return board, budget, (None,)
    return board, budget, None


def region(floor: int, width: int, player: int, boxes: int) -> int:
    """The cells reachable from ``player`` over ``floor`` without crossing ``boxes``, as a bit mask of a
    board ``width`` cells wide (bit = row * width + column; border walls stop the shifts)."""
    free = floor & ~boxes
    r = 1 << player
    while True:
        n = r | (((r << 1) | (r >> 1) | (r << width) | (r >> width)) & free)
        if n == r:
            return r
        r = n


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of a non-negative int, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Budget:
    def __init__(self, limits: SolverLimits, level: Level) -> None:
        self.limits = limits
        self.pos = level.pos
        self.deadline = time.monotonic() + limits.max_seconds
        self.ticks = 0

    def check(self, stored: int) -> None:
        if stored > self.limits.max_nodes:
            raise SolverLimitError(f"too large: more than {self.limits.max_nodes:,} search states", self.pos)
        self.ticks += 1
        if self.ticks % 512 == 0:
            self.check_time()

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise SolverLimitError(f"too large: more than {self.limits.max_seconds:g} s of search", self.pos)


def _unwind(parents: dict[object, tuple[object, int, int, str] | None], key: object) -> list[tuple[int, int, str]]:
    pushes = []
    entry = parents[key]
    while entry is not None:
        parent, b, s, letter = entry
        pushes.append((b, s, letter))
        entry = parents[parent]
    return list(reversed(pushes))


def solve_pushes(
    level: Level, limits: SolverLimits = DEFAULT_LIMITS, *, known: Solution | None = None
) -> Solution | None:
    """A push-optimal solution (fewest pushes; its walks are shortest per push), or None if unsolvable.

    Breadth-first over (box set, player region). ``known``, any solution of the level, turns the
    search into a bounded optimality check: only solutions with fewer pushes than ``known`` are
    looked for (states whose depth plus the push lower bound reaches its count are dropped), and
    when there is none ``known`` itself is returned, being push-optimal. Raises
    :class:`SolverLimitError` past the limits.
    """
    board, budget, settled = _start(level, limits)
    if settled is not None:
        return settled[0]
    bound = known.pushes - 1 if known is not None else _FAR
    start = (board.boxes, board.region(board.player, board.boxes))
    parents: dict[object, tuple[object, int, int, str] | None] = {start: None}
    queue = deque([(start, 0)])
    while queue:
        key, depth = queue.popleft()
        boxes, reach = key
        for b, s, letter in board.pushes(reach, boxes):
            t = b + s
            nboxes = (boxes & ~(1 << b)) | (1 << t)
            if board.frozen(nboxes, t) or depth + 1 + board.estimate(nboxes) > bound:
                continue
            child = (nboxes, board.region(b, nboxes))
            if child in parents:
                continue
            parents[child] = (key, b, s, letter)
            if nboxes == board.goals:
                pushes = _unwind(parents, child)
                return Solution(board.spell(pushes), len(parents))
            budget.check(len(parents))
            queue.append((child, depth + 1))
    return Solution(known.moves, len(parents)) if known is not None else None


def solve_moves(
    level: Level, limits: SolverLimits = DEFAULT_LIMITS, *, known: Solution | None = None
) -> Solution | None:
    """A move-optimal solution (fewest player moves, pushes included), or None if unsolvable.

    Without ``known``: A* over (box set, player cell after a push), each edge a shortest walk plus
    one push; the heuristic (the cheapest assignment of boxes to goals by push distance) is
    consistent. ``known``, any solution of the level, turns the search into a bounded optimality
    check, done by a breadth-first wave over (box set, player cells) that looks only for a shorter
    solution, dropping states whose depth plus that push lower bound reaches the known length; when
    there is none, ``known`` itself is returned, being move-optimal. Raises
    :class:`SolverLimitError` past the limits.
    """
    if known is None:
        return _search_moves(level, limits, 1, None)[0]
    found, explored = _wave_moves(level, limits, known.length - 1)
    return found if found is not None else Solution(known.moves, explored)


def quick_moves(level: Level, limits: SolverLimits = DEFAULT_LIMITS, weight: int = 3) -> Solution | None:
    """A short but not necessarily optimal solution: weighted A* (f = g + weight * h).

    Much faster than :func:`solve_moves` on levels with long walks; its length is an upper bound on
    the optimum, which is enough to show that a level is trivial. Same errors as :func:`solve_moves`.
    """
    return _search_moves(level, limits, weight, None)[0]


def _search_moves(level: Level, limits: SolverLimits, weight: int, bound: int | None) -> tuple[Solution | None, int]:
    """The solution found (None: none within ``bound`` moves) and the number of states stored."""
    board, budget, settled = _start(level, limits)
    if settled is not None:
        return settled[0], 1
    # The hot loop: board fields in locals, a state key is one int (boxes above the player cell).
    floor, live, goals, w, dirs = board.floor, board.live, board.goals, board.w, board.dirs
    frozen, estimate, estimates, solid = board.frozen, board.estimate, board.estimates, board.solid
    shift = (level.width * level.height).bit_length()
    max_nodes = limits.max_nodes
    start = (board.boxes << shift) | board.player
    best: dict[int, int] = {start: 0}
    parents: dict[object, tuple[object, int, int, str] | None] = {start: None}
    counter = itertools.count()
    push, pop = heapq.heappush, heapq.heappop
    cutoff = _FAR if bound is None else bound
    # Ties on f go to the deeper node (larger g), which reaches a solution sooner.
    heap = [(weight * estimate(board.boxes), 0, next(counter), start)]
    while heap:
        _, negative_g, _, key = pop(heap)
        g = -negative_g
        if best[key] < g:
            continue
        boxes, player = key >> shift, key & ((1 << shift) - 1)
        if boxes == goals:
            return Solution(board.spell(_unwind(parents, key)), len(parents)), len(parents)
        free = floor & ~boxes
        reach = frontier = 1 << player
        layers = [frontier]
        while True:
            frontier = ((frontier << 1) | (frontier >> 1) | (frontier << w) | (frontier >> w)) & free & ~reach
            if not frontier:
                break
            reach |= frontier
            layers.append(frontier)
        target_ok = free & live
        for letter, s in dirs:
            if s > 0:
                can = boxes & (reach << s) & (target_ok >> s)
            else:
                can = boxes & (reach >> -s) & (target_ok << -s)
            while can:
                low = can & -can
                can ^= low
                b = low.bit_length() - 1
                t = b + s
                nboxes = (boxes ^ low) | (1 << t)
                blocked = solid | nboxes  # the cheap part of frozen(), inline: this loop is the hot spot
                if (((blocked >> (t - 1)) | (blocked >> (t + 1))) & 1 and ((blocked >> (t - w)) | (blocked >> (t + w))) & 1
                        and frozen(nboxes, t)):
                    continue
                stand = b - s
                walk = 0
                while not (layers[walk] >> stand) & 1:
                    walk += 1
                ng = g + walk + 1
                child = (nboxes << shift) | b
                if best.get(child, ng + 1) <= ng:
                    continue
                nh = estimates.get(nboxes)
                if nh is None:
                    nh = estimate(nboxes)
                if nh >= _FAR or ng + nh > cutoff:
                    continue
                best[child] = ng
                parents[child] = (key, b, s, letter)
                push(heap, (ng + weight * nh, -ng, next(counter), child))
                stored = len(parents)
                if stored > max_nodes:
                    budget.check(stored)  # raises
                if not stored & 511:  # the clock, every 512 states
                    budget.check_time()
    return None, len(parents)


def _wave_moves(level: Level, limits: SolverLimits, bound: int | None) -> tuple[Solution | None, int]:
    """Move-optimal search as a breadth-first wave over box sets, all player cells of a set at once.

    Depth d holds, for each box set, the bit mask of player cells first reached in exactly d moves;
    a walk step is a few shifts of that mask, and a push starts a new box set from one cell. Box sets
    whose depth plus the push lower bound passes ``bound`` are dropped. The first depth that reaches
    the goals is the fewest moves. Stored states are counted as the A* counts them, one per (box set,
    player cell) reached by a push (walking fills bits of the same masks). Returns (None, stored)
    when no solution within ``bound`` exists.
    """
    board, budget, settled = _start(level, limits)
    if settled is not None:
        return settled[0], 1
    floor, live, goals, w = board.floor, board.live, board.goals, board.w
    frozen, estimate, estimates, solid = board.frozen, board.estimate, board.estimates, board.solid
    cutoff = _FAR if bound is None else bound
    if estimate(board.boxes) > cutoff:
        return None, 1
    max_nodes = limits.max_nodes
    steps = tuple((s, 2 * s) for s in (-w, w, -1, 1))
    seen: dict[int, int] = {board.boxes: 1 << board.player}
    layers: list[dict[int, int]] = [dict(seen)]
    stored = 1
    depth = 0
    while layers[depth]:
        frontier = layers[depth]
        nxt: dict[int, int] = {}
        layers.append(nxt)
        for boxes, front in frontier.items():
            h = estimates[boxes]
            if depth + h > cutoff:
                continue  # a push from here costs depth + 1 and leaves at least h - 1 pushes
            free = floor & ~boxes
            known = seen[boxes]
            if depth + 1 + h <= cutoff:
                step = ((front << 1) | (front >> 1) | (front << w) | (front >> w)) & free & ~known
                if step:
                    seen[boxes] = known | step
                    nxt[boxes] = nxt.get(boxes, 0) | step
            if not front & ((boxes << 1) | (boxes >> 1) | (boxes << w) | (boxes >> w)):
                continue  # no player cell of this depth touches a box
            target_ok = free & live
            for s, s2 in steps:
                # Player on p, box on p + s, free live cell on p + 2s.
                if s > 0:
                    pushers = front & (boxes >> s) & (target_ok >> s2)
                else:
                    pushers = front & (boxes << -s) & (target_ok << -s2)
                while pushers:
                    low = pushers & -pushers
                    pushers ^= low
                    p = low.bit_length() - 1
                    b = p + s
                    t = b + s
                    nboxes = (boxes & ~(1 << b)) | (1 << t)
                    blocked = solid | nboxes
                    if (((blocked >> (t - 1)) | (blocked >> (t + 1))) & 1
                            and ((blocked >> (t - w)) | (blocked >> (t + w))) & 1 and frozen(nboxes, t)):
                        continue
                    bit = 1 << b
                    old = seen.get(nboxes, 0)
                    if old & bit:
                        continue
                    nh = estimates.get(nboxes)
                    if nh is None:
                        nh = estimate(nboxes)
                    if depth + 1 + nh > cutoff:
                        continue
                    seen[nboxes] = old | bit
                    nxt[nboxes] = nxt.get(nboxes, 0) | bit
                    stored += 1
                    if nboxes == goals:
                        return Solution(_wave_path(board, layers, b), stored), stored
            if stored > max_nodes:
                budget.check(stored)  # raises
        budget.check_time()
        depth += 1
    return None, stored


def _wave_path(board: _Board, layers: list[dict[int, int]], player: int) -> str:
    """The moves to the goal state in the last layer, found backwards through the layers."""
    w = board.w
    letters = {-w: "u", w: "d", -1: "l", 1: "r"}
    boxes = board.goals
    out = []
    for depth in range(len(layers) - 2, -1, -1):
        layer = layers[depth]
        for s, letter in letters.items():
            q = player - s  # the previous player cell, one step against s
            if (layer.get(boxes, 0) >> q) & 1:  # a walk from q
                out.append(letter)
                player = q
                break
            if (boxes >> (player + s)) & 1:  # a push from q of the box now on player + s
                before = (boxes & ~(1 << (player + s))) | (1 << player)
                if (layer.get(before, 0) >> q) & 1:
                    out.append(letter.upper())
                    boxes, player = before, q
                    break
        else:
            raise AssertionError("no predecessor in the previous layer")
    return "".join(reversed(out))
