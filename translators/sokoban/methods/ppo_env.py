"""PCGRL Sokoban (Khalifa et al. 2020): level design as a reinforcement-learning environment.

An agent edits a ``width x height`` grid of tiles (empty, wall, player, box, goal) that a one-cell
wall border turns into a level. Three representations decide what an action means (project Sokoban
specification, section 5):

- **narrow**: a cursor visits the cells in a fixed scan order; the action is "no change" or a tile
  for the current cell, and the cursor then moves to the next cell;
- **turtle**: the action moves the cursor one cell (left, right, up, down; it stops at the edge) or
  writes a tile under it;
- **wide**: the action names any cell and the tile to write there.

Rewards follow PCGRL's Sokoban problem, with the weights of the specification: validity 5 (the
non-wall cells form one connected region), player present 3 (exactly one player), box count 2
(at least one), goal count 2 (at least one), box proportion 2 (as many boxes as goals) and solution
length 1 (the move-optimal solution length from the project's solver, bounded to
:data:`REWARD_LIMITS`; 0 when the level is invalid, unsolvable or too large). Each count term pays
how much closer the count came to its wanted range, so undoing a step costs what the step paid.
An episode ends when the agent has changed :data:`CHANGE_PERCENTAGE` of the cells, when the level's
solution reaches :data:`TARGET_SOLUTION` moves, or after ``max changes x cells`` steps (PCGRL's
bounds).

The rules live in :class:`PcgrlSokoban`, which needs only numpy; :func:`make_env` wraps it in a
``gymnasium.Env`` and needs the ``rl`` extra.

>>> import numpy as np
>>> board = np.array([[1, 0, 0], [2, 3, 4], [1, 0, 0]])
>>> print(board_to_text(board), end="")
#####
##  #
#@$.#
##  #
#####
>>> stats = board_stats(board)
>>> stats.players, stats.boxes, stats.goals, stats.regions, stats.solution
(1, 1, 1, 1, 1)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from ggp.errors import SokobanError
from ggp.translators.sokoban.level import Level, parse_level
from ggp.translators.sokoban.solver import SolverLimitError, SolverLimits, solve_moves

if TYPE_CHECKING:
    import gymnasium

Representation = Literal["narrow", "turtle", "wide"]
REPRESENTATIONS: tuple[Representation, ...] = get_args(Representation)

Board = npt.NDArray[np.int64]
"""A ``height x width`` array of tile numbers (rows first), without the wall border."""

TILES = ("empty", "wall", "player", "box", "goal")
"""Tile numbers are indices into this tuple."""
EMPTY, WALL, PLAYER, BOX, GOAL = range(len(TILES))
_CHARS = " #@$."

WEIGHTS: Mapping[str, float] = {
    "validity": 5, "player": 3, "boxes": 2, "goals": 2, "proportion": 2, "solution": 1,
}
"""Reward weight of each term (specification section 5)."""

CHANGE_PERCENTAGE = 0.2
"""Share of the cells an episode may change (PCGRL's default); at least one change."""

TARGET_SOLUTION = 18
"""An episode ends early once the level's optimal solution is this many moves long (PCGRL's Sokoban target)."""

INITIAL_TILES = (0.45, 0.4, 0.05, 0.05, 0.05)
"""Probabilities of empty, wall, player, box and goal in the random starting board (PCGRL's)."""

REWARD_LIMITS = SolverLimits(max_nodes=5_000, max_seconds=5.0)
"""Solver bounds for the solution-length term (PCGRL's solver gives up after 5000 states too)."""

_TURTLE_MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""Turtle actions 0..3: left, right, up, down."""

_MAX_SIDE = 32
"""Largest board side accepted (observation vectors grow with the area)."""


def board_to_text(board: Board) -> str:
    """The board in a one-cell wall border, as level text (may be an invalid level)."""
    width = board.shape[1]
    rows = ["#" * (width + 2)]
    rows += ["#" + "".join(_CHARS[int(t)] for t in row) + "#" for row in board]
    rows.append("#" * (width + 2))
    return "\n".join(rows) + "\n"


def board_to_level(board: Board) -> Level | None:
    """The board as a :class:`Level`, or None when it is not a valid level (specification section 2)."""
    try:
        return parse_level(board_to_text(board), "<pcgrl>")
    except SokobanError:
        return None


@dataclass(frozen=True, slots=True)
class BoardStats:
    """What the reward looks at: tile counts, connected regions and the optimal solution length (0 = none)."""

    players: int
    boxes: int
    goals: int
    regions: int
    solution: int


def _regions(board: Board) -> int:
    """Number of 4-connected regions of non-wall cells."""
    height, width = board.shape
    seen = np.zeros(board.shape, dtype=bool)
    count = 0
    for y in range(height):
        for x in range(width):
            if board[y, x] == WALL or seen[y, x]:
                continue
            count += 1
            seen[y, x] = True
            stack = [(x, y)]
            while stack:
                cx, cy = stack.pop()
                for dx, dy in _TURTLE_MOVES:
                    nx, ny = cx + dx, cy + dy
                    if 0 <= nx < width and 0 <= ny < height and not seen[ny, nx] and board[ny, nx] != WALL:
                        seen[ny, nx] = True
                        stack.append((nx, ny))
    return count


def board_stats(board: Board, limits: SolverLimits = REWARD_LIMITS) -> BoardStats:
    """Count the tiles and regions; solve the level when the counts allow a valid one."""
    counts = np.bincount(board.ravel(), minlength=len(TILES))
    players, boxes, goals = int(counts[PLAYER]), int(counts[BOX]), int(counts[GOAL])
    regions = _regions(board)
    solution = 0
    if players == 1 and boxes == goals >= 1 and regions == 1:
        level = board_to_level(board)
        if level is not None:
            try:
                found = solve_moves(level, limits)
            except SolverLimitError:
                found = None
            solution = found.length if found is not None else 0
    return BoardStats(players, boxes, goals, regions, solution)


def range_distance(value: float, low: float, high: float) -> float:
    """How far ``value`` lies outside ``[low, high]`` (0 inside)."""
    return float(max(low - value, 0.0, value - high))


_WANTED: Mapping[str, tuple[float, float]] = {
    "validity": (1, 1), "player": (1, 1), "boxes": (1, float("inf")), "goals": (1, float("inf")), "proportion": (0, 0),
}
"""The range each counted term wants its value in (see :func:`_counted`)."""


def _counted(stats: BoardStats) -> dict[str, float]:
    """The value each count term of :data:`_WANTED` looks at."""
    return {
        "validity": stats.regions, "player": stats.players, "boxes": stats.boxes, "goals": stats.goals,
        "proportion": abs(stats.boxes - stats.goals),
    }


def reward_terms(old: BoardStats, new: BoardStats) -> dict[str, float]:
    """Unweighted reward of each term for a step from ``old`` to ``new``.

    A count term pays how much closer the count came to its wanted range (negative when it moved
    away); the solution term pays the change in solution length.

    >>> before = BoardStats(players=0, boxes=2, goals=1, regions=2, solution=0)
    >>> after = BoardStats(players=1, boxes=2, goals=2, regions=1, solution=7)
    >>> reward_terms(before, after)
    {'validity': 1.0, 'player': 1.0, 'boxes': 0.0, 'goals': 0.0, 'proportion': 1.0, 'solution': 7.0}
    """
    old_values, new_values = _counted(old), _counted(new)
    terms = {
        name: range_distance(old_values[name], low, high) - range_distance(new_values[name], low, high)
        for name, (low, high) in _WANTED.items()
    }
    terms["solution"] = float(new.solution - old.solution)
    return terms


def weighted_reward(old: BoardStats, new: BoardStats) -> float:
    """The step's reward: the terms of :func:`reward_terms` times :data:`WEIGHTS`."""
    return sum(WEIGHTS[name] * value for name, value in reward_terms(old, new).items())


@dataclass(slots=True)
class StepResult:
    """What one edit did: the reward, whether the episode ended (and why) and the new statistics."""

    reward: float
    terminated: bool
    truncated: bool
    changed: bool
    stats: BoardStats


@dataclass(slots=True)
class PcgrlSokoban:
    """The environment's rules without gymnasium: one episode of edits on one board.

    Call :meth:`reset` before :meth:`step`. ``action`` is a tuple of ints: one for narrow and turtle,
    ``(x, y, tile)`` for wide (see :attr:`action_sizes`).
    """

    representation: Representation
    width: int
    height: int
    limits: SolverLimits = REWARD_LIMITS
    target_solution: int = TARGET_SOLUTION
    board: Board = field(init=False)
    cursor: tuple[int, int] = field(init=False, default=(0, 0))
    stats: BoardStats = field(init=False)
    changes: int = field(init=False, default=0)
    iterations: int = field(init=False, default=0)
    _cache: dict[bytes, BoardStats] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if self.representation not in REPRESENTATIONS:
            raise ValueError(f"unknown representation {self.representation!r}; expected one of {', '.join(REPRESENTATIONS)}")
        if not (2 <= self.width <= _MAX_SIDE and 2 <= self.height <= _MAX_SIDE):
            raise ValueError(f"board size {self.width}x{self.height} is out of range; sides must be 2..{_MAX_SIDE}")
        self.board = np.zeros((self.height, self.width), dtype=np.int64)
        self.stats = BoardStats(0, 0, 0, 1, 0)

    @property
    def max_changes(self) -> int:
        """Edits allowed per episode: :data:`CHANGE_PERCENTAGE` of the cells, at least one."""
        return max(int(CHANGE_PERCENTAGE * self.width * self.height), 1)

    @property
    def max_iterations(self) -> int:
        """Steps per episode at most (PCGRL: max changes times cells)."""
        return self.max_changes * self.width * self.height

    @property
    def action_sizes(self) -> tuple[int, ...]:
        """Choices per action component: narrow ``(1 + tiles,)``, turtle ``(4 + tiles,)``, wide ``(w, h, tiles)``."""
        if self.representation == "narrow":
            return (1 + len(TILES),)
        if self.representation == "turtle":
            return (len(_TURTLE_MOVES) + len(TILES),)
        return (self.width, self.height, len(TILES))

    @property
    def observation_size(self) -> int:
        """Length of :meth:`observation`: one-hot tiles per cell, then a one-hot cursor."""
        return (len(TILES) + 1) * self.width * self.height

    def observation(self) -> npt.NDArray[np.float32]:
        """The board one-hot (tile-major) followed by the cursor cell (all zeros for wide)."""
        out = np.zeros((len(TILES) + 1, self.height, self.width), dtype=np.float32)
        out[self.board, np.arange(self.height)[:, None], np.arange(self.width)[None, :]] = 1.0
        if self.representation != "wide":
            out[len(TILES), self.cursor[1], self.cursor[0]] = 1.0
        return out.ravel()

    def reset(self, rng: np.random.Generator, board: Board | None = None, cursor: tuple[int, int] | None = None) -> None:
        """Start an episode on ``board`` (default: random tiles by :data:`INITIAL_TILES`) with the cursor at ``cursor``."""
        if board is None:
            board = rng.choice(len(TILES), size=(self.height, self.width), p=INITIAL_TILES).astype(np.int64)
        board = np.asarray(board, dtype=np.int64)
        if board.shape != (self.height, self.width) or board.min() < 0 or board.max() >= len(TILES):
            raise ValueError(f"a board must be {self.height} rows of {self.width} tiles 0..{len(TILES) - 1}")
        self.board = board.copy()
        if cursor is None:
            cursor = (int(rng.integers(self.width)), int(rng.integers(self.height)))
        self.cursor = cursor
        self.changes = 0
        self.iterations = 0
        self.stats = self._stats()

    def _stats(self) -> BoardStats:
        key = self.board.tobytes()
        known = self._cache.get(key)
        if known is None:
            if len(self._cache) > 100_000:  # bounded memory over long training runs
                self._cache.clear()
            known = self._cache[key] = board_stats(self.board, self.limits)
        return known

    def step(self, action: tuple[int, ...]) -> StepResult:
        """Apply one action; raises ValueError for an action outside :attr:`action_sizes`."""
        if len(action) != len(self.action_sizes) or any(not 0 <= a < n for a, n in zip(action, self.action_sizes)):
            raise ValueError(f"action {action} outside {self.action_sizes}")
        x, y = self.cursor
        tile: int | None = None
        if self.representation == "narrow":
            tile = action[0] - 1 if action[0] > 0 else None
            index = (y * self.width + x + 1) % (self.width * self.height)
            next_cursor = (index % self.width, index // self.width)
        elif self.representation == "turtle":
            next_cursor = self.cursor
            if action[0] < len(_TURTLE_MOVES):
                dx, dy = _TURTLE_MOVES[action[0]]
                next_cursor = (min(max(x + dx, 0), self.width - 1), min(max(y + dy, 0), self.height - 1))
            else:
                tile = action[0] - len(_TURTLE_MOVES)
        else:
            x, y, tile = action
            next_cursor = (x, y)
        changed = tile is not None and int(self.board[y, x]) != tile
        old = self.stats
        if changed and tile is not None:
            self.board[y, x] = tile
            self.changes += 1
            self.stats = self._stats()
        self.cursor = next_cursor
        self.iterations += 1
        terminated = self.changes >= self.max_changes or self.stats.solution >= self.target_solution
        truncated = not terminated and self.iterations >= self.max_iterations
        return StepResult(weighted_reward(old, self.stats), terminated, truncated, changed, self.stats)


def make_env(representation: Representation, width: int, height: int) -> gymnasium.Env[npt.NDArray[np.float32], Any]:
    """A ``gymnasium.Env`` around :class:`PcgrlSokoban` (needs the ``rl`` extra).

    ``reset(options={"board": ..., "cursor": (x, y)})`` starts from a given board. ``info`` holds the
    board's :class:`BoardStats` (``stats``), ``changes`` and, when the episode ends, ``solvable``
    (1.0 when the final board is a valid, solvable level).
    """
    return wrap_rules(PcgrlSokoban(representation, width, height))


def wrap_rules(rules: PcgrlSokoban) -> gymnasium.Env[npt.NDArray[np.float32], Any]:
    """The ``gymnasium.Env`` of :func:`make_env` around given rules (the caller keeps a typed handle on them)."""
    return _env_class()(rules)


@functools.cache
def _env_class() -> Callable[[PcgrlSokoban], gymnasium.Env[npt.NDArray[np.float32], Any]]:
    # Built on first use so that this module imports without gymnasium (the rl extra is optional).
    import gymnasium
    from gymnasium import spaces

    class PcgrlSokobanEnv(gymnasium.Env[npt.NDArray[np.float32], Any]):
        metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 - gymnasium's declared type

        def __init__(self, rules: PcgrlSokoban) -> None:
            self.rules = rules
            self.observation_space = spaces.Box(0.0, 1.0, shape=(rules.observation_size,), dtype=np.float32)
            sizes = rules.action_sizes
            self.action_space = spaces.Discrete(sizes[0]) if len(sizes) == 1 else spaces.MultiDiscrete(list(sizes))

        def reset(
            self, *, seed: int | None = None, options: dict[str, Any] | None = None
        ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
            super().reset(seed=seed)
            options = options or {}
            self.rules.reset(self.np_random, options.get("board"), options.get("cursor"))
            return self.rules.observation(), {"stats": self.rules.stats, "changes": 0}

        def step(self, action: Any) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
            result = self.rules.step(tuple(int(a) for a in np.atleast_1d(action)))
            info: dict[str, Any] = {"stats": result.stats, "changes": self.rules.changes}
            if result.terminated or result.truncated:
                info["solvable"] = float(result.stats.solution > 0)
            return self.rules.observation(), result.reward, result.terminated, result.truncated, info

        def render(self) -> str:
            return board_to_text(self.rules.board)

    return PcgrlSokobanEnv
