"""Speed of the RAPP fitness (issue: <= 60 s on 2 cores): one generated 8x8 game, the shipped 3-algorithm
min-max model (depth 2), 20 plays per pairing and seat (3 pairings x 2 seats x 20 = 120 plays).

"Warm cache" means the compiled min-max library is built already; the script builds it first (one
untimed search) and then times the fitness.

Usage: python benchmarks/rapp_speed.py [--workers 2] [--seed 0] [--matches 20]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import time

from ggp.commands._games import GameMachines
from ggp.evaluation.evaluate import default_model
from ggp.generation.fitness import rapp_fitness
from ggp.generation.generator import generate_game
from ggp.generation.params import BUILTIN
from ggp.reasoner.heuristics import Heuristic
from ggp.translators.sbg.machine import SbgStateMachine


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--matches", type=int, default=20, help="plays per pairing and seat")
    args = parser.parse_args()
    model = default_model()
    if model is None:
        raise SystemExit("no shipped RAPP model")
    params = dataclasses.replace(BUILTIN["classic"], sizes=(8,))
    game = generate_game(random.Random(args.seed), params, name="Speed")
    machine = SbgStateMachine(game)
    machine.minimax_values(machine.initial_state(), machine.roles[0], Heuristic.parse("C"), 1)  # warm the C cache
    started = time.perf_counter()
    result = rapp_fitness(game, seed=args.seed, model=model, matches_per_seat=args.matches,
                          machines=GameMachines("auto"), workers=args.workers)
    seconds = time.perf_counter() - started
    load = os.getloadavg()[0]
    interval = result.interval("fitness")
    shown = f" [{interval.low:.3f}, {interval.high:.3f}]" if interval else ""
    print(f"{game.width}x{game.height} game, turn limit {game.turn_limit}, model {', '.join(model.algorithms)}")
    print(f"RAPP fitness {result.fitness:.3f}{shown} from {result.plays} plays in {seconds:.1f} s "
          f"with {args.workers} worker(s), load average {load:.1f}")


if __name__ == "__main__":
    main()
