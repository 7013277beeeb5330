"""Sokoban levels: the standard text format read into frozen :class:`Level` values and written back.

Coordinates follow the project's Sokoban specification: ``x`` is the column (0 = left), ``y`` the
row (0 = top), "up" is ``y - 1``. The interior is what the player can reach by a 4-neighbour flood
fill in which boxes do not block; other non-wall cells are outside and count as walls.

>>> level = parse_level("#####\\n#@$.#\\n#####\\n")
>>> level.width, level.height, sorted(level.floor), level.boxes, level.goals, level.player
(5, 3, [(1, 1), (2, 1), (3, 1)], frozenset({(2, 1)}), frozenset({(3, 1)}), (1, 1))
>>> print(level_to_text(level), end="")
#####
#@$.#
#####
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ggp.errors import SokobanError, SourcePos

Cell = tuple[int, int]
"""A square as ``(x, y)``: column then row, both from 0 at the top left of the level text."""

DIRECTIONS: dict[str, Cell] = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
"""The four moves as GDL names them, with their ``(dx, dy)`` steps."""

LURD: dict[str, str] = {"u": "up", "d": "down", "l": "left", "r": "right"}
"""Solution letters (lower case a walk, upper case a push) to direction names."""

BOARD_CHARS = frozenset("#@+$*. -_")
"""Characters a level row may hold; ``-`` and ``_`` are accepted as floor on input."""

@dataclass(frozen=True, slots=True)
class Level:
    """One Sokoban level.

    ``width``/``height`` are the text bounding box (walls included). ``walls`` are the ``#`` cells,
    ``floor`` the interior (player, boxes and goals included). ``title`` and ``pos`` (where the level
    starts in its file) take no part in equality, so parsing a written level gives an equal value.
    """

    width: int
    height: int
    walls: frozenset[Cell]
    floor: frozenset[Cell]
    goals: frozenset[Cell]
    boxes: frozenset[Cell]
    player: Cell
    title: str = field(default="", compare=False)
    pos: SourcePos | None = field(default=None, compare=False)

    @property
    def outside(self) -> frozenset[Cell]:
        """Non-wall cells of the bounding box that lie outside the interior."""
        every = {(x, y) for x in range(self.width) for y in range(self.height)}
        return frozenset(every - self.walls - self.floor)

    def is_solved(self, boxes: Iterable[Cell] | None = None) -> bool:
        """True when every goal holds a box (the level's own boxes unless others are given)."""
        return self.goals <= frozenset(self.boxes if boxes is None else boxes)


def _error(message: str, file: str, line: int, column: int) -> SokobanError:
    return SokobanError(message, SourcePos(file, line, column))


def _kind(line: str) -> str:
    """Classify one input line: blank, comment, board or text (a title)."""
    stripped = line.strip()
    if not stripped:
        return "blank"
    if stripped.startswith(";"):
        return "comment"
    if stripped.startswith("#") or all(ch in BOARD_CHARS for ch in line):
        return "board"
    return "text"


MAX_SIDE = 256
"""The largest level width and height read (bounded memory: the solvers use bit boards of width x height)."""


def parse_levels(text: str, file: str = "<string>") -> tuple[Level, ...]:
    """Read every level of a level file.

    Levels are runs of board lines; blank lines, ``;`` comments and other text lines (titles)
    separate them, and the last comment or title line before a level becomes its title. A text line
    squeezed between two board lines is a bad row, reported at its first unknown character.
    Raises :class:`SokobanError` with ``file:line:column`` for every problem, including a file with
    no level at all.
    """
    lines = [line.rstrip() for line in text.removeprefix("\ufeff").splitlines()]
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_SIDE:
            raise _error(f"line is {len(line):,} characters long; levels are at most {MAX_SIDE} wide", file, number, MAX_SIDE + 1)
    kinds = [_kind(line) for line in lines]
    levels: list[Level] = []
    block: list[tuple[int, str]] = []
    title = ""
    for index, (line, kind) in enumerate(zip(lines, kinds)):
        if kind == "board":
            block.append((index + 1, line))
            continue
        if kind == "text" and block and index + 1 < len(kinds) and kinds[index + 1] == "board":
            column = next(i for i, ch in enumerate(line) if ch not in BOARD_CHARS) + 1
            raise _error(f"unknown character {line[column - 1]!r} in a level row", file, index + 1, column)
        if block:
            levels.append(_parse_block(block, file, title))
            block, title = [], ""
        if kind in ("comment", "text"):
            title = line.strip().lstrip(";").strip()
    if block:
        levels.append(_parse_block(block, file, title))
    if not levels:
        raise _error("no level found (a level is a block of rows made of # @ + $ * . and spaces)", file, 1, 1)
    return tuple(levels)


def parse_level(text: str, file: str = "<string>", index: int = 1) -> Level:
    """Read level number ``index`` (1-based) of a level file; raises :class:`SokobanError`."""
    levels = parse_levels(text, file)
    if not 1 <= index <= len(levels):
        raise _error(f"level {index} requested but the file holds {len(levels)} level(s)", file, 1, 1)
    return levels[index - 1]


def _parse_block(block: list[tuple[int, str]], file: str, title: str) -> Level:
    first_line = block[0][0]
    if len(block) > MAX_SIDE:
        raise _error(f"level has {len(block)} rows; levels are at most {MAX_SIDE} high", file, block[MAX_SIDE][0], 1)
    width = max(len(row) for _, row in block)
    height = len(block)
    walls: set[Cell] = set()
    goals: list[Cell] = []
    boxes: list[Cell] = []
    players: list[Cell] = []
    for y, (lineno, row) in enumerate(block):
        for x, ch in enumerate(row):
            if ch not in BOARD_CHARS:
                raise _error(f"unknown character {ch!r}; expected one of # @ + $ * . - _ or space", file, lineno, x + 1)
            if ch == "#":
                walls.add((x, y))
            if ch in "@+":
                players.append((x, y))
            if ch in "$*":
                boxes.append((x, y))
            if ch in ".*+":
                goals.append((x, y))

    def pos_of(cell: Cell) -> tuple[str, int, int]:
        return file, block[cell[1]][0], cell[0] + 1

    if not players:
        raise _error("level has no player ('@' or '+')", file, first_line, 1)
    if len(players) > 1:
        first = players[0]
        raise _error(
            f"several players: another one at line {block[first[1]][0]}, column {first[0] + 1}",
            *pos_of(players[1]),
        )
    player = players[0]
    floor = _flood(player, walls, width, height, pos_of)
    for cell in boxes:
        if cell not in floor:
            raise _error("box outside the walls (the player cannot reach it)", *pos_of(cell))
    for cell in goals:
        if cell not in floor:
            raise _error("goal outside the walls (the player cannot reach it)", *pos_of(cell))
    if not boxes:
        raise _error("level has no box ('$' or '*')", file, first_line, 1)
    if len(boxes) != len(goals):
        raise _error(f"{len(boxes)} box(es) but {len(goals)} goal(s); they must be equal", file, first_line, 1)
    if set(boxes) <= set(goals):
        raise _error("every box is already on a goal; at least one must be off its goal", file, first_line, 1)
    level = Level(
        width, height, frozenset(walls), floor, frozenset(goals), frozenset(boxes), player, title,
        SourcePos(file, first_line, 1),
    )
    if not has_legal_move(level):
        raise _error("the player has no legal move at the start", *pos_of(player))
    return level


def _flood(
    start: Cell, walls: set[Cell], width: int, height: int, pos_of: Callable[[Cell], tuple[str, int, int]]
) -> frozenset[Cell]:
    """Non-wall cells reachable from ``start``; raises when the fill reaches the bounding box edge."""
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        if x in (0, width - 1) or y in (0, height - 1):
            raise _error("open level: the player can walk out of the walls here", *pos_of((x, y)))
        for dx, dy in DIRECTIONS.values():
            nxt = (x + dx, y + dy)
            if nxt not in walls and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return frozenset(seen)


def has_legal_move(level: Level) -> bool:
    """True when the player can walk or push in at least one direction at the start."""
    x, y = level.player
    for dx, dy in DIRECTIONS.values():
        a = (x + dx, y + dy)
        if a in level.floor and a not in level.boxes:
            return True
        b = (x + 2 * dx, y + 2 * dy)
        if a in level.boxes and b in level.floor and b not in level.boxes:
            return True
    return False


def level_to_text(level: Level) -> str:
    """The level's rows in the standard format (trailing spaces dropped), ending in a newline."""
    rows = []
    for y in range(level.height):
        chars = []
        for x in range(level.width):
            cell = (x, y)
            if cell in level.walls:
                chars.append("#")
            elif cell not in level.floor:
                chars.append(" ")
            elif cell == level.player:
                chars.append("+" if cell in level.goals else "@")
            elif cell in level.boxes:
                chars.append("*" if cell in level.goals else "$")
            else:
                chars.append("." if cell in level.goals else " ")
        rows.append("".join(chars).rstrip())
    return "\n".join(rows) + "\n"


def levels_to_text(levels: Iterable[Level], comments: Iterable[str] = ()) -> str:
    """Several levels as one file: each preceded by its ``; title`` line, blank lines between.

    ``comments``, when given, are extra ``;`` lines (one string per level, may hold newlines)
    written before the title, because the last comment above a level is read back as its title.
    """
    chunks = []
    extra = list(comments)
    for i, level in enumerate(levels):
        head = ""
        if i < len(extra) and extra[i]:
            head += "".join(f"; {line}\n" for line in extra[i].splitlines())
        head += f"; {level.title}\n" if level.title else ""
        chunks.append(head + level_to_text(level))
    return "\n".join(chunks)
