"""Solved layouts for the PDB generator: read from a file, or carved by a simple random room generator.

A layout is a level whose every goal holds a box: walls, goals and the player. In a file, goals are
``.`` or ``*`` (both mean "a goal with its box"); ``$`` (a box off a goal) and ``+`` (the player on a
goal, where a box must stand) are refused. The result is a :class:`Level` with ``boxes == goals``.

>>> layout = parse_layout("#####\\n#@ .#\\n#####\\n")
>>> layout.boxes == layout.goals == frozenset({(3, 1)}), layout.player
(True, (1, 1))
"""

from __future__ import annotations

import random
from collections import deque

from ggp.errors import SokobanError, SourcePos
from ggp.translators.sokoban.generator import render_cells
from ggp.translators.sokoban.level import BOARD_CHARS, DIRECTIONS, MAX_SIDE, Cell, Level

WALL_SHARE = 0.25
"""Share of a random room's interior turned into walls (the thesis's PDB example: 48 free cells of 64)."""


def parse_layout(text: str, file: str = "<string>") -> Level:
    """Read the first board of a layout file; ``;`` comment lines and blank lines before it are skipped.

    Raises :class:`SokobanError` with ``file:line:column``: an unknown character, a box off a goal,
    the player on a goal, no player or several, no goal, an open layout (the player can walk out).
    """
    rows: list[tuple[int, str]] = []
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith(";"):
            if rows:
                break
            continue
        if len(line) > MAX_SIDE or len(rows) >= MAX_SIDE:
            raise SokobanError(f"layout larger than {MAX_SIDE}x{MAX_SIDE}", SourcePos(file, number, 1))
        rows.append((number, line))
    if not rows:
        raise SokobanError("no layout found (rows of # @ . * and spaces)", SourcePos(file, 1, 1))
    walls: set[Cell] = set()
    goals: set[Cell] = set()
    players: list[Cell] = []
    for y, (number, row) in enumerate(rows):
        for x, ch in enumerate(row):
            pos = SourcePos(file, number, x + 1)
            if ch not in BOARD_CHARS:
                raise SokobanError(f"unknown character {ch!r}; expected one of # @ . * - _ or space", pos)
            if ch == "$":
                raise SokobanError("box off a goal: a layout is solved, every box stands on a goal ('*')", pos)
            if ch == "+":
                raise SokobanError("player on a goal: in a solved layout a box stands there", pos)
            if ch == "#":
                walls.add((x, y))
            elif ch == "@":
                players.append((x, y))
            elif ch in ".*":
                goals.add((x, y))
    first = SourcePos(file, rows[0][0], 1)
    if not players:
        raise SokobanError("layout has no player ('@')", first)
    if len(players) > 1:
        second = players[1]
        raise SokobanError("several players in the layout", SourcePos(file, rows[second[1]][0], second[0] + 1))
    if not goals:
        raise SokobanError("layout has no goal ('.' or '*'); the PDB method pulls boxes away from goals", first)
    width, height = max(len(row) for _, row in rows), len(rows)
    player = players[0]
    floor = {player}
    queue = deque([player])
    while queue:
        x, y = queue.popleft()
        if x in (0, width - 1) or y in (0, height - 1):
            raise SokobanError("open layout: the player can walk out of the walls here",
                               SourcePos(file, rows[y][0], x + 1))
        for dx, dy in DIRECTIONS.values():
            nxt = (x + dx, y + dy)
            if nxt not in walls and nxt not in floor:
                floor.add(nxt)
                queue.append(nxt)
    outside = sorted(goals - floor, key=lambda c: (c[1], c[0]))
    if outside:
        x, y = outside[0]
        raise SokobanError("goal outside the walls (the player cannot reach it)", SourcePos(file, rows[y][0], x + 1))
    return Level(width, height, frozenset(walls), frozenset(floor), frozenset(goals), frozenset(goals), player,
                 pos=first)


def check_fits(boxes: int, width: int, height: int) -> None:
    """Raise :class:`SokobanError` when ``boxes`` boxes and the player cannot fit a ``width`` x ``height`` room."""
    if boxes + 1 > width * height:
        raise SokobanError(
            f"{boxes} boxes do not fit: the box count is larger than the floor of a {width}x{height} room "
            f"({width * height} cells, one of them for the player)"
        )


def random_room(width: int, height: int, boxes: int, rng: random.Random, wall_share: float = WALL_SHARE) -> Level:
    """A solved layout on a ``width`` x ``height`` interior: connected floor, ``boxes`` goals, the player.

    Walls are added one random cell at a time while the floor stays connected, up to
    ``wall_share`` of the interior and never below ``boxes + 2`` floor cells. Raises
    :class:`SokobanError` when the boxes and the player cannot fit the interior.
    """
    check_fits(boxes, width, height)
    floor = {(x, y) for x in range(1, width + 1) for y in range(1, height + 1)}
    target = min(round(wall_share * width * height), len(floor) - boxes - 2)
    candidates = sorted(floor)
    rng.shuffle(candidates)
    walls = 0
    for cell in candidates:
        if walls >= target:
            break
        floor.discard(cell)
        if _connected(floor):
            walls += 1
        else:
            floor.add(cell)
    cells = sorted(floor)
    picked = rng.sample(cells, boxes + 1)
    goals = set(picked[1:])
    text = render_cells(floor, goals, goals, picked[0])
    return parse_layout(text.replace("*", "."), "<room>")


def _connected(floor: set[Cell]) -> bool:
    start = next(iter(floor))
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in DIRECTIONS.values():
            nxt = (x + dx, y + dy)
            if nxt in floor and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return len(seen) == len(floor)
