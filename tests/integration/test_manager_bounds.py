"""Reliability: a heavy game cannot wedge the manager (issue 20).

Every reasoner call of a match runs in the game's worker process with a time and a memory limit; a
call over either aborts its match with the reason and replaces the worker, while other matches keep
their clocks and the web server answers. Uploads are parsed, validated and probed in a worker too.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient, TestServer

from ggp.manager.app import create_app
from ggp.manager.match_requests import MatchRequest
from ggp.manager.reasoning import ReasonerLimits
from ggp.manager.runner import Deadlines
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.fake_players import FakePlayer, late
from tests.helpers.manager_machines import (
    COUNTER_KIF,
    LATE_WEDGE_KIF,
    MEMORY_HOG_KIF,
    five_ary_kif,
    machine_for_description,
)
from tests.integration.test_manager_load import random_counter_player

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]
ClientFactory = Callable[[web.Application], Awaitable[TestClient[web.Request, web.Application]]]

LIMITS = ReasonerLimits(call_s=2.0, load_s=120.0, memory_mb=1024, cache_mb=1024)
CLOCKS = Deadlines(start_s=5.0, play_s=1.5, stop_s=1.0, abort_s=1.0, connect_s=2.0)


@pytest.fixture
async def manager() -> AsyncIterator[Manager]:
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=CLOCKS, reasoner=LIMITS))
    yield manager
    await manager.close()
    store.close()


async def players(manager: Manager, aiohttp_server: ServerFactory, delay_s: float = 0.0) -> tuple[str, str]:
    """Two registered counter players; with ``delay_s`` each PLAY answer comes that late."""
    names = ("one", "two")
    for seed, name in enumerate(names, 1):
        app = FakePlayer(late("(step 1)", delay_s)).app() if delay_s else random_counter_player(seed)
        server = await aiohttp_server(app)
        manager.register_player(name, url=str(server.make_url("/")))
    return names


async def test_a_wedged_reasoner_call_aborts_its_match_while_other_matches_and_the_api_go_on(
    manager: Manager, aiohttp_server: ServerFactory, aiohttp_client: ClientFactory,
) -> None:
    client = await aiohttp_client(create_app(manager))
    await manager.add_game("wedge", LATE_WEDGE_KIF)
    await manager.add_game("counter", COUNTER_KIF)
    names = await players(manager, aiohttp_server, delay_s=0.25)
    wedged = await manager.start_match(MatchRequest("wedge", names, 5, 1, seed=1))
    other = await manager.start_match(MatchRequest("counter", names, 5, 1, seed=2))
    answered = 0
    started = time.monotonic()
    while not (record := manager.live(wedged)) or not (record.is_aborted or record.is_completed):
        response = await client.get(f"/api/matches/{wedged}")
        assert response.status == 200
        answered += 1
        await asyncio.sleep(0.1)
        assert time.monotonic() - started < 60, "the wedged match was never aborted"
    final = await manager.wait(other)
    record = manager.live(wedged)
    assert record is not None and record.is_aborted and record.end_reason == "error"
    assert record.step == 1  # the second step's call (the next state, then its legal moves) hung
    assert "the reasoner call 'next' exceeded the time limit of 2 s; worker replaced" in record.abort_detail
    # the event loop stayed free: the API answered all along (a blocked loop answers once at most)
    assert answered >= 5
    # the other match kept its clocks: complete, and no player was charged a timeout
    assert final is not None and final.is_completed and final.step == 10
    assert all(code == "" for row in final.errors for code in row)
    # the worker was replaced: a new match of the same game plays its first step again
    again = await manager.start_match(MatchRequest("wedge", names, 5, 1, seed=3))
    while (record := manager.live(again)) is not None and record.step < 1:
        await asyncio.sleep(0.05)
    assert record is not None and record.step == 1
    await manager.abort(again)


async def test_a_reasoner_call_over_the_memory_limit_aborts_its_match_with_the_reason(
    manager: Manager, aiohttp_server: ServerFactory,
) -> None:
    await manager.add_game("hog", MEMORY_HOG_KIF)
    names = await players(manager, aiohttp_server)
    record = await asyncio.wait_for(manager.wait(await manager.start_match(MatchRequest("hog", names, 5, 1))), 60)
    assert record is not None and record.is_aborted and record.step == 1
    assert "the reasoner call 'next' exceeded the memory limit of 1024 MB; worker replaced" in record.abort_detail


async def post_json(client: TestClient[web.Request, web.Application], path: str, body: object) -> ClientResponse:
    """POST a large JSON body as a stream (aiohttp warns that raw bytes this big would block the loop)."""
    return await client.post(path, data=io.BytesIO(json.dumps(body).encode()),
                             headers={"Content-Type": "application/json"})


def big_kif(size: int) -> str:
    """The counter game padded with unused facts to about ``size`` characters."""
    lines = [COUNTER_KIF]
    total, index = len(COUNTER_KIF), 0
    while total < size:
        line = f"(filler f{index} g{index % 97} h{index % 13})"
        lines.append(line)
        total, index = total + len(line) + 1, index + 1
    return "\n".join(lines)


async def test_a_big_upload_does_not_stall_running_matches(
    manager: Manager, aiohttp_server: ServerFactory, aiohttp_client: ClientFactory,
) -> None:
    """1.5 MB of KIF took ~10 s to parse on the event loop: players then got TO for replies in time."""
    client = await aiohttp_client(create_app(manager))
    await manager.add_game("counter", COUNTER_KIF)
    names = await players(manager, aiohttp_server, delay_s=0.1)
    upload = asyncio.create_task(post_json(client, "/api/games", {"key": "big", "kif": big_kif(1_500_000)}))
    records = []
    while not upload.done():
        match_id = await manager.start_match(MatchRequest("counter", names, 5, 1))
        records.append(await manager.wait(match_id))
    response = await upload
    assert response.status == 201, await response.text()
    assert records and all(r is not None and r.is_completed for r in records)
    assert all(code == "" for r in records if r for row in r.errors for code in row)


async def test_an_upload_that_cannot_be_probed_in_time_is_refused_with_the_reason(
    aiohttp_client: ClientFactory,
) -> None:
    limits = ReasonerLimits(call_s=2.0, load_s=1.0, memory_mb=1024)
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(reasoner=limits))
    try:
        client = await aiohttp_client(create_app(manager))
        response = await post_json(client, "/api/games", {"key": "big", "kif": big_kif(1_500_000)})
        assert response.status == 400
        assert (await response.json())["error"] == (
            "big.kif: cannot be played within the limits: loading exceeded the time limit of 1 s")
        assert store.game("big") is None
    finally:
        await manager.close()
        store.close()


async def test_a_game_whose_grounding_exceeds_the_limits_is_refused_at_upload(aiohttp_client: ClientFactory) -> None:
    from ggp.commands._manager_glue import machine_factory

    limits = ReasonerLimits(call_s=2.0, load_s=5.0, memory_mb=1024)
    store = Store(":memory:")
    manager = Manager(store, machine_factory("auto"), settings=ManagerSettings(reasoner=limits))
    try:
        client = await aiohttp_client(create_app(manager))
        response = await post_json(client, "/api/games", {"key": "heavy", "kif": five_ary_kif(100)})
        assert response.status == 400
        error = (await response.json())["error"]
        assert error.startswith("heavy.kif: cannot be played within the limits: loading exceeded the "), error
        assert store.game("heavy") is None
        small = await post_json(client, "/api/games", {"key": "light", "kif": five_ary_kif(2)})
        assert small.status == 201, await small.text()
    finally:
        await manager.close()
        store.close()


def resident_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux /proc to read memory use")
async def test_twenty_new_versions_keep_the_workers_memory_under_the_cache_bound() -> None:
    """Every new version of a game kept 40-77 MB forever (217 -> 488 MB after 5 versions)."""
    limits = ReasonerLimits(call_s=5.0, load_s=120.0, memory_mb=1024, cache_mb=160)
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(reasoner=limits))
    try:
        before = resident_bytes()
        for version in range(1, 21):
            row = await manager.add_game("counter", big_kif(20_000) + f"\n(version v{version})")
            assert row.version == version
            assert manager.reasoners.cached_bytes() <= 160 * 2**20
        grown = resident_bytes() - before
        kept = manager.reasoners.cached_games()
    finally:
        await manager.close()
        store.close()
    assert 1 <= kept < 20
    assert grown < 100 * 2**20, f"the manager grew by {grown / 2**20:.0f} MB"
