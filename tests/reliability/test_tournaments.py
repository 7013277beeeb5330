"""Attack 4 of issue 31: a tournament body is bounded by size and by entries before anything is built.

Before, a 1.8 MB body (200,000 x ``random`` plus ``legal``) was parsed and stored whole, 2.4-3.6 s of
event loop per POST, and a 141-player, 9,870-match tournament was accepted though the docs said 400.
"""

from __future__ import annotations

import io
import json

import aiohttp
from aiohttp import web

from ggp.manager.service import Manager
from ggp.manager.tournament import MAX_MATCHES, MAX_PLAYER_ENTRIES, MAX_TOURNAMENT_BODY
from tests.helpers.manager_machines import NIM_KIF


async def post(port: int, body: bytes, content_type: str = "application/json") -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.post(
            f"http://127.0.0.1:{port}/api/tournaments", data=io.BytesIO(body),
            headers={"Content-Type": content_type}, timeout=aiohttp.ClientTimeout(total=60)) as response:
        if response.content_type != "application/json":  # over the 2 MiB of any request: aiohttp's own 413
            return response.status, await response.text()
        return response.status, (await response.json())["error"] if response.status >= 400 else ""


async def test_a_huge_tournament_body_is_refused_unparsed(manager: Manager,
                                                          manager_app: tuple[web.Application, int]) -> None:
    _, port = manager_app
    await manager.add_game("nim", NIM_KIF)
    body = json.dumps({"game": "nim", "players": ["random"] * 200_000 + ["legal"]}).encode()
    status, error = await post(port, body)
    assert status == 413 and str(MAX_TOURNAMENT_BODY) in error
    yaml = ("game: nim\nplayers:\n" + "  - random\n" * 200_000).encode()
    assert (await post(port, yaml, "application/yaml"))[0] == 413
    assert manager.store.tournaments() == []


async def test_player_entries_are_counted_before_they_are_expanded(manager: Manager,
                                                                   manager_app: tuple[web.Application, int]) -> None:
    _, port = manager_app
    await manager.add_game("nim", NIM_KIF)
    many = json.dumps({"game": "nim", "players": ["random"] * (MAX_PLAYER_ENTRIES + 1)}).encode()
    status, error = await post(port, many)
    assert status == 400 and f"at most {MAX_PLAYER_ENTRIES} entries" in error
    # 30 distinct players, two roles, one match per pairing: C(30, 2) = 435 matches, over the documented 400.
    wide = json.dumps({"game": "nim", "players": [f"p{i}" for i in range(30)], "matches_per_pairing": 1}).encode()
    status, error = await post(port, wide)
    assert status == 400 and f"435 matches, over the limit of {MAX_MATCHES}" in error
    assert MAX_MATCHES == 400  # the figure docs/manager.md quotes
    assert manager.store.tournaments() == []
