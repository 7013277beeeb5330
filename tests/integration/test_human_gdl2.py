"""A person in a GDL-II match (kif/guessNumber, clingo): the person's view holds only their own moves and percepts."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient

from ggp.manager.app import SEAT_SECRET_HEADER, create_app
from ggp.manager.runner import Deadlines
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from ggp.reasoner.engines import make_machine
from tests.conftest import KIF_DIR
from tests.prerequisites import missing

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]

GUESS = KIF_DIR / "guessNumber" / "guessNumber.kif"


async def test_a_person_guessing_sees_only_their_answers_never_the_secret(aiohttp_client: ClientFactory) -> None:
    if not GUESS.is_file():
        missing("kif/guessNumber is not present")
    manager = Manager(Store(":memory:"), partial(make_machine, engine="clingo"),
                      settings=ManagerSettings(deadlines=Deadlines(5.0, 30.0, 1.0, 1.0, 1.0)))
    manager.register_player("you", builtin="human")
    await manager.add_game("guessNumber", GUESS.read_text())
    client = await aiohttp_client(create_app(manager))
    payload = {"game": "guessNumber", "players": ["you"], "seed": 4, "playclock": 60}
    created = await (await client.post("/api/matches", json=payload)).json()
    match_id, secret = created["matchId"], created["humanSeats"]["guesser"]
    headers = {SEAT_SECRET_HEADER: secret}

    async def view(since: int | None = None) -> dict[str, Any]:
        query = "" if since is None else f"?since={since}"
        data: dict[str, Any] = await (await client.get(f"/api/matches/{match_id}/human/guesser{query}",
                                                       headers=headers)).json()
        return data

    seen = await view()
    asked = []
    for question in ("(ask 5)", "(ask 3)"):
        while not seen["yourTurn"]:
            seen = await view(seen["version"])
        assert seen["gdl2"] and seen["state"] is None  # the true state (with the secret) is never sent
        assert all(len(row) == 1 for row in seen["moves"])  # only the person's own moves, not chance's choice
        assert question in seen["legal"] and "(guess 8)" in seen["legal"]
        response = await client.post(f"/api/matches/{match_id}/human/guesser/move", json={"move": question},
                                     headers=headers)
        assert response.status == 200, await response.json()
        asked.append(question)
        seen = await view(seen["version"])
    while seen["step"] < 3:
        seen = await view(seen["version"])
    record = manager.live(match_id)
    assert record is not None
    assert "(secret " in record.states[-1] and "secret" not in json.dumps(seen)  # the manager knows; the page not
    assert seen["moves"] == [["noop"], ["(ask 5)"], ["(ask 3)"]]
    answers = [" ".join(p) for p in seen["percepts"]]
    assert answers[0] == "" and answers[1].startswith("(answer 5 ") and answers[2].startswith("(answer 3 ")
    assert answers[1:] == [" ".join(row[0]) for row in record.percepts[1:]]  # the record's own percepts, no more
    # Spectators (the public match page) see no state, move or percept while the person plays.
    public = await (await client.get(f"/api/matches/{match_id}")).text()
    assert "secret" not in public and "(ask 5)" not in public and json.loads(public)["x-sealed"] is True
    async with client.get(f"/api/matches/{match_id}/events") as stream:
        snapshot = (await stream.content.readuntil(b"\n\n")).decode()
    assert snapshot.startswith("event: snapshot") and "secret" not in snapshot and "(ask 5)" not in snapshot
    await manager.abort(match_id)
    done = await view()
    assert done["finished"] and done["state"] and "(secret " in done["state"]  # revealed once it is over
    public = json.loads(await (await client.get(f"/api/matches/{match_id}")).text())
    assert "x-sealed" not in public and "(secret " in public["states"][-1]
    await manager.close()
    manager.store.close()
