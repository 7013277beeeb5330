"""MCTS generator (Kartal, Sohre & Guy 2016): tree search over a game whose episodes build a level.

The board starts full of obstacles except the player's cell. Phase 1 actions remove an obstacle next
to an empty cell, place a box on an empty cell (at most ``boxes``), or freeze the layout; phase 2
actions move the player (walking, or pushing a box as in Sokoban) or evaluate. At evaluation the boxes
that were pushed become goals where they stand and start where they were placed; boxes never pushed
become walls. The phase-2 moves are then a solution of the level, so every level is solvable.

Selection is UCB1, ``w_i / n_i + c * sqrt(ln N_i / n_i)`` with c = sqrt(2). The payout of a level is
``(w_b P_b + w_c P_c + w_n P_n) / k`` with w_b 5, w_c 10, w_n 1, k 50, where (decisions of ours where
the paper leaves details open):

- P_b: interior cells not inside any uniform 3x3 block (all obstacle or all floor);
- P_c: congestion, summed over the pushed boxes: in the rectangle spanned by a box's start and its goal,
  4 x boxes + 4 x goals + 1 x obstacles (Kartal et al.'s alpha, beta, gamma), so long box-to-goal
  paths through crowded areas pay most;
- P_n: the number of boxes.

P_b and P_c are divided by the interior area w x h, so the payout does not grow with the board (with
raw counts UCB1's exploration term, about 1, would be negligible beside payouts of 10 or more).

An episode that makes no valid level (no box off its goal, the player stuck) pays 0. The default
(rollout) policy plays uniformly random actions, except that in phase 2 it evaluates with probability
``EVALUATE_PROBABILITY`` per step (uniform choice would stop after a handful of moves); phase 2 is
capped at 2 x w x h moves. The search returns the best-paying level of all its episodes.

>>> result = search(5, 5, 2, iterations=60, rng=random.Random(1))
>>> from ggp.translators.sokoban.moves import solves
>>> result.payout > 0 and solves(result.level, result.solution)
True
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from ggp.errors import SokobanError
from ggp.translators.sokoban.generator import Generated, GenerationStats, render_cells
from ggp.translators.sokoban.level import Cell, Level, parse_level
from ggp.translators.sokoban.methods.base import MethodOptions, accept
from ggp.translators.sokoban.methods.layout import check_fits

log = logging.getLogger(__name__)

C = math.sqrt(2)
W_B, W_C, W_N, K = 5.0, 10.0, 1.0, 50.0
ALPHA, BETA, GAMMA = 4, 4, 1
"""Congestion weights of boxes, goals and obstacles inside a box's start-to-goal rectangle."""
EVALUATE_PROBABILITY = 0.02
"""Chance per phase-2 step that a rollout evaluates (ends the episode)."""
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


class _Game:
    """One episode's state; actions are ints (a cell index, ``_BOX + index``, ``_FREEZE``, ``_MOVE + d``...)."""

    __slots__ = ("boxes", "frozen", "height", "log", "max_boxes", "obstacles", "over", "player", "pushed", "start",
                 "starts", "width")

    def __init__(self, width: int, height: int, max_boxes: int, player: Cell) -> None:
        self.width, self.height, self.max_boxes = width, height, max_boxes
        self.obstacles = {(x, y) for x in range(1, width + 1) for y in range(1, height + 1)} - {player}
        self.boxes: list[Cell] = []
        self.starts: list[Cell] = []
        self.pushed: list[bool] = []
        self.player = self.start = player
        self.frozen = False
        self.log: list[str] = []
        self.over = False

    def copy(self) -> _Game:
        other = _Game.__new__(_Game)
        other.width, other.height, other.max_boxes = self.width, self.height, self.max_boxes
        other.obstacles = set(self.obstacles)
        other.boxes, other.starts, other.pushed = list(self.boxes), list(self.starts), list(self.pushed)
        other.player, other.start, other.frozen = self.player, self.start, self.frozen
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
        actions = [_EVALUATE]
        if len(self.log) < 2 * self.width * self.height:
            boxes = set(self.boxes)
            x, y = self.player
            for d, (_, (dx, dy)) in enumerate(_STEPS):
                a = (x + dx, y + dy)
                if not self.empty(a):
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
            if a in self.boxes:
                i = self.boxes.index(a)
                self.boxes[i] = (x + 2 * dx, y + 2 * dy)
                self.pushed[i] = True
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

    def level(self) -> tuple[Level, str] | None:
        """The episode's level and solution (None when it is not a valid level)."""
        kept = [i for i, pushed in enumerate(self.pushed) if pushed]
        if not kept:
            return None
        walls = self.obstacles | {self.starts[i] for i, pushed in enumerate(self.pushed) if not pushed}
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
        """(w_b P_b + w_c P_c + w_n P_n) / k of the episode's level, 0 when it makes none."""
        kept = [i for i, pushed in enumerate(self.pushed) if pushed]
        if not kept or all(self.boxes[i] == self.starts[i] for i in kept):
            return 0.0
        walls = self.obstacles | {self.starts[i] for i, pushed in enumerate(self.pushed) if not pushed}
        blocks = _block_cells(walls, self.width, self.height)
        p_b = self.width * self.height - len(blocks)
        starts = {self.starts[i] for i in kept}
        goals = {self.boxes[i] for i in kept}
        p_c = 0
        for i in kept:
            (x0, y0), (x1, y1) = self.starts[i], self.boxes[i]
            for x in range(min(x0, x1), max(x0, x1) + 1):
                for y in range(min(y0, y1), max(y0, y1) + 1):
                    c = (x, y)
                    p_c += ALPHA * (c in starts) + BETA * (c in goals) + GAMMA * (c in walls)
        area = self.width * self.height
        return (W_B * p_b / area + W_C * p_c / area + W_N * len(kept)) / K


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


def search(width: int, height: int, boxes: int, *, iterations: int, rng: random.Random) -> MctsResult:
    """Run ``iterations`` MCTS iterations on a ``width`` x ``height`` interior with at most ``boxes`` boxes.

    Raises :class:`SokobanError` when the boxes and the player cannot fit the interior.
    """
    check_fits(boxes, width, height)
    player = (rng.randint(1, width), rng.randint(1, height))
    root_game = _Game(width, height, boxes, player)
    root = _Node(root_game.legal())
    best: tuple[float, tuple[Level, str]] | None = None
    nodes = 1
    total = 0.0
    for _ in range(iterations):
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
        # Rollout: the default policy until the episode ends.
        while not game.over:
            actions = game.legal()
            if game.frozen and (len(actions) == 1 or rng.random() < EVALUATE_PROBABILITY):
                game.apply(_EVALUATE)
            else:
                choices = [a for a in actions if a != _EVALUATE] if game.frozen else actions
                game.apply(rng.choice(choices))
        value = game.payout()
        total += value
        if value > 0 and (best is None or value > best[0]):
            made = game.level()
            if made is not None:
                best = (value, made)
        for visited in path:
            visited.visits += 1
            visited.total += value
    level, solution = best[1] if best is not None else (None, "")
    return MctsResult(level, solution, best[0] if best else 0.0, iterations, nodes, total / max(iterations, 1),
                      nodes * BYTES_PER_NODE)


def generate_mcts(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    """Yield up to ``count`` levels, the best of one search per attempt (attempt ``i`` seeded ``"seed:i"``).

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
                        rng=random.Random(f"{seed}:{attempt}"))
        stats.sym_seconds += time.process_time() - clock
        stats.peak_bytes = max(stats.peak_bytes, result.peak_bytes)
        if result.level is None:
            stats.outcomes["invalid"] += 1
            continue
        title = f"mcts {width}x{height} boxes {options.boxes} iterations {options.iterations} seed {seed} attempt {attempt}"
        item = accept(result.level, result.solution, options, stats, title=title, seed=seed, attempt=attempt)
        if item is not None:
            found += 1
            yield item
