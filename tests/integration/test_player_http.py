"""Real players over real HTTP: a tic-tac-toe match between two player servers backed by clingo."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import urllib.request
from functools import partial
from pathlib import Path

import pytest
from pytest_aiohttp import AiohttpClient

from ggp.cli import main
from ggp.files import load_kif
from ggp.gdl.terms import Description, Term
from ggp.players.registry import make_player
from ggp.protocol.messages import (
    InfoReply,
    Play,
    Start,
    Stop,
    format_message,
    parse_info_reply,
    parse_reply_move,
)
from ggp.protocol.server import PlayerLimits, create_player_app
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import StateMachine
from tests.conftest import KIF_DIR, ROOT
from tests.helpers.network import free_port
from tests.prerequisites import missing


def clingo_machine(rules: Description) -> StateMachine:
    return make_machine(rules, "clingo")

TIC_TAC_TOE = KIF_DIR / "ticTacToe" / "ticTacToe.kif"


def rules() -> Description:
    if not Path(TIC_TAC_TOE).is_file():
        missing("kif/ticTacToe/ticTacToe.kif is not present")
    return load_kif(TIC_TAC_TOE)


@pytest.mark.parametrize("limits", [None, PlayerLimits()], ids=["in-thread", "in-worker"])
async def test_mcts_and_random_play_tic_tac_toe_over_http(aiohttp_client: AiohttpClient,
                                                          limits: PlayerLimits | None) -> None:
    description = rules()
    manager = make_machine(description, "clingo")
    specs = ["mcts:iterations=30", "random"]
    clients = [
        await aiohttp_client(create_player_app(partial(make_player, spec, 1), spec.split(":")[0], clingo_machine,
                                               limits=limits))
        for spec in specs
    ]

    async def send(index: int, text: str) -> str:
        response = await clients[index].post("/", data=text, headers={"Content-Type": "text/acl"})
        assert response.status == 200, await response.text()
        return await response.text()

    roles = manager.roles
    starts = [format_message(Start("ttt1", role, description, 10, 5)) for role in roles]
    assert await asyncio.gather(*(send(i, starts[i]) for i in range(2))) == ["ready", "ready"]
    assert parse_info_reply(await send(0, "(INFO)")).status == "busy"
    state = manager.initial_state()
    last: tuple[Term, ...] | None = None
    steps = 0
    while not manager.is_terminal(state):
        replies = await asyncio.gather(*(send(i, format_message(Play("ttt1", last))) for i in range(2)))
        joint = tuple(parse_reply_move(reply) for reply in replies)
        for role, move in zip(roles, joint):
            assert move in manager.legal_moves(state, role), f"{role} answered illegal {move}"
        state = manager.next_state(state, joint)
        last = joint
        steps += 1
    assert 5 <= steps <= 9
    assert await asyncio.gather(*(send(i, format_message(Stop("ttt1", last))) for i in range(2))) == ["done", "done"]
    assert sorted(manager.goals(state)) in ([0, 100], [50, 50])
    assert parse_info_reply(await send(0, "(INFO)")).available


async def test_start_with_rules_the_validator_rejects_gets_an_error_reply(aiohttp_client: AiohttpClient) -> None:
    client = await aiohttp_client(create_player_app(lambda: make_player("random"), "random", clingo_machine))
    response = await client.post("/", data="(START bad x ((role x) (<= (legal x ?m) (true (a)))) 10 5)")
    text = await response.text()
    assert response.status == 200 and text.startswith("error:")


def test_ggp_player_serves_info_from_a_separate_process() -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ggp", "player", "random", "--port", str(port), "--name", "smoke"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        reply = ""
        for _ in range(100):
            try:
                request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=b"( INFO )", method="POST")
                with urllib.request.urlopen(request, timeout=2) as response:
                    reply = response.read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert parse_info_reply(reply) == InfoReply("available", "smoke", "random")
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_ggp_arena_prints_a_win_rate_table(capsys: pytest.CaptureFixture[str]) -> None:
    rules()
    assert main(["arena", "ticTacToe", "--player", "legal", "--player", "random", "--games", "2", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ticTacToe: 2 games, seats rotating"
    rows = {line.split()[0]: line.split() for line in lines[2:]}
    assert set(rows) == {"legal", "random"}
    assert all(row[1] == "2" for row in rows.values())
    assert int(rows["legal"][2]) + int(rows["random"][2]) + int(rows["legal"][3]) == 2
