"""Load: 100 and 500 concurrent matches against HTTP players on loopback all complete, with complete records."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.manager.match_requests import MatchRequest
from ggp.manager.runner import Deadlines
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import SHORT_COUNTER_KIF, machine_for_description

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


def random_counter_player(seed: int) -> web.Application:
    """One HTTP player that plays any number of counter matches at once, uniformly at random."""
    rng = random.Random(seed)

    async def handle(request: web.Request) -> web.Response:
        kind = (await request.text()).strip("( ").split()[0].upper()
        reply = {"START": "ready", "STOP": "done", "ABORT": "aborted"}.get(kind) or rng.choice(["(step 1)", "(step 2)"])
        return web.Response(text=reply, content_type="text/acl")

    app = web.Application()
    app.router.add_post("/", handle)
    return app


async def play_concurrently(aiohttp_server: ServerFactory, count: int, deadlines: Deadlines, within_s: float) -> None:
    """Start ``count`` counter matches at once between two HTTP players; check every record."""
    one = await aiohttp_server(random_counter_player(1))
    two = await aiohttp_server(random_counter_player(2))
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=deadlines))
    try:
        await manager.add_game("counter", SHORT_COUNTER_KIF)
        manager.register_player("one", url=str(one.make_url("/")))
        manager.register_player("two", url=str(two.make_url("/")))
        ids = [await manager.start_match(MatchRequest("counter", ("one", "two") if i % 2 else ("two", "one"),
                                                      1, 1, seed=i)) for i in range(count)]
        assert len(manager.running_ids()) == count
        records = await asyncio.wait_for(asyncio.gather(*(manager.wait(i) for i in ids)), within_s)
    finally:
        await manager.close()
    assert all(r is not None and r.is_completed and r.step == 3 for r in records)
    assert all(code == "" for r in records if r for row in r.errors for code in row)
    assert all(len(r.states) == len(r.errors) == 4 for r in records if r)
    assert len(store.matches(status="completed", limit=1000)) == count
    overall = store.ratings()
    assert overall["one"][1] + overall["two"][1] == 2 * count
    store.close()


async def test_a_hundred_concurrent_matches_all_complete(aiohttp_server: ServerFactory) -> None:
    await play_concurrently(aiohttp_server, 100, Deadlines(5.0, 5.0, 1.0, 1.0, 5.0), 60)


async def test_five_hundred_concurrent_matches_all_complete(aiohttp_server: ServerFactory) -> None:
    """The manager's most matches at once (``max_running``); every reasoner call goes through the game's
    one worker process. Clocks are generous: this checks that nothing is lost under load, not speed."""
    await play_concurrently(aiohttp_server, 500, Deadlines(60.0, 60.0, 10.0, 10.0, 30.0), 300)
