"""The compiled twin of :mod:`.minimax`: the same evaluation and alpha-beta in C (``minimax.c``), and
random playouts for MCTS on the SBG engine.

The C source is compiled once per machine and cached like compiled circuits (:mod:`ggp.native`);
each game hands it its NFA tables, piece values and goals. :func:`native_search` returns None, and the
caller uses the Python reference, when there is no C compiler, the board has more than
:data:`MAX_SQUARES` squares, or the depth is above :data:`MAX_DEPTH`. ``tests/unit/sbg`` checks that
both give the same best moves and values.
"""

from __future__ import annotations

import ctypes
import functools
import logging
from importlib import resources

from ggp.errors import GgpError
from ggp.reasoner.heuristics import Heuristic
from ggp.translators.sbg.engine import Move, SbgState
from ggp.translators.sbg.minimax import SbgMinimax

log = logging.getLogger(__name__)

MAX_SQUARES = 256
MAX_DEPTH = 16
_CODES = 53
_CONDITIONS = {"e": 0, "w": 1, "p": 2}
_WINNERS = ("white", "black", "draw")


def _code(letter: str) -> int:
    """'.' -> 0, 'A'..'Z' -> 1..26, 'a'..'z' -> 27..52."""
    if letter == ".":
        return 0
    return ord(letter) - ord("A") + 1 if letter.isupper() else ord(letter) - ord("a") + 27


@functools.lru_cache(maxsize=1)
def _library() -> ctypes.CDLL | None:
    from ggp.native import find_compiler, load_library

    compiler = find_compiler()
    if compiler is None:
        log.info("no C compiler: SBG min-max runs in Python")
        return None
    source = resources.files("ggp.translators.sbg").joinpath("minimax.c").read_text()
    try:
        library, _, _ = load_library(source, compiler)
    except GgpError as exc:
        log.warning("SBG min-max could not be compiled (%s); it runs in Python", exc)
        return None
    int_p, double_p = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double)
    library.sbg_new.restype = ctypes.c_void_p
    library.sbg_new.argtypes = [
        ctypes.c_int, ctypes.c_int, ctypes.c_int, int_p, int_p, int_p, ctypes.c_int, int_p, ctypes.c_int,
        double_p, ctypes.c_int, int_p, int_p,
    ]
    library.sbg_free.argtypes = [ctypes.c_void_p]
    library.sbg_root.restype = ctypes.c_int
    library.sbg_root.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, int_p, double_p,
        ctypes.c_int,
    ]
    library.sbg_terms.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, double_p]
    library.sbg_playouts.restype = ctypes.c_int
    library.sbg_playouts.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulonglong, int_p, int_p,
        ctypes.c_int,
    ]
    return library


def _ints(values: list[int]) -> ctypes.Array[ctypes.c_int]:
    return (ctypes.c_int * max(1, len(values)))(*values)


class NativeSearch:
    """One game's compiled search; not thread-safe (one scratch area per game)."""

    def __init__(self, library: ctypes.CDLL, reference: SbgMinimax) -> None:
        engine = reference.engine
        self._library = library
        self._width = engine.width
        self._turn_limit = engine.game.turn_limit
        self._squares = engine.width * engine.height
        nfa_size = [0] * _CODES
        offset_base = [0] * _CODES
        offsets: list[int] = []
        steps: list[int] = []
        for letter, table in sorted(engine.move_tables.items()):
            code = _code(letter)
            nfa_size[code] = len(table)
            offset_base[code] = len(offsets)
            for per_square in table:
                for square_steps in per_square:
                    offsets.append(len(steps) // 4)
                    for nxt, target, on, accepting in square_steps:
                        steps += [nxt, target, _CONDITIONS[on], int(accepting)]
        offsets.append(len(steps) // 4)
        values = [0.0] * _CODES
        for letter, value in reference.values.items():
            values[_code(letter)] = value
        goal_ints: list[int] = []
        distances: list[int] = []
        for term in reference.goals:
            placement = term.count is None
            goal_ints += [0 if term.owner == "white" else 1, int(placement), _code(term.letter), term.count or 0]
            distances += list(term.distance) if placement else [0] * self._squares
        handle = library.sbg_new(
            engine.width, engine.height, engine.game.turn_limit, _ints(nfa_size), _ints(offset_base),
            _ints(offsets), len(offsets), _ints(steps), len(steps) // 4,
            (ctypes.c_double * _CODES)(*values), len(reference.goals), _ints(goal_ints), _ints(distances),
        )
        if not handle:
            raise MemoryError("the compiled SBG search could not allocate its tables")
        self._handle = ctypes.c_void_p(handle)
        capacity = self._squares * self._squares
        self._capacity = capacity
        self._moves = (ctypes.c_int * (2 * capacity))()
        self._values = (ctypes.c_double * capacity)()
        self._decode = bytes(range(256)).maketrans(
            b"." + bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1)), bytes(range(53))
        )

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle:
            self._library.sbg_free(handle)

    def _board(self, board: str) -> bytes:
        return board.encode("ascii").translate(self._decode)

    def root_values(self, state: SbgState, heuristic: Heuristic, depth: int) -> list[tuple[Move, float]]:
        """As :meth:`SbgMinimax.root_values`."""
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"min-max depth must be between 1 and {MAX_DEPTH}, found {depth}")
        count = self._library.sbg_root(
            self._handle, self._board(state.board), 0 if state.to_move == "white" else 1, state.ply, depth,
            heuristic.flags, self._moves, self._values, self._capacity,
        )
        width = self._width
        found = []
        for m in range(count):
            source, target = self._moves[2 * m], self._moves[2 * m + 1]
            found.append(((source % width, source // width, target % width, target // width), self._values[m]))
        return sorted(found)

    def playouts(self, state: SbgState, n: int, seed: int) -> list[str]:
        """The winners (``white``, ``black`` or ``draw``) of ``n`` uniformly random playouts from ``state``."""
        return self.playouts_traced(state, n, seed)[0]

    def playouts_traced(self, state: SbgState, n: int, seed: int) -> tuple[list[str], list[Move]]:
        """As :meth:`playouts`, with the first playout's moves (for tests that replay it on the engine)."""
        out = (ctypes.c_int * max(1, n))()
        capacity = max(1, self._turn_limit)
        trace = (ctypes.c_int * (2 * capacity))()
        length = self._library.sbg_playouts(
            self._handle, self._board(state.board), 0 if state.to_move == "white" else 1, state.ply, n,
            seed & 0xFFFFFFFFFFFFFFFF, out, trace, capacity,
        )
        width = self._width
        moves = [(trace[2 * i] % width, trace[2 * i] // width, trace[2 * i + 1] % width, trace[2 * i + 1] // width)
                 for i in range(min(length, capacity))]
        return [_WINNERS[out[p]] for p in range(n)], moves

    def side_terms(self, board: str, side: str) -> tuple[float, ...]:
        """The five raw terms (pieces, weighted, goal, control, mobility) as the C code computes them."""
        out = (ctypes.c_double * 5)()
        self._library.sbg_terms(self._handle, self._board(board), 0 if side == "white" else 1, out)
        return tuple(out)


def native_search(reference: SbgMinimax) -> NativeSearch | None:
    """The compiled search of ``reference``'s game, or None when it cannot be used (see the module doc)."""
    if reference.engine.width * reference.engine.height > MAX_SQUARES:
        return None
    library = _library()
    if library is None:
        return None
    return NativeSearch(library, reference)
