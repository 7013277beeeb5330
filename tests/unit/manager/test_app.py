"""The manager's REST API: games, players, matches, events, tournaments, guards and 400s."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import socket
import struct
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from ggp.errors import ReasonerError
from ggp.gdl.terms import Description
from ggp.manager.app import MAX_BODY, create_app
from ggp.manager.records import from_json
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.tournament import MAX_MATCHES
from ggp.reasoner.machine import StateMachine
from tests.helpers.fake_players import FakePlayer, late
from tests.helpers.manager_machines import COUNTER_KIF, NIM_KIF, TICTACTOE_KIF
from tests.unit.manager.test_static_modules import page_scripts

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


async def client_with_games(aiohttp_client: ClientFactory, manager: Manager, token: str = "") -> Client:
    client = await aiohttp_client(create_app(manager, token=token))
    for key, kif in (("nim", NIM_KIF), ("tictactoe", TICTACTOE_KIF), ("counter", COUNTER_KIF)):
        await manager.add_game(key, kif)
    return client


async def finished(client: Client, match_id: str) -> dict[str, Any]:
    for _ in range(200):
        response = await client.get(f"/api/matches/{match_id}")
        data: dict[str, Any] = await response.json()
        if data["isCompleted"] or data["isAborted"]:
            return data
        await asyncio.sleep(0.02)
    raise AssertionError("match did not finish")


async def test_games_can_be_added_listed_and_fetched(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    response = await client.post("/api/games", json={"key": "nim", "name": "Nim <b>", "kif": NIM_KIF})
    assert response.status == 201 and (await response.json())["roles"] == ["a", "b"]
    listed = await (await client.get("/api/games")).json()
    assert [(g["key"], g["name"], g["version"]) for g in listed] == [("nim", "Nim <b>", 1)]
    same = await client.post("/api/games", json={"key": "nim", "kif": NIM_KIF})
    assert (await same.json())["version"] == 1
    changed = await client.post("/api/games", json={"key": "nim", "kif": NIM_KIF + "\n; a comment\n"})
    assert (await changed.json())["version"] == 2
    meta = await (await client.get("/games/nim/v1/")).json()
    assert meta["roleNames"] == ["a", "b"]
    assert "(role a)" in await (await client.get("/games/nim/v1/rulesheet.kif")).text()


async def test_bad_games_are_refused_with_reasons(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    syntax = await client.post("/api/games", json={"key": "bad", "kif": "(role a"})
    body = await syntax.json()
    assert syntax.status == 400 and "bad.kif:1:1" in body["error"]
    unsafe = await client.post("/api/games", json={"key": "bad", "kif": "(role a) (<= (legal a ?x) (true s))"
                                                   " (<= terminal (true s)) (goal a 100) (init s)"})
    body = await unsafe.json()
    assert unsafe.status == 400 and body["problems"] and "?x" in " ".join(body["problems"])
    gdl2 = await client.post("/api/games", json={"key": "bad", "kif": NIM_KIF + "(<= (sees a x) (true (pile 0)))"})
    assert gdl2.status == 400 and "GDL-II" in (await gdl2.json())["error"]
    for payload in ({"key": "Bad Key!", "kif": NIM_KIF}, {"key": "k"}, {"key": 3, "kif": NIM_KIF}, [1, 2]):
        response = await client.post("/api/games", json=payload)
        assert response.status == 400 and (await response.json())["error"]
    garbage = await client.post("/api/games", data=b"{not json", headers={"Content-Type": "application/json"})
    assert garbage.status == 400 and "JSON" in (await garbage.json())["error"]
    huge = await client.post("/api/games", data=io.BytesIO(b"x" * (MAX_BODY + 10)), headers={"Content-Type": "application/json"})
    assert huge.status == 413
    missing = await client.get("/api/games/nope")
    assert missing.status == 404 and (await missing.json())["error"]


async def test_a_match_runs_and_exports_complete_match_json(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await client_with_games(aiohttp_client, manager)
    response = await client.post("/api/matches", json={"game": "tictactoe", "players": ["random", "random"],
                                                       "startclock": 1, "playclock": 1, "seed": 5})
    assert response.status == 201
    match_id = (await response.json())["matchId"]
    data = await finished(client, match_id)
    record = from_json(json.dumps(data))
    assert record.is_completed and record.seed == 5 and sorted(record.goal_values or ()) in ([0, 100], [50, 50])
    assert len(record.states) == len(record.errors) == len(record.moves) + 1
    assert data["x-fallback"] == "random" and data["gameMetaURL"].endswith("/games/tictactoe/v1/")
    download = await client.get(f"/api/matches/{match_id}?download=1")
    assert "attachment" in download.headers["Content-Disposition"]
    listed = await (await client.get("/api/matches?status=completed&game=tictactoe&player=random")).json()
    assert [m["matchId"] for m in listed] == [match_id]
    assert await (await client.get("/api/matches?game=nim")).json() == []
    ratings = await (await client.get("/api/ratings?game=tictactoe")).json()
    assert ratings["ratings"] == []  # random against itself is not rated


async def test_bad_match_requests_get_400s(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await client_with_games(aiohttp_client, manager)
    cases = [
        ({"game": "nope", "players": ["random", "random"]}, "unknown game"),
        ({"game": "nim", "players": ["random", "ghost"]}, "unknown player"),
        ({"game": "nim", "players": ["random"]}, "2 roles"),
        ({"game": "nim", "players": ["random", "random"], "playclock": 0}, "playclock"),
        ({"game": "nim", "players": ["random", "random"], "seed": "x"}, "seed"),
        ({"game": "nim", "players": "random"}, "players"),
    ]
    for payload, reason in cases:
        response = await client.post("/api/matches", json=payload)
        assert response.status == 400, payload
        assert reason in (await response.json())["error"]
    assert (await client.get("/api/matches?status=weird")).status == 400
    assert (await client.get("/api/matches?limit=x")).status == 400
    assert (await client.post("/api/matches/nope/abort")).status == 400


async def test_live_events_stream_steps_then_the_end_and_abort_works(
    aiohttp_client: ClientFactory, aiohttp_server: ServerFactory, manager: Manager
) -> None:
    client = await client_with_games(aiohttp_client, manager)
    slow = await aiohttp_server(FakePlayer(late("(step 1)", 0.02)).app())
    response = await client.post("/api/matches", json={"game": "counter", "players": [str(slow.make_url("/")), "random"]})
    match_id = (await response.json())["matchId"]
    events = await client.get(f"/api/matches/{match_id}/events")
    assert events.headers["Content-Type"] == "text/event-stream"
    seen: list[str] = []
    async for line in events.content:
        text = line.decode().strip()
        if text.startswith("event: "):
            seen.append(text[7:])
        if seen[-1:] == ["end"]:
            break
    assert seen[0] == "snapshot" and seen[-1] == "end" and seen.count("step") >= 5
    data = await finished(client, match_id)
    assert data["isCompleted"] and all(row[0] == "" for row in data["errors"][1:])

    response = await client.post("/api/matches", json={"game": "counter", "players": [str(slow.make_url("/")), "random"]})
    match_id = (await response.json())["matchId"]
    await asyncio.sleep(0.05)
    abort = await client.post(f"/api/matches/{match_id}/abort")
    assert abort.status == 200
    data = await finished(client, match_id)
    assert data["isAborted"] and data["x-endReason"] == "aborted"


async def test_admin_token_and_same_origin_guard_state_changes(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager, token="s3cret"))
    payload = {"key": "nim", "kif": NIM_KIF}
    assert (await client.post("/api/games", json=payload)).status == 401
    wrong = await client.post("/api/games", json=payload, headers={"Authorization": "Bearer nope"})
    assert wrong.status == 401
    assert (await client.get("/api/games")).status == 200
    good = await client.post("/api/games", json=payload, headers={"Authorization": "Bearer s3cret"})
    assert good.status == 201
    evil = await client.post("/api/games", json=payload,
                             headers={"Authorization": "Bearer s3cret", "Origin": "http://evil.example"})
    assert evil.status == 403


async def test_round_robin_tournament_from_yaml_rates_and_ranks_players(
    aiohttp_client: ClientFactory, manager: Manager
) -> None:
    client = await client_with_games(aiohttp_client, manager)
    for name in ("r1", "r2", "r3"):
        assert (await client.post("/api/players", json={"name": name, "builtin": "random"})).status == 201
    yaml_text = "game: nim\nplayers: [r1, r2, r3]\nmatches_per_pairing: 2\nseed: 3\nstartclock: 1\nplayclock: 1\n"
    response = await client.post("/api/tournaments", data=yaml_text, headers={"Content-Type": "application/yaml"})
    assert response.status == 201
    tournament_id = (await response.json())["id"]
    await manager.wait_tournament(tournament_id)
    data = await (await client.get(f"/api/tournaments/{tournament_id}")).json()
    assert data["status"] == "finished" and len(data["matches"]) == 6
    seatings = sorted(tuple(m["players"]) for m in data["matches"])
    assert seatings == sorted([("r1", "r2"), ("r2", "r1"), ("r1", "r3"), ("r3", "r1"), ("r2", "r3"), ("r3", "r2")])
    assert sum(s["matches"] for s in data["standings"]) == 12
    assert sum(s["wins"] for s in data["standings"]) == 6
    ratings = await (await client.get("/api/ratings?game=nim")).json()
    assert {r["player"] for r in ratings["ratings"]} == {"r1", "r2", "r3"}
    assert abs(sum(r["elo"] for r in ratings["ratings"]) - 4500) < 0.5
    bad = await client.post("/api/tournaments", data="game: [", headers={"Content-Type": "application/yaml"})
    assert bad.status == 400 and "YAML" in (await bad.json())["error"]
    few = await client.post("/api/tournaments", json={"game": "nim", "players": ["r1"]})
    assert few.status == 400 and "distinct players" in (await few.json())["error"]


async def test_a_tournament_over_the_match_limit_is_refused_naming_the_limit(
    aiohttp_client: ClientFactory, manager: Manager
) -> None:
    client = await client_with_games(aiohttp_client, manager)
    players = [f"http://127.0.0.1:9/p{i}" for i in range(6)]  # 15 pairings x 1000 = 15000 matches
    response = await client.post("/api/tournaments", json={"game": "nim", "players": players,
                                                           "matches_per_pairing": 1000})
    assert response.status == 400
    error = (await response.json())["error"]
    assert "15000 matches" in error and f"limit of {MAX_MATCHES}" in error
    registered = {p["name"] for p in await (await client.get("/api/players")).json()}
    assert not registered & set(players)  # refused before any player was registered


async def test_players_failing_matches_in_a_row_are_suspended(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await client_with_games(aiohttp_client, manager)
    dead = {"name": "dead", "url": "http://127.0.0.1:9/"}
    assert (await client.post("/api/players", json=dead)).status == 201
    assert (await client.post("/api/players", json={"name": "x y", "url": "ftp://a"})).status == 400
    for _ in range(2):
        response = await client.post("/api/matches", json={"game": "nim", "players": ["dead", "random"]})
        await finished(client, (await response.json())["matchId"])
        await asyncio.sleep(0.05)
    players = {p["name"]: p for p in await (await client.get("/api/players")).json()}
    assert players["dead"]["suspended"] and players["dead"]["failStreak"] == 2
    refused = await client.post("/api/matches", json={"game": "nim", "players": ["dead", "random"]})
    assert refused.status == 400 and "suspended" in (await refused.json())["error"]
    assert (await client.post("/api/players/dead/unsuspend")).status == 200
    again = await client.post("/api/matches", json={"game": "nim", "players": ["dead", "random"]})
    assert again.status == 201


async def test_the_web_ui_is_served(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    page = await client.get("/")
    text = await page.text()
    assert page.status == 200 and "/static/app.js" in text and '<body data-admin-token="none">' in text
    scripts = [await (await client.get(f"/static/{name}")).text() for name in page_scripts()]
    assert all(".innerHTML" not in script and "insertAdjacentHTML" not in script for script in scripts)
    assert any("createTextNode" in script for script in scripts)
    guarded = await aiohttp_client(create_app(manager, token="a-long-enough-token"))
    assert '<body data-admin-token="required">' in await (await guarded.get("/")).text()


async def test_ping_sends_info_and_reports_the_status(
    aiohttp_client: ClientFactory, aiohttp_server: ServerFactory, manager: Manager
) -> None:
    async def info(request: web.Request) -> web.Response:
        return web.Response(text="((name fake) (status available) (species test))")

    app = web.Application()
    app.router.add_post("/", info)
    alive = await aiohttp_server(app)
    client = await aiohttp_client(create_app(manager))
    await client.post("/api/players", json={"name": "alive", "url": str(alive.make_url("/"))})
    await client.post("/api/players", json={"name": "dead", "url": "http://127.0.0.1:9/"})
    assert await (await client.get("/api/players/alive/ping")).json() == {"status": "available", "name": "fake",
                                                                          "species": "test"}
    assert (await (await client.get("/api/players/dead/ping")).json())["status"] == "CE"
    assert (await (await client.get("/api/players/random/ping")).json())["status"] == "available"
    assert (await client.get("/api/players/ghost/ping")).status == 400


async def test_aborting_a_tournament_aborts_its_running_matches(
    aiohttp_client: ClientFactory, aiohttp_server: ServerFactory, manager: Manager
) -> None:
    client = await client_with_games(aiohttp_client, manager)
    slow = await aiohttp_server(FakePlayer(late("(step 1)", 0.05)).app())
    await client.post("/api/players", json={"name": "slow", "url": str(slow.make_url("/"))})
    response = await client.post("/api/tournaments", json={"name": "t", "game": "counter", "players": ["slow", "random"],
                                                           "matches_per_pairing": 4, "parallel": 2})
    tournament_id = (await response.json())["id"]
    await asyncio.sleep(0.2)
    assert (await client.post(f"/api/tournaments/{tournament_id}/abort")).status == 200
    data = await (await client.get(f"/api/tournaments/{tournament_id}")).json()
    assert data["status"] == "aborted" and 1 <= len(data["matches"]) <= 2
    assert {m["status"] for m in data["matches"]} == {"aborted"}
    record = await (await client.get(f"/api/matches/{data['matches'][0]['matchId']}")).json()
    assert record["tournamentNameFromHost"] == "t" and record["x-abortDetail"] == "cancelled"
    assert (await client.post(f"/api/tournaments/{tournament_id}/abort")).status == 400


async def test_games_and_match_streams_carry_the_board_geometry(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await client_with_games(aiohttp_client, manager)
    game = await (await client.get("/api/games/tictactoe")).json()
    assert game["board"] == {"xs": ["1", "2", "3"], "ys": ["3", "2", "1"], "layers": [
        {"relation": "cell", "arity": 3, "x": 0, "y": 1, "owner": None, "piece": 2}]}
    assert (await (await client.get("/api/games/nim")).json())["board"] is None
    assert (await (await client.get("/api/games/tictactoe?version=1")).json())["board"] == game["board"]
    assert (await client.get("/api/games/tictactoe?version=7")).status == 404
    assert (await client.get("/api/games/tictactoe?version=x")).status == 400

    response = await client.post("/api/matches", json={"game": "tictactoe", "players": ["random", "random"]})
    match_id = (await response.json())["matchId"]
    await finished(client, match_id)
    events = await client.get(f"/api/matches/{match_id}/events")
    snapshot = None
    async for line in events.content:
        text = line.decode().strip()
        if text.startswith("data: "):
            snapshot = json.loads(text[6:])
            break
    assert snapshot is not None and snapshot["x-board"] == game["board"]
    assert "x-board" not in await (await client.get(f"/api/matches/{match_id}")).json()  # the export stays ggp.org JSON


def refuse(description: Description) -> StateMachine:
    """A machine factory that cannot run any game (module level: the manager's worker pickles it)."""
    raise ReasonerError(f"{description.file}: grounding phase 'main' exceeded the time limit of 1 s")


async def test_a_stored_game_the_reasoner_cannot_run_has_no_board_and_the_page_still_loads(
    aiohttp_client: ClientFactory,
) -> None:
    store = Store(":memory:")
    manager = Manager(store, refuse)
    try:
        client = await aiohttp_client(create_app(manager))
        store.add_game("odd", "(role q) (init (cell 1 1 b))", ["q"], "odd")  # a row from an older manager
        response = await client.get("/api/games/odd")
        assert response.status == 200 and (await response.json())["board"] is None
    finally:
        await manager.close()
        store.close()


async def _read_then_hang_up(port: int, path: str, read_bytes: int, reset: bool) -> None:
    """Open ``path`` as a browser's EventSource does, read ``read_bytes`` of the answer (0: none), then go
    away: a reset (``reset``, as a closed tab's socket) or a plain close."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    if read_bytes:
        await reader.readexactly(read_bytes)
    if reset:
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.close()


async def test_a_client_leaving_a_live_event_stream_logs_nothing_above_debug(
    aiohttp_client: ClientFactory, aiohttp_server: ServerFactory, manager: Manager, caplog: pytest.LogCaptureFixture
) -> None:
    client = await client_with_games(aiohttp_client, manager)
    slow = await aiohttp_server(FakePlayer(late("(step 1)", 0.05)).app())
    caplog.set_level(logging.DEBUG)
    response = await client.post("/api/matches", json={"game": "counter", "players": [str(slow.make_url("/")), "random"]})
    match_id = (await response.json())["matchId"]
    path, port = f"/api/matches/{match_id}/events", client.server.port
    assert port is not None
    for attempt in range(12):  # hang up before, during and after the snapshot, and while steps arrive
        await _read_then_hang_up(port, path, (0, 1, 60, 400)[attempt % 4], reset=attempt % 2 == 0)
        await asyncio.sleep(0.03)
    assert not (await finished(client, match_id))["isAborted"]
    await _read_then_hang_up(port, path, 1, reset=True)  # and once on a finished match
    await asyncio.sleep(0.1)
    # A client that goes away is normal: nothing above DEBUG from the app or aiohttp's server (its access log
    # lines are INFO for every request), no ERROR anywhere, no traceback.
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR
            or (r.levelno > logging.DEBUG
                and r.name in ("ggp.manager.app", "ggp.manager.streams", "aiohttp.server", "aiohttp.web"))]
    assert loud == [], [r.getMessage() for r in loud]
    assert not any(r.exc_info for r in caplog.records), [r.getMessage() for r in caplog.records if r.exc_info]
