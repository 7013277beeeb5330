"""Benchmark of the compiled-circuit engine (issue 11): compile time, memory, flat random playouts/s
on one core, and the cost of one single-state legal+next query.

Usage::

    python benchmarks/circuit_bench.py [--games ticTacToe connectFour breakthrough] [--batch 256]
                                       [--seconds 3] [--evaluator c|interpreter|numpy] [--json]

Games are read from ../shared/gdl-corpus/<name>.kif. Compilation is timed into a fresh temporary cache
directory (so it is a real build); the run itself uses one thread. Both wall-clock and process CPU
time are reported, since a shared machine inflates wall-clock figures.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from ggp.files import load_kif
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.machine import GroundingLimits

ROOT = Path(__file__).resolve().parents[1]

CORPUS = ROOT.parent / "shared" / "gdl-corpus"
TARGETS = {"ticTacToe": 170_000, "connectFour": 56_000, "breakthrough": 3_000}


def _rss_mb() -> float:
    """Current resident set size (Linux), else the peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the C compiler)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _playouts(machine: CircuitStateMachine, batch: int, seconds: float) -> dict[str, float]:
    n = 1000
    wall = cpu = 0.0
    playouts = states = 0
    depth_sum = 0.0
    seed = 0
    while wall < seconds:
        w0, c0 = time.perf_counter(), time.process_time()
        summary = machine.random_playouts(n, seed=seed, batch=batch)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
        playouts += summary.playouts
        states += summary.states
        depth_sum += summary.mean_depth * summary.playouts
        seed += 1
        n = min(n * 2, 1_000_000)
    return {
        "playouts": playouts,
        "playouts_per_s_wall": playouts / wall,
        "playouts_per_s_cpu": playouts / cpu if cpu else 0.0,
        "states_per_s_cpu": states / cpu if cpu else 0.0,
        "mean_depth": depth_sum / playouts,
    }


def _single(machine: CircuitStateMachine, seconds: float) -> dict[str, float]:
    """Mean cost of legal moves + next state for states never seen before (caches cold)."""
    rng = random.Random(1)
    steps = 0
    cpu = 0.0
    keys: list[tuple[int, list[int]]] = []
    while cpu < seconds:
        machine._info_cache.clear()
        state = machine.initial_state()
        c0 = time.process_time()
        while not machine.is_terminal(state):
            joint = rng.choice(machine.legal_joint_moves(state))
            state = machine.next_state(state, joint)
            steps += 1
        cpu += time.process_time() - c0
    # The evaluator's packed-state path (what a search on packed keys would call).
    state = machine.initial_state()
    while not machine.is_terminal(state) and len(keys) < 200:
        info_ids = machine._entry(state).ids
        moves = [rng.choice(ids) for ids in info_ids]
        keys.append((machine._key(state), moves))
        state = machine.next_state(state, tuple(machine._flat_moves[m] for m in moves))
    evaluator = machine.evaluator
    c0 = time.process_time()
    rounds = 0
    while time.process_time() - c0 < seconds / 2:
        for key, moves in keys:
            evaluator.single_info(key)
            evaluator.single_next(key, moves)
        rounds += 1
    packed = (time.process_time() - c0) / (rounds * len(keys))
    return {"statemachine_legal_next_us": cpu / steps * 1e6, "packed_legal_next_us": packed * 1e6}


def bench_game(name: str, batch: int, seconds: float, evaluator: str) -> dict[str, Any]:
    description = load_kif(CORPUS / f"{name}.kif")
    limits = GroundingLimits(isolate=False)
    rss0 = _rss_mb()
    with tempfile.TemporaryDirectory() as cache:
        w0, c0 = time.perf_counter(), _cpu()
        machine = CircuitStateMachine(description, limits, evaluator=evaluator, cache_dir=Path(cache))  # type: ignore[arg-type]
        compile_s, compile_cpu = time.perf_counter() - w0, _cpu() - c0
        rss = _rss_mb() - rss0
        w0 = time.perf_counter()
        CircuitStateMachine(description, limits, evaluator=evaluator, cache_dir=Path(cache))  # type: ignore[arg-type]
        cached_s = time.perf_counter() - w0
    statements, literals = machine.circuit.size()
    result: dict[str, Any] = {
        "game": name,
        "evaluator": machine.evaluator.name,
        "ground_rules": machine.circuit.ground_rules,
        "statements": statements,
        "literals": literals,
        "build_s": compile_s,
        "build_cpu_s": compile_cpu,
        "build_cached_s": cached_s,
        "rss_growth_mb": rss,
        **_playouts(machine, batch, seconds),
        **_single(machine, min(seconds, 2.0)),
    }
    result["target_playouts_per_s"] = TARGETS.get(name)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(TARGETS))
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--evaluator", default="c", choices=["c", "interpreter", "numpy"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for name in args.games:
        result = bench_game(name, args.batch, args.seconds, args.evaluator)
        if args.json:
            print(json.dumps(result))
            continue
        print(f"{name} ({result['evaluator']}, batch {args.batch}): {result['ground_rules']:,} ground rules -> "
              f"{result['statements']:,} statements / {result['literals']:,} literals")
        print(f"  build {result['build_s']:.2f} s wall / {result['build_cpu_s']:.2f} s cpu incl. the compiler "
              f"(fresh cache), {result['build_cached_s']:.2f} s (cached); RSS growth {result['rss_growth_mb']:.0f} MB")
        target = result["target_playouts_per_s"]
        print(f"  playouts/s {result['playouts_per_s_cpu']:,.0f} (cpu) {result['playouts_per_s_wall']:,.0f} (wall)"
              + (f"  target {target:,}" if target else "") + f"; mean depth {result['mean_depth']:.1f}")
        print(f"  legal+next per new state: {result['statemachine_legal_next_us']:.1f} us via StateMachine, "
              f"{result['packed_legal_next_us']:.1f} us on packed states")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
