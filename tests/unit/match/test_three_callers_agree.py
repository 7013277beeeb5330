"""The arena, self-play and the manager play the same seeded match the same way: one loop, two transports.

Each caller gets the same game, the same seeded players and the same match seed; the manager reaches
its players over real loopback HTTP (the player server), the other two call them in-process. The moves,
the goals and the end reason must be identical, at a terminal state, at the step cap and with chance.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.arena import play_game
from ggp.evaluation.selfplay import GameSource, MatchJob, play_match
from ggp.gdl.parser import parse_kif
from ggp.gdl.terms import Description
from ggp.manager.records import MatchRecord
from ggp.manager.runner import RANDOM_SEAT, Deadlines, HttpTransport, MatchConfig, Seat, run_match
from ggp.player import Player
from ggp.players.random_player import RandomPlayer
from ggp.protocol.server import create_player_app
from ggp.reasoner.engines import KifMachines
from ggp.reasoner.machine import StateMachine
from tests.unit.evaluation.tiny_games import NIM

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]
MACHINES = KifMachines("clingo")
DEADLINES = Deadlines(start_s=30, play_s=30, stop_s=5, abort_s=5, connect_s=5)

COIN = """
(role caller) (role random)
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3)
(side heads) (side tails)
(<= (legal caller (call ?x)) (side ?x))
(<= (legal random (flip ?x)) (side ?x))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (next (hit ?n)) (does caller (call ?x)) (does random (flip ?x)) (true (step ?m)) (succ ?m ?n))
(<= (next (hit ?n)) (true (hit ?n)))
(<= terminal (true (step 3)))
(<= (goal caller 100) (true (hit 3)))
(<= (goal caller 0) (not (true (hit 3))))
(<= (goal random 0) (true (step 3)))
"""
"""Three simultaneous coin calls against the chance role; the caller scores for calling the last flip."""


def random_player(spec: str, seed: int) -> Player:
    """The self-play player factory of these tests: every spec is a seeded random player."""
    return RandomPlayer(seed)


async def manager_match(aiohttp_server: ServerFactory, kif: str, seed: int, chance: bool,
                        step_cap: int) -> MatchRecord:
    description = parse_kif(kif)
    seats: list[Seat] = []
    for index in range(1 if chance else 2):
        machine = MACHINES(GameSource("game", kif))

        def factory(index: int = index) -> Player:
            return RandomPlayer(seed * 1009 + index)

        def machines(_: Description, machine: StateMachine = machine) -> StateMachine:
            return machine

        server = await aiohttp_server(create_player_app(factory, f"p{index}", machine_factory=machines))
        seats.append(Seat(f"p{index}", str(server.make_url("/"))))
    if chance:
        seats.append(RANDOM_SEAT)
    config = MatchConfig("agree", "game", description, tuple(seats), start_clock=30, play_clock=30, seed=seed,
                         step_cap=step_cap, deadlines=DEADLINES)
    async with HttpTransport() as transport:
        return await run_match(MACHINES(GameSource("game", kif)), config, transport)


@pytest.mark.parametrize(("kif", "chance", "step_cap", "reason"), [
    (NIM, False, 1000, "terminal"),
    (NIM, False, 3, "step_cap"),
    (COIN, True, 1000, "terminal"),
], ids=["nim", "nim-step-cap", "chance"])
@pytest.mark.parametrize("seed", [4, 9])
async def test_arena_selfplay_and_manager_play_the_same_match(
    aiohttp_server: ServerFactory, kif: str, chance: bool, step_cap: int, reason: str, seed: int
) -> None:
    machine = MACHINES(GameSource("game", kif))
    specs = ("random",) if chance else ("random", "random")

    players = [RandomPlayer(seed * 1009 + i) for i in range(len(specs))]
    arena_goals, arena_length, arena_reason, arena_errors = play_game(machine, players, seed, step_cap)

    job = MatchJob(GameSource("game", kif), specs, seed, step_cap=step_cap)
    selfplay = play_match(job, random_player, MACHINES)

    record = await manager_match(aiohttp_server, kif, seed, chance, step_cap)

    assert selfplay.error is None and arena_errors == 0
    assert selfplay.end_reason == arena_reason == record.end_reason == reason
    assert selfplay.goals == record.goal_values
    player_goals = selfplay.goals[:len(specs)]  # the chance role is the last role of COIN
    assert arena_goals == player_goals
    assert selfplay.length == arena_length == record.step
    assert selfplay.moves == record.moves
    assert {code for row in record.errors for code in row} == {""}
