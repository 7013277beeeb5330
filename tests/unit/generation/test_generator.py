"""Generated chess-like games always parse, keep the RAPP restrictions and translate to valid GDL."""

from __future__ import annotations

import os
import random

import pytest

from ggp.gdl.validator import validate
from ggp.generation.generator import check_generated, draw_game, generate_game, generate_games
from ggp.generation.params import BUILTIN
from ggp.translators.sbg.parser import parse_sbg
from ggp.translators.sbg.printer import to_sbg
from ggp.translators.sbg.to_gdl import translate

from .restrictions import rapp_violations

SEEDS = int(os.environ.get("GGP_SBG_GEN_SEEDS", "60"))
"""Seeds per run; set GGP_SBG_GEN_SEEDS=3000 for the long property run."""


def test_every_seed_gives_a_game_that_parses_keeps_the_restrictions_and_validates_as_gdl() -> None:
    sets = list(BUILTIN.values())
    for seed in range(SEEDS):
        params = sets[seed % len(sets)]
        game = generate_game(random.Random(seed), params, name=f"Seed {seed}")
        text = to_sbg(game)
        parsed = parse_sbg(text, "g.sbg")
        assert parsed == game, f"seed {seed}: round trip changed the game"
        assert not parsed.warnings, f"seed {seed}: {parsed.warnings}"
        assert rapp_violations(game) == [], f"seed {seed}: {rapp_violations(game)}"
        errors = [f for f in validate(translate(parsed)) if f.severity == "error"]
        assert errors == [], f"seed {seed}: {errors[:1]}"


def test_raw_draws_mostly_pass_without_retries() -> None:
    # The generator retries failures; make sure it is not hiding a generator that usually fails.
    ok = 0
    for seed in range(20):
        try:
            check_generated(draw_game(random.Random(seed), BUILTIN["compound"], "X"), gdl=False)
            ok += 1
        except ValueError:
            pass
    assert ok >= 18


def test_the_same_seed_gives_the_same_games_and_sets_are_cycled() -> None:
    first = [(g, p.name) for g, p in generate_games(4, 11, list(BUILTIN.values()), gdl=False)]
    again = [(g, p.name) for g, p in generate_games(4, 11, list(BUILTIN.values()), gdl=False)]
    assert first == again
    assert [name for _, name in first] == list(BUILTIN)
    assert len({to_sbg(g) for g, _ in first}) == 4


def test_parameter_sets_shape_the_rules() -> None:
    def riders(params_name: str) -> int:
        games = [generate_game(random.Random(seed), BUILTIN[params_name], gdl=False) for seed in range(8)]
        return sum(to_sbg(game).split("<PIECES>")[1].count("^*") for game in games)

    assert riders("riders") > riders("classic")


def test_sizes_of_a_parameter_set_are_respected() -> None:
    import dataclasses

    only_six = dataclasses.replace(BUILTIN["classic"], sizes=(6,))
    for seed in range(5):
        game = generate_game(random.Random(seed), only_six, gdl=False)
        assert (game.width, game.height) == (6, 6)


@pytest.mark.parametrize("name", ["Gen riders+ 3 1", "", "***"])
def test_names_are_cleaned_to_what_sbg_accepts(name: str) -> None:
    game = generate_game(random.Random(0), name=name, gdl=False)
    assert parse_sbg(to_sbg(game)).name == game.name
