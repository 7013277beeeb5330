"""The C evaluators of a circuit: the game compiled to C, or the game-independent C interpreter, both
with the runtime (``runtime/``, ``players/native/``) built by :func:`ggp.native.load_library`."""

from __future__ import annotations

import ctypes
import functools
import logging
import struct
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ggp.errors import ReasonerError
from ggp.native import FLAGS, UNOPTIMISED_FLAGS, is_cached, load_library, native_flags
from ggp.reasoner.circuit.build import Circuit
from ggp.reasoner.circuit.codegen import INTERPRETER_SOURCE, RUNTIME_DIRS, TABLES, bytecode, c_source, sizes, tables
from ggp.reasoner.circuit.evaluator import BatchOutputs, PlayoutStats, Words
from ggp.reasoner.circuit.native_tree import NativeTree

log = logging.getLogger(__name__)



_P = ctypes.c_void_p
_I64 = ctypes.c_int64


def _declare(lib: ctypes.CDLL) -> None:
    """Argument and result types of the runtime's entry points (declared in ``runtime/circuit.h`` and
    ``players/native/search.h``)."""
    pointers: list[Any] = [_P] * 8
    lib.ggp_free_game.argtypes = [_P]
    lib.ggp_free_game.restype = None
    lib.ggp_sizes.argtypes = [_P, _P]
    lib.ggp_sizes.restype = ctypes.c_int32
    lib.ggp_eval.argtypes = [_P, _I64, *pointers]
    lib.ggp_eval.restype = None
    lib.ggp_bind.argtypes = [_P] * 6
    lib.ggp_bind.restype = None
    lib.ggp_single_info.argtypes = [_P, ctypes.c_char_p]
    lib.ggp_single_info.restype = ctypes.c_int32
    lib.ggp_single_next.argtypes = [_P, ctypes.c_char_p, ctypes.c_char_p]
    lib.ggp_single_next.restype = None
    lib.ggp_playouts.argtypes = [_P, _I64, ctypes.c_uint64, _I64, _I64, *pointers[:5]]
    lib.ggp_playouts.restype = ctypes.c_int32
    lib.ggp_mcts_new.argtypes = [_P, ctypes.c_char_p, ctypes.c_double, _I64, ctypes.c_char_p, ctypes.c_uint64,
                                 _I64, _I64, _I64]
    lib.ggp_mcts_new.restype = _P
    lib.ggp_mcts_free.argtypes = [_P]
    lib.ggp_mcts_free.restype = None
    lib.ggp_mcts_set_mast.argtypes = [_P, ctypes.c_double]
    lib.ggp_mcts_set_mast.restype = ctypes.c_int32
    lib.ggp_mcts_search.argtypes = [_P, _I64, ctypes.c_double]
    lib.ggp_mcts_search.restype = _I64
    lib.ggp_mcts_reroot.argtypes = [_P, ctypes.c_char_p]
    lib.ggp_mcts_reroot.restype = ctypes.c_int32
    lib.ggp_mcts_root.argtypes = [_P, ctypes.c_int32, _P, _P, _P, _P]
    lib.ggp_mcts_root.restype = ctypes.c_int32
    lib.ggp_mcts_set_rave.argtypes = [_P, ctypes.c_double]
    lib.ggp_mcts_set_rave.restype = ctypes.c_int32
    lib.ggp_mcts_set_solver.argtypes = [_P, ctypes.c_int32]
    lib.ggp_mcts_set_solver.restype = None
    lib.ggp_mcts_set_decisive.argtypes = [_P, ctypes.c_int32]
    lib.ggp_mcts_set_decisive.restype = ctypes.c_int32
    lib.ggp_mcts_set_cutoff.argtypes = [_P, _I64, _P, ctypes.c_double, ctypes.c_double, _P, _P]
    lib.ggp_mcts_set_cutoff.restype = ctypes.c_int32
    lib.ggp_mcts_proven.argtypes = [_P, ctypes.c_int32, _P, _P, _P]
    lib.ggp_mcts_proven.restype = ctypes.c_int32
    lib.ggp_mcts_line.argtypes = [_P, _P]
    lib.ggp_mcts_line.restype = ctypes.c_int32
    lib.ggp_mcts_nested.argtypes = [_P, ctypes.c_int32, ctypes.c_double]
    lib.ggp_mcts_nested.restype = ctypes.c_int32
    lib.ggp_mcts_set_factor.argtypes = [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    lib.ggp_mcts_set_factor.restype = ctypes.c_int32
    lib.ggp_mcts_info.argtypes = [_P, _P]
    lib.ggp_mcts_info.restype = None


class _NativeEvaluator:
    """Shared ctypes plumbing of the compiled and the interpreted C evaluators."""

    name = "native"

    def __init__(self, circuit: Circuit, lib: ctypes.CDLL, game: int | None) -> None:
        if not game:
            raise ReasonerError("out of memory for the circuit")
        self.circuit = circuit
        self.lib = lib
        self.game = game
        self._finalizer = weakref.finalize(self, lib.ggp_free_game, game)
        _declare(lib)
        got = (ctypes.c_int32 * 8)()
        lib.ggp_sizes(game, got)
        expected = [
            circuit.n_slots, circuit.n_fluents, circuit.n_moves, len(circuit.roles), len(circuit.goals), len(circuit.sees)
        ]
        if list(got[:6]) != expected:
            raise ReasonerError("the compiled circuit does not match the game")
        self.nbytes = 8 * got[6]
        # Single-state buffers, bound into this game once.
        self._v = (ctypes.c_uint64 * max(circuit.n_slots, 1))()
        self._legal = (ctypes.c_int32 * (circuit.n_moves + 1))()
        self._flags = (ctypes.c_uint8 * (len(circuit.goals) + 1))()
        self._packed = (ctypes.c_uint8 * self.nbytes)()
        self._n_sees = len(circuit.sees)
        self._sees = (ctypes.c_uint8 * (self._n_sees + 1))()
        self._legal_view = memoryview(self._legal).cast("B").cast("i")
        self._moves_struct = struct.Struct(f"<{len(circuit.roles)}i")
        lib.ggp_bind(game, self._v, self._legal, self._flags, self._packed, self._sees)
        self._info = functools.partial(lib.ggp_single_info, game)
        self._next = functools.partial(lib.ggp_single_next, game)

    def evaluate(self, tin: Words, din: Words | None) -> BatchOutputs:
        c = self.circuit
        nwords = tin.shape[1]
        tin = np.ascontiguousarray(tin, dtype=np.uint64)
        v = np.zeros(max(c.n_slots, 1), dtype=np.uint64)
        legal = np.zeros((c.n_moves, nwords), dtype=np.uint64)
        terminal = np.zeros(nwords, dtype=np.uint64)
        goals = np.zeros((len(c.goals), nwords), dtype=np.uint64)
        nxt = sees = None
        din_ptr = None
        if din is not None:
            din = np.ascontiguousarray(din, dtype=np.uint64)
            din_ptr = din.ctypes.data
            nxt = np.zeros((c.n_fluents, nwords), dtype=np.uint64)
            sees = np.zeros((len(c.sees), nwords), dtype=np.uint64)
        self.lib.ggp_eval(
            self.game, nwords, tin.ctypes.data, din_ptr, v.ctypes.data, legal.ctypes.data, terminal.ctypes.data,
            goals.ctypes.data, None if nxt is None else nxt.ctypes.data, None if sees is None else sees.ctypes.data,
        )
        return BatchOutputs(legal, terminal, goals, nxt, sees)

    def single_info(self, key: int) -> tuple[list[int], bool, list[bool]]:
        count = self._info(key.to_bytes(self.nbytes, "little"))
        raw = bytes(self._flags)
        return self._legal_view[:count].tolist(), raw[0] == 1, [b == 1 for b in raw[1:]]

    def single_next(self, key: int, moves: Sequence[int]) -> tuple[int, list[bool]]:
        self._next(key.to_bytes(self.nbytes, "little"), self._moves_struct.pack(*moves))
        sees = [b == 1 for b in bytes(self._sees)[:self._n_sees]] if self._n_sees else []
        return int.from_bytes(self._packed, "little"), sees

    def playouts(
        self, n: int, seed: int, nwords: int, max_depth: int, start: npt.NDArray[np.uint8], record: bool = False
    ) -> PlayoutStats:
        n_roles = len(self.circuit.roles)
        stats = (ctypes.c_int64 * 5)()
        sums = (ctypes.c_double * max(1, n_roles))()
        start_buf = np.ascontiguousarray(start, dtype=np.uint8)
        depths = np.zeros(n if record else 0, dtype=np.int32)
        goals = np.zeros((n if record else 0, n_roles), dtype=np.int32)
        status = self.lib.ggp_playouts(
            self.game, n, seed & 0xFFFFFFFFFFFFFFFF, nwords, max_depth, start_buf.ctypes.data, stats, sums,
            depths.ctypes.data if record else None, goals.ctypes.data if record else None,
        )
        if status != 0:
            raise ReasonerError("out of memory for the playout batch")
        return PlayoutStats(
            stats[0], stats[1], stats[2], stats[3], stats[4], tuple(sums[:n_roles]),
            depths if record else None, goals if record else None,
        )


    def mcts(
        self, key: int, exploration: float, playouts_per_leaf: int, chance: Sequence[bool], seed: int,
        max_nodes: int, max_bytes: int, max_depth: int,
    ) -> NativeTree:
        """A C search tree rooted at a packed state (see :class:`NativeTree`)."""
        return NativeTree(self, key, exploration, playouts_per_leaf, chance, seed, max_nodes, max_bytes, max_depth)

class CEvaluator(_NativeEvaluator):
    """The game's circuit compiled to C (one cached library per game, see :mod:`.compiler`)."""

    name = "c"

    def __init__(self, circuit: Circuit, compiler: tuple[str, str], directory: Path | None = None) -> None:
        plain, self.flags = _flag_choices(circuit)
        source = c_source(circuit)
        try:
            lib, self.path, self.cached = load_library(source, compiler, directory, self.flags, RUNTIME_DIRS)
        except ReasonerError as exc:
            if self.flags == plain:
                raise
            log.info("circuit: building without tuning for this cpu (%s)", exc)
            self.flags = plain
            lib, self.path, self.cached = load_library(source, compiler, directory, self.flags, RUNTIME_DIRS)
        lib.ggp_new_game.argtypes = []
        lib.ggp_new_game.restype = _P
        super().__init__(circuit, lib, lib.ggp_new_game())


def _flag_choices(circuit: Circuit) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the flags without tuning for this CPU, the flags tried first) of ``circuit``'s own C."""
    large = circuit.size()[1] > COMPILE_MAX_LITERALS
    plain = UNOPTIMISED_FLAGS if large else FLAGS
    return plain, plain if large else (*FLAGS, *native_flags())


def compiled_is_cached(circuit: Circuit, compiler: tuple[str, str], directory: Path | None = None) -> bool:
    """True when :class:`CEvaluator` would load ``circuit``'s C built earlier rather than run the compiler."""
    source = c_source(circuit)
    return any(is_cached(source, compiler, directory, flags, RUNTIME_DIRS) for flags in set(_flag_choices(circuit)))


class InterpretedEvaluator(_NativeEvaluator):
    """The circuit run by a game-independent C interpreter (compiled once per compiler, no per-game build)."""

    name = "interpreter"

    def __init__(self, circuit: Circuit, compiler: tuple[str, str], directory: Path | None = None) -> None:
        lib, self.path, self.cached = load_library(INTERPRETER_SOURCE, compiler, directory, include_dirs=RUNTIME_DIRS)
        lib.ggp_new_interpreted.argtypes = [_P] * 4
        lib.ggp_new_interpreted.restype = _P
        dtypes = {"int32_t": np.int32, "uint8_t": np.uint8, "int64_t": np.int64}
        # The library keeps pointers into these arrays: they live as long as the evaluator.
        self._arrays = [
            np.array(values + [0], dtype=dtypes[ctype])
            for (_, ctype), values in zip(TABLES, tables(circuit).values())
        ]
        self._sizes = np.array(sizes(circuit), dtype=np.int32)
        self._code_a = np.array(bytecode(circuit.phase_a), dtype=np.int32)
        self._code_b = np.array(bytecode(circuit.phase_b), dtype=np.int32)
        self._pointers = (ctypes.c_void_p * len(self._arrays))(*[a.ctypes.data for a in self._arrays])
        game = lib.ggp_new_interpreted(
            self._sizes.ctypes.data, self._pointers, self._code_a.ctypes.data, self._code_b.ctypes.data
        )
        super().__init__(circuit, lib, game)


COMPILE_MAX_LITERALS = 100_000
"""Above this many circuit literals the C code is built without optimisation (the optimiser would take
many minutes and gigabytes on such a straight-line program; see
:data:`~ggp.native.UNOPTIMISED_FLAGS`)."""
