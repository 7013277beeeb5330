"""The match archive (ggp.manager.archive): stable URLs, filters and pages, export, checked import."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import replace

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from ggp.gdl.parser import parse_kif
from ggp.manager.agon import AgonTable
from ggp.manager.app import create_app
from ggp.manager.archive import check_replay, completed_for_import, game_key_of, store_imported
from ggp.manager.match_requests import MatchRequest
from ggp.manager.records import MatchRecord, from_dict, from_json, to_dict
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.match.referee import Referee
from tests.helpers.fake_players import FakePlayer, constant
from tests.helpers.manager_machines import NIM_KIF, TICTACTOE_KIF, machine_for_description

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


async def played(manager: Manager, aiohttp_server: ServerFactory) -> list[str]:
    """Three nim matches and one tictactoe match in which one player answers nonsense (IL errors)."""
    await manager.add_game("nim", NIM_KIF)
    await manager.add_game("tictactoe", TICTACTOE_KIF)
    ids = []
    for seed in (1, 2, 3):
        ids.append(await manager.start_match(MatchRequest("nim", ("random", "random"), seed=seed)))
        await manager.wait(ids[-1])
    garbage = await aiohttp_server(FakePlayer(constant("(fly away)")).app())
    manager.register_player("garbage", url=str(garbage.make_url("/")))
    ids.append(await manager.start_match(MatchRequest("tictactoe", ("garbage", "random"), seed=4)))
    await manager.wait(ids[-1])
    return ids


async def test_matches_have_stable_urls_and_the_archive_filters_and_pages(
        aiohttp_client: ClientFactory, aiohttp_server: ServerFactory, manager: Manager) -> None:
    ids = await played(manager, aiohttp_server)
    client = await aiohttp_client(create_app(manager))
    stable = await client.get(f"/matches/{ids[0]}.json")
    assert stable.status == 200 and stable.content_type == "application/json"
    assert from_json(await stable.text()) == manager.store.match(ids[0])
    assert (await client.get("/matches/nope.json")).status == 404

    async def page(query: str) -> dict[str, object]:
        response = await client.get("/api/archive?" + query)
        assert response.status == 200, await response.text()
        data: dict[str, object] = await response.json()
        return data

    everything = await page("")
    assert everything["total"] == 4
    assert [m["matchId"] for m in everything["matches"]] == ids[::-1]  # type: ignore[attr-defined]
    assert (await page("game=nim"))["total"] == 3
    assert (await page("player=garbage"))["total"] == 1
    errors = await page("outcome=errors")
    assert [m["matchId"] for m in errors["matches"]] == [ids[3]]  # type: ignore[attr-defined]
    assert errors["matches"][0]["stepsWithErrors"] > 0  # type: ignore[index]
    second = await page("game=nim&per_page=2&page=2")
    assert second["total"] == 3 and [m["matchId"] for m in second["matches"]] == [ids[0]]  # type: ignore[attr-defined]
    assert (await page("since=2999-01-01"))["total"] == 0 and (await page("until=2999-01-01"))["total"] == 4
    for bad in ("outcome=won", "page=0", "per_page=5000", "since=yesterday"):
        assert (await client.get("/api/archive?" + bad)).status == 400, bad


async def test_export_then_import_into_a_fresh_archive_gives_back_the_same_matches(
        aiohttp_client: ClientFactory, aiohttp_server: ServerFactory, manager: Manager) -> None:
    await played(manager, aiohttp_server)
    client = await aiohttp_client(create_app(manager))
    response = await client.get("/api/matches/export")
    assert response.content_type == "application/x-ndjson"
    lines = (await response.text()).splitlines()
    assert len(lines) == 4
    later = await client.get("/api/matches/export?since=2999-01-01")
    assert await later.text() == ""

    fresh = Store(":memory:")
    for key, kif in (("nim", NIM_KIF), ("tictactoe", TICTACTOE_KIF)):
        fresh.add_game(key, kif, [str(r) for r in parse_kif(kif).roles], key)
    for line in lines:
        record = from_json(line)
        machine = machine_for_description(parse_kif(fresh.game(record.game_key).kif))  # type: ignore[union-attr]
        prepared = completed_for_import(record, record.game_key, [str(r) for r in machine.roles])
        assert await check_replay(Referee(machine), prepared) is None
        assert store_imported(fresh, prepared)
        assert not store_imported(fresh, prepared)  # a second import changes nothing
    again = [json.dumps(to_dict(fresh.match(from_json(line).match_id))) for line in lines]  # type: ignore[arg-type]
    assert [json.loads(x) for x in again] == [json.loads(x) for x in lines]
    assert fresh.ratings("nim") == manager.store.ratings("nim")  # imported matches are rated like played ones
    assert AgonTable(fresh.db).ratings() == manager.agon.ratings()
    fresh.close()


def _nim_record(manager_record: MatchRecord) -> MatchRecord:
    return completed_for_import(manager_record, "nim", ["a", "b"])


async def test_a_match_that_does_not_follow_the_rules_is_refused_with_its_first_bad_step(manager: Manager) -> None:
    await manager.add_game("nim", NIM_KIF)
    match_id = await manager.start_match(MatchRequest("nim", ("random", "random"), seed=5))
    record = await manager.wait(match_id)
    assert record is not None and record.step >= 1
    machine = machine_for_description(parse_kif(NIM_KIF))
    assert await check_replay(Referee(machine), _nim_record(record)) is None
    illegal = replace(record, moves=((("(take 9)", record.moves[0][1]),) + record.moves[1:]))
    assert await check_replay(Referee(machine), illegal) == (
        "step 1: '(take 9)' is not a legal move of a (legal: ['(take 1)', '(take 2)', '(take 3)'])")
    states = list(record.states)
    states[1] = "( (pile 99) (control b) )"
    problem = await check_replay(Referee(machine), replace(record, states=tuple(states)))
    assert problem is not None and problem.startswith("step 1: the recorded state differs")
    wrong_goals = replace(record, goal_values=tuple(100 - g for g in record.goal_values or ()))
    assert (await check_replay(Referee(machine), wrong_goals) or "").startswith(f"step {record.step}: goal values")


async def test_a_ggp_org_record_with_other_spacing_and_no_project_fields_replays() -> None:
    data = {"matchId": "nim.1", "startTime": 1000, "randomToken": "x", "startClock": 10, "playClock": 5,
            "gameMetaURL": "http://games.ggp.org/base/games/nim/v0/",
            "states": ["( ( PILE 7 ) ( control a ) )", "( ( pile 6 ) ( control b ) )"],
            "moves": [["( take 1 )", "noop"]], "stateTimes": [1000, 2000], "isCompleted": False, "isAborted": True}
    record = from_dict(data)
    assert game_key_of(record) == "nim"
    prepared = completed_for_import(record, "nim", ["a", "b"])
    assert prepared.player_names == ("anonymous1", "anonymous2") and prepared.errors == (("", ""), ("", ""))
    assert await check_replay(Referee(machine_for_description(parse_kif(NIM_KIF))), prepared) is None


async def test_a_match_is_imported_through_the_api_and_a_broken_one_refused_with_its_step(
        aiohttp_client: ClientFactory, manager: Manager) -> None:
    await manager.add_game("nim", NIM_KIF)
    match_id = await manager.start_match(MatchRequest("nim", ("random", "random"), seed=6))
    record = await manager.wait(match_id)
    assert record is not None
    client = await aiohttp_client(create_app(manager))
    data = to_dict(replace(record, match_id="elsewhere.1"))
    response = await client.post("/api/archive/import", json=data)
    assert response.status == 201 and await response.json() == {"matchId": "elsewhere.1", "imported": True}
    again = await client.post("/api/archive/import", json=data)
    assert (await again.json())["imported"] is False
    stored = manager.store.match("elsewhere.1")
    assert stored is not None and stored.moves == record.moves
    data = to_dict(replace(record, match_id="elsewhere.2", moves=((("(take 9)", "noop"),) + record.moves[1:])))
    refused = await client.post("/api/archive/import", json=data)
    body = await refused.json()
    assert refused.status == 400 and body["error"].startswith("match 'elsewhere.2' refused: step 1: '(take 9)'")
    unknown = to_dict(replace(record, match_id="elsewhere.3", game_key="chess", game_meta_url="http://x/games/chess/v1/"))
    assert "unknown game 'chess'" in (await (await client.post("/api/archive/import", json=unknown)).json())["error"]
    assert manager.store.match("elsewhere.2") is None
