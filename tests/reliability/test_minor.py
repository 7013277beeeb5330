"""The minor items of issue 31: match seeds bounded, the token only as ``Bearer <token>``, a ping that
shows no page it fetched, and player URLs with numeric hosts in disguise or credentials refused."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from ggp.manager.app import create_app
from ggp.manager.service import Manager
from ggp.manager.tournament import MAX_SEED
from tests.helpers.manager_machines import NIM_KIF

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


async def test_match_seeds_outside_the_sqlite_range_are_refused(aiohttp_client: ClientFactory,
                                                               manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    await manager.add_game("nim", NIM_KIF)
    for seed in (2**64, 10**300, -1):
        response = await client.post("/api/matches", json={"game": "nim", "players": ["random", "random"],
                                                           "seed": seed})
        assert response.status == 400 and f"from 0 to {MAX_SEED}" in (await response.json())["error"]
    response = await client.post("/api/matches", json={"game": "nim", "players": ["random", "random"],
                                                       "seed": MAX_SEED})
    assert response.status == 201


async def test_the_token_counts_only_as_a_bearer_token(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager, token="s3cret-token"))
    body = {"name": "r", "builtin": "random"}
    for header in ("s3cret-token", "Basic s3cret-token", "Bearers3cret-token", ""):
        assert (await client.post("/api/players", json=body, headers={"Authorization": header})).status == 401
    assert (await client.post("/api/players", json=body, headers={"Authorization": "Bearer s3cret-token"})).status == 201
    body["name"] = "r2"
    assert (await client.post("/api/players", json=body, headers={"Authorization": "bearer s3cret-token"})).status == 201


async def test_a_ping_does_not_show_what_a_non_player_answered(aiohttp_client: ClientFactory,
                                                               aiohttp_server: ServerFactory,
                                                               manager: Manager) -> None:
    async def page(request: web.Request) -> web.Response:
        return web.Response(text="<html>internal admin page: password=hunter2</html>", content_type="text/html")

    site = web.Application()
    site.router.add_post("/", page)
    server = await aiohttp_server(site)
    client = await aiohttp_client(create_app(manager))
    assert (await client.post("/api/players", json={"name": "p", "url": str(server.make_url("/"))})).status == 201
    reply = await (await client.get("/api/players/p/ping")).json()
    assert reply["status"] == "bad reply" and "hunter2" not in str(reply) and "html" not in str(reply)


@pytest.mark.parametrize("url", [
    "http://0x7f000001:9147/", "http://2130706433:9147/", "http://0177.0.0.1:9147/", "http://127.1:9147/",
    "http://user:pass@127.0.0.1:9147/", "http://user@player.example/", "http://127.0.0.1:99999/",
    "ftp://127.0.0.1/", "http://bad host/",
])
async def test_player_urls_with_disguised_hosts_or_credentials_are_refused(
        aiohttp_client: ClientFactory, manager: Manager, url: str) -> None:
    client = await aiohttp_client(create_app(manager))
    response = await client.post("/api/players", json={"name": "p", "url": url})
    assert response.status == 400, url
    await manager.add_game("nim", NIM_KIF)
    response = await client.post("/api/matches", json={"game": "nim", "players": [url, "random"]})
    assert response.status == 400, url
    assert [row.name for row in manager.store.players()] == ["random"]  # the built-in one, nothing added


@pytest.mark.parametrize("url", ["http://127.0.0.1:9147/", "http://[::1]:9147/", "https://player.example.org/ggp",
                                 "http://my_player:9147/", "http://localhost:9147"])
async def test_ordinary_player_urls_are_accepted(aiohttp_client: ClientFactory, manager: Manager, url: str) -> None:
    client = await aiohttp_client(create_app(manager))
    assert (await client.post("/api/players", json={"name": "p", "url": url})).status == 201
