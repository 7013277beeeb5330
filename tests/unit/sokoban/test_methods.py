"""The generator registry and the PDB and MCTS methods: every level is solvable, through the API and the CLI."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ggp.cli import main
from ggp.errors import SokobanError
from ggp.translators.sokoban.candidates import GENERATOR_LIMITS, Generated, GenerationStats, accept
from ggp.translators.sokoban.level import level_to_text, parse_level, parse_levels
from ggp.translators.sokoban.methods import METHODS, GeneratorBug, MethodOptions, generate
from ggp.translators.sokoban.methods.layout import parse_layout, random_room
from ggp.translators.sokoban.methods.mcts import _block_cells, _congestion, _Game
from ggp.translators.sokoban.methods.mcts import search as mcts_search
from ggp.translators.sokoban.methods.pdb import PdbMemoryError, _Board, search
from ggp.translators.sokoban.metrics import measure
from ggp.translators.sokoban.moves import solves
from ggp.translators.sokoban.solver import solve_moves, solve_pushes
from tests.unit.sokoban.test_ppo import needs_rl

ROOM = """\
; a solved layout: two boxes on their goals
########
#      #
# *  # #
#  ## .#
#  @   #
########
"""

SMALL = {
    "sym": MethodOptions(width=5, height=5, boxes=2, keep_trivial=True),
    "pdb": MethodOptions(width=6, height=6, boxes=2, keep_trivial=True, expansions=300),
    "mcts": MethodOptions(width=5, height=5, boxes=2, keep_trivial=True, iterations=80),
}


@pytest.mark.parametrize("method", sorted(SMALL))
def test_every_method_yields_levels_the_optimal_solver_solves(method: str) -> None:
    stats = GenerationStats()
    found = generate(method, SMALL[method], count=2, seed=3, stats=stats)
    assert len(found) == 2 and stats.outcomes["accepted"] == 2
    for item in found:
        level = item.level
        assert item.level.title.startswith(method)
        assert parse_level(level_to_text(level)) == level
        assert solves(level, item.solution)
        by_moves, by_pushes = solve_moves(level), solve_pushes(level)
        assert by_moves is not None and by_pushes is not None
        assert (by_moves.length, by_pushes.pushes) == (item.difficulty.moves, item.difficulty.pushes)
        assert item.difficulty.moves <= len(item.solution)
    again = generate(method, SMALL[method], count=2, seed=3)
    assert [item.level for item in again] == [item.level for item in found]  # seeded


def test_the_registry_names_the_four_methods_and_refuses_others() -> None:
    assert sorted(METHODS) == ["mcts", "pdb", "ppo", "sym"]
    with pytest.raises(ValueError, match="unknown method 'ga'"):
        generate("ga", MethodOptions(), 1)


@pytest.mark.parametrize("method", ["pdb", "mcts"])
def test_without_keep_trivial_only_non_trivial_levels_come_out(method: str) -> None:
    options = MethodOptions(width=8, height=8, boxes=3, expansions=2000, iterations=300, max_attempts=40)
    if method == "mcts":  # MCTS rarely makes a non-trivial level: check the filter on what it does make
        options = MethodOptions(width=5, height=5, boxes=2, iterations=100, max_attempts=3)
    stats = GenerationStats()
    found = generate(method, options, count=1, seed=0, stats=stats)
    assert all(item.difficulty.non_trivial for item in found)
    assert stats.outcomes["accepted"] == len(found)
    if method == "pdb":
        assert len(found) == 1


# --- PDB ---

@pytest.mark.parametrize("variant", ["simple", "novelty", "compound"])
@pytest.mark.parametrize("pattern", [1, 2, 3, 5])
def test_pdb_heuristic_is_a_lower_bound_on_the_optimal_pushes(variant: str, pattern: int) -> None:
    layout = parse_layout(ROOM, "room.txt")
    result = search(layout, variant, pattern, expansions=400, memory_mb=64, rng=random.Random(pattern))  # type: ignore[arg-type]
    assert result.level is not None and result.stopped is None
    assert solves(result.level, result.solution)
    assert result.level.walls == layout.walls and result.level.goals == layout.goals
    pushes = solve_pushes(result.level)
    assert pushes is not None and 0 < result.estimate <= pushes.pushes


def test_pattern_databases_grow_tighter_with_k_and_the_full_pattern_ignores_only_the_player() -> None:
    layout = parse_layout(ROOM)
    board = _Board(layout, 2, 2**30)
    for seed in range(5):
        level = search(layout, "simple", 2, expansions=200, memory_mb=64, rng=random.Random(seed)).level
        assert level is not None
        boxes = sum(1 << board.bit(c) for c in level.boxes)
        h1, h2 = board.estimate(boxes, 1), board.estimate(boxes, 2)
        by_pushes = solve_pushes(level)
        assert by_pushes is not None and h1 <= h2 <= by_pushes.pushes


def test_pdb_memory_cap_stops_the_search_with_a_message_and_the_best_level_so_far() -> None:
    layout = random_room(8, 8, 3, random.Random(3))
    free = search(layout, "compound", 1, expansions=2000, memory_mb=256, rng=random.Random(0))
    assert free.stopped is None and free.expansions == 2000
    cap = free.peak_bytes / 2**20 / 4
    capped = search(layout, "compound", 1, expansions=2000, memory_mb=cap, rng=random.Random(0))
    assert capped.stopped is not None and "memory cap" in capped.stopped and "best level found so far" in capped.stopped
    assert capped.expansions < free.expansions and capped.peak_bytes > cap * 2**20
    assert capped.level is not None and solves(capped.level, capped.solution)
    with pytest.raises(PdbMemoryError, match=r"pattern database for k=\d needs more than the memory cap of 0.01 MB"):
        search(layout, "compound", 3, expansions=10, memory_mb=0.01, rng=random.Random(0))


def test_the_cli_generates_from_a_layout_file_and_reports_a_memory_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    room = tmp_path / "room.txt"
    room.write_text(ROOM)
    out = tmp_path / "levels.txt"
    assert main(["generate", "sokoban", "--method", "pdb", "--layout", str(room), "--variant", "novelty",
                 "--pattern", "2", "--keep-trivial", "--count", "2", "--out", str(out)]) == 0
    levels = parse_levels(out.read_text())
    assert len(levels) == 2 and all(level.title.startswith("pdb novelty k2 layout boxes 2") for level in levels)
    assert all(level.walls == parse_layout(ROOM).walls for level in levels)
    text = out.read_text()
    assert text.count("; PDB solution (") == 2 and "non-trivial" in text
    capsys.readouterr()
    assert main(["generate", "sokoban", "--method", "pdb", "--keep-trivial", "--memory-mb", "0.2",
                 "--pattern", "1", "--seed", "1", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "memory cap of 0.2 MB reached" in err and "returning the best level found so far" in err
    assert len(parse_levels(out.read_text())) == 1


# --- MCTS ---

def test_mcts_payout_follows_the_formula_on_a_hand_made_episode() -> None:
    game = _Game(4, 4, 1, (1, 1))
    game.obstacles = {(4, 1), (4, 2), (4, 3), (4, 4)}  # column 4 stays obstacle; the rest is floor
    game.apply(1000 + game.index((2, 2)))  # a box on (2, 2)
    assert 2000 in game.legal()
    game.apply(2000)  # freeze
    for action in (3001, 3003):  # down to (1, 2), then push the box right onto (3, 2)
        assert action in game.legal()
        game.apply(action)
    assert 3003 not in game.legal()  # the obstacle column blocks a second push
    assert (game.log, game.boxes) == (["d", "R"], [(3, 2)])
    # P_b: the 3x3 windows over columns 1-3 are all floor (12 cells); the other cells, column 4, count.
    # P_c: the rectangle from (2, 2) to (3, 2) (area 2, no obstacle) holds one start and one goal.
    assert game.payout() == pytest.approx((5 * 4 + 10 * (4 * 1 + 4 * 1) / (1 * (2 - 0)) + 1 * 1) / 50)
    made = game.level()
    assert made is not None and made[1] == "dR" and solves(*made)


def test_congestion_counts_starts_goals_and_obstacles_in_each_box_rectangle() -> None:
    # Box A from (1, 1) to (3, 2): a 3x2 rectangle with one obstacle, box B's start and both goals.
    # Box B from (2, 2) to (2, 3): a 1x2 rectangle holding its own start and goal only.
    starts, goals, walls = [(1, 1), (2, 2)], [(3, 2), (2, 3)], {(2, 1), (5, 5)}
    expected = (4 * 2 + 4 * 1) / (6 - 1) + (4 * 1 + 4 * 1) / (2 - 0)
    assert _congestion(starts, goals, walls) == pytest.approx(expected)
    assert _congestion([(1, 1)], [(1, 1)], walls) == 0  # a box back on its start adds nothing


def test_phase_two_forbids_walking_straight_back_and_evaluating_before_a_box_moved() -> None:
    game = _Game(4, 1, 1, (1, 1))
    game.obstacles = set()
    game.apply(1000 + game.index((3, 1)))
    game.apply(2000)
    assert game.legal() == [3003]  # right only; no evaluate while every box is on its start
    game.apply(3003)  # walk to (2, 1)
    assert game.legal() == [3003]  # walking back left would undo the step
    game.apply(3003)  # push the box onto (4, 1)
    assert game.log == ["r", "R"] and 3002 in game.legal() and 3004 in game.legal()  # back is fine after a push


def test_a_search_keeps_its_best_distinct_levels_from_every_episode() -> None:
    result = mcts_search(5, 5, 2, iterations=150, rng=random.Random(2), keep=6)
    payouts = [candidate.payout for candidate in result.levels]
    assert len(payouts) == 6 and payouts == sorted(payouts, reverse=True)
    assert (result.level, result.payout) == (result.levels[0].level, payouts[0])
    assert len({candidate.level for candidate in result.levels}) == 6
    assert all(solves(candidate.level, candidate.solution) for candidate in result.levels)
    assert result.mean_payout < payouts[-1]


def test_uniform_blocks_cover_their_nine_cells() -> None:
    walls = {(x, y) for x in range(1, 4) for y in range(1, 4)}
    assert _block_cells(walls, 5, 5) == walls  # every other window mixes walls and floor
    assert len(_block_cells(set(), 5, 5)) == 25


def test_the_cli_runs_mcts_with_an_iteration_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "levels.txt"
    assert main(["generate", "sokoban", "--method", "mcts", "--size", "5x5", "--boxes", "2", "--iterations", "60",
                 "--keep-trivial", "--count", "2", "--seed", "4", "--out", str(out)]) == 0
    levels = parse_levels(out.read_text())
    assert [level.title for level in levels] == [
        f"mcts 5x5 boxes 2 iterations 60 seed 4 attempt 0 rank {i}" for i in (1, 2)]
    assert out.read_text().count("; MCTS solution (") == 2
    assert "2 level(s) from 2 attempts" in capsys.readouterr().out


def test_mcts_without_keep_trivial_says_why_it_found_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "sokoban", "--method", "mcts", "--size", "4x4", "--boxes", "1", "--iterations", "40",
                 "--max-attempts", "2"]) == 1
    err = capsys.readouterr().err
    assert "only 0 of 1 levels found; MCTS's payout does not reward difficulty" in err
    assert "use --keep-trivial" in err and "--max-attempts" not in err


# --- the shared check and bad input ---

def test_a_level_its_generator_cannot_solve_or_the_solver_cannot_solve_is_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    level = parse_level("#####\n#@$.#\n#####\n")
    stats = GenerationStats()

    def check(solution: str) -> Generated | None:
        return accept(level, solution, keep_trivial=True, limits=GENERATOR_LIMITS, stats=stats, title="t", seed=0,
                      attempt=0)

    assert check("R") is not None
    with pytest.raises(GeneratorBug, match="own solution does not solve"):
        check("rR")

    def unsolvable(*_: object, **__: object) -> None:
        raise SokobanError("level has no solution")

    monkeypatch.setattr("ggp.translators.sokoban.candidates.measure", unsolvable)
    with pytest.raises(GeneratorBug, match="optimal solver finds no solution"):
        check("R")
    assert measure(level).pushes == 1


@pytest.mark.parametrize(("text", "where", "message"), [
    ("#######\n#     #\n#  @  #\n#######\n", "1:1", "layout has no goal"),
    ("; title\n#######\n# $ . #\n#  @  #\n#######\n", "3:3", "box off a goal"),
    ("#######\n# . . #\n#  +  #\n#######\n", "3:4", "player on a goal"),
    ("#######\n# . . #\n#     #\n#######\n", "1:1", "layout has no player"),
    ("#######\n# .@   \n#######\n", "2:7", "open layout"),
])
def test_a_bad_layout_file_gets_one_line_with_its_position_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str, message: str
) -> None:
    layout = tmp_path / "bad.txt"
    layout.write_text(text)
    out = tmp_path / "levels.txt"
    out.write_text("keep me\n")
    assert main(["generate", "sokoban", "--method", "pdb", "--layout", str(layout), "--out", str(out)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"ggp generate: {layout}:{where}: {message}")
    assert out.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "levels.txt"]


@pytest.mark.parametrize("method", ["sym", "pdb", "mcts"])
def test_more_boxes_than_floor_gets_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], method: str
) -> None:
    out = tmp_path / "levels.txt"
    assert main(["generate", "sokoban", "--method", method, "--size", "4x4", "--boxes", "16",
                 "--out", str(out)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("ggp generate: 16 boxes do not fit")
    assert not out.exists()


def test_a_layout_needs_the_pdb_method(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layout = tmp_path / "room.txt"
    layout.write_text(ROOM)
    assert main(["generate", "sokoban", "--method", "mcts", "--layout", str(layout)]) == 1
    assert capsys.readouterr().err == "ggp generate: --layout works only with --method pdb\n"


@needs_rl
def test_the_registry_runs_the_shipped_ppo_policy_at_its_own_size() -> None:
    stats = GenerationStats()
    (item,) = generate("ppo", MethodOptions(), count=1, seed=0, stats=stats)
    assert item.level.title.startswith("ppo turtle 5x5 seed 0")
    assert solves(item.level, item.solution) and measure(item.level) == item.difficulty
    assert stats.outcomes["accepted"] == 1 and stats.attempts >= 1
