"""A full disk (issue 43 item 3): writes fail with one logged line and a 503, a running match is aborted, and
the database stays readable and intact."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from ggp.manager.app import create_app
from ggp.manager.match_requests import MatchRequest
from ggp.manager.service import Manager
from ggp.manager.store import GuardedConnection, Store, StoreUnavailable
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import machine_for_description
from tests.helpers.step_players import MESSAGES, step_game_kif, step_player_app
from tests.unit.manager.conftest import FAST

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
ServerFactory = Callable[[web.Application], Awaitable[TestServer]]

FULL = "database or disk is full"


class Disk:
    """Makes the store's writes fail as on a full disk (``full = True``) from the store's write path."""

    def __init__(self, db: GuardedConnection, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = False
        self.refused = 0
        plain = db._execute

        def execute(sql: str, parameters: Any) -> sqlite3.Cursor:
            if self.full and sql.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE", "BEGIN"):
                self.refused += 1
                raise sqlite3.OperationalError(FULL)
            return plain(sql, parameters)

        monkeypatch.setattr(db, "_execute", execute)


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[Manager]:
    store = Store(tmp_path / "site.db")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=FAST))
    yield manager
    await manager.close()
    store.close()


def intact(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()


def store_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "ggp.manager.store" and r.levelno >= logging.ERROR]


async def test_a_full_disk_answers_503_logs_one_line_and_keeps_the_database_intact(
        site: Manager, aiohttp_client: ClientFactory, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    client = await aiohttp_client(create_app(site))
    assert (await client.post("/api/players", json={"name": "before", "url": "http://127.0.0.1:9/"})).status == 201
    assert isinstance(site.store.db, GuardedConnection)
    disk = Disk(site.store.db, monkeypatch)
    disk.full = True
    caplog.set_level(logging.INFO, "ggp.manager.store")
    for name in ("one", "two", "three"):
        response = await client.post("/api/players", json={"name": name, "url": "http://127.0.0.1:9/"})
        assert response.status == 503 and response.headers["Retry-After"] == "60"
        assert (await response.json())["error"] == (f"the database cannot take writes now ({FULL}); try again later")
    assert disk.refused == 3
    assert store_errors(caplog) == [f"database {tmp_path / 'site.db'}: writes fail: {FULL}"]  # once per outage
    players = await (await client.get("/api/players")).json()  # reads still work
    assert [p["name"] for p in players] == ["before", "random"]
    assert intact(tmp_path / "site.db") == "ok"
    disk.full = False  # space freed: the next write works and says so
    assert (await client.post("/api/players", json={"name": "after", "url": "http://127.0.0.1:9/"})).status == 201
    assert "writes work again" in caplog.records[-1].getMessage()
    assert [p.name for p in site.store.players()] == ["after", "before", "random"]


async def test_a_disk_that_fills_during_a_match_aborts_it_and_a_restart_keeps_its_steps(
        tmp_path: Path, aiohttp_server: ServerFactory, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "site.db"
    store = Store(path)
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=FAST))
    server = await aiohttp_server(step_player_app(0, 0.05))
    try:
        await manager.add_game("duel", step_game_kif(2, 20))
        manager.register_player("p", url=str(server.make_url("/")))
        disk = Disk(store.db, monkeypatch)
        match_id = await manager.start_match(MatchRequest("duel", ("p", "p"), 5, 3, seed=1))
        while (manager.live(match_id) or store.match(match_id)).step < 3:  # type: ignore[union-attr]
            await asyncio.sleep(0.01)
        disk.full = True
        await manager.wait(match_id)
        assert match_id not in manager.running_ids()
        assert server.app[MESSAGES]["ABORT"] >= 1 and server.app[MESSAGES]["STOP"] == 0
        assert len(store_errors(caplog)) == 1
        with pytest.raises(StoreUnavailable):
            store.add_player("late", "random")
    finally:
        await manager.close()
        store.close()
    assert intact(path) == "ok"
    reopened = Store(path)
    try:
        assert reopened.recovered == [match_id]
        record = reopened.match(match_id)
        assert record is not None and record.is_aborted and 3 <= record.step < 20
        assert reopened.player("late") is None
    finally:
        reopened.close()


def test_a_real_sqlite_full_error_is_refused_the_same_way(tmp_path: Path) -> None:
    """Not injected: SQLite's own SQLITE_FULL, from a page limit as low as the file already is."""
    store = Store(tmp_path / "m.db")
    try:
        store.add_player("kept", "random")
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StoreUnavailable, match="full"):
            for index in range(200):
                store.add_game(f"g{index}", "(role a) ; " + "x" * 4000, ("a",))
        assert store.player("kept") is not None
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()
