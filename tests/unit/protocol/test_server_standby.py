"""A legal move at any clock, in-process (no worker): the standby seat answers while the player's setup is
slow or failed, and the player takes over, replaying the match, once it is built (docs/players.md)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from ggp.errors import ReasonerError
from ggp.gdl.parser import parse_kif
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description
from ggp.protocol.messages import parse_reply_move
from ggp.protocol.seat import standby_machine
from ggp.protocol.server import PLAYER_HOST, PlayerHost, create_player_app
from ggp.reasoner.machine import Move, StateMachine
from tests.conftest import KIF_DIR
from tests.helpers.slow_setup import Gate, LastLegalPlayer

Client = TestClient[web.Request, web.Application]
TICTACTOE = parse_kif((KIF_DIR / "ticTacToe" / "ticTacToe.kif").read_text(), "ticTacToe")
RULES = "(" + to_kif(TICTACTOE) + ")"


def cannot_build(description: Description) -> StateMachine:
    raise ReasonerError(f"{description.file}: grounding exceeded the atom limit (injected)")


class Referee:
    """Plays the test's side (xplayer answers are ours, oplayer plays its first legal move) on the
    reference machine, and checks every reply of ours is legal."""

    def __init__(self, client: Client, match_id: str) -> None:
        self.client = client
        self.match_id = match_id
        self.machine = standby_machine(TICTACTOE)
        self.state = self.machine.initial_state()
        self.last = "NIL"

    async def step(self) -> tuple[Move, tuple[Move, ...]]:
        """One PLAY: our reply (asserted legal) and the legal moves it was chosen from."""
        legal = self.machine.legal_moves(self.state, self.machine.roles[0])
        response = await self.client.post("/", data=f"(PLAY {self.match_id} {self.last})")
        text = await response.text()
        assert text.strip().lower() != "nil", "a PLAY answered nil"
        ours = parse_reply_move(text)
        assert ours in legal, f"illegal {ours}"
        joint = (ours, self.machine.legal_moves(self.state, self.machine.roles[1])[0])
        self.state = self.machine.next_state(self.state, joint)
        self.last = f"({joint[0]} {joint[1]})"
        return ours, legal


@pytest.fixture
def make_client(aiohttp_client: AiohttpClient) -> Callable[..., Awaitable[Client]]:
    async def make(machine_factory: Callable[[Description], StateMachine], **kwargs: object) -> Client:
        app = create_player_app(LastLegalPlayer, "tester", machine_factory, **kwargs)  # type: ignore[arg-type]
        return await aiohttp_client(app)

    return make


async def start(client: Client, match_id: str) -> str:
    response = await client.post("/", data=f"(START {match_id} xplayer {RULES} 1 1)")
    return await response.text()


async def setup_done(host: PlayerHost) -> None:
    async with asyncio.timeout(20):
        while True:
            match = host._match
            assert match is not None
            if match.setup is not None and match.setup.done():
                return
            await asyncio.sleep(0.02)


async def test_a_slow_setup_is_answered_ready_then_by_the_standby_then_by_the_player_once_built(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    gate = Gate()
    client = await make_client(gate)
    try:
        assert await start(client, "s1") == "ready"
        referee = Referee(client, "s1")
        for _ in range(2):  # the player's setup is stuck: the standby's first legal move, every time
            ours, legal = await referee.step()
            assert ours == legal[0]
        gate.open()
        await setup_done(client.app[PLAYER_HOST])
        # The player replays the two joint moves it missed and plays from the right state.
        ours, legal = await referee.step()
        assert ours == legal[-1] != legal[0]
    finally:
        gate.open()


async def test_rules_the_engine_cannot_build_get_ready_and_the_player_plays_on_the_recovery_engine(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(cannot_build)
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        assert await start(client, "r1") == "ready"
        await setup_done(client.app[PLAYER_HOST])
        referee = Referee(client, "r1")
        moves = [await referee.step() for _ in range(3)]
    assert all(ours == legal[-1] for ours, legal in moves)  # the player's own moves (on the prover)
    assert "the player starts again on the recovery engine (restart 1, 0 step(s) to replay)" in caplog.text


async def test_a_game_no_engine_can_play_gets_ready_one_log_line_and_the_standby_first_legal_moves(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(cannot_build, recovery_factory=cannot_build)
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        assert await start(client, "n1") == "ready"
        await setup_done(client.app[PLAYER_HOST])
        referee = Referee(client, "n1")
        moves = [await referee.step() for _ in range(4)]
    assert all(ours == legal[0] for ours, legal in moves)
    given_up = [r.getMessage() for r in caplog.records if "given up" in r.getMessage()]
    assert len(given_up) == 1 and "first legal move each step" in given_up[0]


async def test_a_role_the_game_lacks_still_gets_an_error_reply(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    client = await make_client(standby_machine)
    response = await client.post("/", data=f"(START e1 nobody {RULES} 1 1)")
    text = await response.text()
    assert text.startswith("error:") and "nobody" in text
