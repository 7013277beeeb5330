"""Small evolution benchmark: mean fitness of evolved games vs freshly generated random games.

Over one seed: evolve ``--population`` games for ``--generations`` generations, then re-evaluate the final
population with fresh fitness seeds (the fitness seen during selection is biased upwards by selecting
on noise) and compare its mean with the mean over as many random games (same parameter sets), evaluated
the same way. The fitness is ``ggp.generation.fitness.rapp_fitness`` when installed (``--fitness
rapp``), else the random-playout proxy.

Usage: python benchmarks/evolve_small.py [--population 6] [--generations 4] [--seed 0]
       [--fitness rapp|playout] [--playouts 16] [--params SET]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from ggp.commands.evolve import choose_fitness
from ggp.generation.evolution import Evolution, EvolutionConfig, evaluate_fitness
from ggp.generation.generator import generate_games
from ggp.generation.params import resolve_params


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--population", type=int, default=6)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fitness", choices=("rapp", "playout"), default="rapp")
    parser.add_argument("--playouts", type=int, default=16)
    parser.add_argument("--params", default=None)
    args = parser.parse_args()

    params = tuple(resolve_params(args.params))
    fitness, label = choose_fitness(args.fitness, args.playouts)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        config = EvolutionConfig(population=args.population, generations=args.generations, seed=args.seed,
                                 params=params)
        history = Evolution(config, fitness, Path(folder)).run()
    evolve_seconds = time.perf_counter() - started
    rng = random.Random(f"{args.seed}:re-evaluate")
    evolved = [evaluate_fitness(fitness, ind.game, rng.getrandbits(31)).fitness for ind in history[-1]]
    randoms = [
        evaluate_fitness(fitness, game, rng.getrandbits(31)).fitness
        for game, _ in generate_games(args.population, args.seed + 1000, params)
    ]
    print(f"fitness: {label}; population {args.population}, generations {args.generations}, seed {args.seed}, "
          f"parameter sets {', '.join(p.name for p in params)}")
    print(f"evolution took {evolve_seconds:.1f} s ({args.population * (args.generations + 1)} evaluations)")
    print(f"best fitness during selection: gen 0 {max(i.fitness for i in history[0]):.3f}, "
          f"last {max(i.fitness for i in history[-1]):.3f}")
    print(f"evolved games, mean re-evaluated fitness: {sum(evolved) / len(evolved):.3f}")
    print(f"random games,  mean fitness:              {sum(randoms) / len(randoms):.3f}")


if __name__ == "__main__":
    main()
