"""``ggp evolve``: evolve chess-like SBG games by RAPP fitness (rapp.md §6), resumable, with f_NLD as an option.

Every generation is saved under ``OUT/gen_NNNN/``; ``--resume`` continues from the last complete one.
At the end the best games are written to ``OUT/best/`` as SBG, translated KIF and their evaluation
(JSON), and with ``--nld`` the Pareto front of (RAPP fitness, −f_NLD) goes to ``OUT/pareto.json``.

The fitness is ``ggp.generation.fitness.rapp_fitness`` (``--fitness rapp``, the default) when a
RAPP model is installed, else the random-playout proxy (``--fitness playout``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggp.commands._args import non_negative_int, positive_int
from ggp.commands._games import DEFAULT_ENGINE, EVALUATION_ENGINE_HELP

if TYPE_CHECKING:
    from ggp.generation.evolution import Fitness, Individual


def register(subcommands: Any) -> None:
    """Add the ``evolve`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "evolve", help="evolve chess-like SBG games by RAPP fitness",
        description="Evolve chess-like Simplified Boardgames: roulette-wheel parents, uniform crossover of "
        "white's rows, piece and position mutation, best-n survivors; every generation is saved so "
        "--resume can continue a stopped run.",
    )
    parser.add_argument("--population", type=positive_int, default=10, metavar="P", help="population size (10)")
    parser.add_argument("--generations", type=non_negative_int, default=20, metavar="G", help="generations after the first (20)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (0)")
    parser.add_argument("--params", default=None, metavar="SET|FILE",
                        help="built-in parameter set (classic, riders, restricted, compound) or a YAML/JSON "
                        "file; default: all four built-in sets in turn")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="run folder")
    parser.add_argument("--resume", action="store_true", help="continue from the last saved generation in DIR")
    parser.add_argument("--fitness", choices=("rapp", "playout"), default="rapp",
                        help="rapp = self-play RAPP fitness (falls back to playout when not installed); "
                        "playout = random-playout proxy")
    parser.add_argument("--playouts", type=positive_int, default=16, metavar="N",
                        help="plays per game for the playout proxy (16)")
    parser.add_argument("--objective", default="rapp", metavar="NAME[:W],...",
                        help="what to maximise with --fitness rapp: rapp (the RAPP fitness, the default) or a weighted "
                        "sum of rapp and Ludii metrics, e.g. 'DurationTurns:0.01,DramaAverage:2' for longer, more "
                        "dramatic games (docs/evaluation.md lists the metrics)")
    parser.add_argument("--nld", action="store_true", help="also score f_NLD and report the Pareto front")
    parser.add_argument("--best", type=positive_int, default=5, metavar="N", help="best games to export (5)")
    parser.add_argument("--no-gdl-check", action="store_true",
                        help="skip validating each bred game's GDL translation (faster)")
    parser.add_argument("--workers", type=positive_int, default=1, metavar="K",
                        help="local worker processes for the RAPP fitness's matches (1)")
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help="play the RAPP fitness's matches on a Ray cluster ('auto', 'local' or HOST:PORT)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help=EVALUATION_ENGINE_HELP)
    parser.set_defaults(run=run)


def choose_fitness(
    name: str, playouts: int, *, workers: int = 1, ray_address: str | None = None, engine: str = DEFAULT_ENGINE,
    objective: str = "rapp",
) -> tuple[Fitness, str]:
    """The fitness function and a label: RAPP when a model is installed, else the random-playout proxy.

    The RAPP fitness plays its matches on ``workers`` local processes, or on the Ray cluster at
    ``ray_address``; the results are the same for the same seeds. ``engine`` plays the GDL games that
    are not SBG (bred games are SBG and play on the SBG engine whatever it is). ``objective`` (see
    :class:`ggp.generation.fitness.Objective`) replaces the RAPP fitness by a weighted sum of metrics
    measured on the same plays."""
    from functools import partial

    from ggp.commands._games import GameMachines
    from ggp.evaluation.evaluate import default_model
    from ggp.generation.fitness import Objective, objective_fitness, rapp_fitness
    from ggp.generation.proxy import playout_fitness

    wanted = Objective.parse(objective)
    if not wanted.is_rapp and name != "rapp":
        raise ValueError("--objective needs --fitness rapp (the objective is measured on the RAPP model's plays)")
    if name == "rapp":
        if default_model() is not None and not wanted.is_rapp:
            fitness = partial(objective_fitness, objective=wanted, machines=GameMachines(engine), workers=workers,
                              ray_address=ray_address)
            return fitness, f"objective {objective}" + (f" on Ray at {ray_address}" if ray_address else "")
        if not wanted.is_rapp:
            raise ValueError("--objective needs a RAPP model (its plays are measured); none is installed")
        if default_model() is not None:
            fitness = partial(rapp_fitness, machines=GameMachines.for_self_play(engine), workers=workers, ray_address=ray_address)
            return fitness, "rapp" + (f" on Ray at {ray_address}" if ray_address else "")
        print("ggp evolve: no RAPP model is installed; using the random-playout proxy", file=sys.stderr)
    return partial(playout_fitness, playouts=playouts), f"playout ({playouts} plays)"


def export_best(out: Path, population: list[Individual], count: int) -> None:
    """Write the best games as SBG, translated KIF and evaluation JSON under ``out/best``."""
    from ggp.gdl.printer import to_kif
    from ggp.generation.evolution import individual_json
    from ggp.translators.sbg.printer import to_sbg
    from ggp.translators.sbg.to_gdl import translate

    folder = out / "best"
    folder.mkdir(parents=True, exist_ok=True)
    for rank, ind in enumerate(population[:count], 1):
        stem = f"rank_{rank:02d}"
        (folder / f"{stem}.sbg").write_text(to_sbg(ind.game), encoding="utf-8")
        (folder / f"{stem}.kif").write_text(to_kif(translate(ind.game)), encoding="utf-8")
        (folder / f"{stem}.json").write_text(json.dumps(individual_json(ind, f"{stem}.sbg"), indent=2) + "\n",
                                             encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ggp.generation.evolution import Evolution, EvolutionConfig, pareto_front
    from ggp.generation.evolution import Progress as Report
    from ggp.generation.params import resolve_params

    params = tuple(resolve_params(args.params))
    fitness, label = choose_fitness(args.fitness, args.playouts, workers=args.workers, ray_address=args.ray,
                                    engine=args.engine, objective=args.objective)
    config = EvolutionConfig(population=args.population, generations=args.generations, seed=args.seed,
                             params=params, gdl_check=not args.no_gdl_check, nld=args.nld).check()
    console = Console(stderr=True)
    console.print(f"evolving {args.population} games for {args.generations} generations, seed {args.seed}, "
                  f"fitness {label}, parameter sets {', '.join(p.name for p in params)}")
    with Progress(TextColumn("[bold]gen {task.fields[gen]:>3}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("best {task.fields[best]:.3f} mean {task.fields[mean]:.3f}"), TimeElapsedColumn(),
                  console=console, transient=False) as bar:
        task = bar.add_task("evolve", total=args.population, gen=0, best=0.0, mean=0.0)
        shown = {"gen": -1}

        def report(event: Report) -> None:
            if event.generation != shown["gen"]:
                shown["gen"] = event.generation
                bar.reset(task, total=event.total)
            bar.update(task, completed=event.done, gen=event.generation, best=event.best, mean=event.mean)

        history = Evolution(config, fitness, args.out, report).run(resume=args.resume)
    final = history[-1]
    export_best(args.out, final, args.best)
    print(f"{'gen':>4} {'best':>7} {'mean':>7}")
    for generation, population in enumerate(history):
        values = [ind.fitness for ind in population]
        print(f"{generation:>4} {max(values):>7.3f} {sum(values) / len(values):>7.3f}")
    for rank, ind in enumerate(final[:args.best], 1):
        nld = f" f_NLD {ind.nld}" if ind.nld is not None else ""
        print(f"#{rank} {ind.game.name}: fitness {ind.fitness:.3f}{nld} ({ind.origin}, {ind.params})")
    if args.nld:
        from ggp.generation.operators import novelty_key

        everyone = {novelty_key(ind.game): ind for population in history for ind in population}
        front = pareto_front(list(everyone.values()))
        (args.out / "pareto.json").write_text(json.dumps(
            [{"name": ind.game.name, "fitness": ind.fitness, "nld": ind.nld} for ind in front], indent=2) + "\n",
            encoding="utf-8")
        print("Pareto front (fitness up, f_NLD down): "
              + ", ".join(f"{ind.game.name} ({ind.fitness:.3f}, {ind.nld})" for ind in front))
    print(f"best games in {args.out / 'best'}")
    return 0
