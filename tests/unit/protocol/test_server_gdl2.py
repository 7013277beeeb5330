"""The player server in GDL-II games: PLAY/STOP with percepts, and the refusal by players without GDL-II."""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from ggp.files import load_kif
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description
from ggp.player import NO_GDL2
from ggp.players.registry import make_player
from ggp.protocol.messages import parse_info_reply, parse_reply_move
from ggp.protocol.server import create_player_app
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import StateMachine
from tests.conftest import KIF_DIR
from tests.prerequisites import missing


def clingo_machine(rules: Description) -> StateMachine:
    return make_machine(rules, "clingo")

Client = TestClient[web.Request, web.Application]
GUESS = KIF_DIR / "guessNumber" / "guessNumber.kif"


def rules(path: Path) -> str:
    if not path.is_file():
        missing(f"{path.name} is not present")
    return "(" + to_kif(load_kif(path)).replace("\n", " ") + ")"


async def client_for(aiohttp_client: AiohttpClient, spec: str) -> Client:
    return await aiohttp_client(create_player_app(partial(make_player, spec, 1), spec.split(":")[0], clingo_machine))


async def post(client: Client, text: str) -> str:
    response = await client.post("/", data=text, headers={"Content-Type": "text/acl"})
    assert response.status == 200, await response.text()
    return await response.text()


async def test_a_gdl2_player_follows_its_percepts_to_the_only_possible_number(aiohttp_client: AiohttpClient) -> None:
    game = rules(GUESS)
    client = await client_for(aiohttp_client, "dmcts:iterations=150,samples=4")
    assert await post(client, f"(START g1 guesser {game} 30 10)") == "ready"
    assert await post(client, "(PLAY g1 0 NIL NIL)") == "noop"
    first = parse_reply_move(await post(client, "(PLAY g1 1 noop NIL)"))
    assert str(first).startswith(("(ask", "(guess"))
    # Whatever it played, the manager's word counts: it asked 2, then 3, and learnt the secret is 2.
    await post(client, "(PLAY g1 2 (ask 2) ((answer 2 no)))")
    assert await post(client, "(PLAY g1 3 (ASK 3) ((ANSWER 3 YES)))") == "(guess 2)"
    assert await post(client, "(STOP g1 4 (guess 2) NIL)") == "done"
    assert parse_info_reply(await post(client, "(INFO)")).available


async def test_random_answers_gdl2_plays_with_legal_moves_of_a_consistent_state(aiohttp_client: AiohttpClient) -> None:
    game = rules(GUESS)
    client = await client_for(aiohttp_client, "random")
    assert await post(client, f"(START g2 guesser {game} 30 10)") == "ready"
    assert await post(client, "(PLAY g2 0 NIL NIL)") == "noop"
    move = parse_reply_move(await post(client, "(PLAY g2 1 noop NIL)"))
    assert str(move).startswith(("(ask", "(guess"))
    assert await post(client, "(STOP g2 2 (guess 1) NIL)") == "done"


@pytest.mark.parametrize("spec", ["mcts:iterations=10", "alphabeta", "monte_carlo"])
async def test_players_without_gdl2_support_refuse_a_game_with_sees(
    aiohttp_client: AiohttpClient, caplog: pytest.LogCaptureFixture, spec: str
) -> None:
    game = rules(GUESS)
    client = await client_for(aiohttp_client, spec)
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        assert await post(client, f"(START g3 guesser {game} 30 10)") == f"error: {NO_GDL2}"
    assert "refused a GDL-II game" in caplog.text
    assert await post(client, "(PLAY g3 0 NIL NIL)") == "nil"
    assert parse_info_reply(await post(client, "(INFO)")).available


async def test_a_gdl2_play_for_a_player_without_gdl2_support_in_a_gdl_game_gets_nil(
    aiohttp_client: AiohttpClient, caplog: pytest.LogCaptureFixture
) -> None:
    client = await client_for(aiohttp_client, "mcts:iterations=10")
    game = "((role a) (init s) (<= (legal a go) (true s)) (<= (next t) (true s)) (<= terminal (true t)) (goal a 100))"
    assert await post(client, f"(START g4 a {game} 30 10)") == "ready"
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        assert await post(client, "(PLAY g4 0 NIL NIL)") == "nil"
    assert "without GDL-II support" in caplog.text
    assert await post(client, "(PLAY g4 NIL)") == "go"
