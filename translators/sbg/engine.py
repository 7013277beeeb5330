"""Pure-Python reference engine for SBG games (spec sbg.md §4, §5, §7).

A state is the board, the side to move and the ply count; moves are ``(x1, y1, x2, y2)``. For each
piece letter (case matters: black mirrors dy) and square the NFA's on-board steps are precomputed, so
move generation only tests square contents while searching (square, state) pairs.

>>> from ggp.translators.sbg.parser import parse_sbg_syntax
>>> game = parse_sbg_syntax('''<<T>> <BOARD> 3 3 |k..| |...| |K..|
... <PIECES> K (0,1,e)^* (0,1,p) + (1,0,e) & <GOALS> 4 & #k 0 & #K 0 &''')
>>> engine = SbgEngine(game)
>>> state = engine.initial_state()
>>> engine.legal_moves(state)
((0, 0, 0, 2), (0, 0, 1, 0))
>>> after = engine.apply(state, (0, 0, 0, 2))
>>> engine.outcome(after), engine.scores(after)
('white', (100, 0))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as TypingLiteral

from ggp.errors import IllegalMoveError
from ggp.translators.sbg.automaton import Nfa, compile_regex
from ggp.translators.sbg.model import CaptureGoal, Goal, PlacementGoal, SbgGame, Side, opponent

Move = tuple[int, int, int, int]
Outcome = TypingLiteral["white", "black", "draw"]

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = _UPPER.lower()
_AS_WHITE = str.maketrans(".", "e") | str.maketrans(_UPPER + _LOWER, "w" * 26 + "p" * 26)
_AS_BLACK = str.maketrans(".", "e") | str.maketrans(_UPPER + _LOWER, "p" * 26 + "w" * 26)


def _classes(board: str, white: bool) -> str:
    """The board as its owner's conditions: 'e' empty, 'w' own piece, 'p' opponent piece."""
    return board.translate(_AS_WHITE if white else _AS_BLACK)


@dataclass(frozen=True, slots=True)
class SbgState:
    """A position: ``board`` holds ``width*height`` characters, index ``y*width + x``."""

    board: str
    to_move: Side
    ply: int


# One precomputed step: (next NFA state, next square index, on condition, accepting?).
_Step = tuple[int, int, str, bool]


class SbgEngine:
    """Legal moves, successor, terminal test and scores for one game. Not thread-safe (caches)."""

    def __init__(self, game: SbgGame) -> None:
        self.game = game
        self.width, self.height = game.width, game.height
        self._nfas: dict[str, Nfa] = {rule.letter: compile_regex(rule.regex) for rule in game.rules}
        self._tables: dict[str, tuple[tuple[tuple[_Step, ...], ...], ...]] = {}
        letters = {ch for row in game.rows for ch in row if ch != "."}
        for letter in letters:
            nfa = self._nfas.get(letter.upper())
            if nfa is not None:
                self._tables[letter] = self._table(nfa, -1 if letter.islower() else 1)
        self._wins: dict[Side, list[tuple[Goal, frozenset[int]]]] = {"white": [], "black": []}
        for goal in game.active_goals():
            if isinstance(goal, PlacementGoal):
                squares = frozenset(
                    y * self.width + x for x, y in goal.squares if 0 <= x < self.width and 0 <= y < self.height
                )
                if squares:
                    self._wins[goal.owner].append((goal, squares))
            else:
                self._wins[goal.owner].append((goal, frozenset()))
        self._outcomes: dict[SbgState, Outcome | None] = {}

    def _table(self, nfa: Nfa, sign: int) -> tuple[tuple[tuple[_Step, ...], ...], ...]:
        """table[q][square] = the steps from NFA state q on that square that stay on the board."""
        width, height = self.width, self.height
        table = []
        for q in range(nfa.size):
            per_square = []
            for index in range(width * height):
                x, y = index % width, index // width
                steps = []
                for nxt in nfa.follow[q]:
                    letter = nfa.letters[nxt]
                    assert letter is not None
                    nx, ny = x + letter.dx, y + sign * letter.dy
                    if 0 <= nx < width and 0 <= ny < height:
                        steps.append((nxt, ny * width + nx, letter.on, nxt in nfa.accepting))
                per_square.append(tuple(steps))
            table.append(tuple(per_square))
        return tuple(table)

    @property
    def move_tables(self) -> dict[str, tuple[tuple[tuple[_Step, ...], ...], ...]]:
        """Per piece letter on the board, ``table[q][square]``: the steps (next NFA state, target square,
        condition, accepting) from NFA state q on that square that stay on the board (read-only)."""
        return self._tables

    def goals_of(self, side: Side) -> list[tuple[Goal, frozenset[int]]]:
        """The side's active goals with, for placement goals, their on-board square indices (read-only)."""
        return self._wins[side]

    # --- states and moves ----------------------------------------------------------------------

    def initial_state(self) -> SbgState:
        """White to move, ply 0, the board as written."""
        board = "".join(self.game.cell(x, y) for y in range(self.height) for x in range(self.width))
        return SbgState(board, "white", 0)

    def piece_moves(self, board: str, index: int, classes: str | None = None) -> set[int]:
        """Destination squares of the piece on square ``index`` (empty set for immobile pieces).

        ``classes`` is the board seen by the piece's owner (see :func:`_classes`), when the caller
        already has it.
        """
        letter = board[index]
        table = self._tables.get(letter)
        if table is None:
            return set()
        if classes is None:
            classes = _classes(board, letter.isupper())
        found: set[int] = set()
        seen = {(0, index)}
        stack = [(0, index)]
        while stack:
            q, square = stack.pop()
            for nxt, target, on, accepting in table[q][square]:
                if classes[target] != on:
                    continue
                if accepting:
                    found.add(target)
                if (nxt, target) not in seen:
                    seen.add((nxt, target))
                    stack.append((nxt, target))
        return found

    def legal_moves(self, state: SbgState, side: Side | None = None) -> tuple[Move, ...]:
        """Sorted legal moves of ``side`` (default: the side to move), ignoring whether the game ended."""
        white = (side or state.to_move) == "white"
        board, width = state.board, self.width
        classes = _classes(board, white)
        moves: list[Move] = []
        for index, mine in enumerate(classes):
            if mine != "w":
                continue
            x, y = index % width, index // width
            moves.extend((x, y, t % width, t // width) for t in self.piece_moves(board, index, classes))
        moves.sort()
        return tuple(moves)

    def has_move(self, state: SbgState, side: Side) -> bool:
        """Whether ``side`` has at least one legal move on this board."""
        classes = _classes(state.board, side == "white")
        return any(
            mine == "w" and self.piece_moves(state.board, index, classes) for index, mine in enumerate(classes)
        )

    def apply(self, state: SbgState, move: Move) -> SbgState:
        """The position after ``move``. Raises IllegalMoveError when it is not legal or the game is over."""
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"the game is over, no move {move} can be played")
        x1, y1, x2, y2 = move
        if not all(0 <= v < bound for v, bound in ((x1, self.width), (y1, self.height), (x2, self.width), (y2, self.height))):
            raise IllegalMoveError(f"move {move} leaves the {self.width}x{self.height} board")
        src, dst = y1 * self.width + x1, y2 * self.width + x2
        letter = state.board[src]
        if letter == "." or (letter.isupper() != (state.to_move == "white")) or dst not in self.piece_moves(state.board, src):
            raise IllegalMoveError(f"move {move} is not legal for {state.to_move}")
        return self.apply_unchecked(state, move)

    def apply_unchecked(self, state: SbgState, move: Move) -> SbgState:
        """The position after ``move`` without any legality test (§5)."""
        x1, y1, x2, y2 = move
        src, dst = y1 * self.width + x1, y2 * self.width + x2
        cells = list(state.board)
        letter = cells[src]
        cells[src] = "."
        cells[dst] = letter
        return SbgState("".join(cells), opponent(state.to_move), state.ply + 1)

    # --- goals ---------------------------------------------------------------------------------

    def goal_holds(self, board: str, side: Side) -> bool:
        """Whether any (active) goal of ``side`` holds on ``board`` (§6)."""
        return self.holding_goal(board, side) is not None

    def holding_goal(self, board: str, side: Side) -> Goal | None:
        """The first (active) goal of ``side`` that holds on ``board``, or None."""
        for goal, squares in self._wins[side]:
            if isinstance(goal, CaptureGoal):
                if board.count(goal.letter) <= goal.count:
                    return goal
            elif any(board[square] == goal.letter for square in squares):
                return goal
        return None

    def outcome(self, state: SbgState) -> Outcome | None:
        """The result per §7 ('white', 'black' or 'draw'), or None while the game goes on."""
        if state.ply == 0:
            # §7 rules apply after a ply; the initial position is checked when the file is read.
            return None
        cached = self._outcomes.get(state, "unset")
        if cached != "unset":
            return cached  # type: ignore[return-value]
        mover: Side = opponent(state.to_move)
        result: Outcome | None
        if self.goal_holds(state.board, mover):
            result = mover
        elif self.goal_holds(state.board, state.to_move):
            result = state.to_move
        elif state.ply >= self.game.turn_limit:
            result = "draw"
        elif not self.has_move(state, state.to_move):
            result = mover
        else:
            result = None
        if len(self._outcomes) > 100_000:
            self._outcomes.clear()
        self._outcomes[state] = result
        return result

    def is_terminal(self, state: SbgState) -> bool:
        """Whether the game has ended in this state."""
        return self.outcome(state) is not None

    def scores(self, state: SbgState) -> tuple[int, int]:
        """(white, black): 100/0 for a win, 50/50 for a draw or a game still going on."""
        result = self.outcome(state)
        if result == "white":
            return (100, 0)
        if result == "black":
            return (0, 100)
        return (50, 50)

    def render(self, state: SbgState) -> str:
        """The board as written in SBG (top row first), ranks numbered from 1 and files from 'a'.

        Rank r is y = r - 1 and file letter f is x = f - 'a' (chess-like labels for the terminal).
        """
        lines = []
        for y in range(self.height - 1, -1, -1):
            row = state.board[y * self.width : (y + 1) * self.width]
            lines.append(f"{y + 1:>2} " + " ".join(row))
        lines.append("   " + " ".join(_file_name(x) for x in range(self.width)))
        return "\n".join(lines)


def _file_name(x: int) -> str:
    return chr(ord("a") + x) if x < 26 else str(x)
