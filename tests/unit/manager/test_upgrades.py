"""Upgrades and restarts (issue 43 item 2): schema versions and migrations, a database written before
versions keeps every record, a newer database is refused, a restart resumes the schedule and a crash loses
nothing acknowledged."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.cli import main
from ggp.manager import schema
from ggp.manager.agon import AgonTable
from ggp.manager.scheduler import Scheduler, ScheduleSettings
from ggp.manager.schema import SCHEMA_VERSION, Migration, MigrationFailed, SchemaTooNew
from ggp.manager.service import Manager
from ggp.manager.store import Store
from tests.helpers.manager_machines import machine_for_description
from tests.helpers.step_players import step_player_app

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]

V1 = Path(__file__).parents[2] / "data" / "manager_v1.sqlite"
"""A database written by the manager before schema versions (commit 2084a5b; its message lists the rows)."""
LEFT_RUNNING = "duel.left"


def rows(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, as dicts, in a fixed order (read with plain sqlite3, not the store)."""
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    found = {table: sorted((dict(row) for row in db.execute(f"SELECT * FROM {table}")), key=repr) for table in tables}
    db.close()
    return found


def copy_v1(tmp_path: Path) -> Path:
    path = tmp_path / "site.db"
    shutil.copyfile(V1, path)
    return path


def test_the_fixture_is_a_database_from_before_schema_versions() -> None:
    db = sqlite3.connect(V1)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    db.close()
    before = rows(V1)
    assert all(before[t] for t in ("games", "players", "matches", "match_steps", "agon"))
    assert before["tournaments"] and before["ratings"] and before["schedule_players"] and before["game_sources"]


def test_a_database_written_before_versions_opens_upgraded_and_keeps_every_record_field_by_field(
        tmp_path: Path) -> None:
    path = copy_v1(tmp_path)
    before = rows(path)
    store = Store(path)
    assert store.schema_versions == (0, SCHEMA_VERSION)
    assert store.recovered == [LEFT_RUNNING] and store.recovered_tournaments == [2]
    store.close()
    after = rows(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    for table, old_rows in before.items():
        new_rows = after[table]
        assert len(new_rows) == len(old_rows), table
        keyed = {repr({k: row[k] for k in old_rows[0] if k not in ("status", "header", "finished", "config")}): row
                 for row in new_rows}
        for old in old_rows:
            key = repr({k: old[k] for k in old if k not in ("status", "header", "finished", "config")})
            new = keyed[key]
            for column, value in old.items():  # every old column keeps its value; new columns may be added
                left_running = old.get("status") == "running" and column in ("status", "header", "finished", "config")
                if not left_running:
                    assert new[column] == value, (table, column)
    # What a restart changes: the match and the tournament left running are aborted, saying why.
    store = Store(path)
    match = store.match(LEFT_RUNNING)
    assert match is not None and match.is_aborted and match.abort_detail == "manager stopped"
    assert len(match.states) == 1
    tournament = store.tournament(2)
    assert tournament is not None and tournament.status == "aborted"
    assert tournament.config["never_ran"] == [["p0", "p1"], ["p1", "p0"]]
    # ... and the records read back through the store's own API.
    assert [p.name for p in store.players() if p.suspended] == ["gone"]
    assert store.player("p2") is not None and store.player("p2").fail_streak == 1  # type: ignore[union-attr]
    assert sorted(m.status for m in store.matches()) == ["aborted", "aborted", "completed", "completed", "completed"]
    assert [g.version for g in store.games()] == [2, 1] and store.source("solo", 1) == ("sbg", "(a made-up source text)")
    assert set(store.ratings()) == {"p0", "p1"}  # Elo rates no one-player game
    assert AgonTable(store.db).scopes() == ["*", "duel", "solo"]
    store.close()


def test_a_second_open_migrates_nothing_and_an_interrupted_migration_leaves_the_previous_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.db"
    Store(path).close()
    again = Store(path)
    assert again.schema_versions == (SCHEMA_VERSION, SCHEMA_VERSION)
    again.close()
    broken = Migration(SCHEMA_VERSION + 1, "a table, then a bad statement",
                       "CREATE TABLE half_done (x INTEGER); THIS IS NOT SQL;")
    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, broken))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(MigrationFailed) as failed:
        Store(path)
    assert str(failed.value) == (f"database {str(path)!r}: upgrading the schema to version {SCHEMA_VERSION + 1} failed, "
                                 f'it stays at version {SCHEMA_VERSION}: near "THIS": syntax error')
    assert "half_done" not in rows(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_a_database_newer_than_the_code_is_refused_in_one_line_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_v1(tmp_path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    db.close()
    before = path.read_bytes()
    message = (f"database {str(path)!r}: schema version {SCHEMA_VERSION + 3} is newer than this ggp "
               f"({SCHEMA_VERSION}); upgrade ggp")
    with pytest.raises(SchemaTooNew) as refused:
        Store(path)
    assert str(refused.value) == message
    assert path.read_bytes() == before and not Path(f"{path}-wal").exists()
    assert main(["archive", "export", "--db", str(path)]) == 1
    assert capsys.readouterr().err == f"ggp archive: {message}\n"
    junk = tmp_path / "junk.db"
    junk.write_text("not a database " * 100)
    assert main(["archive", "export", "--db", str(junk)]) == 1
    assert capsys.readouterr().err == f"ggp archive: {str(junk)!r} is not a ggp database (file is not a database)\n"


async def test_a_restart_resumes_the_schedule_with_its_pauses_and_suspensions(
        tmp_path: Path, aiohttp_server: ServerFactory) -> None:
    path = copy_v1(tmp_path)
    store = Store(path)
    manager = Manager(store, machine_for_description)
    try:
        scheduler = Scheduler(manager, ScheduleSettings(seed=1, retry_s=3600, ping_s=0.5))
        assert scheduler.paused() == {"p2"}
        for index in range(3):  # the old players are back on new ports
            server = await aiohttp_server(step_player_app(index))
            manager.register_player(f"p{index}", url=str(server.make_url("/")))
        started = await scheduler.run_round()
        seated = {name for m in started for name in (manager.live(m) or store.match(m)).player_names}  # type: ignore[union-attr]
        assert {"p0", "p1"} <= seated and "p2" not in seated  # p2 is still paused (p3 and gone do not answer)
        # gone's suspension time survived the restart: suspended since 2023, it is retried now.
        assert store.player("gone") is not None and not store.player("gone").suspended  # type: ignore[union-attr]
        await asyncio.gather(*(manager.wait(m) for m in started))
        assert all(store.match(m).is_completed for m in started)  # type: ignore[union-attr]
    finally:
        await manager.close()
        store.close()


CRASHING_WRITER = """
import sys, time
from dataclasses import replace
from ggp.manager.store import Store
from tests.unit.manager.test_store import header, started
store = Store(sys.argv[1])
store.add_game("nim", "(role a) (role b)", ("a", "b"), "Nim")
store.add_player("alice", "remote", url="http://127.0.0.1:9147/")
store.match_event(header("m1"), "created")
record = started("m1")
store.match_event(record, "start")
store.match_event(record.with_step(["(take 1)", "noop"], "( (pile 2) )", 2, ["", ""]), "step")
print("acknowledged", flush=True)
time.sleep(60)
"""


def test_a_manager_killed_mid_match_loses_nothing_it_acknowledged(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    root = Path(__file__).parents[3]
    process = subprocess.Popen([sys.executable, "-c", CRASHING_WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                               cwd=root, env={"PYTHONPATH": str(root), "PATH": ""})
    assert process.stdout is not None
    with process.stdout:
        try:
            assert process.stdout.readline() == "acknowledged\n"
        finally:
            process.kill()  # SIGKILL: no clean-up, no checkpoint
            process.wait()
    store = Store(path)
    try:
        assert store.game("nim") is not None and store.player("alice") is not None
        assert store.recovered == ["m1"]
        match = store.match("m1")
        assert match is not None and match.is_aborted and match.abort_detail == "manager stopped"
        assert match.moves == (("(take 1)", "noop"),) and match.states[-1] == "( (pile 2) )"
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()
