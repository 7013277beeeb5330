"""The manager's step-cap setting: a draw by default (issue 10), an abort when configured (protocol.md §4)."""

from __future__ import annotations

import pytest

from ggp.manager.match_requests import MatchRequest
from ggp.manager.runner import STEP_CAP_DRAW_GOAL, StepCapOutcome
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import COUNTER_KIF, machine_for_description
from tests.unit.manager.conftest import FAST


@pytest.mark.parametrize("outcome", ["draw", "abort", None])
async def test_a_match_at_the_step_cap_is_stored_as_configured(outcome: StepCapOutcome | None) -> None:
    settings = ManagerSettings(deadlines=FAST, step_cap=3)
    if outcome is not None:
        settings = ManagerSettings(deadlines=FAST, step_cap=3, step_cap_outcome=outcome)
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=settings)
    try:
        await manager.add_game("counter", COUNTER_KIF)  # ten steps to its terminal state
        match_id = await manager.start_match(MatchRequest("counter", ("random", "random"), 1, 1, seed=3))
        record = await manager.wait(match_id)
        summary = store.matches(limit=10)[0]
    finally:
        await manager.close()
        store.close()
    assert record is not None and record.end_reason == "step_cap" and record.step == 3
    if outcome == "abort":
        assert record.is_aborted and record.goal_values is None and summary.status == "aborted"
    else:  # the default is a draw
        assert record.is_completed and not record.is_aborted
        assert record.goal_values == (STEP_CAP_DRAW_GOAL, STEP_CAP_DRAW_GOAL)
        assert summary.status == "completed" and summary.goals == record.goal_values


def test_the_cli_defaults_are_the_auto_engine_and_a_step_cap_draw() -> None:
    from ggp.cli import build_parser
    from ggp.reasoner.engines import ENGINES

    parser = build_parser()
    for command in (["match", "g.kif"], ["serve"], ["demo"]):
        assert parser.parse_args(command).engine == "auto"
    for command in (["match", "g.kif"], ["serve"]):
        assert parser.parse_args(command).step_cap_outcome == "draw"
        assert parser.parse_args([*command, "--step-cap-outcome", "abort"]).step_cap_outcome == "abort"
    assert "auto" in ENGINES
    for engine in ENGINES:  # `ggp player --engine` takes every registered engine
        assert parser.parse_args(["player", "mcts", "--engine", engine]).engine == engine


def test_ggp_player_refuses_an_unknown_engine_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from ggp.cli import main

    assert main(["player", "mcts", "--engine", "warp"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ggp player: unknown engine 'warp'; expected one of auto,") and err.count("\n") == 1
