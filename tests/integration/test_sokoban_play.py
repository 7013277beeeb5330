"""General game players solve small Sokoban levels translated to GDL (benchmarks/sokoban_play.py is the full run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.arena import play_game
from ggp.gdl.terms import Const, Func
from ggp.players.registry import make_player
from ggp.reasoner.engines import make_machine
from ggp.translators.sokoban.level import parse_level
from ggp.translators.sokoban.to_gdl import translate

# One push up solves it; the player could also wander left or right, and "left" is the first legal move.
ONE_PUSH = "#####\n# . #\n# $ #\n# @ #\n#####\n"
# A walk of two moves, then one push right.
WALK_THEN_PUSH = "#######\n#@    #\n#  $. #\n#     #\n#######\n"


def _play(text: str, step_limit: int, spec: str, seed: int = 0) -> tuple[int, int]:
    machine = make_machine(translate(parse_level(text), step_limit), "clingo")
    goals, steps, reason, errors = play_game(machine, [make_player(spec, seed)], seed)
    assert reason == "terminal" and errors == 0
    return goals[0], steps


def test_mcts_solves_a_one_push_level_in_one_step() -> None:
    assert _play(ONE_PUSH, 2, "mcts:iterations=20") == (100, 1)


def test_the_one_push_level_is_not_solved_by_just_playing_the_first_legal_move() -> None:
    machine = make_machine(translate(parse_level(ONE_PUSH), 2), "clingo")
    legal = machine.legal_moves(machine.initial_state(), machine.roles[0])
    assert legal[0] == Func("move", (Const("left"),)) and len(legal) == 3
    assert _play(ONE_PUSH, 2, "legal") == (0, 2)


def test_mcts_finds_a_short_walk_and_push_within_twice_the_optimal_steps() -> None:
    goal, steps = _play(WALK_THEN_PUSH, 6, "mcts:iterations=100")
    assert goal == 100
    assert steps <= 6


def test_a_translated_level_plays_through_the_manager_and_mcts_solves_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ggp.cli import main
    from ggp.manager.records import from_json

    source, kif, record = tmp_path / "one.txt", tmp_path / "one.kif", tmp_path / "match.json"
    source.write_text(ONE_PUSH)
    assert main(["translate", "sokoban", str(source), "--step-limit", "3", "-o", str(kif)]) == 0
    assert main(["match", str(kif), "--player", "mcts", "--seed", "0", "--startclock", "10", "--playclock", "1",
                 "--out", str(record), "--quiet"]) == 0
    match = from_json(record.read_text())
    assert match.is_completed and match.roles == ("player",)
    assert match.moves == (("(move up)",),) and match.goal_values == (100,)
    assert "goals player=100" in capsys.readouterr().out
