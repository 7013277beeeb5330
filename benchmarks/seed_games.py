"""Seed games ("Slovania obchodnikmi"): random playouts per second with the per-state reasoner.

Plays seeded random games (every role, chance included, uniform among its legal moves) on the seed
games from ../shared/gdl-corpus/seed-games and prints set-up time, games per second, seconds per
game, steps per second and the mean game length, next to the thesis' ggp-base figures (100 random
simulations took ~93 s on classicMap and ~300-345 s on biggerMap: ~0.93 s and ~3 s per game).

Usage: python benchmarks/seed_games.py [--seconds 20] [--seed 0] [--engine per-state] [GAME ...]
(GAME: classicMap, biggerMap, classicMapFTD, biggerMapFTD, or a path to a .kif file)
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from ggp.files import load_kif
from ggp.reasoner.chance import random_joint_move
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import StateMachine

SEED_DIR = Path(__file__).resolve().parents[2] / "shared" / "gdl-corpus" / "seed-games"
GGP_BASE_SECONDS_PER_GAME = {"classicMap": 0.93, "biggerMap": 3.0}
STEP_CAP = 5000


def play(machine: StateMachine, rng: random.Random) -> int:
    """One random game to the end (or the step cap); returns the number of steps."""
    state = machine.initial_state()
    steps = 0
    while not machine.is_terminal(state) and steps < STEP_CAP:
        state = machine.next_state(state, random_joint_move(machine, state, rng))
        steps += 1
    if machine.is_terminal(state):
        machine.goals(state)
    return steps


def measure(path: Path, engine: str, seconds: float, seed: int) -> None:
    started = time.perf_counter()
    machine = make_machine(load_kif(path), engine)
    setup = time.perf_counter() - started
    rng = random.Random(seed)
    lengths: list[int] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or not lengths:
        lengths.append(play(machine, rng))
    elapsed = time.perf_counter() - started
    per_game = elapsed / len(lengths)
    reference = GGP_BASE_SECONDS_PER_GAME.get(path.stem)
    versus = f"{reference / per_game:>7.1f}x" if reference else f"{'-':>8}"
    print(f"{path.stem:<15} {setup:>7.2f} {len(lengths):>6} {len(lengths) / elapsed:>8.2f} {per_game:>8.3f} "
          f"{sum(lengths) / elapsed:>8.0f} {statistics.mean(lengths):>8.1f} {reference or '-':>9} {versus}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("games", nargs="*", default=["classicMap", "biggerMap"])
    parser.add_argument("--seconds", type=float, default=20.0, help="playing time per game (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engine", default="per-state", help="reasoner engine (default per-state)")
    args = parser.parse_args()
    print(f"{'game':<15} {'setup s':>7} {'games':>6} {'games/s':>8} {'s/game':>8} {'steps/s':>8} {'avg len':>8} "
          f"{'ggp-base':>9} {'speed-up':>8}")
    for name in args.games:
        path = Path(name) if name.endswith(".kif") else SEED_DIR / f"{name}.kif"
        if not path.is_file():
            raise SystemExit(f"seed_games: {path} not found (is ../shared present?)")
        measure(path, args.engine, args.seconds, args.seed)


if __name__ == "__main__":
    main()
