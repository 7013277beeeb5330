"""SBG library figures: reference-engine speed, KIF size and clingo grounding per game.

For each games/*.sbg: plies per second of the pure-Python engine over seeded random playouts (legal
move generation plus the §7 terminal test every ply), the size of the translated KIF, the grounded fluent domain size, and the time
and ground-atom count of building a ClingoStateMachine from it (in-process, no isolation).

Usage: python benchmarks/sbg_games.py [--playouts 50] [--no-clingo] [GAME.sbg ...]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from ggp.gdl.printer import to_kif
from translators.sbg.engine import SbgEngine
from translators.sbg.parser import parse_sbg
from translators.sbg.to_gdl import translate

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", type=Path)
    parser.add_argument("--playouts", type=int, default=50)
    parser.add_argument("--no-clingo", action="store_true")
    args = parser.parse_args()
    print(f"{'game':<20} {'plies/s':>9} {'avg len':>8} {'KIF bytes':>10} {'ground s':>9} {'fluents':>8}")
    for path in args.games or sorted(GAMES.glob("*.sbg")):
        game = parse_sbg(path.read_text(), path.name)
        engine = SbgEngine(game)
        plies, seconds = engine_speed(engine, args.playouts, seed=0)
        description = translate(game)
        kif_bytes = len(to_kif(description).encode())
        ground, atoms = "-", "-"
        if not args.no_clingo:
            from ggp.reasoner.clingo_machine import ClingoStateMachine, GroundingLimits

            started = time.perf_counter()
            machine = ClingoStateMachine(description, GroundingLimits(isolate=False))
            ground = f"{time.perf_counter() - started:.2f}"
            atoms = str(len(machine.fluent_domain))
        print(f"{path.stem:<20} {plies / seconds:>9.0f} {plies / args.playouts:>8.1f} {kif_bytes:>10} {ground:>9} {atoms:>8}")


if __name__ == "__main__":
    main()
