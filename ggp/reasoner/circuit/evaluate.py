"""Circuit evaluators: compiled C (fastest), interpreted C (no per-game build) and pure numpy (no compiler).

Both evaluate 64 states per ``uint64`` word (bit ``i`` of word ``w`` is state ``64 * w + i``) and share
one interface, :class:`Evaluator`; :func:`make_evaluator` picks one and logs which.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import struct
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from ggp.errors import ReasonerError
from ggp.native import FLAGS, UNOPTIMISED_FLAGS, find_compiler, load_library, native_flags
from ggp.reasoner.circuit.build import Circuit, Ref
from ggp.reasoner.circuit.codegen import INTERPRETER_SOURCE, RUNTIME_DIRS, TABLES, bytecode, c_source, sizes, tables

log = logging.getLogger(__name__)

Words = npt.NDArray[np.uint64]
EvaluatorKind = Literal["auto", "c", "interpreter", "numpy"]
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@dataclass(frozen=True, slots=True)
class BatchOutputs:
    """Outputs as ``[index, word]`` uint64 arrays; ``next``/``sees`` are None without moves."""

    legal: Words
    terminal: Words
    goals: Words
    next: Words | None
    sees: Words | None


@dataclass(frozen=True, slots=True)
class PlayoutStats:
    """Raw counters of a playout run (see :class:`~ggp.reasoner.circuit.machine.PlayoutSummary`)."""

    playouts: int
    states: int
    depth_sum: int
    cut: int
    stuck: int
    goal_sums: tuple[float, ...]
    depths: npt.NDArray[np.int32] | None  # per playout, in finishing order (when recorded)
    goals: npt.NDArray[np.int32] | None  # (playouts, roles), same order (when recorded)


class Evaluator(Protocol):
    """Evaluates one game's circuit; not thread-safe (callers hold a lock)."""

    name: str

    def evaluate(self, tin: Words, din: Words | None) -> BatchOutputs: ...

    def single_info(self, key: int) -> tuple[list[int], bool, list[bool]]:
        """Legal global move indices (ascending), terminal and goal flags of one packed state.

        A packed state (a "key") is an int with bit ``f`` set when fluent ``f`` holds.
        """
        ...

    def single_next(self, key: int, moves: Sequence[int]) -> tuple[int, list[bool]]:
        """The packed next state and the ``sees`` flags after one global move index per role."""
        ...

    def playouts(
        self, n: int, seed: int, nwords: int, max_depth: int, start: npt.NDArray[np.uint8], record: bool = False
    ) -> PlayoutStats:
        """``n`` random playouts from ``start``, ``64 * nwords`` running at once; ``record`` keeps each one's result."""
        ...


def _read(v: Words, ref: Ref) -> Words:
    row: Words = ~v[ref.slot] if ref.neg else v[ref.slot].copy()
    return row


class NumpyEvaluator:
    """Pure numpy: one vectorised operation per circuit term over all words of the batch."""

    name = "numpy"

    def __init__(self, circuit: Circuit) -> None:
        self.circuit = circuit
        self._a = [self._plan(s.slots, s.terms, s.recursive) for s in circuit.phase_a]
        self._b = [self._plan(s.slots, s.terms, s.recursive) for s in circuit.phase_b]

    @staticmethod
    def _plan(
        slots: tuple[int, ...], terms: tuple[tuple[tuple[int, ...], ...], ...], recursive: bool
    ) -> tuple[bool, list[tuple[int, list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]]]]]:
        plan = []
        for slot, bodies in zip(slots, terms):
            parts = [
                (np.array([lit for lit in b if lit > 0], dtype=np.intp), np.array([-lit for lit in b if lit < 0], dtype=np.intp))
                for b in bodies
            ]
            plan.append((slot, parts))
        return recursive, plan

    @staticmethod
    def _term(v: Words, pos: npt.NDArray[np.intp], neg: npt.NDArray[np.intp]) -> Words:
        t: Words
        if pos.size:
            t = np.bitwise_and.reduce(v[pos], axis=0)
        else:
            t = np.full(v.shape[1], _ALL, dtype=np.uint64)
        if neg.size:
            t &= ~np.bitwise_or.reduce(v[neg], axis=0)
        return t

    def _run(
        self, v: Words, plans: list[tuple[bool, list[tuple[int, list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]]]]]]
    ) -> None:
        for recursive, plan in plans:
            if not recursive:
                slot, parts = plan[0]
                acc = np.zeros(v.shape[1], dtype=np.uint64)
                for pos, neg in parts:
                    acc |= self._term(v, pos, neg)
                v[slot] = acc
                continue
            for slot, _ in plan:
                v[slot] = 0
            changed = True
            while changed:
                changed = False
                for slot, parts in plan:
                    acc = np.zeros(v.shape[1], dtype=np.uint64)
                    for pos, neg in parts:
                        acc |= self._term(v, pos, neg)
                    if not np.array_equal(acc, v[slot]):
                        changed = True
                    v[slot] = acc

    def evaluate(self, tin: Words, din: Words | None) -> BatchOutputs:
        c = self.circuit
        nwords = tin.shape[1]
        v = np.zeros((c.n_slots, nwords), dtype=np.uint64)
        v[1:1 + c.n_fluents] = tin
        if din is not None:
            v[1 + c.n_fluents:1 + c.n_fluents + c.n_moves] = din
        self._run(v, self._a)
        empty = np.zeros((0, nwords), dtype=np.uint64)
        legal = np.array([_read(v, r) for r in c.legal]) if c.legal else empty
        goals = np.array([_read(v, g[2]) for g in c.goals]) if c.goals else empty
        terminal = _read(v, c.terminal)
        nxt = sees = None
        if din is not None:
            self._run(v, self._b)
            nxt = np.array([_read(v, r) for r in c.next]) if c.next else empty
            sees = np.array([_read(v, s[2]) for s in c.sees]) if c.sees else empty
        return BatchOutputs(legal, terminal, goals, nxt, sees)

    def _one(self, key: int, moves: Sequence[int] | None) -> BatchOutputs:
        c = self.circuit
        tin = np.zeros((c.n_fluents, 1), dtype=np.uint64)
        tin[[f for f in range(c.n_fluents) if key >> f & 1], 0] = 1
        din = None
        if moves is not None:
            din = np.zeros((c.n_moves, 1), dtype=np.uint64)
            din[list(moves), 0] = 1
        return self.evaluate(tin, din)

    def single_info(self, key: int) -> tuple[list[int], bool, list[bool]]:
        out = self._one(key, None)
        legal = [m for m in range(out.legal.shape[0]) if out.legal[m, 0] & 1]
        return legal, bool(out.terminal[0] & 1), [bool(g & 1) for g in out.goals[:, 0]]

    def single_next(self, key: int, moves: Sequence[int]) -> tuple[int, list[bool]]:
        out = self._one(key, moves)
        assert out.next is not None and out.sees is not None
        nxt = sum(1 << f for f in range(out.next.shape[0]) if out.next[f, 0] & 1)
        return nxt, [bool(s & 1) for s in out.sees[:, 0]]

    def playouts(
        self, n: int, seed: int, nwords: int, max_depth: int, start: npt.NDArray[np.uint8], record: bool = False
    ) -> PlayoutStats:
        c = self.circuit
        depths: list[int] = []
        per_goals: list[list[int]] = []
        rng = np.random.default_rng(seed)
        lanes = 64 * nwords
        offsets = list(c.move_offsets()) + [c.n_moves]
        goal_role = np.array([g[0] for g in c.goals], dtype=np.intp)
        goal_value = np.array([_int_or_zero(str(g[1])) for g in c.goals], dtype=np.float64)
        state = np.zeros((lanes, c.n_fluents), dtype=bool)
        active = np.zeros(lanes, dtype=bool)
        first = min(n, lanes)
        active[:first] = True
        state[:first] = start.astype(bool)
        started = first
        depth = np.zeros(lanes, dtype=np.int64)
        playouts = states = depth_sum = cut = stuck = 0
        sums = np.zeros(len(c.roles), dtype=np.float64)
        while active.any():
            out = self.evaluate(pack_bits(state), None)
            legal = unpack_bits(out.legal, lanes)  # (lanes, moves)
            terminal = unpack_bits(out.terminal[None, :], lanes)[:, 0] & active
            goals = unpack_bits(out.goals, lanes) if c.goals else np.zeros((lanes, 0), dtype=bool)
            fin = terminal.copy()
            for r in range(len(c.roles)):
                none = active & ~fin & ~legal[:, offsets[r]:offsets[r + 1]].any(axis=1)
                stuck += int(none.sum())
                fin |= none
            over = active & ~fin & (depth >= max_depth)
            cut += int(over.sum())
            fin |= over
            for lane in np.flatnonzero(fin):
                playouts += 1
                states += int(depth[lane]) + 1
                depth_sum += int(depth[lane])
                values = [0.0] * len(c.roles)
                seen = set()
                for k in np.flatnonzero(goals[lane]):
                    if goal_role[k] not in seen:
                        seen.add(goal_role[k])
                        values[goal_role[k]] = goal_value[k]
                sums += values
                depths.append(int(depth[lane]))
                per_goals.append([int(x) for x in values])
            live = active & ~fin
            restart = np.zeros(lanes, dtype=bool)
            for lane in np.flatnonzero(fin):
                depth[lane] = 0
                if started < n:
                    started += 1
                    restart[lane] = True
                else:
                    active[lane] = False
            new_state = np.zeros_like(state)
            if live.any():
                does = np.zeros((lanes, c.n_moves), dtype=bool)
                for r in range(len(c.roles)):
                    block = legal[:, offsets[r]:offsets[r + 1]]
                    counts = block.sum(axis=1)
                    pick = np.floor(rng.random(lanes) * np.maximum(counts, 1)).astype(np.int64)
                    chosen = np.argmax(np.cumsum(block, axis=1) > pick[:, None], axis=1)
                    rows = np.flatnonzero(live)
                    does[rows, offsets[r] + chosen[rows]] = True
                nxt = self.evaluate(pack_bits(state), pack_bits(does)).next
                assert nxt is not None
                new_state = unpack_bits(nxt, lanes) & live[:, None]
                depth[live] += 1
            new_state[restart] = start.astype(bool)
            state = new_state
        return PlayoutStats(
            playouts, states, depth_sum, cut, stuck, tuple(float(s) for s in sums),
            np.array(depths, dtype=np.int32) if record else None,
            np.array(per_goals, dtype=np.int32).reshape(-1, len(c.roles)) if record else None,
        )


def _int_or_zero(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def pack_bits(rows: npt.NDArray[np.bool_]) -> Words:
    """(batch, k) booleans -> (k, words) uint64 with state ``i`` in bit ``i % 64`` of word ``i // 64``."""
    batch, k = rows.shape
    nwords = max(1, -(-batch // 64))
    padded = np.zeros((nwords * 64, k), dtype=bool)
    padded[:batch] = rows
    bits = np.packbits(padded.reshape(nwords, 64, k).transpose(2, 0, 1), axis=2, bitorder="little")
    return np.ascontiguousarray(bits).view("<u8").reshape(k, nwords).astype(np.uint64)


def unpack_bits(words: Words, batch: int) -> npt.NDArray[np.bool_]:
    """Inverse of :func:`pack_bits`: (k, words) uint64 -> (batch, k) booleans."""
    k, nwords = words.shape
    raw = np.ascontiguousarray(words.astype("<u8")).view(np.uint8).reshape(k, nwords, 8)
    bits = np.unpackbits(raw, axis=2, bitorder="little").reshape(k, nwords * 64)
    return bits[:, :batch].T.astype(bool)


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
    lib.ggp_mcts_proven.argtypes = [_P, ctypes.c_int32, _P, _P, _P]
    lib.ggp_mcts_proven.restype = ctypes.c_int32
    lib.ggp_mcts_line.argtypes = [_P, _P]
    lib.ggp_mcts_line.restype = ctypes.c_int32
    lib.ggp_mcts_nested.argtypes = [_P, ctypes.c_int32, ctypes.c_double]
    lib.ggp_mcts_nested.restype = ctypes.c_int32
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
        self._game = game
        self._finalizer = weakref.finalize(self, lib.ggp_free_game, game)
        _declare(lib)
        got = (ctypes.c_int32 * 8)()
        lib.ggp_sizes(game, got)
        expected = [
            circuit.n_slots, circuit.n_fluents, circuit.n_moves, len(circuit.roles), len(circuit.goals), len(circuit.sees)
        ]
        if list(got[:6]) != expected:
            raise ReasonerError("the compiled circuit does not match the game")
        self._nbytes = 8 * got[6]
        # Single-state buffers, bound into this game once.
        self._v = (ctypes.c_uint64 * max(circuit.n_slots, 1))()
        self._legal = (ctypes.c_int32 * (circuit.n_moves + 1))()
        self._flags = (ctypes.c_uint8 * (len(circuit.goals) + 1))()
        self._packed = (ctypes.c_uint8 * self._nbytes)()
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
            self._game, nwords, tin.ctypes.data, din_ptr, v.ctypes.data, legal.ctypes.data, terminal.ctypes.data,
            goals.ctypes.data, None if nxt is None else nxt.ctypes.data, None if sees is None else sees.ctypes.data,
        )
        return BatchOutputs(legal, terminal, goals, nxt, sees)

    def single_info(self, key: int) -> tuple[list[int], bool, list[bool]]:
        count = self._info(key.to_bytes(self._nbytes, "little"))
        raw = bytes(self._flags)
        return self._legal_view[:count].tolist(), raw[0] == 1, [b == 1 for b in raw[1:]]

    def single_next(self, key: int, moves: Sequence[int]) -> tuple[int, list[bool]]:
        self._next(key.to_bytes(self._nbytes, "little"), self._moves_struct.pack(*moves))
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
            self._game, n, seed & 0xFFFFFFFFFFFFFFFF, nwords, max_depth, start_buf.ctypes.data, stats, sums,
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


@dataclass(frozen=True, slots=True)
class TreeRoot:
    """The root of a :class:`NativeTree`: one role's moves with their visits and goal totals."""

    terminal: bool
    branching: tuple[int, ...]  # legal moves per role (0 for all at a terminal root)
    moves: tuple[int, ...]  # the role's moves, global indices ascending
    visits: tuple[int, ...]
    totals: tuple[float, ...]  # summed goals, each in 0..1
    proven: tuple[float | None, ...]  # per move: the role's goal (0..1) under perfect play after it, None if unproven
    proof: int | None  # the index of the move a proven root's proof takes for the role (see ggp_mcts_proven)
    line: tuple[int, float] | None = None  # one-role games: the best line's first move (index) and goal (0..1)


class NativeTree:
    """An MCTS tree held by the C runtime (``ggp_mcts_*``, ``players/native/search_*.c``): decoupled UCT as
    ``players/mcts.py`` runs it, over packed states and global move indices.

    The tree owns its memory (freed with the object) and keeps the evaluator alive; it uses only its own
    buffers and the game's read-only tables, so a search needs no lock against other queries. Raises
    :class:`ReasonerError` when out of memory.
    """

    def __init__(
        self, evaluator: _NativeEvaluator, key: int, exploration: float, playouts_per_leaf: int,
        chance: Sequence[bool], seed: int, max_nodes: int, max_bytes: int, max_depth: int,
    ) -> None:
        self._evaluator = evaluator
        self._lib = lib = evaluator.lib
        self._nbytes = evaluator._nbytes
        self._roles = len(evaluator.circuit.roles)
        self._width = max([len(moves) for moves in evaluator.circuit.moves] + [1])
        tree = lib.ggp_mcts_new(
            evaluator._game, key.to_bytes(self._nbytes, "little"), exploration, playouts_per_leaf,
            bytes(int(bool(c)) for c in chance), seed & 0xFFFFFFFFFFFFFFFF, max_nodes, max_bytes, max_depth,
        )
        if not tree:
            raise ReasonerError("out of memory for the search tree")
        self._tree = tree
        self._finalizer = weakref.finalize(self, lib.ggp_mcts_free, tree)

    def reroot(self, key: int) -> bool:
        """Move the root to a packed state: True when the subtree of that state (the root, a child or a
        grandchild) was kept, False when the tree starts afresh there."""
        status = self._lib.ggp_mcts_reroot(self._tree, key.to_bytes(self._nbytes, "little"))
        if status < 0:
            raise ReasonerError("out of memory for the search tree")
        return bool(status)

    def set_mast(self, epsilon: float) -> None:
        """Play MAST playouts from now on (``ggp_mcts_set_mast``: with one playout per leaf, a random move
        with chance ``epsilon``, else the move with the best mean goal so far). Raises
        :class:`ReasonerError` when out of memory."""
        if self._lib.ggp_mcts_set_mast(self._tree, epsilon) != 0:
            raise ReasonerError("out of memory for the MAST statistics")

    def set_rave(self, k: float) -> None:
        """Use RAVE from now on with equivalence parameter ``k`` (``ggp_mcts_set_rave``: UCB1's mean of an
        edge of n visits is beta * its all-moves-as-first mean + (1 - beta) * its mean, beta = sqrt(k / (3n + k));
        0 turns it off). Raises :class:`ReasonerError` when out of memory."""
        if self._lib.ggp_mcts_set_rave(self._tree, k) != 0:
            raise ReasonerError("out of memory for the RAVE statistics")

    def set_decisive(self, level: int) -> None:
        """Set the single playouts' lookahead from now on (``ggp_mcts_set_decisive``): 0 none; 1 decisive
        moves (at each step a role with a move that ends the game at its highest goal plays it; all its moves
        are tried at once, one per lane); 2 anti-decisive moves too (else it avoids a move after which the one
        opponent to choose has such a move). Raises :class:`ReasonerError` when out of memory."""
        if self._lib.ggp_mcts_set_decisive(self._tree, level) != 0:
            raise ReasonerError("out of memory for the decisive-move lookahead")

    def set_solver(self, on: bool) -> None:
        """Prove nodes from now on (``ggp_mcts_set_solver``, MCTS-Solver: a node where one role chooses is
        proven once a child gives that role its highest goal or all its children are proven)."""
        self._lib.ggp_mcts_set_solver(self._tree, int(on))

    def search(self, iterations: int, deadline: float) -> int:
        """Run up to ``iterations`` iterations, stopping at ``deadline`` (a ``time.monotonic()`` time,
        checked before each one; ``math.inf`` for none); returns how many ran (0 at a terminal or proven
        root)."""
        return int(self._lib.ggp_mcts_search(self._tree, iterations, deadline))

    def nested(self, level: int, deadline: float) -> bool:
        """Nested Monte-Carlo Search of ``level`` from the root (``ggp_mcts_nested``; level 0: one playout) in a
        game with one role and no chance, stopping at ``deadline`` (a ``time.monotonic()`` time, ``math.inf``
        for none): True when the level finished, False when cut off. Every sequence it plays to the end that
        beats the best line becomes the best line (:attr:`TreeRoot.line`). Raises ``ValueError`` in any other
        game and :class:`ReasonerError` when out of memory."""
        status = self._lib.ggp_mcts_nested(self._tree, max(0, min(level, 1 << 30)), deadline)
        if status == -2:
            raise ValueError("nested Monte-Carlo search needs a game with one role and no chance")
        if status < 0:
            raise ReasonerError("out of memory for nested Monte-Carlo search")
        return bool(status)

    def root(self, role: int) -> TreeRoot:
        """The root's statistics for role index ``role``."""
        branching = (ctypes.c_int32 * self._roles)()
        moves = (ctypes.c_int32 * self._width)()
        visits = (ctypes.c_int32 * self._width)()
        totals = (ctypes.c_double * self._width)()
        terminal = self._lib.ggp_mcts_root(self._tree, role, branching, moves, visits, totals)
        n = branching[role]
        proven = (ctypes.c_double * self._width)()
        value = (ctypes.c_double * 1)()  # the root's own value: its per-move proofs say it
        choice = (ctypes.c_int32 * 1)()
        self._lib.ggp_mcts_proven(self._tree, role, proven, value, choice)
        goal = (ctypes.c_double * 1)()
        first = self._lib.ggp_mcts_line(self._tree, goal) if self._roles == 1 else -1
        return TreeRoot(bool(terminal), tuple(branching), tuple(moves[:n]), tuple(visits[:n]), tuple(totals[:n]),
                        tuple(None if v < 0 else v for v in proven[:n]), None if choice[0] < 0 else choice[0],
                        None if first < 0 else (first, goal[0]))

    def info(self) -> dict[str, int]:
        """Nodes, edges, bytes reserved, ``full`` (1 once the arena stopped growing) and root visits."""
        out = (ctypes.c_int64 * 5)()
        self._lib.ggp_mcts_info(self._tree, out)
        return dict(zip(("nodes", "edges", "bytes", "full", "visits"), out))


class CEvaluator(_NativeEvaluator):
    """The game's circuit compiled to C (one cached library per game, see :mod:`.compiler`)."""

    name = "c"

    def __init__(self, circuit: Circuit, compiler: tuple[str, str], directory: Path | None = None) -> None:
        large = circuit.size()[1] > COMPILE_MAX_LITERALS
        plain = UNOPTIMISED_FLAGS if large else FLAGS
        self.flags = plain if large else (*FLAGS, *native_flags())
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

INTERPRET_MIN_LITERALS = 1_500_000
"""Above this many circuit literals ``auto`` interprets instead of compiling at all (even an
unoptimised build of 8x8 chess, 115,563 literals, takes about 5 s)."""


def make_evaluator(circuit: Circuit, kind: EvaluatorKind = "auto", directory: Path | None = None) -> Evaluator:
    """An evaluator of ``circuit``; ``auto`` compiles to C when a compiler is found, else uses numpy.

    ``auto`` compiles circuits over :data:`COMPILE_MAX_LITERALS` without optimisation and interprets
    those over :data:`INTERPRET_MIN_LITERALS`. ``c`` and ``interpreter`` need a
    C compiler (:class:`ReasonerError` without one); ``numpy`` never does.
    """
    if kind == "numpy":
        log.info("circuit evaluator: numpy (requested)")
        return NumpyEvaluator(circuit)
    compiler = find_compiler()
    if compiler is None:
        if kind != "auto":
            raise ReasonerError("no c compiler found (tried $CC, cc, gcc, clang)")
        log.warning("circuit evaluator: numpy (no c compiler found)")
        return NumpyEvaluator(circuit)
    evaluator: CEvaluator | InterpretedEvaluator
    if kind == "auto" and circuit.size()[1] > INTERPRET_MIN_LITERALS:
        log.info("circuit of %d literals: interpreting it rather than compiling", circuit.size()[1])
        kind = "interpreter"
    try:
        if kind == "interpreter":
            evaluator = InterpretedEvaluator(circuit, compiler, directory)
        else:
            evaluator = CEvaluator(circuit, compiler, directory)
    except ReasonerError as exc:
        if kind != "auto":
            raise
        log.warning("circuit evaluator: numpy (%s)", exc)
        return NumpyEvaluator(circuit)
    log.info("circuit evaluator: %s (%s, %s)", evaluator.name, compiler[1], "cached" if evaluator.cached else "compiled")
    return evaluator
