"""SBG library figures: reference-engine speed, KIF size and clingo grounding per game.

For each games/*.sbg: plies per second of the pure-Python engine over seeded random playouts (legal
move generation plus the §7 terminal test every ply), the size of the translated KIF, the grounded fluent domain size, and
the time and ground-atom count of building a ClingoStateMachine from it (in-process, no isolation).

With ``--bench S`` it also runs what ``ggp bench`` runs (``ggp.reasoner.benchmark.bench``, seed 0) for S
seconds on the translated GDL with both reasoner engines: clingo (one playout at a time) and the
circuit fast path (batched ``random_playouts``, ``--batch`` playouts per call, as ``ggp bench --engine
circuit --batch 256``), and prints random playouts/s and the engine's setup time (grounding, and for
the circuit the C build, cached in ~/.cache/ggp/circuits after the first run).

Usage: python benchmarks/sbg_games.py [--playouts 50] [--no-clingo] [--bench S [--batch 256]] [GAME.sbg ...]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from ggp.gdl.printer import to_kif
from ggp.translators.sbg.engine import SbgEngine
from ggp.translators.sbg.parser import parse_sbg
from ggp.translators.sbg.to_gdl import translate

GAMES = Path(__file__).resolve().parents[1] / "games"


def engine_speed(engine: SbgEngine, playouts: int, seed: int) -> tuple[int, float]:
    """(plies played, seconds) over ``playouts`` random games."""
    rng = random.Random(seed)
    plies = 0
    started = time.perf_counter()
    for _ in range(playouts):
        state = engine.initial_state()
        while not engine.is_terminal(state):
            state = engine.apply_unchecked(state, rng.choice(engine.legal_moves(state)))
            plies += 1
    return plies, time.perf_counter() - started


def bench_engines(paths: list[Path], seconds: float, batch: int) -> None:
    """``ggp bench`` figures per game: playouts/s and setup seconds for clingo and the batched circuit."""
    from ggp.reasoner.benchmark import bench
    from ggp.reasoner.engines import make_machine

    print(f"{'game':<20} {'engine':<8} {'setup s':>8} {'playouts/s':>11} {'per CPU s':>10} {'states/s':>10} {'depth':>6}")
    for path in paths:
        description = translate(parse_sbg(path.read_text(), path.name))
        for engine, engine_batch in (("clingo", 0), ("circuit", batch)):
            started = time.perf_counter()
            machine = make_machine(description, engine)
            setup = time.perf_counter() - started
            result = bench(machine, seconds=seconds, seed=0, batch=engine_batch, engine=engine)
            per_cpu = result.playouts / result.cpu_seconds if result.cpu_seconds else 0.0
            print(f"{path.stem:<20} {engine:<8} {setup:>8.2f} {result.playouts_per_second:>11.1f} {per_cpu:>10.1f} "
                  f"{result.states_per_second:>10.0f} {result.mean_depth:>6.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", type=Path)
    parser.add_argument("--playouts", type=int, default=50)
    parser.add_argument("--no-clingo", action="store_true")
    parser.add_argument("--bench", type=float, default=0.0, metavar="S",
                        help="also time S seconds of random playouts per engine (clingo, circuit)")
    parser.add_argument("--batch", type=int, default=256, help="circuit playouts per batch call (256)")
    args = parser.parse_args()
    if args.bench > 0:
        bench_engines(args.games or sorted(GAMES.glob("*.sbg")), args.bench, args.batch)
        return
    print(f"{'game':<20} {'plies/s':>9} {'avg len':>8} {'KIF bytes':>10} {'ground s':>9} {'fluents':>8}")
    for path in args.games or sorted(GAMES.glob("*.sbg")):
        game = parse_sbg(path.read_text(), path.name)
        engine = SbgEngine(game)
        plies, seconds = engine_speed(engine, args.playouts, seed=0)
        description = translate(game)
        kif_bytes = len(to_kif(description).encode())
        ground, atoms = "-", "-"
        if not args.no_clingo:
            from ggp.reasoner.clingo_machine import ClingoStateMachine
            from ggp.reasoner.machine import GroundingLimits

            started = time.perf_counter()
            machine = ClingoStateMachine(description, GroundingLimits(isolate=False))
            ground = f"{time.perf_counter() - started:.2f}"
            atoms = str(len(machine.fluent_domain))
        print(f"{path.stem:<20} {plies / seconds:>9.0f} {plies / args.playouts:>8.1f} {kif_bytes:>10} {ground:>9} {atoms:>8}")


if __name__ == "__main__":
    main()
