"""The seed game classicMap (a real thesis game: chance role, wide fluents, no length bound) through
the manager's runner, with the ``auto`` engine and a real built-in player over loopback HTTP."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.files import load_kif
from ggp.manager.records import from_json, state_text, to_json
from ggp.manager.runner import (
    RANDOM_SEAT,
    STEP_CAP_DRAW_GOAL,
    Deadlines,
    HttpTransport,
    MatchConfig,
    Seat,
    run_match,
)
from ggp.players.registry import make_player
from ggp.protocol.server import create_player_app
from ggp.reasoner.auto import choose_machine
from ggp.reasoner.machine import GroundingLimits
from tests.conftest import CORPUS
from tests.prerequisites import missing

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]
DEADLINES = Deadlines(start_s=20.0, play_s=10.0, stop_s=5.0, abort_s=5.0, connect_s=5.0)
CAP = 12


async def test_a_classic_map_match_reaches_the_step_cap_as_a_draw_with_a_complete_record(
    aiohttp_server: ServerFactory, shared_dir: Path
) -> None:
    path = CORPUS / "seed-games" / "classicMap.kif"
    if not path.is_file():
        missing(f"{path} is not present")
    description = load_kif(path)
    # The "auto" engine: grounding once gives up within its (here 1 s) budget, the per-state reasoner plays.
    machine = choose_machine(description, GroundingLimits(), budget_seconds=1.0)
    assert [str(role) for role in machine.roles] == ["red", "blue", "random"]
    app = create_player_app(lambda: make_player("random", seed=5), "random", machine_factory=lambda _: machine)
    server = await aiohttp_server(app)
    seats = (Seat("remote-random", str(server.make_url("/")), "builtin:random"), RANDOM_SEAT, RANDOM_SEAT)
    config = MatchConfig(match_id="seed.1", game_key="classicMap", description=description, seats=seats,
                         start_clock=20, play_clock=10, seed=11, step_cap=CAP, deadlines=DEADLINES)
    async with HttpTransport() as transport:
        record = await run_match(machine, config, transport)

    assert record.is_completed and not record.is_aborted and record.end_reason == "step_cap"
    assert record.goal_values == (STEP_CAP_DRAW_GOAL,) * 3
    assert record.step == CAP
    assert len(record.states) == len(record.errors) == len(record.state_times) == CAP + 1
    assert all(code == "" for row in record.errors for code in row), record.errors
    assert from_json(to_json(record)) == record
    # The record replays: every joint move is legal and leads to the recorded state.
    # Records keep the rules' own spelling (generateGame, pozitiveChips), as ggp-base writes and reads them.
    spelled = description.spelled
    state = machine.initial_state()
    assert record.states[0] == state_text([spelled(fact) for fact in state.facts])
    assert "generateGame" in record.states[0]
    for joint, expected in zip(record.moves, record.states[1:]):
        legal = {tuple(spelled(move) for move in joint_move) for joint_move in machine.legal_joint_moves(state)}
        assert joint in legal
        state = machine.next_state(state, next(j for j in machine.legal_joint_moves(state)
                                               if tuple(spelled(m) for m in j) == joint))
        assert expected == state_text([spelled(fact) for fact in state.facts])
    assert not machine.is_terminal(state)
