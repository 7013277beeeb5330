"""The paper's RAPP experiment (Kowalski & Szykuła 2016, rapp.md §7), in resumable stages.

Stages (each reads what the earlier ones left under ``--out``, default benchmarks/results/):

- ``model``: from ``rapp_model/results.jsonl`` (``ggp evaluate`` of the example games with the 16
  min-max players, see docs/rapp_results.md; else the committed copy in benchmarks/data/) build the
  model games and the k = 3, 4, 5 algorithm sets; ``--save`` writes the k = 3 and k = 4 models into ggp/evaluation/data/.
- ``generated``: ``--count`` generated games (cycling through the four parameter sets), each played by
  the union of the 3- and 4-algorithm models' players, ``--matches`` per pairing and seat; results
  go to ``rapp_table/generated.jsonl`` as they finish, so an interrupted run resumes.
- ``evolved``: ``--runs`` evolution runs per model (``--generations``, ``--population``), each a
  resumable folder ``rapp_table/evolved-k{K}-run{R}``.
- ``recheck``: the final games of every finished run played again with fresh seeds
  (``evolved-k{K}-run{R}/recheck.jsonl``): the fitness evolution saved is the estimate it selected on,
  biased upwards.
- ``export``: what the table needs, into benchmarks/data (committed; plays gzipped without their moves): the
  final games of every finished run, its course (``history.json.gz``: every generation's saved fitness) and its
  ``recheck`` plays (``evolved/k{K}-run{R}/``), the generated
  games and, once all are played, their plays (``rapp_generated/``). ``recheck`` and ``table`` fall back on
  them for whatever is absent under ``--out``.
- ``table``: Max / Avg / share promising (fitness >= ``--promising``) with 95% intervals of the means,
  per variant and model, as Markdown beside the paper's figures, then the example games one by one and the
  figures docs/rapp_results.md derives from the generated games (tests/unit/evaluation/test_rapp_table_docs.py
  checks the docs against it).

Usage: python benchmarks/rapp_table.py model --save
       python benchmarks/rapp_table.py generated --count 200 --workers 2
       python benchmarks/rapp_table.py evolved --runs 4 [--k 3] [--run R] --workers 1
       python benchmarks/rapp_table.py recheck
       python benchmarks/rapp_table.py table
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ggp.commands._games import GameMachines
from ggp.evaluation import rapp
from ggp.evaluation.evaluate import DEFAULT_MODEL_PATH, RappModel, build_model, check_playable, report_game
from ggp.evaluation.selfplay import MatchResult, read_results, round_robin, run_jobs
from ggp.generation.evolution import Individual, load_run
from ggp.generation.fitness import game_source
from ggp.generation.generator import generate_games
from ggp.generation.params import BUILTIN
from ggp.players.registry import make_player
from ggp.reasoner.heuristics import HEURISTIC_NAMES
from ggp.translators.sbg.model import SbgGame

RESULTS = Path(__file__).resolve().parent / "results"
DATA = DEFAULT_MODEL_PATH.parent
SPECS = tuple(f"minimax:h={name},depth=2" for name in HEURISTIC_NAMES)
ANCHOR = "chess"
PAPER = {
    "Generated": ((0.907, 0.671, 0.29), (0.942, 0.704, 0.34)),
    "Evolved": ((0.971, 0.911, 1.00), (0.959, 0.916, 1.00)),
    "Example": ((0.858, 0.811, 0.90), (0.959, 0.859, 1.00)),
}
"""The paper's (Max, Avg, Promising) for the 3- and 4-algorithm models (rapp.md §7)."""


def label(spec: str) -> str:
    """``minimax:h=WGC,depth=2`` -> ``WGC``."""
    return spec.split("h=")[1].split(",")[0] if "h=" in spec else spec


COMMITTED = Path(__file__).resolve().parent / "data" / "rapp_model_results.jsonl.gz"
"""The model's plays as committed (moves left out), used when ``OUT/rapp_model/results.jsonl`` is absent."""


COMMITTED_GENERATED = Path(__file__).resolve().parent / "data" / "rapp_generated"
"""The generated games (``games.json.gz``: key, parameter set and SBG text of each, and the unplayable ones) and
their plays (``plays.jsonl.gz``, moves left out) as committed by ``export``, used when ``OUT/rapp_table`` lacks them."""


def read_plays(path: Path) -> list[MatchResult]:
    """The plays of a results file: JSON lines as ``run_jobs`` writes them, or their committed gzip copy."""
    if path.suffix != ".gz":
        return list(read_results(path).values())
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [MatchResult.from_json(json.loads(line)) for line in handle if line.strip()]


def write_gzip(text: str, path: Path) -> None:
    """Write committed data gzipped with no timestamp or name, so an unchanged export leaves git's copy unchanged."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as handle:
        handle.write(text.encode("utf-8"))


def write_plays(results: Sequence[MatchResult], path: Path) -> None:
    """Commit plays: without their moves (the figures never use them), gzip with no timestamp so an
    unchanged export leaves git's copy unchanged."""
    from dataclasses import replace

    write_gzip("".join(json.dumps(replace(r, moves=()).to_json()) + "\n"
                       for r in sorted(results, key=lambda r: r.job_id)), path)


def by_game(results: Sequence[MatchResult]) -> dict[str, list[MatchResult]]:
    """Plays grouped by game key, in the order given."""
    grouped: dict[str, list[MatchResult]] = {}
    for result in results:
        grouped.setdefault(result.game, []).append(result)
    return grouped


def model_results(out: Path) -> dict[str, list[MatchResult]]:
    path = out / "rapp_model" / "results.jsonl"
    return by_game(read_plays(path if path.exists() else COMMITTED))


def stage_model(args: argparse.Namespace) -> None:
    by_game = model_results(args.out)
    models = {k: build_model(by_game, SPECS, anchor=ANCHOR, k=k) for k in (3, 4, 5)}
    full = build_model(by_game, SPECS, anchor=ANCHOR)
    print(f"example games: {', '.join(sorted(by_game))}")
    print(f"model games: {', '.join(full.games)}")
    for k, model in models.items():
        print(f"k = {k}: {', '.join(label(a) for a in model.algorithms)}")
    if args.save:
        for k in (3, 4):
            path = DATA / f"minimax{k}_model.json"
            path.write_text(json.dumps(models[k].to_json(), indent=2) + "\n")
            print(f"wrote {path}")
        (args.out / "rapp_table").mkdir(parents=True, exist_ok=True)
        (args.out / "rapp_table" / "model16.json").write_text(json.dumps(full.to_json(), indent=2) + "\n")


def load_models() -> dict[int, RappModel]:
    return {k: RappModel.load(DATA / f"minimax{k}_model.json") for k in (3, 4)}


def union(models: dict[int, RappModel]) -> tuple[str, ...]:
    return tuple(spec for spec in SPECS if any(spec in m.algorithms for m in models.values()))


def stage_generated(args: argparse.Namespace) -> None:
    models = load_models()
    specs = union(models)
    machines = GameMachines("auto")
    folder = args.out / "rapp_table"
    folder.mkdir(parents=True, exist_ok=True)
    sources = []
    unplayable = {}
    for game, params in generate_games(args.count, args.seed, list(BUILTIN.values())):
        source = game_source(game)
        reason = check_playable(source, machines, seed=args.seed, players=specs, player_factory=make_player)
        if reason:
            unplayable[source.key] = reason
        else:
            sources.append((source, params.name))
    (folder / "generated_games.json").write_text(json.dumps(
        {"games": [{"key": s.key, "params": p, "sbg": s.sbg} for s, p in sources], "unplayable": unplayable},
        indent=2) + "\n")
    jobs = [job for source, _ in sources for job in round_robin(source, specs, matches_per_seat=args.matches, seed=args.seed)]
    results = folder / "generated.jsonl"
    resumed = len({job.job_id for job in jobs} & read_results(results).keys())
    started, cpu = time.perf_counter(), cpu_seconds()
    run_jobs(jobs, make_player, machines, results_path=results, workers=args.workers)
    print(f"{len(sources)} generated games ({len(unplayable)} unplayable), {len(jobs)} plays: "
          f"{timing(len(jobs) - resumed, resumed, time.perf_counter() - started, cpu_seconds() - cpu, args.workers)}")


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished worker processes so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timing(new: int, resumed: int, wall: float, cpu: float, workers: int) -> str:
    """What a call of a resumable stage cost, counting only the plays it played (not those resumed from disk).

    >>> timing(400, 1600, 28.0, 27.2, 1)
    '400 played in 28 s wall, 27 CPU s (0.068 CPU s per play) with 1 worker(s); 1600 resumed from disk'
    """
    per_play = f" ({cpu / new:.3f} CPU s per play)" if new else ""
    return (f"{new} played in {wall:.0f} s wall, {cpu:.0f} CPU s{per_play} with {workers} worker(s); "
            f"{resumed} resumed from disk")


def stage_evolved(args: argparse.Namespace) -> None:
    from functools import partial

    from ggp.generation.evolution import Evolution, EvolutionConfig
    from ggp.generation.fitness import rapp_fitness

    models = load_models()
    for k, model in models.items():
        if args.k is not None and k != args.k:
            continue
        for run in ([args.run] if args.run is not None else range(args.runs)):
            fitness = partial(rapp_fitness, model=model, matches_per_seat=args.matches, machines=GameMachines("auto"),
                              workers=args.workers)
            config = EvolutionConfig(population=args.population, generations=args.generations, seed=1000 * k + run).check()
            started = time.perf_counter()
            history = Evolution(config, fitness, args.out / "rapp_table" / f"evolved-k{k}-run{run}").run(resume=True)
            best = max(ind.result.fitness for ind in history[-1])
            print(f"k={k} run {run}: {len(history) - 1} generations, best {best:.3f} "
                  f"({time.perf_counter() - started:.0f} s this call)")


def summary(values: Sequence[float], threshold: float, seed: int = 0) -> str:
    """Max / Avg [95% CI] / promising share of fitness values (unplayable ones count as 0 in Avg)."""
    if not values:
        return "— | — | —"
    data = np.array([max(v, 0.0) for v in values])
    rng = np.random.default_rng(seed)
    means = [float(np.mean(rng.choice(data, len(data)))) for _ in range(2000)]
    low, high = np.percentile(means, [2.5, 97.5])
    share = float(np.mean(data >= threshold))
    return f"{data.max():.3f} | {data.mean():.3f} [{low:.3f}, {high:.3f}] | {share:.0%}"


_FITNESS: dict[tuple[str, Path, tuple[object, ...]], dict[int, dict[str, rapp.RappResult]]] = {}
"""Fitness already computed in this process, by what was computed, ``out`` and the models: the table and its
derived lines use the same figures, which take a minute to bootstrap."""


def _remembered(what: str, models: dict[int, RappModel], out: Path,
                compute: Callable[[], dict[int, dict[str, rapp.RappResult]]]) -> dict[int, dict[str, rapp.RappResult]]:
    key = (what, out, tuple((k, m.algorithms, m.games, m.matrix) for k, m in sorted(models.items())))
    if key not in _FITNESS:
        _FITNESS[key] = compute()
    return _FITNESS[key]


def example_fitness(models: dict[int, RappModel], out: Path) -> dict[int, dict[str, rapp.RappResult]]:
    def compute() -> dict[int, dict[str, rapp.RappResult]]:
        by_game = model_results(out)
        return {k: {g: report_game(g, r, SPECS, m).fitness for g, r in sorted(by_game.items())} for k, m in models.items()}
    return _remembered("examples", models, out, compute)


def generated_games(out: Path) -> dict[str, Any] | None:
    """The generated games' list (``games``: key, params, sbg; ``unplayable``: key -> reason): from
    ``OUT/rapp_table`` when the stage ran there, else as committed; None when neither exists."""
    listing = out / "rapp_table" / "generated_games.json"
    if listing.exists():
        return dict(json.loads(listing.read_text(encoding="utf-8")))
    if (COMMITTED_GENERATED / "games.json.gz").exists():
        with gzip.open(COMMITTED_GENERATED / "games.json.gz", "rt", encoding="utf-8") as handle:
            return dict(json.load(handle))
    return None


def generated_data(out: Path) -> tuple[dict[str, Any], list[MatchResult]] | None:
    """The generated games' list and their plays (from ``OUT/rapp_table``, else as committed); None without plays."""
    listed = generated_games(out)
    folder = out / "rapp_table"
    path = folder / "generated.jsonl" if (folder / "generated.jsonl").exists() else COMMITTED_GENERATED / "plays.jsonl.gz"
    if listed is None or not path.exists():
        return None
    return listed, read_plays(path)


def generated_fitness(models: dict[int, RappModel], out: Path) -> dict[int, dict[str, rapp.RappResult]]:
    def compute() -> dict[int, dict[str, rapp.RappResult]]:
        data = generated_data(out)
        if data is None:
            return {}
        listed, plays = data
        grouped = by_game(plays)
        found: dict[int, dict[str, rapp.RappResult]] = {}
        for k, model in models.items():
            found[k] = {g: report_game(g, r, union(models), model).fitness for g, r in grouped.items()}
            for key, reason in listed["unplayable"].items():
                found[k][key] = rapp.unplayable(reason)
        return found
    return _remembered("generated", models, out, compute)


RECHECK_SEED = 7777
"""Seed of the fresh plays that re-measure the evolved games (the evolution's own seeds are others)."""


RECHECK_GZ = "recheck.jsonl.gz"
"""A committed run's fresh plays (``recheck``), moves left out."""
COMMITTED_EVOLVED = Path(__file__).resolve().parent / "data" / "evolved"
"""The final games of finished evolution runs as committed by ``export`` (``k{K}-run{R}/``): the table and
``recheck`` use them for every run whose working folder under ``--out`` is absent."""


def final_individuals(run_folder: Path, generations: int) -> list[Individual] | None:
    """The final population of one run's working folder, best first, or None while it is unfinished."""
    history = load_run(run_folder)
    if len(history) <= generations:
        return None
    return sorted(history[generations], key=lambda ind: -ind.result.fitness)


def committed_run(folder: Path) -> tuple[list[SbgGame], list[float]]:
    """The games and saved fitness of a committed run folder (``population.json`` + ``rank_NN.sbg``)."""
    from ggp.translators.sbg.parser import parse_sbg

    records = json.loads((folder / "population.json").read_text(encoding="utf-8"))
    games = [parse_sbg((folder / r["file"]).read_text(encoding="utf-8"), str(folder / r["file"])) for r in records]
    return games, [float(r["fitness_saved"]) for r in records]


def finished_runs(out: Path, k: int, generations: int) -> list[tuple[Path, list[SbgGame], list[float]]]:
    """(working folder, final games, their saved fitness) of every finished run of model k: the runs under
    ``--out``, then the committed runs that are not there (their recheck plays go to ``committed-k{K}-run{R}``)."""
    runs: dict[str, tuple[Path, list[SbgGame], list[float]]] = {}
    for folder in sorted((out / "rapp_table").glob(f"evolved-k{k}-run*")):
        final = final_individuals(folder, generations)
        if final is not None:
            runs[folder.name.removeprefix("evolved-")] = (folder, [i.game for i in final], [i.fitness for i in final])
    for folder in sorted(COMMITTED_EVOLVED.glob(f"k{k}-run*")):
        if folder.name not in runs:
            runs[folder.name] = (out / "rapp_table" / f"committed-{folder.name}", *committed_run(folder))
    return [runs[name] for name in sorted(runs)]


def stage_export(args: argparse.Namespace) -> None:
    """Copy the final games of every finished run under ``--out`` into benchmarks/data/evolved (committed)."""
    from ggp.translators.sbg.printer import to_sbg

    for k in (3, 4):
        for folder in sorted((args.out / "rapp_table").glob(f"evolved-k{k}-run*")):
            final = final_individuals(folder, args.generations)
            if final is None:
                continue
            target = COMMITTED_EVOLVED / folder.name.removeprefix("evolved-")
            target.mkdir(parents=True, exist_ok=True)
            records = []
            for rank, ind in enumerate(final, 1):
                name = f"rank_{rank:02d}.sbg"
                (target / name).write_text(to_sbg(ind.game), encoding="utf-8")
                records.append({"file": name, "fitness_saved": round(ind.result.fitness, 12), "params": ind.params})
            (target / "population.json").write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
            write_history(load_run(folder), target / HISTORY_GZ)
            print(f"{folder.name}: {len(records)} final games and the fitness of every generation -> {target}")
    for k in (3, 4):  # the fresh plays of every run, including runs only committed (committed-k{K}-run{R})
        for folder in sorted((args.out / "rapp_table").glob(f"*-k{k}-run*")):
            if (folder / "recheck.jsonl").exists():
                name = folder.name.removeprefix("evolved-").removeprefix("committed-")
                write_plays(read_plays(folder / "recheck.jsonl"), COMMITTED_EVOLVED / name / RECHECK_GZ)
                print(f"{folder.name}: fresh plays -> {COMMITTED_EVOLVED / name / RECHECK_GZ}")
    listing = args.out / "rapp_table" / "generated_games.json"
    if listing.exists():
        listed = json.loads(listing.read_text(encoding="utf-8"))
        write_gzip(json.dumps(listed, indent=1) + "\n", COMMITTED_GENERATED / "games.json.gz")
        print(f"{len(listed['games'])} generated games -> {COMMITTED_GENERATED / 'games.json.gz'}")
        plays = read_plays(args.out / "rapp_table" / "generated.jsonl")
        wanted = len(listed["games"]) * len(union(load_models())) * (len(union(load_models())) - 1) * args.matches
        if len(plays) >= wanted:  # a partial set of plays would give a row that is neither old nor new
            write_plays(plays, COMMITTED_GENERATED / "plays.jsonl.gz")
            print(f"{len(plays)} plays -> {COMMITTED_GENERATED / 'plays.jsonl.gz'}")
        else:
            print(f"generated plays not exported: {len(plays)} of {wanted} played (run `generated` to finish)")


HISTORY_GZ = "history.json.gz"
"""Per evolution run: the fitness evolution saved for every individual of every generation (its course)."""


def write_history(history: Sequence[Sequence[Individual]], path: Path) -> None:
    """Commit an evolution run's course: one list of saved fitness values per generation (gzipped, stable bytes)."""
    fitness = [[round(ind.result.fitness, 6) for ind in population] for population in history]
    write_gzip(json.dumps({"generations": fitness}) + "\n", path)


def history_lines(generations: int) -> list[str]:
    """Best and mean saved fitness at the first, middle and last generation of each run whose history is
    committed (``export`` writes it; runs before 2026-11-27 did not keep theirs)."""
    lines = []
    for path in sorted(COMMITTED_EVOLVED.glob(f"k*-run*/{HISTORY_GZ}")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            course = json.load(handle)["generations"]
        marks = sorted({0, len(course) // 2, len(course) - 1})
        lines.append(f"- {path.parent.name}: " + ", ".join(
            f"generation {g} best {max(course[g]):.3f} mean {_mean(course[g]):.3f}" for g in marks))
    return lines


def evolved_fitness(models: dict[int, RappModel], out: Path, generations: int) -> dict[int, list[float]]:
    """The fitness evolution saved for the final populations of the finished runs, per model."""
    return {k: [f for _, _, saved in finished_runs(out, k, generations) for f in saved] for k in models}


def stage_recheck(args: argparse.Namespace) -> None:
    """Play every finished run's final games again with fresh seeds: evolution keeps the games whose
    fitness *estimate* came out high, so the estimates it saved are biased upwards (winner's curse)."""
    machines = GameMachines("auto")
    for k, model in load_models().items():
        if args.k is not None and k != args.k:
            continue
        for folder, games, _ in finished_runs(args.out, k, args.generations):
            jobs = [job for game in games for job in round_robin(
                game_source(game), model.algorithms, matches_per_seat=args.matches, seed=RECHECK_SEED)]
            folder.mkdir(parents=True, exist_ok=True)
            run_jobs(jobs, make_player, machines, results_path=folder / "recheck.jsonl", workers=args.workers)
            print(f"{folder.name}: {len(games)} games re-measured ({len(jobs)} plays)")


def rechecked_fitness(models: dict[int, RappModel], out: Path, generations: int) -> dict[int, list[float]]:
    """The fitness of the finished runs' final games from the fresh plays of ``recheck``."""
    found: dict[int, list[float]] = {}
    for k, model in models.items():
        for folder, games, _ in finished_runs(out, k, generations):
            path = folder / "recheck.jsonl"
            if not path.exists():
                path = COMMITTED_EVOLVED / folder.name.removeprefix("evolved-").removeprefix("committed-") / RECHECK_GZ
            if not path.exists():
                continue
            grouped = by_game(read_plays(path))
            for game in games:
                key = game_source(game).key
                if key in grouped:
                    found.setdefault(k, []).append(report_game(key, grouped[key], model.algorithms, model).fitness.fitness)
    return found


TABLE_HEADER = "| Variant | games (3/4 algs) | 3 algs: Max | Avg | Promising | 4 algs: Max | Avg | Promising |"


def table_lines(out: Path, generations: int, promising: float) -> list[str]:
    """The Markdown table of docs/rapp_results.md (ours beside the paper's), then the example games one by one
    with the 3- and 4-algorithm models: from ``out`` where the stages ran there, else from the committed data
    (a variant with no data shows dashes)."""
    models = load_models()
    examples = example_fitness(models, out)
    rows = {
        "Example": {k: [r.fitness for r in v.values()] for k, v in examples.items()},
        "Generated": {k: [r.fitness for r in v.values()] for k, v in generated_fitness(models, out).items()},
        "Evolved": evolved_fitness(models, out, generations),
        "Evolved, fresh plays": rechecked_fitness(models, out, generations),
    }
    lines = [TABLE_HEADER, "|---|---|---|---|---|---|---|---|"]
    for variant, by_k in rows.items():
        count = "/".join(str(len(by_k.get(k, []))) for k in (3, 4))
        ours = " | ".join(summary(by_k.get(k, []), promising) for k in (3, 4))
        lines.append(f"| {variant} (ours) | {count} | {ours} |")
        if variant in PAPER:
            paper = " | ".join(f"{mx:.3f} | {avg:.3f} | {share:.0%}" for mx, avg, share in PAPER[variant])
            lines.append(f"| {variant} (paper) | | {paper} |")
    for k, results in examples.items():
        lines.append(f"\nExample games, {k}-algorithm model:")
        for game, result in results.items():
            interval = result.interval("fitness")
            shown = f" [{interval.low:.3f}, {interval.high:.3f}]" if interval else ""
            lines.append(f"- {game}: {result.fitness:.3f}{shown}, D {result.distance:.3f}, B {result.balance:.3f}, "
                         f"Q {result.quickness:.3f}{' (model game)' if game in models[k].games else ''}")
    return lines


def stage_table(args: argparse.Namespace) -> None:
    print(f"Promising: fitness >= {args.promising}. Avg with its 95% bootstrap interval; unplayable games count as 0. "
          f"Evolved: the final populations of the finished runs ({args.generations} generations).\n")
    print("\n".join(table_lines(args.out, args.generations, args.promising)))
    derived = derived_lines(load_models(), args.out, args.generations)
    if derived:
        print("\nGenerated games, derived (D, B, Q over playable games; f with unplayable ones as 0; without the "
              "generated plays only the pawn reach):")
        print("\n".join(derived))
    history = history_lines(args.generations)
    if history:
        print("\nEvolution runs' course (saved fitness of each generation's population):")
        print("\n".join(history))


def pawn_reach(game: SbgGame) -> float:
    """The reach of a game's white pawn (``P``): the mean number of squares it can move to from each square of
    an empty board, conditions taken as met (0 without a pawn)."""
    from ggp.translators.sbg.engine import SbgEngine
    from ggp.translators.sbg.minimax import reach

    return reach(SbgEngine(game), "P")


REACH_GROUPS = ((0.0, 1.5, "below 1.5"), (1.5, 3.0, "1.5-3"), (3.0, float("inf"), "3 and more"))
"""The pawn-reach groups of the generated games (docs/rapp_results.md)."""


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def measure_means(results: Sequence[rapp.RappResult]) -> str:
    """``D 0.240, B 0.260, Q 0.250, f 0.519 (n games)``: means over playable games; f counts unplayable ones as 0."""
    playable = [r for r in results if r.playable]
    parts = [f"{name} {_mean([getattr(r, attr) for r in playable]):.3f}"
             for name, attr in (("D", "distance"), ("B", "balance"), ("Q", "quickness"))]
    return f"{', '.join(parts)}, f {_mean([max(r.fitness, 0.0) for r in results]):.3f} ({len(results)} games)"


def derived_lines(models: dict[int, RappModel], out: Path, generations: int) -> list[str]:
    """The figures docs/rapp_results.md derives from the Generated row: mean D/B/Q against the examples', the
    generated games grouped by pawn reach and by parameter set, and pawn reach of generated against evolved games."""
    from ggp.translators.sbg.parser import parse_sbg

    listed = generated_games(out)
    if listed is None:
        return []
    games = {entry["key"]: (entry["params"], parse_sbg(entry["sbg"], entry["key"])) for entry in listed["games"]}
    reaches = {key: pawn_reach(game) for key, (_, game) in games.items()}
    generated = generated_fitness(models, out)
    examples = example_fitness(models, out) if generated else {}
    lines = []
    for k in (3, 4) if generated else ():
        lines.append(f"{k}-algorithm model: generated {measure_means(list(generated[k].values()))}; "
                     f"examples {measure_means(list(examples[k].values()))}")
        for low, high, name in REACH_GROUPS:
            group = [generated[k][key] for key, value in reaches.items() if low <= value < high]
            lines.append(f"- pawn reach {name}: {measure_means(group)}")
        for params in dict.fromkeys(params for params, _ in games.values()):
            group = [generated[k][key] for key, (p, _) in games.items() if p == params]
            lines.append(f"- parameter set {params}: {measure_means(group)}")
    evolved = [pawn_reach(game) for k in (3, 4) for _, final, _ in finished_runs(out, k, generations) for game in final]
    generated_reach = list(reaches.values())
    lines.append(f"Pawn reach: mean {_mean(evolved):.2f} in the {len(evolved)} final evolved games, "
                 f"{_mean(generated_reach):.2f} in the {len(generated_reach)} playable generated ones; reach >= 3: "
                 f"{np.mean([r >= 3 for r in evolved]):.0%} against {np.mean([r >= 3 for r in generated_reach]):.0%}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("stage", choices=("model", "generated", "evolved", "recheck", "export", "table"))
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--save", action="store_true", help="model: write the shipped 3- and 4-algorithm models")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--matches", type=int, default=10, help="plays per pairing and seat (the paper's m = 10)")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--run", type=int, default=None, help="evolved: only this run (to spread runs over processes)")
    parser.add_argument("--k", type=int, choices=(3, 4), default=None, help="evolved, recheck: only this model")
    parser.add_argument("--generations", type=int, default=20)
    parser.add_argument("--population", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--promising", type=float, default=0.8)
    args = parser.parse_args()
    random.seed(args.seed)
    {"model": stage_model, "generated": stage_generated, "evolved": stage_evolved, "recheck": stage_recheck,
     "export": stage_export, "table": stage_table}[args.stage](args)


if __name__ == "__main__":
    main()
