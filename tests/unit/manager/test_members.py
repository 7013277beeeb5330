"""Players registered by their owners (issue 43 item 5): registration modes, per-player tokens (only a hash
stored), what a token may do, rate limits, and each refused URL."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from ggp.errors import InputError
from ggp.manager.app import create_app
from ggp.manager.match_requests import MatchRequest
from ggp.manager.members import MEMBERS, TOKEN_HEADER, RateLimit, RegistrationSettings, parse_registration
from ggp.manager.scheduler import SCHEDULER
from ggp.manager.service import Manager
from ggp.manager.urls import UrlPolicy, parse_networks
from tests.helpers.step_players import step_game_kif, step_player_app

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
ServerFactory = Callable[[web.Application], Awaitable[TestServer]]

LOOPBACK = UrlPolicy(parse_networks("127.0.0.0/8"))
"""The tests' players listen on loopback, which a site allows only when its admin says so."""
ADMIN = "admin-token-1234"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def site(aiohttp_client: ClientFactory, manager: Manager, **settings: Any) -> tuple[Client, web.Application]:
    app = create_app(manager, token=ADMIN)
    app[MEMBERS].configure(RegistrationSettings(**{"mode": "open", "policy": LOOPBACK, **settings}))
    return await aiohttp_client(app), app


async def register(client: Client, name: str, url: str, **extra: str) -> tuple[int, dict[str, Any]]:
    response = await client.post("/api/members", json={"name": name, "url": url, **extra})
    return response.status, await response.json()


async def test_an_owner_registers_without_the_admin_token_and_gets_a_token_stored_only_as_a_hash(
        aiohttp_client: ClientFactory, manager: Manager, aiohttp_server: ServerFactory) -> None:
    client, _ = await site(aiohttp_client, manager)
    player = await aiohttp_server(step_player_app(0))
    status, reply = await register(client, "mine", str(player.make_url("/")))
    assert status == 201 and reply["name"] == "mine" and len(reply["token"]) >= 40
    row = manager.store.player("mine")
    assert row is not None and row.kind == "remote" and row.url == str(player.make_url("/"))
    stored = manager.store.db.execute("SELECT token_hash FROM player_owners WHERE name = 'mine'").fetchone()[0]
    assert stored == hashlib.sha256(reply["token"].encode()).hexdigest()
    dump = "\n".join(manager.store.db.iterdump())
    assert reply["token"] not in dump  # the token itself is nowhere in the database
    assert (await client.post("/api/players", json={"name": "x", "builtin": "random"})).status == 401  # admin's still


async def test_the_owner_pauses_resumes_renames_and_deletes_its_player_and_no_other(
        aiohttp_client: ClientFactory, manager: Manager, aiohttp_server: ServerFactory) -> None:
    client, app = await site(aiohttp_client, manager)
    url = str((await aiohttp_server(step_player_app(0))).make_url("/"))
    _, mine = await register(client, "mine", url)
    assert (await register(client, "theirs", url))[0] == 201
    manager.register_player("admins", url=url)
    own = {TOKEN_HEADER: mine["token"]}
    scheduler = app[SCHEDULER]
    assert (await client.post("/api/members/mine/pause", headers=own)).status == 200
    assert scheduler.paused() == {"mine"}
    assert (await client.post("/api/members/mine/resume", headers=own)).status == 200
    assert scheduler.paused() == set()
    for path in ("/api/members/theirs/pause", "/api/members/admins/pause"):  # a token acts for its own player only
        response = await client.post(path, headers=own)
        assert response.status == 403, path
    assert (await (await client.post("/api/members/theirs/pause", headers=own)).json())["error"] == (
        f"this request does not carry the token of player 'theirs''s owner ({TOKEN_HEADER})")
    assert (await client.post("/api/members/mine/pause")).status == 403  # no token
    assert (await client.post("/api/members/nobody/pause", headers=own)).status == 404
    assert (await client.post("/api/members/mine/rename", json={"name": "theirs"}, headers=own)).status == 409
    manager.store.set_ratings("*", {"mine": (1600.0, 3)})
    response = await client.post("/api/members/mine/rename", json={"name": "renamed"}, headers=own)
    assert response.status == 200 and await response.json() == {"name": "renamed", "was": "mine"}
    assert manager.store.player("mine") is None and manager.store.ratings()["renamed"] == (1600.0, 3)
    assert (await client.post("/api/members/renamed/pause", headers=own)).status == 200  # the token moved along
    assert (await client.delete("/api/members/theirs", headers=own)).status == 403
    assert (await client.delete("/api/members/renamed", headers=own)).status == 200
    assert manager.store.player("renamed") is None and scheduler.paused() == set() and "renamed" not in manager.store.ratings()
    assert {p.name for p in manager.store.players()} >= {"theirs", "admins"}


async def test_a_player_in_a_running_match_is_neither_renamed_nor_deleted(
        aiohttp_client: ClientFactory, manager: Manager, aiohttp_server: ServerFactory) -> None:
    client, _ = await site(aiohttp_client, manager)
    await manager.add_game("duel", step_game_kif(2, 10))
    _, mine = await register(client, "mine", str((await aiohttp_server(step_player_app(0, 0.2))).make_url("/")))
    match_id = await manager.start_match(MatchRequest("duel", ("mine", "random"), 5, 3))
    own = {TOKEN_HEADER: mine["token"]}
    response = await client.delete("/api/members/mine", headers=own)
    assert response.status == 409 and "is playing a match" in (await response.json())["error"]
    assert (await client.post("/api/members/mine/rename", json={"name": "other"}, headers=own)).status == 409
    await manager.abort(match_id)
    assert (await client.delete("/api/members/mine", headers=own)).status == 200


async def test_closed_and_invite_registration_refuse_in_one_line(
        aiohttp_client: ClientFactory, manager: Manager) -> None:
    client, app = await site(aiohttp_client, manager, mode="closed")
    assert await register(client, "p", "http://127.0.0.1:9147/") == (
        403, {"error": "registration is closed on this site; ask its admin"})
    app[MEMBERS].configure(RegistrationSettings(mode="invite", code="sesame-42", policy=LOOPBACK))
    assert await register(client, "p", "http://127.0.0.1:9147/") == (
        403, {"error": "registration on this site needs its invite code (field 'invite')"})
    assert await register(client, "p", "http://127.0.0.1:9147/", invite="sesame-41") == (
        403, {"error": "wrong invite code"})
    status, _ = await register(client, "p", "http://127.0.0.1:9147/", invite="sesame-42")
    assert status == 201
    assert parse_registration("invite:abc") == ("invite", "abc")
    with pytest.raises(InputError, match="open, closed or invite:CODE"):
        parse_registration("maybe")
    with pytest.raises(InputError, match="at least 6 characters"):
        RegistrationSettings(mode="invite", code="abc")


async def test_registrations_are_rate_limited_per_client_address_failed_ones_included(
        aiohttp_client: ClientFactory, manager: Manager) -> None:
    clock = Clock()
    client, app = await site(aiohttp_client, manager)
    app[MEMBERS]._clock = clock
    app[MEMBERS].configure(RegistrationSettings(mode="invite", code="sesame-42", per_address=2, window_s=600,
                                                policy=LOOPBACK))
    assert (await register(client, "a", "http://127.0.0.1:9147/", invite="guess-1"))[0] == 403
    assert (await register(client, "a", "http://127.0.0.1:9147/", invite="sesame-42"))[0] == 201
    response = await client.post("/api/members", json={"name": "b", "url": "http://127.0.0.1:9147/", "invite": "sesame-42"})
    assert response.status == 429 and response.headers["Retry-After"] == "600"
    assert (await response.json())["error"] == "too many registrations from 127.0.0.1; try again in 600 s"
    clock.now += 601
    assert (await register(client, "b", "http://127.0.0.1:9147/", invite="sesame-42"))[0] == 201
    limit = RateLimit(1, 10, clock)
    assert limit.wait_s("10.0.0.1") == 0 and limit.wait_s("10.0.0.2") == 0  # per address
    assert limit.wait_s("10.0.0.1") == 10


@pytest.mark.parametrize(("url", "error"), [
    ("ftp://127.0.0.1/", "a player URL must start with http:// or https:// and name a host"),
    ("http://me:pw@127.0.0.1:9147/", "a player URL may not carry a user name or password"),
    ("http://2130706433:9147/", "the host '2130706433' is a number in disguise; write an IPv4 address as four decimal numbers"),
    ("http://127.0.0.1:22/", "port 22 is not for HTTP (browsers refuse it too); use 80, 443 or a port above 1023 that "
                             "is not reserved"),
    ("http://127.0.0.1:6667/", "port 6667 is not for HTTP (browsers refuse it too); use 80, 443 or a port above 1023 "
                               "that is not reserved"),
    ("http://10.0.0.7:9147/", "the address 10.0.0.7 is outside the networks this site allows for players "
                              "(127.0.0.0/8)"),
    ("http://[::1]:9147/", "the address ::1 is outside the networks this site allows for players (127.0.0.0/8)"),
    ("http://no-such-host.invalid:9147/", None),
])
async def test_each_refused_url_gets_its_reason(
        aiohttp_client: ClientFactory, manager: Manager, url: str, error: str | None) -> None:
    client, _ = await site(aiohttp_client, manager)
    status, reply = await register(client, "p", url)
    assert status == 400
    if error is None:
        assert reply["error"].startswith("the host 'no-such-host.invalid' does not resolve (")
    else:
        assert reply["error"] == f"player url {url!r}: {error}"
    assert manager.store.player("p") is None


async def test_a_url_pointing_at_the_manager_itself_is_refused_however_it_is_spelled(
        aiohttp_client: ClientFactory, manager: Manager) -> None:
    client, _ = await site(aiohttp_client, manager)
    port = client.server.port
    for url in (f"http://127.0.0.1:{port}/", f"http://localhost:{port}/api/matches", f"http://127.0.0.2:{port}/"):
        status, reply = await register(client, "p", url)
        assert (status, reply["error"]) == (400, f"player url {url!r}: the URL points at this manager itself"), url
    public = manager.settings.public_url  # http://127.0.0.1:9140 by default: the address it tells the world
    status, reply = await register(client, "p", public + "/")
    assert (status, reply["error"]) == (400, f"player url {public + '/'!r}: the URL points at this manager itself")


async def test_by_default_only_public_addresses_are_allowed(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client, _ = await site(aiohttp_client, manager, policy=UrlPolicy())
    status, reply = await register(client, "p", "http://127.0.0.1:9147/")
    assert (status, reply["error"]) == (400, "player url 'http://127.0.0.1:9147/': the address 127.0.0.1 is outside "
                                             "the networks this site allows for players (public addresses only)")
    for private in ("http://192.168.1.20:9147/", "http://169.254.169.254/latest/", "http://[fd00::1]:9147/"):
        assert (await register(client, "p", private))[0] == 400, private


async def test_bad_bodies_and_names_are_refused_in_one_line(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client, _ = await site(aiohttp_client, manager)
    cases = [({"name": "p"}, "field 'url' is required"),
             ({"name": "p", "url": 5}, "field 'url' must be a string"),
             ({"name": "p", "url": "http://127.0.0.1:9147/", "admin": "yes"}, "unknown field 'admin'"),
             ({"name": "bad name!", "url": "http://127.0.0.1:9147/"},
              "player name 'bad name!' must be 1-64 letters, digits, '_', '.', ':' or '-'"),
             ({"name": "random", "url": "http://127.0.0.1:9147/"}, "player name 'random' is taken")]
    for body, error in cases:
        response = await client.post("/api/members", json=body)
        reply = await response.json()
        assert response.status in (400, 409) and error in reply["error"] and "\n" not in reply["error"], body
    assert (await client.post("/api/members", data="name=p")).status == 400
