"""Optimal solvers and difficulty metrics on levels whose optimal counts are known by hand."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from ggp.errors import SokobanError
from ggp.translators.sokoban.level import parse_level
from ggp.translators.sokoban.metrics import fill_ratio, measure
from ggp.translators.sokoban.moves import replay, solves
from ggp.translators.sokoban.solver import (
    Solution,
    SolverLimitError,
    SolverLimits,
    quick_moves,
    solve_moves,
    solve_pushes,
)
from tests.unit.sokoban.levels import DEAD, KNOWN, L1, L2, L3, Known


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: k.name)
def test_push_optimal_solution_has_the_known_push_count_and_solves(known: Known) -> None:
    level = parse_level(known.text)
    solution = solve_pushes(level)
    assert solution is not None
    assert solution.pushes == known.pushes
    assert solves(level, solution.moves)


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: k.name)
def test_move_optimal_solution_has_the_known_length_and_solves(known: Known) -> None:
    level = parse_level(known.text)
    solution = solve_moves(level)
    assert solution is not None
    assert solution.length == known.moves
    assert solves(level, solution.moves)


def test_a_box_stuck_in_a_corner_has_no_solution() -> None:
    level = parse_level(DEAD)
    assert solve_pushes(level) is None
    assert solve_moves(level) is None
    with pytest.raises(SokobanError, match="no solution"):
        measure(level)


def test_the_node_limit_raises_too_large_with_the_limit() -> None:
    level = parse_level(L3.text)
    with pytest.raises(SolverLimitError, match="too large: more than 5 search states"):
        solve_pushes(level, SolverLimits(max_nodes=5))
    with pytest.raises(SolverLimitError, match="too large: more than 5 search states"):
        solve_moves(level, SolverLimits(max_nodes=5))


def test_replay_rejects_walking_into_walls_and_wrong_push_case() -> None:
    level = parse_level(L1.text)
    with pytest.raises(SokobanError, match="wall"):
        replay(level, "l")
    with pytest.raises(SokobanError, match="pushes"):
        replay(level, "r")
    assert not solves(level, "x")


@pytest.mark.parametrize(
    ("known", "psh", "len_"),
    [(L1, 1 / 9, 1 / 15), (L2, 2 / 16, 9 / 36), (L3, 8 / 17, 33 / 42)],
    ids=lambda v: v.name if isinstance(v, Known) else "",
)
def test_psh_and_len_match_the_specification_table(known: Known, psh: float, len_: float) -> None:
    difficulty = measure(parse_level(known.text))
    assert difficulty.psh == pytest.approx(psh)
    assert difficulty.len == pytest.approx(len_)
    assert not difficulty.non_trivial


def test_fill_ratio_counts_walls_boxes_and_outside_cells() -> None:
    assert fill_ratio(parse_level(L2.text)) == pytest.approx(22 / 36)
    # 5x4 text: 13 walls, 4 outside cells (3 in row 0, the padded end of row 1), 1 box.
    assert fill_ratio(parse_level("  ##\n####\n#@$.#\n#####\n")) == pytest.approx((13 + 4 + 1) / 20)


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: k.name)
def test_quick_solutions_are_valid_upper_bounds_and_do_not_change_the_optimum(known: Known) -> None:
    level = parse_level(known.text)
    quick = quick_moves(level, weight=3)
    assert quick is not None and solves(level, quick.moves)
    assert quick.length >= known.moves and quick.pushes >= known.pushes
    bounded = solve_moves(level, known=quick)
    assert bounded is not None and bounded.length == known.moves


def test_translate_solve_reports_too_large_with_the_limit_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ggp.cli import main
    from ggp.translators.sokoban import solver

    # The command solves with the default limits; a tiny limit stands in for a huge level here.
    monkeypatch.setattr(solver, "solve_moves", functools.partial(solver.solve_moves, limits=SolverLimits(max_nodes=5)))
    source = tmp_path / "l3.txt"
    source.write_text("; L3\n" + L3.text)
    assert main(["translate", "sokoban", str(source), "--solve", "-o", str(tmp_path / "l3.kif")]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"ggp translate: {source}:2:1: too large: more than 5 search states"


ROOM = "##########\n#   .    #\n# $   $  #\n#  @   . #\n# .  $   #\n#        #\n##########\n"
"""An open room whose searches store far more than the 512 states between two clock checks."""


def test_the_time_limit_raises_too_large_with_the_limit() -> None:
    level = parse_level(ROOM)
    with pytest.raises(SolverLimitError, match=r"too large: more than 0 s of search"):
        solve_pushes(level, SolverLimits(max_seconds=0.0))
    with pytest.raises(SolverLimitError, match=r"too large: more than 0 s of search"):
        solve_moves(level, SolverLimits(max_seconds=0.0))


def test_generate_names_the_solver_limits_when_candidates_are_too_large(capsys: pytest.CaptureFixture[str]) -> None:
    from ggp.cli import main

    code = main(["generate", "sokoban", "--size", "6x6", "--boxes", "2", "--count", "1", "--keep-trivial",
                 "--max-attempts", "3", "--max-nodes", "1"])
    assert code == 1
    err = capsys.readouterr().err
    assert "3 candidate(s) were too large for the solver limits (1 search states, 20 s)" in err


_BACK = {"u": "d", "d": "u", "l": "r", "r": "l"}


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: k.name)
def test_a_known_solution_makes_a_bounded_check_that_keeps_the_optimum(known: Known) -> None:
    level = parse_level(known.text)
    optimal_moves, optimal_pushes = solve_moves(level), solve_pushes(level)
    assert optimal_moves is not None and optimal_pushes is not None
    # An optimal known solution comes back as it is: nothing shorter exists.
    again = solve_moves(level, known=optimal_moves)
    assert again is not None and again.moves == optimal_moves.moves
    pushes_again = solve_pushes(level, known=optimal_pushes)
    assert pushes_again is not None and pushes_again.pushes == known.pushes
    # A longer known solution (a step out and back first, where the player can step) is beaten.
    steps = [a for a in "udlr" if solves(level, a + _BACK[a] + optimal_moves.moves)]
    if not steps:
        return  # L1: the player's only move is the push
    detour = Solution(steps[0] + _BACK[steps[0]] + optimal_moves.moves, 0)
    by_moves, by_pushes = solve_moves(level, known=detour), solve_pushes(level, known=detour)
    assert by_moves is not None and by_moves.length == known.moves and solves(level, by_moves.moves)
    assert by_pushes is not None and by_pushes.pushes == known.pushes and solves(level, by_pushes.moves)


def test_searches_on_levels_in_turn_do_not_share_their_boards() -> None:
    # The solver keeps the last level's board for the next search on the same level object.
    levels = [parse_level(known.text) for known in (L2, L3, L2)]
    for level, known in zip(levels, (L2, L3, L2)):
        by_moves, by_pushes = solve_moves(level), solve_pushes(level)
        assert by_moves is not None and by_pushes is not None
        assert (by_moves.length, by_pushes.pushes) == (known.moves, known.pushes)


def test_the_bounded_check_raises_too_large_with_the_limit() -> None:
    level = parse_level(ROOM)
    known = quick_moves(level)
    assert known is not None
    with pytest.raises(SolverLimitError, match="too large: more than 5 search states"):
        solve_moves(level, SolverLimits(max_nodes=5), known=known)
    with pytest.raises(SolverLimitError, match=r"too large: more than 0 s of search"):
        solve_moves(level, SolverLimits(max_seconds=0.0), known=known)
