"""Flat random playouts for a fixed time: the speed figures behind ``ggp bench``.

A playout starts at the initial state and lets every role pick uniformly among its legal moves
(seeded) until a terminal state or ``max_depth`` joint moves. A *state step* is one legal-move query
plus one next-state query; its mean time is the per-state cost compared across engines.

Engines that offer ``random_playouts(n, seed, batch=B)`` (the compiled circuit) are measured through
that batch call instead; it returns the depth of each playout.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass
from typing import Any

from ggp.errors import ReasonerError
from ggp.reasoner.machine import BatchPlayouts, StateMachine
from ggp.reasoner.playouts import require_legal


@dataclass(frozen=True, slots=True)
class BenchResult:
    """What one timed run measured; times in seconds."""

    engine: str
    playouts: int
    states: int
    seconds: float
    mean_depth: float
    state_step_seconds: float
    batched: bool
    cpu_seconds: float = 0.0

    @property
    def cpu_step_seconds(self) -> float:
        """Process CPU time per state (steadier than wall time on a shared machine)."""
        return self.cpu_seconds / self.states if self.states else 0.0

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds if self.seconds else 0.0

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The fields plus the derived rates, for ``--json``."""
        data = asdict(self)
        data["playouts_per_second"] = self.playouts_per_second
        data["states_per_second"] = self.states_per_second
        data["cpu_step_seconds"] = self.cpu_step_seconds
        return data


def random_playout(machine: StateMachine, rng: random.Random, max_depth: int) -> tuple[int, float]:
    """One random playout; returns its depth and the time spent in legal+next queries."""
    state = machine.initial_state()
    depth = 0
    spent = 0.0
    clock = time.perf_counter
    while depth < max_depth:
        started = clock()
        if machine.is_terminal(state):
            spent += clock() - started
            break
        joint = tuple(rng.choice(require_legal(machine, state, role, depth)) for role in machine.roles)
        state = machine.next_state(state, joint)
        spent += clock() - started
        depth += 1
    return depth, spent


def bench(
    machine: StateMachine,
    *,
    seconds: float,
    seed: int = 0,
    max_depth: int = 1000,
    batch: int = 0,
    engine: str = "",
    min_playouts: int = 1,
) -> BenchResult:
    """Run random playouts for about ``seconds`` (at least ``min_playouts``) and report the rates.

    ``batch`` > 0 uses the engine's ``random_playouts`` when it has one, ``batch`` playouts per call.
    """
    rng = random.Random(seed)
    playouts = 0
    states = 0
    step_time = 0.0
    started = time.perf_counter()
    cpu_started = time.process_time()
    deadline = started + seconds
    batcher = machine if batch > 0 and isinstance(machine, BatchPlayouts) else None
    batched = batcher is not None
    while playouts < min_playouts or time.perf_counter() < deadline:
        if batcher is not None:
            summary = batcher.random_playouts(batch, rng.randrange(2**31), batch=batch)
            if summary.stuck:
                raise ReasonerError(
                    f"{summary.stuck} of {len(summary.depths)} random playouts reached a non-terminal state where "
                    "a role has no legal move"
                )
            playouts += len(summary.depths)
            states += sum(summary.depths)
        else:
            depth, spent = random_playout(machine, rng, max_depth)
            playouts += 1
            states += depth
            step_time += spent
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    if batched:
        step_time = elapsed
    return BenchResult(
        engine=engine,
        playouts=playouts,
        states=states,
        seconds=elapsed,
        mean_depth=states / playouts if playouts else 0.0,
        state_step_seconds=step_time / states if states else 0.0,
        batched=batched,
        cpu_seconds=cpu,
    )
