"""Evolution of chess-like SBG games by RAPP fitness (spec rapp.md §6), with saved, resumable generations.

One run: generation 0 is ``population`` random games (cycling through the parameter sets); each later
generation breeds ``population`` children — two parents by roulette wheel (weight = fitness,
unplayable games weight 0; uniform when every weight is 0), :func:`~.operators.crossover`, then each of
:func:`~.operators.mutate_piece` and :func:`~.operators.mutate_position` with the parameter set's
``mutation_rate`` — and keeps the best ``population`` of parents ∪ children (elitism; parents first
on equal fitness). A child that fails :func:`~.generator.check_generated` or repeats a game already in
the population or among this generation's children (:func:`~.operators.novelty_key`) is bred again;
after 50 failed tries a fresh random game takes its place.

Generation g draws all its randomness from ``Random(f"{seed}:gen:{g}")``, and fitness seeds come
from that generator, so a run resumed from its last saved generation continues exactly like one
that was never stopped. Each generation is saved as ``gen_NNNN/`` holding one ``.sbg`` file per
individual and ``population.json`` (written last, atomically), so a half-written generation is
simply recomputed.

The fitness is a parameter: any ``fitness(game, *, seed) -> RappResult | float``; exceptions that are
GgpError or ValueError make the game unplayable (fitness -1) with the message as reason.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ggp.errors import GgpError, InputError, SbgError
from ggp.evaluation.rapp import RappResult
from ggp.generation.generator import check_generated, generate_game
from ggp.generation.operators import crossover, mutate_piece, mutate_position, novelty_key
from ggp.generation.params import BUILTIN, GenParams
from ggp.translators.sbg.model import SbgGame

log = logging.getLogger(__name__)

BREED_TRIES = 50
POPULATION_FILE = "population.json"


class Fitness(Protocol):
    """A game's RAPP fitness (or any score in [0, 1], -1 = unplayable) for a given random seed."""

    def __call__(self, game: SbgGame, *, seed: int) -> RappResult | float: ...


@dataclass(frozen=True, slots=True)
class Individual:
    """A game with its evaluation; ``origin`` says how it was made, ``params`` which set bred it."""

    game: SbgGame
    result: RappResult
    origin: str
    params: str
    nld: int | None = None

    @property
    def fitness(self) -> float:
        return self.result.fitness


@dataclass(frozen=True, slots=True)
class EvolutionConfig:
    """Size and seed of a run; ``nld`` also scores every game with f_NLD (second objective)."""

    population: int = 10
    generations: int = 20
    seed: int = 0
    params: tuple[GenParams, ...] = field(default_factory=lambda: tuple(BUILTIN.values()))
    gdl_check: bool = True
    nld: bool = False

    def check(self) -> EvolutionConfig:
        if self.population < 2:
            raise InputError(f"population must be at least 2, got {self.population}")
        if self.generations < 0:
            raise InputError(f"generations must be >= 0, got {self.generations}")
        if not self.params:
            raise InputError("at least one parameter set is needed")
        return self


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress report: ``done`` of ``total`` evaluations finished in ``generation``."""

    generation: int
    done: int
    total: int
    best: float
    mean: float


ProgressFn = Callable[[Progress], None]


def evaluate_fitness(fitness: Fitness, game: SbgGame, seed: int) -> RappResult:
    """Call the fitness; a float becomes a RappResult, a GgpError/ValueError an unplayable verdict."""
    try:
        value = fitness(game, seed=seed)
    except (GgpError, ValueError) as exc:
        log.warning("game %r is unplayable: %s", game.name, exc)
        return RappResult(-1.0, reason=str(exc))
    return value if isinstance(value, RappResult) else RappResult(float(value))


def _nld(game: SbgGame, enabled: bool) -> int | None:
    if not enabled:
        return None
    from ggp.generation.nld import game_nld

    return game_nld(game).value


def roulette(rng: random.Random, population: Sequence[Individual]) -> Individual:
    """Pick one individual with probability proportional to max(fitness, 0); uniform if all are 0."""
    weights = [max(ind.fitness, 0.0) for ind in population]
    if sum(weights) <= 0:
        return rng.choice(list(population))
    return rng.choices(list(population), weights=weights, k=1)[0]


def survivors(pool: Sequence[Individual], n: int) -> list[Individual]:
    """The best n of the pool by fitness (stable: earlier entries win ties), one per novelty key."""
    seen: set[tuple[object, ...]] = set()
    kept: list[Individual] = []
    for ind in sorted(pool, key=lambda ind: -ind.fitness):
        key = novelty_key(ind.game)
        if key not in seen:
            seen.add(key)
            kept.append(ind)
    return kept[:n]


class Evolution:
    """One run writing its generations under ``out`` (or nowhere when ``out`` is None)."""

    def __init__(self, config: EvolutionConfig, fitness: Fitness, out: Path | None = None,
                 progress: ProgressFn | None = None) -> None:
        self.config = config.check()
        self.fitness = fitness
        self.out = out
        self.progress = progress
        self.params = {p.name: p for p in config.params}

    # --- breeding ------------------------------------------------------------------------------

    def _fresh(self, rng: random.Random, generation: int, index: int) -> Individual:
        params = self.config.params[index % len(self.config.params)]
        name = f"Evo {self.config.seed} g{generation} i{index}"
        game = generate_game(rng, params, name=name, gdl=self.config.gdl_check)
        return self._scored(rng, game, "random", params.name)

    def _scored(self, rng: random.Random, game: SbgGame, origin: str, params: str) -> Individual:
        result = evaluate_fitness(self.fitness, game, rng.getrandbits(31))
        return Individual(game, result, origin, params, _nld(game, self.config.nld))

    def _child(self, rng: random.Random, parents: Sequence[Individual], generation: int, index: int,
               seen: set[tuple[object, ...]]) -> Individual:
        name = f"Evo {self.config.seed} g{generation} i{index}"
        for _ in range(BREED_TRIES):
            first, second = roulette(rng, parents), roulette(rng, parents)
            params = self.params.get(first.params, self.config.params[0])
            child = crossover(rng, params, first.game, second.game, name)
            origin = ["crossover"]
            if rng.random() < params.mutation_rate:
                child, origin = mutate_piece(rng, params, child), origin + ["piece"]
            if rng.random() < params.mutation_rate:
                child, origin = mutate_position(rng, params, child), origin + ["position"]
            key = novelty_key(child)
            if key in seen:
                continue
            try:
                child = check_generated(child, gdl=self.config.gdl_check)
            except SbgError as exc:
                log.debug("bred game rejected: %s", exc)
                continue
            seen.add(key)
            return self._scored(rng, child, "+".join(origin), params.name)
        fresh = self._fresh(rng, generation, index)
        seen.add(novelty_key(fresh.game))
        return fresh

    def _report(self, generation: int, done: int, total: int, scored: Sequence[Individual]) -> None:
        if self.progress is not None and scored:
            values = [ind.fitness for ind in scored]
            self.progress(Progress(generation, done, total, max(values), sum(values) / len(values)))

    def initial(self) -> list[Individual]:
        """Generation 0: random games, one novelty key each."""
        rng = random.Random(f"{self.config.seed}:gen:0")
        population: list[Individual] = []
        seen: set[tuple[object, ...]] = set()
        index = 0
        while len(population) < self.config.population:
            if index >= BREED_TRIES * self.config.population:
                raise SbgError(f"only {len(population)} distinct games after {index} random draws")
            ind = self._fresh(rng, 0, index)
            index += 1
            key = novelty_key(ind.game)
            if key in seen:
                continue
            seen.add(key)
            population.append(ind)
            self._report(0, len(population), self.config.population, population)
        return survivors(population, self.config.population)

    def step(self, parents: Sequence[Individual], generation: int) -> list[Individual]:
        """Breed one generation from ``parents`` and return the survivors."""
        rng = random.Random(f"{self.config.seed}:gen:{generation}")
        seen = {novelty_key(ind.game) for ind in parents}
        children: list[Individual] = []
        for index in range(self.config.population):
            children.append(self._child(rng, parents, generation, index, seen))
            self._report(generation, index + 1, self.config.population, children)
        return survivors([*parents, *children], self.config.population)

    # --- the run -------------------------------------------------------------------------------

    def run(self, *, resume: bool = False) -> list[list[Individual]]:
        """Run (or continue) the evolution; returns every generation's population, best first."""
        history: list[list[Individual]] = []
        if resume and self.out is not None:
            history = load_run(self.out)
            if self.config.nld:
                # Generations saved without f_NLD get it now, so the Pareto front covers them.
                history = [[ind if ind.nld is not None else dataclasses.replace(ind, nld=_nld(ind.game, True))
                            for ind in population] for population in history]
        if self.out is not None:
            self._write_config()
        if not history:
            history.append(self.initial())
            self._save(0, history[0])
        for generation in range(len(history), self.config.generations + 1):
            history.append(self.step(history[-1], generation))
            self._save(generation, history[-1])
        return history

    def _write_config(self) -> None:
        assert self.out is not None
        self.out.mkdir(parents=True, exist_ok=True)
        config = {
            "population": self.config.population, "generations": self.config.generations,
            "seed": self.config.seed, "params": [p.name for p in self.config.params], "nld": self.config.nld,
        }
        path = self.out / "run.json"
        if path.exists():
            old = json.loads(path.read_text(encoding="utf-8"))
            for key in ("population", "seed", "params"):
                if old.get(key) != config[key]:
                    raise InputError(f"cannot resume: {key} was {old.get(key)!r}, now {config[key]!r}",)
        path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")

    def _save(self, generation: int, population: Sequence[Individual]) -> None:
        if self.out is not None:
            save_generation(self.out / f"gen_{generation:04d}", generation, population)


def _result_json(result: RappResult) -> dict[str, object]:
    return {"fitness": result.fitness, "distance": result.distance, "balance": result.balance,
            "quickness": result.quickness, "reason": result.reason}


def individual_json(ind: Individual, file: str) -> dict[str, object]:
    """The JSON record of one individual (its game lives in ``file``)."""
    return {"file": file, "name": ind.game.name, **_result_json(ind.result), "origin": ind.origin,
            "params": ind.params, "nld": ind.nld}


def save_generation(folder: Path, generation: int, population: Sequence[Individual]) -> None:
    """Write the SBG files, then ``population.json`` via a temporary file and an atomic rename."""
    from ggp.translators.sbg.printer import to_sbg

    folder.mkdir(parents=True, exist_ok=True)
    records = []
    for rank, ind in enumerate(population):
        file = f"{rank:03d}.sbg"
        (folder / file).write_text(to_sbg(ind.game), encoding="utf-8")
        records.append(individual_json(ind, file))
    temporary = folder / (POPULATION_FILE + ".tmp")
    temporary.write_text(json.dumps({"generation": generation, "individuals": records}, indent=2) + "\n",
                         encoding="utf-8")
    os.replace(temporary, folder / POPULATION_FILE)


def load_generation(folder: Path) -> list[Individual]:
    """Read back a saved generation; raises InputError if a file is missing or does not parse."""
    from ggp.translators.sbg.parser import parse_sbg

    path = folder / POPULATION_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        population = []
        for record in data["individuals"]:
            sbg = folder / record["file"]
            game = parse_sbg(sbg.read_text(encoding="utf-8"), str(sbg))
            result = RappResult(float(record["fitness"]), record.get("distance"), record.get("balance"),
                                record.get("quickness"), record.get("reason", ""))
            population.append(Individual(game, result, record.get("origin", ""), record.get("params", ""),
                                         record.get("nld")))
    except (OSError, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read saved generation {str(folder)!r}: {exc}") from exc
    return population


def load_run(out: Path) -> list[list[Individual]]:
    """Every complete saved generation of a run, in order (stops at the first gap or unfinished one)."""
    history: list[list[Individual]] = []
    while (out / f"gen_{len(history):04d}" / POPULATION_FILE).is_file():
        history.append(load_generation(out / f"gen_{len(history):04d}"))
    return history


def pareto_front(population: Sequence[Individual]) -> list[Individual]:
    """Individuals not dominated in (maximise fitness, minimise f_NLD); needs ``nld`` on every one."""
    scored = [ind for ind in population if ind.nld is not None]

    def dominates(a: Individual, b: Individual) -> bool:
        assert a.nld is not None and b.nld is not None
        return a.fitness >= b.fitness and a.nld <= b.nld and (a.fitness > b.fitness or a.nld < b.nld)

    front = [ind for ind in scored if not any(dominates(other, ind) for other in scored)]
    return sorted(front, key=lambda ind: (-ind.fitness, ind.nld))
