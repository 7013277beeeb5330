"""The pure numpy evaluator of a circuit: no compiler needed, one vectorised operation per term."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ggp.reasoner.circuit.build import Circuit, Ref
from ggp.reasoner.circuit.evaluator import BatchOutputs, PlayoutStats, Words, pack_bits, unpack_bits

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


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
