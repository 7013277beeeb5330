"""The evaluator interface of a circuit: what every evaluator computes and the bit packing they share.

Evaluators compute 64 states per ``uint64`` word (bit ``i`` of word ``w`` is state ``64 * w + i``):
compiled C (:mod:`.native_evaluator`, fastest), interpreted C (no per-game build) and pure numpy
(:mod:`.numpy_evaluator`, no compiler); :func:`~.evaluate.make_evaluator` picks one and logs which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

Words = npt.NDArray[np.uint64]
EvaluatorKind = Literal["auto", "c", "interpreter", "numpy"]


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
