"""PPO / PCGRL Sokoban: the environment's rules on hand-made boards, training and generation end to end,
and the errors for a missing rl extra and a corrupt policy file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from ggp.cli import main
from ggp.errors import GgpError, SokobanError
from ggp.translators.sokoban.level import parse_levels
from ggp.translators.sokoban.methods.ppo import DEFAULT_POLICY, PpoStats, generate_ppo, load_policy, require_rl, train
from ggp.translators.sokoban.methods.ppo_env import (
    BOX,
    EMPTY,
    GOAL,
    PLAYER,
    WALL,
    WEIGHTS,
    BoardStats,
    PcgrlSokoban,
    board_stats,
    reward_terms,
)
from ggp.translators.sokoban.metrics import measure
from ggp.translators.sokoban.moves import solves
from tests.prerequisites import needs


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken install or a module blocked in sys.modules
        return False


RL_INSTALLED = all(_installed(name) for name in ("torch", "gymnasium", "stable_baselines3"))
needs_rl = needs(RL_INSTALLED, "the rl extra (torch, gymnasium, stable-baselines3) is not installed")

RNG = np.random.default_rng(0)

# A 5x5 board: player, box and goal in a row inside an empty room; solved by one push.
ONE_PUSH = np.array([
    [WALL, WALL, WALL, WALL, WALL],
    [WALL, EMPTY, EMPTY, EMPTY, WALL],
    [WALL, PLAYER, BOX, GOAL, WALL],
    [WALL, EMPTY, EMPTY, EMPTY, WALL],
    [WALL, WALL, WALL, WALL, WALL],
])


def _rules(representation: str, board: np.ndarray, cursor: tuple[int, int] = (0, 0)) -> PcgrlSokoban:
    rules = PcgrlSokoban(representation, 5, 5)  # type: ignore[arg-type]
    rules.reset(RNG, board, cursor)
    return rules


# --- the rules, no rl extra needed ---

def test_board_stats_count_tiles_regions_and_solve_the_level() -> None:
    assert board_stats(ONE_PUSH) == BoardStats(players=1, boxes=1, goals=1, regions=1, solution=1)
    split = ONE_PUSH.copy()
    split[1:4, 2] = WALL  # a wall column cuts the room: two regions, no level, no solution
    assert board_stats(split) == BoardStats(players=1, boxes=0, goals=1, regions=2, solution=0)


def test_an_unsolvable_level_has_solution_length_zero() -> None:
    cornered = ONE_PUSH.copy()
    cornered[2, 1], cornered[2, 2], cornered[1, 1] = EMPTY, PLAYER, BOX  # the box moved into a corner
    stats = board_stats(cornered)
    assert (stats.players, stats.boxes, stats.goals, stats.regions, stats.solution) == (1, 1, 1, 1, 0)


def test_each_count_term_pays_the_distance_gained_towards_its_range() -> None:
    empty = BoardStats(players=0, boxes=0, goals=0, regions=3, solution=0)
    better = BoardStats(players=2, boxes=3, goals=1, regions=1, solution=0)
    terms = reward_terms(empty, better)
    # players 0 -> 2 stays one away from 1; boxes/goals reach >= 1; |boxes - goals| grows 0 -> 2.
    assert terms == {"validity": 2.0, "player": 0.0, "boxes": 1.0, "goals": 1.0, "proportion": -2.0, "solution": 0.0}
    assert reward_terms(better, empty) == {name: -value for name, value in terms.items()}


def test_writing_the_missing_player_pays_player_and_solution_terms() -> None:
    no_player = ONE_PUSH.copy()
    no_player[2, 1] = EMPTY
    rules = _rules("turtle", no_player, cursor=(1, 2))
    result = rules.step((4 + PLAYER,))  # turtle: actions 0..3 move, 4.. write a tile
    assert result.changed and result.stats.solution == 1
    assert result.reward == WEIGHTS["player"] * 1 + WEIGHTS["solution"] * 1


def test_turtle_moves_the_cursor_and_stops_at_the_edge_without_changes() -> None:
    rules = _rules("turtle", ONE_PUSH, cursor=(0, 0))
    for action, cursor in [(0, (0, 0)), (2, (0, 0)), (1, (1, 0)), (3, (1, 1))]:
        result = rules.step((action,))
        assert rules.cursor == cursor and not result.changed and result.reward == 0.0
    assert rules.changes == 0


def test_narrow_scans_the_cells_in_order_and_action_zero_changes_nothing() -> None:
    rules = _rules("narrow", ONE_PUSH, cursor=(4, 0))
    assert not rules.step((0,)).changed and rules.cursor == (0, 1)
    result = rules.step((1 + WALL,))  # (0, 1) is already a wall: written but not a change
    assert not result.changed and rules.cursor == (1, 1) and rules.changes == 0
    assert rules.step((1 + GOAL,)).changed and rules.board[1, 1] == GOAL and rules.cursor == (2, 1)


def test_wide_writes_any_cell() -> None:
    rules = _rules("wide", ONE_PUSH)
    result = rules.step((3, 1, BOX))  # a second box: proportion and validity of counts worsen
    assert result.changed and rules.board[1, 3] == BOX
    assert result.reward == WEIGHTS["proportion"] * -1 + WEIGHTS["solution"] * -1


def test_the_episode_ends_at_the_change_limit() -> None:
    rules = _rules("wide", np.full((5, 5), EMPTY))
    assert rules.max_changes == 5  # 20% of 25 cells
    for i in range(4):
        assert not rules.step((i, 0, WALL)).terminated
    assert not rules.step((0, 0, WALL)).terminated  # rewriting the same tile is no change
    assert rules.changes == 4
    assert rules.step((4, 0, WALL)).terminated


@pytest.mark.parametrize(("target", "ends"), [(3, True), (4, False)])
def test_reaching_the_target_solution_length_ends_the_episode(target: int, ends: bool) -> None:
    corridor = np.full((5, 5), WALL)
    corridor[2, :] = [PLAYER, BOX, EMPTY, EMPTY, EMPTY]
    rules = PcgrlSokoban("turtle", 5, 5, target_solution=target)
    rules.reset(RNG, corridor, (4, 2))
    result = rules.step((4 + GOAL,))  # a goal at the corridor's end: three pushes right
    assert result.changed and result.stats.solution == 3 and rules.changes < rules.max_changes
    assert result.terminated is ends


def test_steps_without_changes_end_at_the_iteration_cap() -> None:
    rules = _rules("turtle", ONE_PUSH)
    results = [rules.step((0,)) for _ in range(rules.max_iterations)]
    assert not any(r.terminated for r in results)
    assert [r.truncated for r in results] == [False] * (rules.max_iterations - 1) + [True]


def test_bad_actions_and_boards_are_refused() -> None:
    rules = _rules("turtle", ONE_PUSH)
    with pytest.raises(ValueError, match="outside"):
        rules.step((9,))
    with pytest.raises(ValueError, match="must be 5 rows"):
        rules.reset(RNG, np.zeros((4, 5), dtype=np.int64))
    with pytest.raises(ValueError, match="unknown representation"):
        PcgrlSokoban("diagonal", 5, 5)  # type: ignore[arg-type]


# --- missing extra and bad files ---

def test_a_missing_rl_extra_names_the_pip_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)  # import now raises ImportError
    with pytest.raises(GgpError, match=r"needs the rl extra: pip install 'ggp\[rl\]'"):
        require_rl()
    out = tmp_path / "p.pt"
    assert main(["train-sokoban", "--steps", "10", "--out", str(out)]) == 1
    assert main(["generate", "sokoban", "--method", "ppo", "--out", str(tmp_path / "l.txt")]) == 1
    errors = capsys.readouterr().err.splitlines()
    assert errors == [
        "ggp train-sokoban: training needs the rl extra: pip install 'ggp[rl]'",
        "ggp generate: the PPO method needs the rl extra: pip install 'ggp[rl]'",
    ]
    assert list(tmp_path.iterdir()) == []


@needs_rl
@pytest.mark.parametrize("content", [b"", b"not a checkpoint\n", b"PK\x03\x04 truncated zip"])
def test_a_corrupt_policy_file_gets_one_line_and_nothing_is_written(
    tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "bad.pt"
    policy.write_bytes(content)
    with pytest.raises(SokobanError, match="not a PPO policy file"):
        load_policy(policy)
    out = tmp_path / "levels.txt"
    assert main(["generate", "sokoban", "--method", "ppo", "--policy", str(policy), "--out", str(out)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"ggp generate: {policy}: not a PPO policy file written by 'ggp train-sokoban'")
    assert not out.exists()


@needs_rl
def test_a_torch_file_that_is_not_a_policy_and_a_truncated_policy_are_refused(tmp_path: Path) -> None:
    import torch

    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(SokobanError, match="no ggp-sokoban-ppo header"):
        load_policy(other)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(DEFAULT_POLICY.read_bytes()[:5000])
    with pytest.raises(SokobanError, match="not a PPO policy file"):
        load_policy(truncated)


# --- training and generation end to end ---

@needs_rl
def test_training_writes_a_checkpoint_that_generates_solvable_levels(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "policy.pt"
    report = train("wide", 5, 5, 256, out, seed=1)
    assert out.is_file() and report.steps >= 256 and report.episodes > 0
    assert [p.name for p in out.parent.iterdir()] == ["policy.pt"]  # no temporary file left
    loaded = load_policy(out)
    assert (loaded.representation, loaded.width, loaded.height, loaded.steps) == ("wide", 5, 5, report.steps)
    stats = PpoStats()
    found = generate_ppo(out, 5, 5, count=1, seed=0, max_attempts=40, stats=stats)
    assert len(found) == 1 or stats.attempts == 40  # an untrained policy may find nothing: the pipeline is tested
    assert set(stats.outcomes) <= {"accepted", "invalid", "unsolvable", "too-large"}
    assert stats.outcomes["accepted"] == len(found)
    for item in found:
        assert solves(item.level, item.solution)
        assert measure(item.level) == item.difficulty
    with pytest.raises(SokobanError, match="trained on 5x5 boards, not 6x6"):
        generate_ppo(out, 6, 6, count=1)
    with pytest.raises(ValueError, match="is a folder"):
        train("wide", 5, 5, 256, tmp_path, seed=1)


@needs_rl
def test_the_shipped_policy_generates_solvable_scored_levels() -> None:
    stats = PpoStats()
    found = generate_ppo(DEFAULT_POLICY, 5, 5, count=3, seed=0, stats=stats)
    assert len(found) == 3 and stats.outcomes["accepted"] == 3
    for item in found:
        assert solves(item.level, item.solution)
        difficulty = measure(item.level)
        assert difficulty == item.difficulty and item.difficulty.moves == len(item.solution)
    (again,) = generate_ppo(DEFAULT_POLICY, 5, 5, count=1, seed=0)
    assert (again.level, again.attempt) == (found[0].level, found[0].attempt)  # seeded: the same level again


@needs_rl
def test_the_cli_trains_and_generates_with_the_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "narrow.pt"
    assert main(["train-sokoban", "--representation", "narrow", "--size", "5x5", "--steps", "200",
                 "--out", str(policy)]) == 0
    assert "narrow 5x5" in capsys.readouterr().out
    assert load_policy(policy).representation == "narrow"
    out = tmp_path / "levels.txt"
    code = main(["generate", "sokoban", "--method", "ppo", "--count", "2", "--out", str(out)])
    assert code == 0
    levels = parse_levels(out.read_text())
    assert len(levels) == 2 and all(level.title.startswith("ppo turtle 5x5 seed 0") for level in levels)
    assert "non-trivial" in capsys.readouterr().out
