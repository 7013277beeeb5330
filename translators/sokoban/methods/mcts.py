"""MCTS generator (Kartal, Sohre & Guy 2016): tree search over a game whose episodes build a level.

The board starts full of obstacles except the player's cell. Phase 1 actions remove an obstacle next
to an empty cell, place a box on an empty cell (at most ``boxes``), or freeze the layout; phase 2
actions move the player (walking, or pushing a box as in Sokoban) or evaluate, which ends the episode.
At evaluation the boxes that were pushed become goals where they stand and start where they were
placed; boxes never pushed become obstacles; the player starts where it stood at the freeze. The
phase-2 moves are then a solution of the level, so every level is solvable.

Selection is UCB1, ``w_i / n_i + c * sqrt(ln N_i / n_i)`` with c = sqrt(2). The payout of a level is
the paper's ``(w_b P_b + w_c P_c + w_n n) / k`` with w_b 5, w_c 10, w_n 1, k 50, on raw counts:

- P_b: interior cells not inside any uniform 3x3 block (all obstacle or all floor);
- P_c: congestion, summed over the pushed boxes: ``(alpha s + beta g) / (gamma (A - o))`` in the
  rectangle spanned by the box's start and its goal, where s, g and o count the boxes' starts, the
  goals and the obstacles inside it and A is its area; alpha 4, beta 4, gamma 1;
- n: the number of boxes.

An episode that makes no valid level pays 0; evaluate is legal only once a box is off its start.
Phase 2 forbids walking straight back to the cell just left (a no-op pair of moves; stepping back
after a push is allowed) and is capped at 2 x w x h moves. The default (rollout) policy plays
uniformly random actions, except that in phase 2 it evaluates with probability
``EVALUATE_PROBABILITY`` per step (uniform choice would stop after a handful of moves). Every
iteration ends in a complete level, and a search keeps the best-paying distinct levels of all its
iterations (its anytime "level set"), not only those on the tree's final path.

>>> result = search(5, 5, 2, iterations=60, rng=random.Random(1))
>>> from ggp.translators.sokoban.moves import solves
>>> result.payout > 0 and solves(result.level, result.solution)
True
"""

from __future__ import annotations

import heapq
import logging
import math
import random
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from ggp.errors import SokobanError
from ggp.translators.sokoban.candidates import Generated, GenerationStats, accept
from ggp.translators.sokoban.generator import render_cells
from ggp.translators.sokoban.level import Cell, Level, parse_level
from ggp.translators.sokoban.methods.base import MethodOptions
from ggp.translators.sokoban.methods.layout import check_fits

log = logging.getLogger(__name__)

C = math.sqrt(2)
W_B, W_C, W_N, K = 5.0, 10.0, 1.0, 50.0
ALPHA, BETA, GAMMA = 4.0, 4.0, 1.0
"""Congestion weights of boxes, goals and obstacles inside a box's start-to-goal rectangle."""
EVALUATE_PROBABILITY = 0.02
"""Chance per phase-2 step that a rollout evaluates (ends the episode) once a box is off its start."""
LEVEL_SET = 10
"""Levels per search that the optimal solver scores: the best-paying distinct levels of all its episodes."""
BYTES_PER_NODE = 420
"""Measured with tracemalloc: a node object, its children dict entry and its untried-action list."""

_STEPS: tuple[tuple[str, Cell], ...] = (("u", (0, -1)), ("d", (0, 1)), ("l", (-1, 0)), ("r", (1, 0)))
_BOX, _FREEZE, _MOVE, _EVALUATE = 1000, 2000, 3000, 3004


@dataclass(frozen=True, slots=True)
class MctsResult:
    """The best level of one search (None when no episode made one) and what the search did."""

    level: Level | None
    solution: str
    payout: float
    iterations: int
    nodes: int
    mean_payout: float
    peak_bytes: int
    levels: tuple[Candidate, ...] = ()
    """The kept levels, best-paying first (``level`` is the first one's)."""


class _Game:
    """One episode's state; actions are ints (a cell index, ``_BOX + index``, ``_FREEZE``, ``_MOVE + d``...)."""

    __slots__ = ("back", "boxes", "frozen", "height", "log", "max_boxes", "moved", "obstacles", "over", "player",
                 "pushed", "start", "starts", "width")

    def __init__(self, width: int, height: int, max_boxes: int, player: Cell) -> None:
        self.width, self.height, self.max_boxes = width, height, max_boxes
        self.obstacles = {(x, y) for x in range(1, width + 1) for y in range(1, height + 1)} - {player}
        self.boxes: list[Cell] = []
        self.starts: list[Cell] = []
        self.pushed: list[bool] = []
        self.player = self.start = player
        self.back: Cell | None = None  # the cell the player just walked from (no push since)
        self.moved = 0  # boxes off their start
        self.frozen = False
        self.log: list[str] = []
        self.over = False

    def copy(self) -> _Game:
        other = _Game.__new__(_Game)
        other.width, other.height, other.max_boxes = self.width, self.height, self.max_boxes
        other.obstacles = set(self.obstacles)
        other.boxes, other.starts, other.pushed = list(self.boxes), list(self.starts), list(self.pushed)
        other.player, other.start, other.frozen = self.player, self.start, self.frozen
        other.back, other.moved = self.back, self.moved
        other.log, other.over = list(self.log), self.over
        return other

    def index(self, cell: Cell) -> int:
        return cell[1] * (self.width + 2) + cell[0]

    def cell(self, index: int) -> Cell:
        return (index % (self.width + 2), index // (self.width + 2))

    def empty(self, cell: Cell) -> bool:
        return 1 <= cell[0] <= self.width and 1 <= cell[1] <= self.height and cell not in self.obstacles

    def legal(self) -> list[int]:
        if self.over:
            return []
        if not self.frozen:
            actions = []
            for (x, y) in self.obstacles:
                if any(self.empty((x + dx, y + dy)) for _, (dx, dy) in _STEPS):
                    actions.append(self.index((x, y)))
            if len(self.boxes) < self.max_boxes:
                taken = set(self.boxes)
                for x in range(1, self.width + 1):
                    for y in range(1, self.height + 1):
                        c = (x, y)
                        if c not in self.obstacles and c not in taken and c != self.player:
                            actions.append(_BOX + self.index(c))
            if self.boxes:
                actions.append(_FREEZE)
            return sorted(actions)
        return self.moves() + ([_EVALUATE] if self.moved else [])

    def moves(self) -> list[int]:
        """Phase-2 moves: a walk or a push, but not a walk straight back to the cell just left (a no-op)."""
        actions: list[int] = []
        if len(self.log) >= 2 * self.width * self.height:
            return actions
        boxes = self.boxes
        x, y = self.player
        for d, (_, (dx, dy)) in enumerate(_STEPS):
            a = (x + dx, y + dy)
            if not self.empty(a) or a == self.back:
                continue
            if a in boxes:
                b = (x + 2 * dx, y + 2 * dy)
                if not self.empty(b) or b in boxes:
                    continue
            actions.append(_MOVE + d)
        return actions

    def apply(self, action: int) -> None:
        if action == _EVALUATE:
            self.over = True
        elif action == _FREEZE:
            self.frozen = True
        elif action >= _MOVE:
            letter, (dx, dy) = _STEPS[action - _MOVE]
            x, y = self.player
            a = (x + dx, y + dy)
            self.back = self.player
            if a in self.boxes:
                i = self.boxes.index(a)
                was = self.boxes[i] != self.starts[i]
                self.boxes[i] = (x + 2 * dx, y + 2 * dy)
                self.moved += (self.boxes[i] != self.starts[i]) - was
                self.pushed[i] = True
                self.back = None
                letter = letter.upper()
            self.player = a
            self.log.append(letter)
        elif action >= _BOX:
            c = self.cell(action - _BOX)
            self.boxes.append(c)
            self.starts.append(c)
            self.pushed.append(False)
        else:
            self.obstacles.discard(self.cell(action))

    def _walls(self) -> set[Cell]:
        # Boxes never pushed become obstacles (Kartal et al.'s clean-up).
        return self.obstacles | {self.starts[i] for i, pushed in enumerate(self.pushed) if not pushed}

    def level(self) -> tuple[Level, str] | None:
        """The episode's level and solution (None when it is not a valid level)."""
        kept = [i for i, pushed in enumerate(self.pushed) if pushed]
        if not self.moved:
            return None
        walls = self._walls()
        floor = {(x, y) for x in range(1, self.width + 1) for y in range(1, self.height + 1)} - walls
        region = {self.start}
        queue = deque([self.start])
        while queue:
            x, y = queue.popleft()
            for _, (dx, dy) in _STEPS:
                n = (x + dx, y + dy)
                if n in floor and n not in region:
                    region.add(n)
                    queue.append(n)
        text = render_cells(region, {self.boxes[i] for i in kept}, {self.starts[i] for i in kept}, self.start)
        try:
            level = parse_level(text, "<mcts>")
        except SokobanError:
            return None
        return level, "".join(self.log)

    def payout(self) -> float:
        """(w_b P_b + w_c P_c + w_n n) / k of the episode's level, 0 when it makes none."""
        if not self.moved:
            return 0.0
        kept = [i for i, pushed in enumerate(self.pushed) if pushed]
        walls = self._walls()
        p_b = self.width * self.height - len(_block_cells(walls, self.width, self.height))
        return (W_B * p_b + W_C * _congestion(
            [self.starts[i] for i in kept], [self.boxes[i] for i in kept], walls) + W_N * len(kept)) / K


def _congestion(starts: list[Cell], goals: list[Cell], walls: set[Cell]) -> float:
    """Kartal et al.'s P_c: over boxes, (alpha s + beta g) / (gamma (A - o)) in the box's start-to-goal rectangle.

    s, g and o count the boxes' starts, the goals and the obstacles inside the rectangle (its own
    start and goal included), A is its area. A box back on its start adds 0.
    """
    starts_set, goals_set = set(starts), set(goals)
    total = 0.0
    for (x0, y0), (x1, y1) in zip(starts, goals, strict=True):
        if (x0, y0) == (x1, y1):
            continue
        s = g = o = 0
        for x in range(min(x0, x1), max(x0, x1) + 1):
            for y in range(min(y0, y1), max(y0, y1) + 1):
                c = (x, y)
                s += c in starts_set
                g += c in goals_set
                o += c in walls
        area = (abs(x1 - x0) + 1) * (abs(y1 - y0) + 1)
        total += (ALPHA * s + BETA * g) / (GAMMA * (area - o))
    return total


def _block_cells(walls: set[Cell], width: int, height: int) -> set[Cell]:
    """Interior cells inside some 3x3 window of the interior whose nine cells are all wall or all floor."""
    inside: set[Cell] = set()
    for x in range(1, width - 1):
        for y in range(1, height - 1):
            window = [(x + i, y + j) for i in range(3) for j in range(3)]
            count = sum(1 for c in window if c in walls)
            if count in (0, 9):
                inside.update(window)
    return inside


@dataclass(slots=True)
class _Node:
    untried: list[int]
    children: dict[int, _Node] = field(default_factory=dict)
    visits: int = 0
    total: float = 0.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """One level of a search's level set: its payout, the level and the episode's moves (a solution)."""

    payout: float
    level: Level
    solution: str


def _rollout(game: _Game, rng: random.Random) -> None:
    """The default policy: uniform random actions; in phase 2 a random walk without no-op moves that
    evaluates with probability ``EVALUATE_PROBABILITY`` per step once a box is off its start."""
    while not game.over:
        if not game.frozen:
            game.apply(rng.choice(game.legal()))
            continue
        moves = game.moves()
        if not moves or (game.moved and rng.random() < EVALUATE_PROBABILITY):
            game.apply(_EVALUATE)
        else:
            game.apply(rng.choice(moves))


def search(width: int, height: int, boxes: int, *, iterations: int, rng: random.Random,
           keep: int = 1) -> MctsResult:
    """Run ``iterations`` MCTS iterations on a ``width`` x ``height`` interior with at most ``boxes`` boxes.

    Every iteration ends in a complete level (the tree path, then the rollout); the result holds the
    ``keep`` best-paying distinct levels of all iterations, best first (``level``: the best one).
    Raises :class:`SokobanError` when the boxes and the player cannot fit the interior.
    """
    check_fits(boxes, width, height)
    player = (rng.randint(1, width), rng.randint(1, height))
    root_game = _Game(width, height, boxes, player)
    root = _Node(root_game.legal())
    best: list[tuple[float, int, _Game]] = []  # a min-heap of the kept episodes
    seen: set[tuple[frozenset[Cell], tuple[Cell, ...], tuple[Cell, ...]]] = set()
    nodes = 1
    total = 0.0
    for iteration in range(iterations):
        game = root_game.copy()
        node = root
        path = [root]
        # Selection: UCB1 while the node is fully expanded.
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            action, node = max(
                node.children.items(),
                key=lambda item: item[1].total / item[1].visits + C * math.sqrt(log_n / item[1].visits),
            )
            game.apply(action)
            path.append(node)
        # Expansion: one untried action.
        if node.untried:
            action = node.untried.pop(rng.randrange(len(node.untried)))
            game.apply(action)
            child = _Node(game.legal())
            node.children[action] = child
            node = child
            path.append(node)
            nodes += 1
        _rollout(game, rng)
        value = game.payout()
        total += value
        if value > 0 and (len(best) < keep or value > best[0][0]):
            key = (frozenset(game._walls()), tuple(game.starts), tuple(game.boxes))
            if key not in seen:
                seen.add(key)
                heapq.heappush(best, (value, iteration, game))
                if len(best) > keep:
                    heapq.heappop(best)
        for visited in path:
            visited.visits += 1
            visited.total += value
    levels = []
    for value, _, game in sorted(best, key=lambda item: (-item[0], item[1])):
        made = game.level()
        if made is not None:
            levels.append(Candidate(value, *made))
    head = levels[0] if levels else None
    return MctsResult(head.level if head else None, head.solution if head else "", head.payout if head else 0.0,
                      iterations, nodes, total / max(iterations, 1), nodes * BYTES_PER_NODE, tuple(levels))


def generate_mcts(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    """Yield up to ``count`` levels: per search (attempt ``i`` seeded ``"seed:i"``) its level set, best first.

    Each of the ``LEVEL_SET`` best-paying levels of a search is scored by the optimal solver
    (:func:`~ggp.translators.sokoban.candidates.accept`), so a search can yield several levels.
    Raises :class:`SokobanError` when the boxes and the player cannot fit the interior.
    """
    width, height = options.size()
    check_fits(options.boxes, width, height)
    limit = options.max_attempts if options.max_attempts is not None else 20 * count
    found = 0
    for attempt in range(limit):
        if found >= count:
            return
        clock = time.process_time()
        result = search(width, height, options.boxes, iterations=options.iterations,
                        rng=random.Random(f"{seed}:{attempt}"), keep=LEVEL_SET)
        stats.sym_seconds += time.process_time() - clock
        stats.peak_bytes = max(stats.peak_bytes, result.peak_bytes)
        if not result.levels:
            stats.outcomes["invalid"] += 1
            continue
        for rank, candidate in enumerate(result.levels, start=1):
            title = (f"mcts {width}x{height} boxes {options.boxes} iterations {options.iterations} seed {seed} "
                     f"attempt {attempt} rank {rank}")
            item = accept(candidate.level, candidate.solution, keep_trivial=options.keep_trivial,
                          limits=options.limits, stats=stats, title=title, seed=seed, attempt=attempt)
            if item is not None:
                found += 1
                yield item
                if found >= count:
                    return
