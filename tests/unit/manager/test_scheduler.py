"""Continuous scheduling (ggp.manager.scheduler): who is seated, on what, with which clocks; pauses,
unanswered pings, suspensions retried; the API."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from ggp.manager.app import create_app
from ggp.manager.scheduler import SCHEDULE_TOURNAMENT, Scheduler, ScheduleSettings, draw_game
from ggp.manager.service import Manager
from ggp.manager.store import GameRow
from tests.helpers.network import free_port
from tests.helpers.step_players import MESSAGES, step_game_kif, step_player_app

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


async def with_players(manager: Manager, aiohttp_server: ServerFactory, count: int, delay_s: float = 0.05) -> list[str]:
    """``count`` registered step players (each PLAY answered after ``delay_s``) and two step games."""
    await manager.add_game("duel", step_game_kif(2, 10))
    await manager.add_game("solo", step_game_kif(1, 10))
    names: list[str] = []
    for index in range(count):
        server = await aiohttp_server(step_player_app(index, delay_s))
        manager.register_player(f"p{index}", url=str(server.make_url("/")))
        names.append(f"p{index}")
    return names


def seated(manager: Manager, match_ids: list[str]) -> list[str]:
    names: list[str] = []
    for match_id in match_ids:
        record = manager.live(match_id)
        assert record is not None
        names.extend(record.player_names)
    return names


async def test_a_round_seats_every_answering_player_once_and_busy_players_wait(
        manager: Manager, aiohttp_server: ServerFactory) -> None:
    names = await with_players(manager, aiohttp_server, 5)
    scheduler = Scheduler(manager, ScheduleSettings(seed=1, start_clock=5, play_clock=3))
    first = await scheduler.run_round()
    players = seated(manager, first)
    assert sorted(players) == names  # five players: two duels and a solo, or a duel and three solos, ...
    record = manager.live(first[0])
    assert record is not None and record.tournament == SCHEDULE_TOURNAMENT
    assert (record.start_clock, record.play_clock) == (5, 3)
    assert await scheduler.run_round() == []  # everyone is still playing: one match per player at a time
    await asyncio.gather(*(manager.wait(m) for m in first))
    again = await scheduler.run_round()
    assert sorted(seated(manager, again)) == names
    await asyncio.gather(*(manager.wait(m) for m in again))


async def test_paused_silent_and_suspended_players_are_not_seated_and_a_suspension_is_retried(
        manager: Manager, aiohttp_server: ServerFactory) -> None:
    await with_players(manager, aiohttp_server, 3, delay_s=0.0)
    manager.register_player("silent", url=f"http://127.0.0.1:{free_port()}/")  # nothing listens there
    scheduler = Scheduler(manager, ScheduleSettings(seed=2, retry_s=3600))
    scheduler.set_paused("p0", True)
    manager.store.set_suspended("p1", True)
    started = await scheduler.run_round()
    assert seated(manager, started) == ["p2"]
    await asyncio.gather(*(manager.wait(m) for m in started))
    status = {p["name"]: p["state"] for p in scheduler.status()["players"]}
    assert status == {"p0": "paused", "p1": "suspended", "p2": "waiting", "silent": "waiting"}
    scheduler.configure(ScheduleSettings(seed=2, retry_s=0))  # the suspension is now old enough
    scheduler.set_paused("p0", False)
    retried = await scheduler.run_round()
    assert sorted(seated(manager, retried)) == ["p0", "p1", "p2"]
    player = manager.store.player("p1")
    assert player is not None and not player.suspended
    await asyncio.gather(*(manager.wait(m) for m in retried))


async def test_players_that_just_finished_a_match_cleanly_are_seated_again_without_a_ping(
        manager: Manager, aiohttp_server: ServerFactory) -> None:
    await manager.add_game("duel", step_game_kif(2, 3))
    apps = [step_player_app(index) for index in range(2)]
    for index, app in enumerate(apps):
        manager.register_player(f"p{index}", url=str((await aiohttp_server(app)).make_url("/")))
    scheduler = Scheduler(manager, ScheduleSettings(seed=1, fresh_s=3600))
    first = await scheduler.run_round()
    await asyncio.gather(*(manager.wait(m) for m in first))
    assert [app[MESSAGES]["INFO"] for app in apps] == [1, 1] and scheduler.pings == 2
    second = await scheduler.run_round()
    assert sorted(seated(manager, second)) == ["p0", "p1"]
    assert [app[MESSAGES]["INFO"] for app in apps] == [1, 1] and scheduler.pings == 2  # no ping: they just played
    await asyncio.gather(*(manager.wait(m) for m in second))
    scheduler.configure(ScheduleSettings(seed=1, fresh_s=0))  # a finish no longer stands for a ping
    third = await scheduler.run_round()
    assert [app[MESSAGES]["INFO"] for app in apps] == [2, 2] and scheduler.pings == 4
    await asyncio.gather(*(manager.wait(m) for m in third))


async def test_a_player_with_an_error_in_its_last_match_is_pinged_before_it_is_seated_again(
        manager: Manager, aiohttp_server: ServerFactory) -> None:
    await manager.add_game("duel", step_game_kif(2, 2))
    apps = [step_player_app(0), step_player_app(1, delay_s=1.5)]  # p1 overruns its 1 s play clock
    for index, app in enumerate(apps):
        manager.register_player(f"p{index}", url=str((await aiohttp_server(app)).make_url("/")))
    scheduler = Scheduler(manager, ScheduleSettings(seed=1, fresh_s=3600, start_clock=2, play_clock=1))
    first = await scheduler.run_round()
    record = await manager.wait(first[0])
    assert record is not None and any(row[record.player_names.index("p1")] for row in record.errors)
    again = await scheduler.run_round()
    assert [app[MESSAGES]["INFO"] for app in apps] == [1, 2]  # p0 finished cleanly, p1 is asked again
    await asyncio.gather(*(manager.wait(m) for m in again))


def test_games_with_few_recent_matches_are_drawn_more_often() -> None:
    games = [GameRow("busy", 1, "busy", "", ("a", "b"), 0.0), GameRow("quiet", 1, "quiet", "", ("a", "b"), 0.0),
             GameRow("big", 1, "big", "", ("a", "b", "c"), 0.0)]
    rng = random.Random(3)
    drawn = Counter(draw_game(rng, games, Counter({"busy": 9}), 2).key for _ in range(2000))  # type: ignore[union-attr]
    assert set(drawn) == {"busy", "quiet"}  # 'big' needs three players
    assert 7 < drawn["quiet"] / drawn["busy"] < 14  # weights 1 and 1/10
    assert draw_game(rng, games, Counter(), 1) is None


async def test_clocks_come_from_the_repository_metadata_else_the_defaults(manager: Manager) -> None:
    manager.repository.clocks["duel"] = (7, 2)
    scheduler = Scheduler(manager, ScheduleSettings(start_clock=20, play_clock=10))
    assert scheduler.clocks("duel") == (7, 2) and scheduler.clocks("other") == (20, 10)


async def test_the_schedule_api_pauses_and_resumes_players(aiohttp_client: ClientFactory, manager: Manager) -> None:
    manager.register_player("remote1", url="http://127.0.0.1:9/")
    client = await aiohttp_client(create_app(manager))
    assert (await client.post("/api/players/remote1/pause")).status == 200
    status = await (await client.get("/api/schedule")).json()
    assert status["running"] is False and status["players"] == [{"name": "remote1", "state": "paused"}]
    assert (await client.post("/api/players/remote1/resume")).status == 200
    status = await (await client.get("/api/schedule")).json()
    assert status["players"] == [{"name": "remote1", "state": "waiting"}]
    assert (await client.post("/api/players/nobody/pause")).status == 400


async def test_the_schedule_runs_rounds_in_the_background_until_stopped(
        manager: Manager, aiohttp_server: ServerFactory) -> None:
    await with_players(manager, aiohttp_server, 2, delay_s=0.0)
    scheduler = Scheduler(manager, ScheduleSettings(seed=4, round_s=0.05))
    scheduler.start()
    for _ in range(1200):  # a bound for a loaded machine, not a speed requirement
        if len(scheduler.started) >= 3:
            break
        await asyncio.sleep(0.05)
    await scheduler.stop()
    assert len(scheduler.started) >= 3 and not scheduler.running
    await asyncio.gather(*(manager.wait(m) for m in scheduler.started))
