"""SYM generator: every level it yields is solvable, and the optimal solvers agree with plain search."""

from __future__ import annotations

import contextlib
import random
from collections import deque
from pathlib import Path

import pytest

from ggp.cli import main
from ggp.errors import SokobanError
from ggp.translators.sokoban.candidates import GENERATOR_LIMITS, Generated, GenerationStats, accept
from ggp.translators.sokoban.generator import SymSettings, generate, sym_attempt
from ggp.translators.sokoban.level import DIRECTIONS, Level, level_to_text, parse_level, parse_levels
from ggp.translators.sokoban.metrics import NON_TRIVIAL, len_score, measure, psh, solution_scores
from ggp.translators.sokoban.moves import Position, solves, step
from ggp.translators.sokoban.solver import solve_moves, solve_pushes

SMALL = [
    SymSettings(width=4, height=4, boxes=1, forward=8, backward=6),
    SymSettings(width=5, height=5, boxes=2, forward=12, backward=8),
    SymSettings(width=6, height=5, boxes=2, forward=14, backward=10, box="random", push="most-obstacles",
                pull="most-access", path="direct"),
    SymSettings(width=5, height=6, boxes=3, forward=14, backward=10, box="in-order", push="random",
                pull="most-obstacles"),
]


def _levels(settings: SymSettings, seed: int, count: int = 3) -> list[Generated]:
    return list(generate(settings, count, seed, keep_trivial=True))


def _plain_search(level: Level) -> tuple[int, int] | None:
    """Fewest moves (BFS) and fewest pushes (0-1 BFS) over full (player, boxes) states: a reference."""
    start = Position(level.player, level.boxes)

    def children(position: Position) -> list[tuple[Position, bool]]:
        out = []
        for name in DIRECTIONS:
            with contextlib.suppress(SokobanError):
                out.append(step(level, position, name))
        return out

    moves: dict[Position, int] = {start: 0}
    queue = deque([start])
    best_moves = None
    while queue:
        here = queue.popleft()
        if level.is_solved(here.boxes):
            best_moves = moves[here]
            break
        for nxt, _ in children(here):
            if nxt not in moves:
                moves[nxt] = moves[here] + 1
                queue.append(nxt)
    if best_moves is None:
        return None
    pushes: dict[Position, int] = {start: 0}
    dq = deque([start])
    while dq:
        here = dq.popleft()
        if level.is_solved(here.boxes):
            return best_moves, pushes[here]
        for nxt, pushed in children(here):
            cost = pushes[here] + int(pushed)
            if cost < pushes.get(nxt, cost + 1):
                pushes[nxt] = cost
                (dq.append if pushed else dq.appendleft)(nxt)
    raise AssertionError("moves found a solution but pushes did not")


@pytest.mark.parametrize("settings", SMALL, ids=lambda s: f"{s.width}x{s.height}b{s.boxes}")
@pytest.mark.parametrize("seed", [0, 1])
def test_every_generated_level_is_valid_and_solved_by_its_sym_solution_and_the_solvers(
    settings: SymSettings, seed: int
) -> None:
    found = _levels(settings, seed)
    assert len(found) == 3
    for item in found:
        level = item.level
        assert parse_level(level_to_text(level)) == level
        assert len(level.boxes) <= settings.boxes
        assert level.width <= settings.width + 2 and level.height <= settings.height + 2
        assert solves(level, item.solution)
        by_pushes, by_moves = solve_pushes(level), solve_moves(level)
        assert by_pushes is not None and by_moves is not None
        assert solves(level, by_pushes.moves) and solves(level, by_moves.moves)
        assert (by_moves.length, by_pushes.pushes) == (item.difficulty.moves, item.difficulty.pushes)
        assert by_moves.length <= len(item.solution)


@pytest.mark.parametrize("settings", SMALL[:3], ids=lambda s: f"{s.width}x{s.height}b{s.boxes}")
def test_optimal_counts_agree_with_plain_breadth_first_search(settings: SymSettings) -> None:
    for item in _levels(settings, seed=7, count=2):
        assert _plain_search(item.level) == (item.difficulty.moves, item.difficulty.pushes)


def test_the_same_seed_gives_the_same_levels_and_another_seed_differs() -> None:
    settings = SMALL[1]
    first = [item.level for item in _levels(settings, 4)]
    assert first == [item.level for item in _levels(settings, 4)]
    assert first != [item.level for item in _levels(settings, 5)]


def test_without_keep_trivial_only_non_trivial_levels_come_out() -> None:
    stats = GenerationStats()
    found = list(generate(SymSettings(width=6, height=6, boxes=2, forward=16, backward=12), 2, seed=1, stats=stats))
    assert len(found) == 2
    assert all(item.difficulty.psh > 0.5 and item.difficulty.len > 0.5 for item in found)
    assert stats.outcomes["accepted"] == 2 and stats.attempts >= 2


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="too small"):
        SymSettings(width=1, height=5)
    with pytest.raises(ValueError, match="do not fit"):
        SymSettings(width=2, height=2, boxes=4)


def test_cli_writes_the_requested_levels_with_their_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "levels.txt"
    code = main(["generate", "sokoban", "--size", "5x5", "--boxes", "2", "--count", "2", "--seed", "3",
                 "--keep-trivial", "--out", str(out)])
    assert code == 0
    levels = parse_levels(out.read_text(), str(out))
    assert len(levels) == 2
    assert all(level.title.startswith("sym 5x5 boxes 2 seed 3 attempt") for level in levels)
    report = capsys.readouterr().out
    assert report.count("PSH") == 2 and "2 level(s) from" in report


def test_cli_reports_a_shortfall_and_rejects_a_bad_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "sokoban", "--size", "2x2", "--boxes", "1", "--count", "1", "--max-attempts", "3"]) == 1
    assert "only 0 of 1 levels" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["generate", "sokoban", "--size", "eight"])
    assert info.value.code == 2


def test_the_fast_scoring_keeps_and_drops_exactly_what_the_exact_scorers_would() -> None:
    # Every candidate of 120 SYM runs, scored the generators' way (accept: the own-solution bound, quick
    # searches, the bounded wave) and by the exact searches without a known solution (the A* and the
    # push BFS): a wrong rejection or a wrong stored count fails here.
    settings = SymSettings(width=6, height=6, boxes=3, forward=18, backward=12)
    stats = GenerationStats()
    kept = dropped = 0
    for attempt in range(120):
        candidate = sym_attempt(settings, random.Random(f"5:{attempt}"))
        if candidate is None:
            continue
        level, solution = candidate
        by_moves = solve_moves(level, GENERATOR_LIMITS)
        by_pushes = solve_pushes(level, GENERATOR_LIMITS)
        assert by_moves is not None and by_pushes is not None
        w, h, b = level.width, level.height, len(level.boxes)
        non_trivial = psh(by_pushes.pushes, w, h, b) > NON_TRIVIAL and len_score(by_moves.length, w, h) > NON_TRIVIAL
        item = accept(level, solution, keep_trivial=False, limits=GENERATOR_LIMITS, stats=stats, title="t", seed=5,
                      attempt=attempt)
        if item is None:
            assert not non_trivial, f"attempt {attempt} dropped but non-trivial"
            dropped += 1
        else:
            fast = item.difficulty
            assert (fast.pushes, fast.moves) == (by_pushes.pushes, by_moves.length), f"attempt {attempt}"
            assert fast.non_trivial and non_trivial
            kept += 1
    assert kept >= 5 and dropped >= 50
    assert stats.outcomes["accepted"] == kept and stats.outcomes["trivial"] == dropped


def test_candidates_are_tallied_by_their_own_solution_and_trivial_ones_skip_the_optimal_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One box two cells from its goal (optimal: 2 pushes, 2 moves). The detour pushes it back and forth
    # four times: 10 pushes and 42 moves, non-trivial by its own solution (PSH 10/13, LEN 42/35).
    level = parse_level("#######\n#     #\n# @$ .#\n#     #\n#######\n")
    detour = "R" + "urrdLulldR" * 4 + "R"
    assert solution_scores(level, detour) == (10 / 13, 42 / 35)
    stats = GenerationStats(own_scores=[])

    def check(solution: str, keep_trivial: bool) -> Generated | None:
        return accept(level, solution, keep_trivial=keep_trivial, limits=GENERATOR_LIMITS, stats=stats, title="t",
                      seed=0, attempt=0)

    assert check(detour, keep_trivial=False) is None  # the optimal search finds it trivial
    assert (stats.own_non_trivial, stats.outcomes["trivial"]) == (1, 1)

    def no_search(*_: object, **__: object) -> None:
        raise AssertionError("a candidate trivial by its own solution reached the optimal search")

    with monkeypatch.context() as patch:
        patch.setattr("ggp.translators.sokoban.candidates.measure", no_search)
        assert check("RR", keep_trivial=False) is None
    assert (stats.own_non_trivial, stats.outcomes["trivial"]) == (1, 2)
    assert (stats.own_best_psh, stats.own_best_len) == (10 / 13, 42 / 35)
    kept = check("RR", keep_trivial=True)
    assert kept is not None and kept.difficulty == measure(level) and stats.outcomes["accepted"] == 1
    assert (kept.difficulty.pushes, kept.difficulty.moves) == (2, 2)
    assert stats.own_scores == [(10 / 13, 42 / 35), (2 / 13, 2 / 35), (2 / 13, 2 / 35)]  # every candidate
