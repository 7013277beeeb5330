"""Evolution with a cheap stand-in fitness: it improves, saves every generation, resumes exactly."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from ggp.errors import InputError, SbgError
from ggp.evaluation.rapp import RappResult
from ggp.generation.evolution import (
    Evolution,
    EvolutionConfig,
    Individual,
    load_run,
    pareto_front,
    roulette,
    survivors,
)
from ggp.generation.generator import generate_game
from ggp.generation.operators import novelty_key
from ggp.generation.params import BUILTIN
from ggp.translators.sbg.model import SbgGame
from ggp.translators.sbg.printer import to_sbg

from .restrictions import rapp_violations


def letter_variety(game: SbgGame, *, seed: int) -> float:
    """Stand-in fitness: distinct move letters in the rules, squashed into [0, 1)."""
    distinct = len({part for part in to_sbg(game).split("<PIECES>")[1].split("<GOALS>")[0].split("(") if "," in part})
    return distinct / (distinct + 40)


def _config(**changes: object) -> EvolutionConfig:
    base = {"population": 5, "generations": 4, "seed": 3, "params": (BUILTIN["classic"], BUILTIN["riders"]),
            "gdl_check": False}
    return EvolutionConfig(**{**base, **changes})  # type: ignore[arg-type]


def test_evolution_improves_the_best_fitness_and_keeps_the_restrictions() -> None:
    history = Evolution(_config(), letter_variety).run()
    best = [max(ind.fitness for ind in population) for population in history]
    assert len(history) == 5
    assert all(b2 >= b1 for b1, b2 in itertools.pairwise(best))  # elitism
    assert best[-1] > best[0]
    for population in history:
        assert len(population) == 5
        assert len({novelty_key(ind.game) for ind in population}) == 5
        assert all(rapp_violations(ind.game) == [] for ind in population)
    assert any("crossover" in ind.origin for ind in history[-1])


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = Evolution(_config(), letter_variety, tmp_path / "whole").run()
    Evolution(_config(generations=2), letter_variety, tmp_path / "split").run()
    assert len(load_run(tmp_path / "split")) == 3
    resumed = Evolution(_config(), letter_variety, tmp_path / "split").run(resume=True)
    assert [[(i.game, i.fitness) for i in p] for p in resumed] == [[(i.game, i.fitness) for i in p] for p in whole]
    saved = json.loads((tmp_path / "split" / "gen_0004" / "population.json").read_text())
    assert [r["fitness"] for r in saved["individuals"]] == [i.fitness for i in whole[-1]]
    assert (tmp_path / "split" / "gen_0004" / saved["individuals"][0]["file"]).is_file()


def test_resuming_with_a_different_seed_is_refused(tmp_path: Path) -> None:
    Evolution(_config(generations=0), letter_variety, tmp_path).run()
    with pytest.raises(InputError, match="cannot resume: seed was 3, now 4"):
        Evolution(_config(seed=4), letter_variety, tmp_path).run(resume=True)


def test_an_unfinished_generation_is_recomputed(tmp_path: Path) -> None:
    Evolution(_config(generations=1), letter_variety, tmp_path).run()
    (tmp_path / "gen_0001" / "population.json").unlink()
    assert len(load_run(tmp_path)) == 1
    history = Evolution(_config(generations=1), letter_variety, tmp_path).run(resume=True)
    assert len(history) == 2 and (tmp_path / "gen_0001" / "population.json").is_file()


def test_a_fitness_that_raises_makes_the_game_unplayable_with_weight_zero() -> None:
    calls = []

    def picky(game: SbgGame, *, seed: int) -> RappResult:
        calls.append(seed)
        if game.width == 6:
            raise SbgError("engine error")
        return RappResult(0.5)

    history = Evolution(_config(generations=1), picky).run()
    assert calls and all(isinstance(s, int) for s in calls)
    for ind in history[0]:
        assert ind.fitness == (-1.0 if ind.game.width == 6 else 0.5)
        assert ind.result.reason == ("engine error" if ind.game.width == 6 else "")


def _individual(fitness: float, seed: int, nld: int | None = None) -> Individual:
    game = generate_game(random.Random(seed), gdl=False)
    return Individual(game, RappResult(fitness), "random", "classic", nld)


def test_roulette_never_picks_an_unplayable_or_zero_game_when_others_score() -> None:
    population = [_individual(-1.0, 1), _individual(0.0, 2), _individual(0.8, 3)]
    rng = random.Random(0)
    assert {roulette(rng, population).fitness for _ in range(50)} == {0.8}
    everyone_bad = [_individual(-1.0, 1), _individual(-1.0, 2)]
    assert len({id(roulette(rng, everyone_bad)) for _ in range(50)}) == 2


def test_survivors_are_the_best_and_drop_near_duplicates() -> None:
    a, b, c = _individual(0.3, 1), _individual(0.9, 2), _individual(0.5, 3)
    twin = Individual(a.game, RappResult(0.95), "copy", "classic")
    assert [i.fitness for i in survivors([a, b, c, twin], 3)] == [0.95, 0.9, 0.5]


def test_pareto_front_keeps_the_non_dominated_games() -> None:
    front = pareto_front([_individual(0.9, 1, 300), _individual(0.5, 2, 100), _individual(0.4, 3, 200),
                          _individual(0.9, 4, 250)])
    assert [(i.fitness, i.nld) for i in front] == [(0.9, 250), (0.5, 100)]


def test_nld_is_scored_when_asked() -> None:
    history = Evolution(_config(generations=0, nld=True), letter_variety).run()
    assert all(isinstance(ind.nld, int) and ind.nld > 0 for ind in history[0])
