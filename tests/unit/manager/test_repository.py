"""The ggp.org game repository API (ggp.manager.repository): folder layouts, metadata, files, broken games."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient

from ggp.manager import repository
from ggp.manager.app import create_app
from ggp.manager.service import Manager
from tests.helpers.manager_machines import NIM_KIF, TICTACTOE_KIF

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]


def make_repository(root: Path) -> Path:
    """nim in the ggp.org layout, tictactoe as a flat file, and three broken games."""
    nim = root / "nim"
    nim.mkdir(parents=True)
    (nim / "METADATA").write_text(json.dumps({"gameName": "Nim", "rulesheet": "nim.kif", "description": "nim.txt",
                                              "stylesheet": "nim.xsl", "version": 3}))
    (nim / "nim.xsl").write_text("<xsl:stylesheet/>")
    (nim / "nim.kif").write_text(NIM_KIF)
    (nim / "nim.txt").write_text("Take the last object to win.")
    (root / "tictactoe.kif").write_text(TICTACTOE_KIF)
    (root / "syntax.kif").write_text("(role a) (init (p)")
    (root / "unsafe.kif").write_text("(role a) (<= (legal a ?m) (true done)) (<= terminal (true done)) (goal a 100)")
    (root / "nometa").mkdir()
    (root / "nometa" / "METADATA").write_text("{not json")
    (root / ".hidden").mkdir()
    return root


async def test_a_repository_folder_is_served_and_its_broken_games_are_listed_with_their_error(
        aiohttp_client: ClientFactory, manager: Manager, tmp_path: Path) -> None:
    stored, broken = await manager.load_repository(make_repository(tmp_path / "repo"))
    assert sorted(stored) == ["nim", "tictactoe"]
    client = await aiohttp_client(create_app(manager))
    assert sorted(await (await client.get("/games/")).json()) == ["nim", "tictactoe"]
    status = await (await client.get("/api/repository")).json()
    errors = {b["key"]: b["error"] for b in status["broken"]}
    assert sorted(errors) == ["nometa", "syntax", "unsafe"] == sorted(b.key for b in broken)
    assert "METADATA is not JSON" in errors["nometa"]
    assert "unsafe" in errors["unsafe"] or "variable" in errors["unsafe"], errors["unsafe"]


async def test_metadata_and_files_are_what_ggp_base_reads(aiohttp_client: ClientFactory, manager: Manager,
                                                           tmp_path: Path) -> None:
    await manager.load_repository(make_repository(tmp_path / "repo"))
    await manager.add_game("nim", NIM_KIF + "\n; version two\n", "Nim")
    client = await aiohttp_client(create_app(manager))
    latest = await (await client.get("/games/nim/")).json()
    assert latest == {"gameName": "Nim", "version": 2, "rulesheet": "rulesheet.kif", "description": "description.txt",
                      "stylesheet": "stylesheet.xsl", "roleNames": ["a", "b"], "numRoles": 2}
    assert await (await client.get("/games/nim/v1/stylesheet.xsl")).text() == "<xsl:stylesheet/>"
    first = await (await client.get("/games/nim/v1/")).json()
    assert first["version"] == 1
    assert "version two" not in await (await client.get("/games/nim/v1/rulesheet.kif")).text()
    assert "version two" in await (await client.get("/games/nim/v2/rulesheet.kif")).text()
    assert await (await client.get("/games/nim/v2/description.txt")).text() == "Take the last object to win."
    bundled = await (await client.get("/games/metadata")).json()
    assert bundled["tictactoe"]["roleNames"] == ["xplayer", "oplayer"] and "description" not in bundled["tictactoe"]
    for missing in ("/games/nim/v9/", "/games/chess/", "/games/nim/v1/style.xsl", "/games/tictactoe/description.txt"):
        assert (await client.get(missing)).status == 404, missing


def test_scan_refuses_a_path_that_is_not_a_folder(tmp_path: Path) -> None:
    try:
        repository.scan(tmp_path / "absent")
    except ValueError as exc:
        assert "is not a folder" in str(exc)
    else:
        raise AssertionError("no error")


async def test_a_restart_does_not_load_unchanged_games_again(manager: Manager, tmp_path: Path) -> None:
    root = make_repository(tmp_path / "repo")
    await manager.load_repository(root)
    loads: list[str] = []
    add_game = manager.add_game

    async def counting(key: str, kif: str, name: str = "", game_format: str = "kif") -> object:
        loads.append(key)
        return await add_game(key, kif, name, game_format)

    manager.add_game = counting  # type: ignore[method-assign,assignment]
    (root / "tictactoe.kif").write_text(TICTACTOE_KIF + "\n; changed\n")
    stored, broken = await manager.load_repository(root)
    assert sorted(stored) == ["nim", "tictactoe"] and len(broken) == 3
    assert sorted(loads) == ["syntax", "tictactoe", "unsafe"]  # the changed game and the broken ones
    row = manager.store.game("tictactoe")
    assert row is not None and row.version == 2
    assert manager.repository.descriptions["nim"] == "Take the last object to win."
