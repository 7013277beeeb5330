"""The REST API on hostile input (400 with a reason, never a 500) and SBG games translated on upload."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from ggp.manager.app import create_app
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import NIM_KIF
from tests.prerequisites import require_module
from tests.unit.manager.conftest import FAST

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]

HUGE = "9" * 30

TINY_SBG = """<<Tiny Breakthrough>>
<BOARD> 3 3
|ppp|
|...|
|PPP|
<PIECES>
P (0,1,e) + (-1,1,e) + (1,1,e) + (-1,1,p) + (1,1,p) &
<GOALS> 20 &
@P 0 2, 1 2, 2 2 &
@p 0 0, 1 0, 2 0 &
"""


async def test_huge_numbers_deep_nesting_and_bad_encodings_get_400s_with_reasons(
    aiohttp_client: ClientFactory, manager: Manager
) -> None:
    client = await aiohttp_client(create_app(manager))
    await manager.add_game("nim", NIM_KIF)
    cases = [
        (client.get(f"/games/nim/v{HUGE}/"), "game version"),
        (client.get(f"/games/nim/v{HUGE}/rulesheet.kif"), "game version"),
        (client.get(f"/api/matches?tournament={HUGE}"), "tournament"),
        (client.get(f"/api/matches?limit={HUGE}"), "limit"),
        (client.get("/api/matches?limit=-3"), "limit"),
        (client.get(f"/api/tournaments/{HUGE}"), "tournament id"),
        (client.get("/api/tournaments/x"), "tournament id"),
        (client.post(f"/api/tournaments/{HUGE}/abort"), "tournament id"),
        (client.post("/api/matches", data="[" * 100_000, headers={"Content-Type": "application/json"}),
         "nested too deeply"),
        (client.post("/api/tournaments", data="[" * 60_000, headers={"Content-Type": "application/yaml"}),
         "nested too deeply"),
        (client.post("/api/tournaments", data=b"\xff\xfegame: [", headers={"Content-Type": "application/yaml"}),
         "UTF-8"),
        (client.post("/api/games", data=b"\xff\xfe{", headers={"Content-Type": "application/json"}), "JSON"),
    ]
    for request, reason in cases:
        response = await request
        body = await response.json()
        assert response.status == 400, (response.url, body)
        assert reason in body["error"], (response.url, body)
    assert (await client.get("/games/nim/v1/")).status == 200  # the good case still works


async def test_rules_must_come_in_exactly_one_known_format(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    cases = [({"key": "g"}, "exactly one of the fields ['kif']"),
             ({"key": "g", "kif": NIM_KIF, "sbg": TINY_SBG}, "unknown field 'sbg'"),  # no translator wired
             ({"key": "g", "sbg": TINY_SBG}, "unknown field 'sbg'; expected key, name or kif"),
             ({"key": "g", "kif": NIM_KIF, "colour": "red"}, "unknown field 'colour'")]
    for payload, reason in cases:
        response = await client.post("/api/games", json=payload)
        assert response.status == 400
        assert reason in (await response.json())["error"]
    response = await client.get("/api/games")
    assert response.headers["X-Game-Formats"] == "kif"


@pytest.fixture
async def sbg_manager() -> AsyncIterator[Manager]:
    """A manager wired as ``ggp serve`` wires it: the clingo reasoner and the SBG translator."""
    require_module("clingo")
    from ggp.commands._manager_glue import game_translators, machine_factory

    store = Store(":memory:")
    manager = Manager(store, machine_factory("clingo"), settings=ManagerSettings(deadlines=FAST),
                      translators=game_translators())
    yield manager
    await manager.close()
    store.close()


async def test_an_sbg_game_is_translated_on_upload_stored_as_kif_and_playable(
    aiohttp_client: ClientFactory, sbg_manager: Manager
) -> None:
    client = await aiohttp_client(create_app(sbg_manager))
    assert (await client.get("/api/games")).headers["X-Game-Formats"] == "kif,sbg"
    response = await client.post("/api/games", json={"key": "tiny", "name": "Tiny", "sbg": TINY_SBG})
    body = await response.json()
    assert response.status == 201, body
    assert body["roles"] == ["white", "black"] and body["format"] == "sbg"
    stored = await (await client.get("/api/games/tiny")).json()
    assert "(role white)" in stored["kif"] and "<BOARD>" not in stored["kif"]

    bad = await client.post("/api/games", json={"key": "broken", "sbg": "<<Broken>>\n<BOARD> 3\n"})
    error = (await bad.json())["error"]
    assert bad.status == 400 and error.startswith("broken.sbg:3:1: expected the board height") and "\n" not in error
    assert (await client.get("/api/games/broken")).status == 404
    both = await client.post("/api/games", json={"key": "t2", "sbg": TINY_SBG, "kif": NIM_KIF})
    assert both.status == 400 and "exactly one of the fields ['kif', 'sbg']" in (await both.json())["error"]
    wrong_type = await client.post("/api/games", json={"key": "t2", "sbg": 3})
    assert wrong_type.status == 400 and "'sbg'" in (await wrong_type.json())["error"]

    started = await client.post("/api/matches", json={"game": "tiny", "players": ["random", "random"],
                                                      "startclock": 1, "playclock": 1, "seed": 2})
    match_id = (await started.json())["matchId"]
    record = await sbg_manager.wait(match_id)
    assert record is not None and record.is_completed and record.end_reason == "terminal"
    assert sorted(record.goal_values or ()) in ([0, 100], [50, 50])
    assert any("(cell " in state for state in record.states)
    assert sbg_manager.reasoners.cached_games() == 1  # the upload's worker plays the stored KIF's matches


async def test_the_ui_offers_every_upload_format(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    script = await (await client.get("/static/pages.js")).text()
    assert "X-Game-Formats" in script and "[format.value]: kif.value" in script
    await asyncio.sleep(0)


STRICT_BODIES: list[tuple[str, str | dict[str, object], str, str]] = [
    ("/api/games", {"key": "nim2", "kif": NIM_KIF, "nmae": "Nim"}, "nmae", "application/json"),
    ("/api/players", {"name": "r2", "builtin": "random", "urll": "http://x/"}, "urll", "application/json"),
    ("/api/matches", {"game": "nim", "players": ["random", "random"], "playclok": 3}, "playclok", "application/json"),
    ("/api/tournaments", {"game": "nim", "players": ["random", "r1"], "matches_per_pairng": 1},
     "matches_per_pairng", "application/json"),
    ("/api/tournaments", "game: nim\nplayers: [random, r1]\nplayclok: 2\n", "playclok", "application/yaml"),
]


@pytest.mark.parametrize(("path", "body", "typo", "content_type"), STRICT_BODIES,
                         ids=[f"{path} {ctype}" for path, _, _, ctype in STRICT_BODIES])
async def test_every_body_route_refuses_an_unknown_field_naming_it(
    aiohttp_client: ClientFactory, manager: Manager, path: str, body: object, typo: str, content_type: str
) -> None:
    client = await aiohttp_client(create_app(manager))
    await manager.add_game("nim", NIM_KIF)
    manager.register_player("r1", builtin="random")
    data = body if isinstance(body, str) else json.dumps(body)
    response = await client.post(path, data=data, headers={"Content-Type": content_type})
    error = (await response.json())["error"]
    assert response.status == 400 and f"unknown {'tournament ' if 'tournaments' in path else ''}field {typo!r}" in error
    assert "\n" not in error
    # nothing was created by the refused request
    assert [g["key"] for g in await (await client.get("/api/games")).json()] == ["nim"]
    assert "r2" not in [p["name"] for p in await (await client.get("/api/players")).json()]
    assert await (await client.get("/api/matches")).json() == []
    assert await (await client.get("/api/tournaments")).json() == []


async def test_the_same_bodies_without_the_typo_are_accepted(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    await manager.add_game("nim", NIM_KIF)
    manager.register_player("r1", builtin="random")
    for path, body, typo, content_type in STRICT_BODIES:
        if isinstance(body, str):
            data = body.replace(f"{typo}: 2", "playclock: 2")
        else:
            assert isinstance(body, dict)
            data = json.dumps({key: value for key, value in body.items() if key != typo})
        response = await client.post(path, data=data, headers={"Content-Type": content_type})
        assert response.status == 201, (path, await response.text())
