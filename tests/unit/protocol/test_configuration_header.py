"""The player server's ``ready`` to START carries what the player chose for the match by itself (issue 41) in an
``X-GGP-Configuration`` header, cleaned to one bounded line, in a search thread and in a worker process alike;
a player that chose nothing sends no header, and a player whose report fails still answers ``ready``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from ggp.gdl.terms import Description
from ggp.player import MAX_CONFIGURATION_CHARS, Budget
from ggp.players.legal_player import LegalPlayer
from ggp.protocol.messages import CONFIGURATION_HEADER
from ggp.protocol.server import PlayerLimits, create_player_app
from ggp.reasoner.machine import Role, StateMachine
from tests.helpers.nim_machine import NimMachine

RULES = "((role first) (role second))"
Client = TestClient[web.Request, web.Application]


def nim_factory(description: Description) -> StateMachine:
    return NimMachine((1, 2))


class Settings:
    """A self-configuration's settings, as :func:`ggp.player.configuration_of` reads them."""

    def __init__(self, line: str) -> None:
        self.line = line

    def describe(self) -> str:
        if not self.line:
            raise RuntimeError("cannot describe")
        return self.line


class Choosing(LegalPlayer):
    """A legal player that chooses its settings at START, as the default ``mcts`` does."""

    line = "decisive=2, no NMCS (not a puzzle):\nbecause"

    def __init__(self) -> None:
        super().__init__()
        self.configuration: Settings | None = None

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        super().start(machine, role, budget)
        self.configuration = Settings(self.line)


class Verbose(Choosing):
    line = "decisive=0: " + "\u00e9 why " * 500


class Failing(Choosing):
    line = ""  # describe() raises


async def start(aiohttp_client: AiohttpClient, player: Callable[[], object], limits: PlayerLimits | None = None
                ) -> tuple[str, str | None]:
    app = create_player_app(player, "tester", machine_factory=nim_factory, limits=limits)  # type: ignore[arg-type]
    client: Client = await aiohttp_client(app)
    response = await client.post("/", data=f"(START m1 first {RULES} 10 5)")
    first = await response.text(), response.headers.get(CONFIGURATION_HEADER)
    again = await client.post("/", data=f"(START m1 first {RULES} 10 5)")  # a repeated START: answered as before
    assert (await again.text(), again.headers.get(CONFIGURATION_HEADER)) == first
    return first


@pytest.mark.parametrize("limits", [None, PlayerLimits()], ids=["in-thread", "in-worker"])
async def test_ready_carries_the_players_choice_as_one_line(aiohttp_client: AiohttpClient,
                                                           limits: PlayerLimits | None) -> None:
    assert await start(aiohttp_client, Choosing, limits) == ("ready", "decisive=2, no NMCS (not a puzzle): because")


async def test_a_player_that_chooses_nothing_sends_no_header(aiohttp_client: AiohttpClient) -> None:
    assert await start(aiohttp_client, LegalPlayer) == ("ready", None)


async def test_a_long_choice_is_cut_and_a_failing_report_is_left_out(aiohttp_client: AiohttpClient) -> None:
    text, header = await start(aiohttp_client, Verbose)
    assert text == "ready" and header is not None and len(header) == MAX_CONFIGURATION_CHARS
    assert header.startswith("decisive=0: ? why ? why") and header.endswith("...")
    assert await start(aiohttp_client, Failing) == ("ready", None)
