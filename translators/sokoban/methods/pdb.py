"""PDB generator (Bento, Pereira & Lelis 2019): greedy best-first search over pulls from a solved layout.

The search starts from the solved layout (every goal holds a box) and pulls boxes (the inverse of a
push), so every state it reaches is solvable: the pulls reversed are pushes that solve it. Nodes are
ordered lexicographically by:

- ``h`` = h^PDB_k: the boxes (sorted by cell) are split into groups of k; each group's exact push
  distance to any k goals, with the other boxes absent and the player anywhere, comes from a pattern
  database built once per layout by breadth-first search over pulls from the goals. h^PDB_1 is the
  sum of each box's push distance to its nearest goal. Larger h (farther from solved) goes first.
- ``kC`` = max(h^PDB_k - h^PDB_(k-1), 0), the conflict count ("counter-intuitive moves"; 0 for k = 1).
  Larger first.
- ``w(h)``: novelty among the nodes with the same h: 1 when the node has an atom (a box on a cell, the
  player's region) not seen before, 2 when only a pair of atoms is new, 3 otherwise. Smaller first.

Variants: simple [kC, h], novelty [w(h), h], compound [w(h), kC, h]. The best start found (largest h,
then kC) is the level. Memory is bounded: the open list, closed set, novelty tables, heuristic cache
and pattern databases are counted (entries x measured bytes per entry) and the search stops at
``memory_mb``, returning the best level so far with a message saying so.

>>> from ggp.translators.sokoban.methods.layout import parse_layout
>>> layout = parse_layout("#######\\n#     #\\n# .*  #\\n#  @  #\\n#######\\n")
>>> result = search(layout, "compound", 2, expansions=200, memory_mb=64, rng=random.Random(0))
>>> from ggp.translators.sokoban.moves import solves
>>> result.estimate > 0 and solves(result.level, result.solution), result.stopped
(True, None)
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from ggp.errors import SokobanError
from ggp.translators.sokoban.candidates import Generated, GenerationStats, accept
from ggp.translators.sokoban.level import Cell, Level, level_to_text, parse_level
from ggp.translators.sokoban.methods.base import VARIANTS, MethodOptions, Variant, walk
from ggp.translators.sokoban.methods.layout import check_fits, random_room
from ggp.translators.sokoban.solver import bits, region

log = logging.getLogger(__name__)

MAX_PATTERN = 5
"""The largest pattern size k accepted (the paper's range is 1..5)."""

# Bytes per stored entry, measured with tracemalloc on 8x8 rooms with 3 boxes (see docs/sokoban_methods.md):
# an open-list entry is a tuple holding the priority, a tie-break float and two ints; a closed-set entry
# a (boxes, player) key and its parent record; a novelty entry one int in a set; a cache or pattern
# database entry one int -> int item of a dict.
BYTES_OPEN = 200
BYTES_CLOSED = 330
BYTES_NOVELTY = 70
BYTES_TABLE = 110


@dataclass(frozen=True, slots=True)
class PdbResult:
    """One search: the best start found (None when no pull is possible) and what the search did."""

    level: Level | None
    solution: str
    """The pulls reversed, as a LURD solution of ``level`` (not necessarily optimal)."""
    estimate: int
    """h^PDB_k of the level: a lower bound on its pushes."""
    conflicts: int
    expansions: int
    generated: int
    peak_bytes: int
    """The largest estimated size of the search's tables."""
    stopped: str | None
    """Why the search stopped before its expansion budget ran out (the memory cap), else None."""


class PdbMemoryError(SokobanError):
    """The pattern databases alone exceed the memory cap."""


class _Board:
    """The layout as bit masks (bit ``y * width + x``), with pulls and pattern databases."""

    def __init__(self, layout: Level, pattern: int, budget_bytes: float) -> None:
        self.w = layout.width
        self.floor = sum(1 << self.bit(c) for c in layout.floor)
        self.goal_bits = sorted(self.bit(c) for c in layout.goals)
        self.goals = sum(1 << g for g in self.goal_bits)
        self.shifts = (-self.w, self.w, -1, 1)
        self.k = max(1, min(pattern, len(self.goal_bits)))
        self.budget = budget_bytes
        self.tables: dict[int, dict[int, int]] = {}
        for size in range(1, self.k + 1):
            self.tables[size] = self._database(size)

    def bit(self, cell: Cell) -> int:
        return cell[1] * self.w + cell[0]

    def cell(self, bit: int) -> Cell:
        return (bit % self.w, bit // self.w)

    def region(self, player: int, boxes: int) -> int:
        return region(self.floor, self.w, player, boxes)

    def pulls(self, boxes: int, reach: int) -> Iterator[tuple[int, int, int]]:
        """Pulls from a position: (box bit, shift, player bit after the pull); the box moves to box + shift."""
        free = self.floor & ~boxes
        for s in self.shifts:
            for b in bits(boxes):
                p = b + s
                if (reach >> p) & 1 and (free >> (p + s)) & 1:
                    yield b, s, p + s

    def table_entries(self) -> int:
        return sum(len(t) for t in self.tables.values())

    def _database(self, size: int) -> dict[int, int]:
        """Fewest pushes that put ``size`` boxes (as a mask) on any ``size`` goals, player anywhere."""
        dist: dict[int, int] = {}
        seen: set[tuple[int, int]] = set()
        queue: deque[tuple[int, int, int]] = deque()
        for combo in itertools.combinations(self.goal_bits, size):
            mask = sum(1 << g for g in combo)
            dist[mask] = 0
            rest = self.floor & ~mask
            while rest:
                start = (rest & -rest).bit_length() - 1
                reach = self.region(start, mask)
                rest &= ~reach
                seen.add((mask, reach & -reach))
                queue.append((mask, reach, 0))
        stored = self.table_entries()
        while queue:
            mask, reach, d = queue.popleft()
            for b, s, player in self.pulls(mask, reach):
                moved = (mask ^ (1 << b)) | (1 << (b + s))
                after = self.region(player, moved)
                key = (moved, after & -after)
                if key in seen:
                    continue
                seen.add(key)
                if moved not in dist:
                    dist[moved] = d + 1
                queue.append((moved, after, d + 1))
            if (len(seen) + len(dist) + stored) * BYTES_TABLE > self.budget:
                raise PdbMemoryError(
                    f"the pattern database for k={size} needs more than the memory cap of "
                    f"{self.budget / 2**20:g} MB; use a smaller pattern size or raise the cap"
                )
        return dist

    def estimate(self, boxes: int, k: int) -> int:
        """h^PDB_k: boxes sorted by cell, in groups of k, each group's database value summed."""
        if k == 0:
            return 0
        total = 0
        group = 0
        count = 0
        for b in bits(boxes):
            group |= 1 << b
            count += 1
            if count == k:
                total += self.tables[k][group]
                group, count = 0, 0
        if count:
            total += self.tables[count][group]
        return total


class _Novelty:
    """The novelty tables of :func:`search`, one per heuristic value h: the atoms (box cells, the player's
    region) and pairs of atoms seen among the nodes of that h so far, and how many entries they hold."""

    def __init__(self) -> None:
        self.atoms_seen: dict[int, set[int]] = {}
        self.pairs_seen: dict[int, set[int]] = {}
        self.entries = 0

    def width(self, h: int, boxes: int, player: int) -> int:
        """1 when the node has an atom no node of the same h had, 2 for a new pair of atoms, else 3."""
        atoms = [*bits(boxes), 100_000 + player]
        singles = self.atoms_seen.setdefault(h, set())
        pairs = self.pairs_seen.setdefault(h, set())
        keys = [a * 200_000 + b for a, b in itertools.combinations(atoms, 2)]
        new_atom = any(a not in singles for a in atoms)
        new_pair = any(p not in pairs for p in keys)
        before = len(singles) + len(pairs)
        singles.update(atoms)
        pairs.update(keys)
        self.entries += len(singles) + len(pairs) - before
        return 1 if new_atom else 2 if new_pair else 3


def _priority(variant: Variant, h: int, kc: int, w: int) -> tuple[int, ...]:
    """The heap key of a node for ``variant`` (smallest first): novelty width, then the scores, highest first."""
    if variant == "simple":
        return (-kc, -h)
    if variant == "novelty":
        return (w, -h)
    return (w, -kc, -h)


def search(
    layout: Level, variant: Variant, pattern: int, *, expansions: int, memory_mb: float, rng: random.Random,
) -> PdbResult:
    """Greedy best-first search over pulls from ``layout`` (solved: boxes on every goal).

    ``pattern`` is k (1..5; above the box count it acts as the box count), ``expansions`` the node
    budget, ``memory_mb`` the cap on the estimated size of the search's tables, ``rng`` breaks ties.
    Raises ValueError for a bad variant or pattern size, :class:`PdbMemoryError` when the pattern
    databases alone exceed the cap.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown PDB variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    if not 1 <= pattern <= MAX_PATTERN:
        raise ValueError(f"pattern size must be 1..{MAX_PATTERN}, got {pattern}")
    budget = memory_mb * 2**20
    board = _Board(layout, pattern, budget)
    k = board.k
    table_bytes = board.table_entries() * BYTES_TABLE
    cache: dict[int, tuple[int, int]] = {}

    def scores(boxes: int) -> tuple[int, int]:
        known = cache.get(boxes)
        if known is None:
            h = board.estimate(boxes, k)
            known = (h, max(h - board.estimate(boxes, k - 1), 0) if k > 1 else 0)
            cache[boxes] = known
        return known

    novelty = _Novelty()

    start_boxes = board.goals
    start_player = board.bit(layout.player)
    reach = board.region(start_player, start_boxes)
    root = (start_boxes, reach & -reach)
    parents: dict[tuple[int, int], tuple[tuple[int, int], int, int, int] | None] = {root: None}
    heap: list[tuple[tuple[int, ...], float, int, int]] = [((0,), rng.random(), start_boxes, start_player)]
    best: tuple[int, int, tuple[int, int]] | None = None
    done = 0
    peak = 0
    stopped = None
    while heap and done < expansions:
        _, _, boxes, player = heapq.heappop(heap)
        done += 1
        reach = board.region(player, boxes)
        key = (boxes, reach & -reach)
        for b, s, after in board.pulls(boxes, reach):
            moved = (boxes ^ (1 << b)) | (1 << (b + s))
            region = board.region(after, moved)
            child = (moved, region & -region)
            if child in parents:
                continue
            parents[child] = (key, b, s, after)
            h, kc = scores(moved)
            if best is None or (h, kc) > best[:2]:
                best = (h, kc, child)
            w = novelty.width(h, moved, region & -region) if variant != "simple" else 0
            heapq.heappush(heap, (_priority(variant, h, kc, w), rng.random(), moved, after))
        size = (len(heap) * BYTES_OPEN + len(parents) * BYTES_CLOSED + novelty.entries * BYTES_NOVELTY
                + len(cache) * BYTES_TABLE + table_bytes)
        peak = max(peak, size)
        if size > budget and heap and done < expansions:
            stopped = (
                f"memory cap of {memory_mb:g} MB reached after {done:,} expansions ({len(heap):,} open and "
                f"{len(parents):,} closed nodes, about {size / 2**20:.2f} MB); returning the best level found so far"
            )
            break
    if best is None or best[0] == 0:
        return PdbResult(None, "", 0, 0, done, len(parents), peak, stopped)
    level, solution = _unwind(board, layout, parents, best[2])
    return PdbResult(level, solution, best[0], best[1], done, len(parents), peak, stopped)


def _unwind(
    board: _Board, layout: Level, parents: dict[tuple[int, int], tuple[tuple[int, int], int, int, int] | None],
    key: tuple[int, int],
) -> tuple[Level, str]:
    """The start position of ``key`` as a level, and the reversed pulls as its LURD solution."""
    pulls = []
    entry = parents[key]
    while entry is not None:
        parent, b, s, after = entry
        pulls.append((b, s, after))
        entry = parents[parent]
    # pulls[0] is the last pull: the player stands where it left it.
    player = board.cell(pulls[0][2])
    boxes = {board.cell(b) for b in bits(key[0])}
    start = Level(layout.width, layout.height, layout.walls, layout.floor, layout.goals, frozenset(boxes), player)
    letters = {-board.w: "U", board.w: "D", -1: "L", 1: "R"}
    out = []
    here = player
    for b, s, after in pulls:
        stand = board.cell(after)
        path = walk(layout.floor, boxes, here, stand)
        assert path is not None  # the player stood there right after the pull
        out.append(path)
        out.append(letters[-s])  # push back: the box returns from b + s to b
        boxes.remove(board.cell(b + s))
        boxes.add(board.cell(b))
        here = board.cell(b + s)
    return parse_level(level_to_text(start), "<pdb>"), "".join(out)


def generate_pdb(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    """Yield up to ``count`` levels, one search per attempt (attempt ``i`` seeded ``"seed:i"``).

    Each attempt searches ``options.layout`` or, without one, a fresh random room of the options'
    size and box count. A search stopped by the memory cap still offers its best level and adds its
    message to ``stats.messages``. Raises :class:`SokobanError` when the boxes do not fit the room,
    :class:`PdbMemoryError` when the pattern databases exceed the cap.
    """
    width, height = options.size()
    if options.layout is None:
        check_fits(options.boxes, width, height)
    limit = options.max_attempts if options.max_attempts is not None else 20 * count
    found = 0
    for attempt in range(limit):
        if found >= count:
            return
        rng = random.Random(f"{seed}:{attempt}")
        clock = time.process_time()
        if options.layout is not None:
            layout, where = options.layout, "layout"
        else:
            layout, where = random_room(width, height, options.boxes, rng), f"room {width}x{height}"
        result = search(layout, options.variant, options.pattern, expansions=options.expansions,
                        memory_mb=options.memory_mb, rng=rng)
        stats.sym_seconds += time.process_time() - clock
        stats.peak_bytes = max(stats.peak_bytes, result.peak_bytes)
        if result.stopped:
            stats.messages.append(f"attempt {attempt}: {result.stopped}")
        if result.level is None:
            stats.outcomes["invalid"] += 1
            continue
        title = (f"pdb {options.variant} k{options.pattern} {where} boxes {len(layout.goals)} "
                 f"seed {seed} attempt {attempt}")
        item = accept(result.level, result.solution, keep_trivial=options.keep_trivial, limits=options.limits,
                      stats=stats, title=title, seed=seed, attempt=attempt)
        if item is not None:
            found += 1
            yield item
