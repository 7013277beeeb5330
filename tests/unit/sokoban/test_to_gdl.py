"""Sokoban to GDL: the description's shape, KIF round trip, validation, and play under clingo."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.gdl.parser import parse_kif
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Const, Description, Func
from ggp.gdl.validator import validate
from ggp.translators.sokoban.generator import SymSettings, generate
from ggp.translators.sokoban.level import parse_level
from ggp.translators.sokoban.to_gdl import default_horizon, translate
from tests.unit.sokoban.levels import KNOWN, L2, L3, Known


def _facts(game: Description, name: str) -> list[Func]:
    return [r.head for r in game.rules if r.is_fact and isinstance(r.head, Func) and r.head.name == name]


def _coords(term: Func) -> set[tuple[int, int]]:
    numbers = [int(str(a)) for a in term.args if isinstance(a, Const) and str(a).isdigit()]
    return {(numbers[i], numbers[i + 1]) for i in range(0, len(numbers) - 1, 2)}


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: k.name)
def test_translation_prints_parses_back_equal_and_validates(known: Known) -> None:
    game = translate(parse_level(known.text))
    assert parse_kif(to_kif(game)) == game
    assert [f for f in validate(game, strict=True) if f.severity == "error"] == []


def test_only_interior_cells_appear_as_coordinates() -> None:
    level = parse_level(L3.text)
    game = translate(level)
    floor = _facts(game, "floor")
    assert {(int(str(f.args[0])), int(str(f.args[1]))) for f in floor} == level.floor
    for fact in _facts(game, "nb") + _facts(game, "target"):
        assert _coords(fact) <= level.floor
    # L3's 14 interior cells have 9 horizontal and 10 vertical adjacencies, each in both directions.
    assert len(_facts(game, "nb")) == 38


def test_the_step_limit_defaults_to_four_w_h_or_twice_a_known_solution() -> None:
    level = parse_level(L2.text)
    assert default_horizon(level) == 4 * 6 * 6
    assert default_horizon(level, solution_length=9) == 18
    game = translate(level, solution_length=9)
    assert _facts(game, "horizon") == [Func("horizon", (Const("18"),))]
    assert len(_facts(game, "succ")) == 18
    assert len([f for f in _facts(game, "base") if str(f).startswith("(base (step")]) == 19
    assert _facts(translate(level, 7), "horizon") == [Func("horizon", (Const("7"),))]
    with pytest.raises(ValueError, match="at least 1"):
        translate(level, 0)


def test_init_base_and_input_describe_the_level() -> None:
    level = parse_level(L2.text)
    game = translate(level)
    assert {str(f) for f in _facts(game, "init")} == {
        "(init (pos 3 4))", "(init (box 2 2))", "(init (box 3 2))", "(init (step 0))"
    }
    assert {str(f) for f in _facts(game, "input")} == {
        f"(input player (move {d}))" for d in ("up", "down", "left", "right")
    }
    assert len(_facts(game, "base")) == 2 * len(level.floor) + default_horizon(level) + 1
    assert game.roles == (Const("player"),)


def test_generated_levels_translate_and_round_trip() -> None:
    for item in generate(SymSettings(width=5, height=5, boxes=2, forward=12, backward=8), 3, seed=2, keep_trivial=True):
        game = translate(item.level, solution_length=len(item.solution))
        assert parse_kif(to_kif(game)) == game


def test_cli_translates_one_level_of_a_file(tmp_path: Path) -> None:
    from ggp.cli import main

    source = tmp_path / "set.txt"
    source.write_text("; one\n" + L2.text + "\n; two\n" + L3.text)
    out = tmp_path / "l3.kif"
    assert main(["translate", "sokoban", str(source), "--level", "2", "--step-limit", "40", "-o", str(out)]) == 0
    game = parse_kif(out.read_text())
    assert game == translate(parse_level(L3.text), 40)
    assert main(["translate", "sokoban", str(source), "--level", "3", "-o", str(out)]) == 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), boxes=st.integers(1, 3))
def test_translations_of_generated_levels_always_validate(seed: int, boxes: int) -> None:
    sym = SymSettings(width=5, height=4, boxes=boxes, forward=10, backward=6)
    for item in generate(sym, 1, seed, keep_trivial=True):
        game = translate(item.level, solution_length=len(item.solution))
        assert [f for f in validate(game, strict=True) if f.severity == "error"] == []
        assert parse_kif(to_kif(game)) == game


def test_cli_solve_sets_the_horizon_to_twice_the_optimal_length(tmp_path: Path) -> None:
    from ggp.cli import main

    source = tmp_path / "l2.txt"
    source.write_text(L2.text)
    out = tmp_path / "l2.kif"
    assert main(["translate", "sokoban", str(source), "--solve", "-o", str(out)]) == 0
    assert _facts(parse_kif(out.read_text()), "horizon") == [Func("horizon", (Const(str(2 * L2.moves)),))]
