"""A legal move at any clock (issue 30, docs/players.md): with its reasoning in a worker process, the
player server answers every PLAY with a legal move, never ``nil``, whatever happens to the player's
setup, its search or its worker, for ``ggp player`` and for the manager's built-in seats alike.

Delays are injected (a setup that sleeps an hour, a search deaf to its clock, a worker stopped or
killed by the test); the assertions never depend on how fast this machine is. Loopback only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from ggp.gdl.parser import parse_kif
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description
from ggp.manager.launcher import AppLauncher
from ggp.manager.runner import RANDOM_SEAT, Deadlines, HttpTransport, MatchConfig, Seat, run_match
from ggp.protocol.messages import parse_reply_move
from ggp.protocol.seat import standby_machine
from ggp.protocol.server import PLAYER_HOST, PlayerHost, PlayerLimits, create_player_app
from ggp.reasoner.machine import Move, StateMachine
from ggp.reasoner.upgrade import playing_machine
from tests.conftest import CORPUS, KIF_DIR
from tests.helpers.slow_setup import LastLegalPlayer, NeverReturnsPlayer, never_built
from tests.prerequisites import missing

Client = TestClient[web.Request, web.Application]
LIMITS = PlayerLimits(memory_mb=1024, max_call_s=2.0, min_call_s=1.0)
"""Every call of the player's worker within 2 s: a setup past it is killed (then the player restarts)."""


def game(path: Path) -> Description:
    if not path.is_file():
        missing(f"{path} is not present")
    return parse_kif(path.read_text(), path.stem)


def tictactoe() -> Description:
    return game(KIF_DIR / "ticTacToe" / "ticTacToe.kif")


class Host:
    """Sends the test's PLAYs for one match and checks every reply of ours is legal (we are the first
    role; the others play their first legal move) on a reference machine."""

    def __init__(self, client: Client, match_id: str, description: Description) -> None:
        self.client = client
        self.match_id = match_id
        self.description = description
        self.machine = standby_machine(description)
        self.state = self.machine.initial_state()
        self.last = "NIL"
        self.ours: list[tuple[Move, tuple[Move, ...]]] = []

    async def start(self, start_clock: int, play_clock: int) -> str:
        rules = "(" + to_kif(self.description) + ")"
        role = self.machine.roles[0]
        response = await self.client.post("/", data=f"(START {self.match_id} {role} {rules} {start_clock} {play_clock})")
        return await response.text()

    async def play(self, steps: int) -> None:
        for _ in range(steps):
            if self.machine.is_terminal(self.state):
                return
            legal = self.machine.legal_moves(self.state, self.machine.roles[0])
            response = await self.client.post("/", data=f"(PLAY {self.match_id} {self.last})")
            text = await response.text()
            assert text.strip().lower() != "nil", f"step {len(self.ours)}: answered nil"
            ours = parse_reply_move(text)
            assert ours in legal, f"step {len(self.ours)}: illegal {ours}"
            self.ours.append((ours, legal))
            joint = (ours, *(self.machine.legal_moves(self.state, role)[0] for role in self.machine.roles[1:]))
            self.state = self.machine.next_state(self.state, joint)
            self.last = "(" + " ".join(map(str, joint)) + ")"

    def by_the_player(self, since: int = 0) -> tuple[int, int]:
        """Of the replies from step ``since`` on where the role had a choice: how many were the player's
        own (its last legal move; the standby answers the first), and how many there were."""
        choices = [(ours, legal) for ours, legal in self.ours[since:] if len(legal) > 1]
        return sum(1 for ours, legal in choices if ours == legal[-1]), len(choices)


@pytest.fixture
def make_client(aiohttp_client: AiohttpClient) -> Callable[..., Awaitable[Client]]:
    async def make(machines: Callable[[Description], StateMachine], player: Callable[[], object] = LastLegalPlayer
                   ) -> Client:
        return await aiohttp_client(create_player_app(player, "clock", machines, limits=LIMITS))  # type: ignore[arg-type]

    return make


def auto_engine(description: Description) -> StateMachine:
    """``ggp player``'s default engine: auto's choice (grounding checkers or merrills takes seconds), then
    the circuit; in a 2 s setup bound it is killed or just done, either way every reply must be legal."""
    return playing_machine(description, "auto")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("key", ["checkers", "merrills", "slow-on-purpose"])
async def test_every_play_is_legal_while_a_slow_setup_runs_and_after_its_worker_is_replaced(
    key: str, make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    description = tictactoe() if key == "slow-on-purpose" else game(CORPUS / f"{key}.kif")
    client = await make_client(never_built if key == "slow-on-purpose" else auto_engine)
    host = Host(client, f"slow-{key}", description)
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        assert await host.start(1, 2) == "ready"
        await host.play(6)
    if key == "slow-on-purpose":  # the setup was killed at its bound; the player started again and played
        assert "setup exceeded the time limit of 2 s" in caplog.text
        assert "the player starts again on the recovery engine" in caplog.text
        assert host.by_the_player()[0] >= 1


async def setup_done(host: PlayerHost) -> None:
    """Until the player's setup has ended (the first replies are then the player's own)."""
    async with asyncio.timeout(30):
        while host._match is None or host._match.setup is None or not host._match.setup.done():
            await asyncio.sleep(0.02)


async def wait_replaced(host: PlayerHost, count: int) -> None:
    async with asyncio.timeout(30):
        while host.replaced < count:
            await asyncio.sleep(0.05)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "starved"])
async def test_a_worker_killed_or_starved_mid_match_is_replaced_and_the_player_replays_the_match(
    how: signal.Signals, make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(standby_machine)
    server = client.app[PLAYER_HOST]
    host = Host(client, f"w-{how.name}", tictactoe())
    assert await host.start(1, 2) == "ready"
    await setup_done(server)
    await host.play(2)
    assert host.by_the_player() == (1, 1)
    worker = server.worker_pid
    assert worker is not None
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        os.kill(worker, how)  # a stopped worker gets no CPU: its call overruns its bound and it is killed
        await host.play(1)  # answered all the same (the standby's move while the worker is down)
        await wait_replaced(server, 1)
        await setup_done(server)
        await host.play(4)
    assert server.worker_pid != worker
    assert "the player starts again on the recovery engine (restart 1, 3 step(s) to replay)" in caplog.text
    mine, choices = host.by_the_player(since=3)
    assert mine == choices >= 1  # the player is back, in the right state (every reply was legal)


@pytest.mark.timeout(120)
async def test_a_search_that_overruns_every_clock_still_gets_a_legal_move_every_step(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(standby_machine, NeverReturnsPlayer)
    host = Host(client, "overrun", tictactoe())
    with caplog.at_level(logging.INFO, logger="ggp.protocol.server"):
        assert await host.start(1, 1) == "ready"
        await host.play(9)
    assert len(host.ours) >= 5
    assert "the search was stopped" in caplog.text or "search overran" in caplog.text


@pytest.mark.timeout(120)
async def test_the_managers_built_in_seat_plays_a_whole_match_with_no_error_while_its_setup_is_slow() -> None:
    description = tictactoe()
    launcher = AppLauncher({"last": partial(create_player_app, LastLegalPlayer, "last", never_built, limits=LIMITS)})
    launched = await launcher.launch("last")
    try:
        config = MatchConfig(match_id="builtin-slow", game_key="ticTacToe", description=description,
                             seats=(Seat("last", launched.url, "last"), RANDOM_SEAT), start_clock=1, play_clock=2,
                             seed=3, deadlines=Deadlines.from_clocks(1, 2))
        async with HttpTransport() as transport:
            record = await run_match(standby_machine(description), config, transport)
    finally:
        await launched.close()
    assert record.is_completed and not record.is_aborted
    ours = [step[0] for step in record.errors]
    assert ours == [""] * len(record.errors), ours  # no TO, no IL (nil included), no CE
