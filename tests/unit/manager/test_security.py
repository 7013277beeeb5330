"""The manager against hostile networks: redirects, tokens, DNS rebinding, content types, headers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from ggp.commands._manager_server import allowed_hosts, start_server
from ggp.manager.app import SECURITY_HEADERS, create_app
from ggp.manager.runner import HttpTransport
from ggp.manager.service import Manager

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
TOKEN = "s3cret-token"


async def test_a_redirecting_player_url_is_never_followed() -> None:
    hits: list[str] = []

    async def target(request: web.Request) -> web.Response:
        hits.append(await request.text())
        return web.Response(text="( available )")

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect(location=str(target_server.make_url("/")))

    target_app, redirect_app = web.Application(), web.Application()
    target_app.router.add_post("/", target)
    redirect_app.router.add_post("/", redirect)
    async with TestServer(target_app) as target_server, TestServer(redirect_app) as redirect_server, \
            HttpTransport() as transport:
        with pytest.raises(ConnectionError, match="HTTP status 307"):
            await transport.send(str(redirect_server.make_url("/")), "( info )", 5, 5, "player")
    assert hits == []  # the message was never re-posted to the other host


async def test_the_token_is_enforced_on_loopback_too_and_guards_the_ping(manager: Manager) -> None:
    running = await start_server(manager, "127.0.0.1", 0, TOKEN)  # what `ggp serve --token` does, no --expose
    try:
        async with TestClient(TestServer(running.runner.app)) as client:
            assert (await client.post("/api/players", json={"name": "p", "url": "http://127.0.0.1:1/"})).status == 401
            assert (await client.get("/api/players/p/ping")).status == 401  # it contacts the player
            authorised = {"Authorization": f"Bearer {TOKEN}"}
            response = await client.post("/api/players", json={"name": "p", "url": "http://127.0.0.1:1/"},
                                         headers=authorised)
            assert response.status == 201
            assert (await client.get("/api/players")).status == 200  # plain reads stay open
    finally:
        await running.runner.cleanup()


async def test_a_dns_rebinding_host_is_refused_on_a_loopback_manager(
    aiohttp_client: ClientFactory, manager: Manager
) -> None:
    client = await aiohttp_client(create_app(manager, allowed_hosts=allowed_hosts("127.0.0.1")))
    assert (await client.get("/api/games", headers={"Host": "attacker.example:8080"})).status == 403
    for host in ("127.0.0.1:9000", "localhost:9000", "[::1]:9000", "LOCALHOST"):
        assert (await client.get("/api/games", headers={"Host": host})).status == 200, host
    assert allowed_hosts("0.0.0.0") == frozenset()  # exposed: the admin token guards it


async def test_json_routes_need_json_and_every_response_has_the_security_headers(
    aiohttp_client: ClientFactory, manager: Manager
) -> None:
    client = await aiohttp_client(create_app(manager))
    response = await client.post("/api/players", data='{"name": "p", "url": "http://127.0.0.1:1/"}',
                                 headers={"Content-Type": "text/plain"})
    assert response.status == 415 and "application/json" in (await response.json())["error"]
    for path in ("/", "/api/games", "/no/such/page"):
        headers = (await client.get(path)).headers
        for name, value in SECURITY_HEADERS.items():
            assert headers[name] == value, (path, name)
