"""Crossover, mutation and repair keep the RAPP restrictions; the novelty key ignores letter names."""

from __future__ import annotations

import dataclasses
import random

from ggp.generation.generator import assemble, check_generated, generate_game, white_rows
from ggp.generation.operators import (
    crossover,
    mutate_piece,
    mutate_position,
    novelty_key,
    repair,
    rules_of,
)
from ggp.generation.params import BUILTIN
from ggp.translators.sbg.model import PieceRule, SbgGame

from .restrictions import rapp_violations

P = BUILTIN["classic"]


def _games(count: int, seed: int = 0) -> list[SbgGame]:
    sets = list(BUILTIN.values())
    return [generate_game(random.Random(f"{seed}:{i}"), sets[i % 4], gdl=False) for i in range(count)]


def test_crossover_and_mutations_keep_the_restrictions() -> None:
    games = _games(8)
    rng = random.Random(5)
    for round_ in range(40):
        first, second = rng.sample(games, 2)
        child = crossover(rng, P, first, second, "Child")
        for op in (mutate_piece, mutate_position):
            if rng.random() < 0.6:
                child = op(rng, P, child)
        assert rapp_violations(child) == [], f"round {round_}: {rapp_violations(child)}"
        assert child.width == first.width and child.height == first.height


def test_crossover_keeps_the_first_parents_king_square_and_takes_squares_from_both() -> None:
    a, b = _games(2, seed=3)
    from_second = 0
    for seed in range(10):
        child = crossover(random.Random(seed), P, a, b, "C")
        back = white_rows(child)[0]
        assert back.index("K") == white_rows(a)[0].index("K")
        from_second += sum(1 for x, ch in enumerate(back) if x < len(white_rows(b)[0]) and ch == white_rows(b)[0][x]
                           and ch != white_rows(a)[0][x])
    assert from_second > 0


def test_each_type_inherits_the_rule_of_the_parent_that_supplied_it() -> None:
    a, b = _games(2, seed=4)
    rules_a, rules_b = rules_of(a), rules_of(b)
    for seed in range(10):
        child = crossover(random.Random(seed), P, a, b, "C")
        for rule in child.rules:
            assert rule.regex in (rules_a.get(rule.letter), rules_b.get(rule.letter)) or (
                rule.letter not in rules_a and rule.letter not in rules_b)
        assert rules_of(child)["K"] == rules_a["K"]


def test_crossover_with_itself_gives_back_the_same_position() -> None:
    (a,) = _games(1, seed=9)
    child = crossover(random.Random(1), P, a, a, a.name)
    assert novelty_key(child) == novelty_key(a)


def test_repair_restores_one_king_a_pawn_and_three_to_five_types() -> None:
    (a,) = _games(1)
    rules = rules_of(a)
    width = a.width
    for back, front in [("K" * width, "." * width), ("." * width, "K" * width), ("A" + "K" * (width - 1), "P" * width)]:
        game = repair(random.Random(0), P, "R", back, front, a.height, {**rules, "A": rules["K"]}, a.turn_limit)
        assert rapp_violations(game) == [], (back, front, rapp_violations(game))


def test_repair_merges_too_many_types() -> None:
    (a,) = _games(1)
    rules = {letter: rules_of(a)["K"] for letter in "ABCDEFGH"} | rules_of(a)
    back = ("KABCDEFGH" * 2)[: a.width]
    game = repair(random.Random(0), P, "R", back, "P" * a.width, a.height, rules, a.turn_limit)
    assert rapp_violations(game) == []


def test_piece_mutation_changes_exactly_one_rule() -> None:
    (a,) = _games(1, seed=2)
    for seed in range(5):
        child = mutate_piece(random.Random(seed), P, a)
        changed = [r.letter for r, s in zip(child.rules, a.rules) if r != s]
        assert len(changed) == 1 and white_rows(child) == white_rows(a)


def test_position_mutation_changes_one_square_and_never_the_king() -> None:
    (a,) = _games(1, seed=6)
    for seed in range(10):
        child = mutate_position(random.Random(seed), P, a)
        before, after = "".join(white_rows(a)), "".join(white_rows(child))
        diff = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
        assert 1 <= len(diff) <= 2  # a second square changes only when repair must add a type
        assert white_rows(child)[0].index("K") == white_rows(a)[0].index("K")


def test_bred_games_mostly_pass_the_sbg_checks() -> None:
    games = _games(6, seed=1)
    rng = random.Random(0)
    ok = 0
    for _ in range(20):
        first, second = rng.sample(games, 2)
        try:
            check_generated(mutate_piece(rng, P, crossover(rng, P, first, second, "C")), gdl=False)
            ok += 1
        except ValueError:
            pass
    assert ok >= 15


def _renamed(game: SbgGame, mapping: dict[str, str]) -> SbgGame:
    back, front = white_rows(game)
    table = str.maketrans(mapping)
    rules = {mapping.get(r.letter, r.letter): r.regex for r in game.rules}
    return assemble(game.name, back.translate(table), front, game.height, rules, game.turn_limit)


def test_novelty_key_ignores_letter_names_and_turn_limit_but_not_rules_or_position() -> None:
    (a,) = _games(1, seed=8)
    letters = sorted({ch for ch in white_rows(a)[0] if ch not in ".K"})
    free = [ch for ch in "ZYXWVUTS" if ch not in letters]
    renamed = _renamed(a, dict(zip(letters, free)))
    assert renamed != a and novelty_key(renamed) == novelty_key(a)
    assert novelty_key(dataclasses.replace(a, turn_limit=a.turn_limit + 1)) == novelty_key(a)
    reordered = dataclasses.replace(a, rules=tuple(reversed(a.rules)))
    assert novelty_key(reordered) == novelty_key(a)
    other_rule = dataclasses.replace(a, rules=(PieceRule("K", a.rules[1].regex), *a.rules[1:]))
    assert novelty_key(other_rule) != novelty_key(a)
    assert novelty_key(mutate_position(random.Random(0), P, a)) != novelty_key(a)
