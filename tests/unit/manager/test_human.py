"""A person's seat (ggp.manager.human) through the REST API: moves by route, the clock, secrets, refusals."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from ggp.manager.app import SEAT_SECRET_HEADER, create_app
from ggp.manager.runner import Deadlines
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import NIM_KIF, TICTACTOE_KIF, machine_for_description

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]

PATIENT = Deadlines(start_s=2.0, play_s=30.0, stop_s=0.5, abort_s=0.5, connect_s=0.5)
"""With a 60 s play clock a person gets 30 s a move (the shorter of the two): the tests move long before."""
HASTY = Deadlines(start_s=2.0, play_s=0.2, stop_s=0.2, abort_s=0.2, connect_s=0.2)


async def make_manager(deadlines: Deadlines) -> Manager:
    manager = Manager(Store(":memory:"), machine_for_description, settings=ManagerSettings(deadlines=deadlines))
    manager.register_player("you", builtin="human")
    await manager.add_game("tictactoe", TICTACTOE_KIF)
    await manager.add_game("nim", NIM_KIF)
    return manager


@pytest.fixture
async def patient(aiohttp_client: ClientFactory) -> AsyncIterator[Client]:
    manager = await make_manager(PATIENT)
    yield await aiohttp_client(create_app(manager, token="sesame-token"))
    manager.store.close()


@pytest.fixture
async def hasty(aiohttp_client: ClientFactory) -> AsyncIterator[Client]:
    manager = await make_manager(HASTY)
    yield await aiohttp_client(create_app(manager))
    manager.store.close()


ADMIN = {"Authorization": "Bearer sesame-token"}


async def start(client: Client, players: list[str], game: str = "tictactoe", **extra: Any) -> tuple[str, dict[str, str]]:
    payload = {"game": game, "players": players, "seed": 5, "playclock": 60, **extra}
    response = await client.post("/api/matches", json=payload,
                                 headers=ADMIN)
    body = await response.json()
    assert response.status == 201, body
    return body["matchId"], body.get("humanSeats", {})


async def view(client: Client, match_id: str, role: str, secret: str, since: int | None = None) -> dict[str, Any]:
    query = "" if since is None else f"?since={since}"
    response = await client.get(f"/api/matches/{match_id}/human/{role}{query}", headers={SEAT_SECRET_HEADER: secret})
    body: dict[str, Any] = await response.json()
    assert response.status == 200, body
    return body


async def my_turn(client: Client, match_id: str, role: str, secret: str) -> dict[str, Any]:
    """Long-poll the person's view until a move is asked for (or the match is over)."""
    seen = await view(client, match_id, role, secret)
    for _ in range(50):
        if seen["yourTurn"] or seen["finished"]:
            return seen
        seen = await view(client, match_id, role, secret, since=seen["version"])
    raise AssertionError("the person was never asked for a move")


async def move(client: Client, match_id: str, role: str, secret: str, payload: dict[str, Any]) -> tuple[int, Any]:
    response = await client.post(f"/api/matches/{match_id}/human/{role}/move", json=payload,
                                 headers={SEAT_SECRET_HEADER: secret})
    return response.status, await response.json()


async def test_a_person_plays_a_whole_match_through_the_move_route(patient: Client) -> None:
    match_id, secrets = await start(patient, ["you", "random"])
    assert list(secrets) == ["xplayer"]
    secret = secrets["xplayer"]
    played = []
    while True:
        seen = await my_turn(patient, match_id, "xplayer", secret)
        if seen["finished"]:
            break
        assert seen["state"] and 0 < seen["secondsLeft"] <= 30 and seen["playClock"] == 60  # min(clock, deadline)
        choice = seen["legal"][0]
        status, body = await move(patient, match_id, "xplayer", secret, {"move": choice, "turn": seen["turn"]})
        assert status == 200 and body == {"move": choice}
        played.append(choice)
    record = await (await patient.get(f"/api/matches/{match_id}")).json()
    assert record["isCompleted"] and record["x-playerTypes"] == ["human", "random"]
    assert [row[0] for row in record["moves"] if row[0] != "noop"] == played
    assert all(row[0] == "" for row in record["errors"])  # every move of the person arrived in time
    assert seen["goals"] == record["goalValues"] and seen["moves"] == record["moves"]


async def test_a_person_who_lets_the_clock_run_out_gets_a_random_legal_move_marked_to(hasty: Client) -> None:
    match_id, _ = await start(hasty, ["you", "random"])
    for _ in range(200):
        record = await (await hasty.get(f"/api/matches/{match_id}")).json()
        if record["isCompleted"] or record["isAborted"]:
            break
        await asyncio.sleep(0.05)
    assert record["isCompleted"], record
    # xplayer moves on steps 1, 3, 5, ...: each of its moves is a legal mark, replaced after a timeout.
    own = [(row[0], errors[0]) for row, errors in zip(record["moves"], record["errors"][1:])]
    assert own[0][0].startswith("(mark ") and own[0][1] == "TO"
    # Forced moves (noop, or the last free cell at step 9) are played at once; the others timed out.
    assert [code for mark, code in own] == ["" if mark == "noop" or step == 8 else "TO" for step, (mark, _) in enumerate(own)]
    # A timed-out person is not a broken player: no suspension bookkeeping.
    players = {p["name"]: p for p in await (await hasty.get("/api/players")).json()}
    assert players["you"]["failStreak"] == 0 and not players["you"]["suspended"]


async def test_only_the_seats_secret_can_see_or_move_and_the_admin_token_is_not_needed(patient: Client) -> None:
    match_id, secrets = await start(patient, ["you", "random"])
    await my_turn(patient, match_id, "xplayer", secrets["xplayer"])
    path = f"/api/matches/{match_id}/human/xplayer"
    for headers in ({}, {SEAT_SECRET_HEADER: "guess"}, {SEAT_SECRET_HEADER: "guess", **ADMIN}):
        for response in (await patient.get(path, headers=headers),
                         await patient.post(path + "/move", json={"move": "(mark 1 1)"}, headers=headers)):
            assert response.status == 403 and "secret" in (await response.json())["error"]
    other = await patient.get(f"/api/matches/{match_id}/human/oplayer", headers={SEAT_SECRET_HEADER: secrets["xplayer"]})
    assert other.status == 404 and "not a person's seat" in (await other.json())["error"]
    cross = await patient.post(path + "/move", json={"move": "(mark 1 1)"},
                               headers={SEAT_SECRET_HEADER: secrets["xplayer"], "Origin": "http://evil.example"})
    assert cross.status == 403
    status, _ = await move(patient, match_id, "xplayer", secrets["xplayer"], {"move": "(mark 1 1)"})
    assert status == 200  # no Authorization header: the seat's secret is enough
    await patient.post(f"/api/matches/{match_id}/abort", headers=ADMIN)


async def test_illegal_unreadable_late_and_unknown_field_moves_are_refused_with_a_message(patient: Client) -> None:
    match_id, secrets = await start(patient, ["you", "random"])
    secret = secrets["xplayer"]
    seen = await my_turn(patient, match_id, "xplayer", secret)
    status, body = await move(patient, match_id, "xplayer", secret, {"move": "(mark 4 4)"})
    assert status == 400 and body["error"].startswith("illegal move '(mark 4 4)' for role xplayer; legal moves: (mark 1 1)")
    status, body = await move(patient, match_id, "xplayer", secret, {"move": "((("})
    assert status == 400 and body["error"] == "cannot read '(((' as a move"
    status, body = await move(patient, match_id, "xplayer", secret, {"move": "(mark 1 1)", "trun": 0})
    assert status == 400 and "'trun'" in body["error"]
    status, body = await move(patient, match_id, "xplayer", secret, {"move": "(mark 1 1)", "turn": seen["turn"] + 3})
    assert status == 409 and "turn" in body["error"]
    status, body = await move(patient, match_id, "xplayer", secret, {"move": 7})
    assert status == 400 and "'move'" in body["error"]
    assert (await view(patient, match_id, "xplayer", secret))["yourTurn"]  # still asked: nothing was played
    status, _ = await move(patient, match_id, "xplayer", secret, {"move": "( MARK 2 2 )", "turn": seen["turn"]})
    assert status == 200
    status, body = await move(patient, match_id, "xplayer", secret, {"move": "(mark 1 1)"})
    assert status == 409 and "not asked for a move" in body["error"]
    for _ in range(100):  # the step is recorded once the referee (a worker process) has the next state
        if (await view(patient, match_id, "xplayer", secret))["step"] >= 1:
            break
        await asyncio.sleep(0.1)
    await patient.post(f"/api/matches/{match_id}/abort", headers=ADMIN)
    record = await (await patient.get(f"/api/matches/{match_id}")).json()
    assert record["moves"][0] == ["(mark 2 2)", "noop"] and record["errors"][1] == ["", ""]


async def test_a_finished_matchs_view_is_public_and_people_stay_out_of_tournaments(patient: Client) -> None:
    match_id, _ = await start(patient, ["random", "you"], game="nim")
    await patient.post(f"/api/matches/{match_id}/abort", headers=ADMIN)
    done = await (await patient.get(f"/api/matches/{match_id}/human/b")).json()
    assert done["finished"] and not done["yourTurn"] and done["legal"] == [] and done["endReason"] == "aborted"
    bad_role = await patient.get(f"/api/matches/{match_id}/human/c")
    assert bad_role.status == 400 and "no role 'c'" in (await bad_role.json())["error"]
    tournament = await patient.post("/api/tournaments", json={"name": "t", "game": "nim", "players": ["you", "random"]},
                                    headers=ADMIN)
    assert tournament.status == 400 and "person" in (await tournament.json())["error"]
    registered = await patient.post("/api/players", json={"name": "alice", "builtin": "human"}, headers=ADMIN)
    assert registered.status == 201 and (await registered.json())["kind"] == "human"
    both, two = await start(patient, ["you", "alice"], game="nim")
    assert sorted(two) == ["a", "b"] and two["a"] != two["b"]  # one secret per seat
    await patient.post(f"/api/matches/{both}/abort", headers=ADMIN)
