"""Online backups (issue 43 item 3): ``ggp archive backup`` copies the database while the manager serves and
writes; a manager opened on the copy plays on; bad targets are refused in one line."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.cli import main
from ggp.manager.backup import backup
from ggp.manager.match_requests import MatchRequest
from ggp.manager.schema import SCHEMA_VERSION
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import machine_for_description
from tests.helpers.step_players import step_game_kif, step_player_app
from tests.unit.manager.conftest import FAST

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


def contiguous_steps(path: Path) -> dict[str, int]:
    """Match id -> steps stored, checking that every match's steps are 0..n-1 (no step torn out)."""
    db = sqlite3.connect(path)
    try:
        found: dict[str, int] = {}
        for match_id, count, top in db.execute("SELECT match_id, COUNT(*), MAX(step) FROM match_steps GROUP BY match_id"):
            assert top == count - 1, match_id
            found[match_id] = count
        return found
    finally:
        db.close()


async def test_a_backup_taken_while_matches_write_is_consistent_and_a_manager_plays_on_from_it(
        tmp_path: Path, aiohttp_server: ServerFactory) -> None:
    path, copy = tmp_path / "site.db", tmp_path / "copy.db"
    store = Store(path)
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=FAST))
    try:
        await manager.add_game("duel", step_game_kif(2, 30))
        for index in range(4):
            server = await aiohttp_server(step_player_app(index, 0.01))
            manager.register_player(f"p{index}", url=str(server.make_url("/")))
        running = [await manager.start_match(MatchRequest("duel", (f"p{2 * i}", f"p{2 * i + 1}"), 5, 3, seed=i))
                   for i in range(2)]
        while min(store.match(m).step for m in running) < 3:  # type: ignore[union-attr]
            await asyncio.sleep(0.01)
        copied = await asyncio.to_thread(backup, path, copy)  # the matches go on writing meanwhile
        assert copied.matches == 2 and copied.schema_version == SCHEMA_VERSION and copied.size == copy.stat().st_size
        await asyncio.gather(*(manager.wait(m) for m in running))
        assert all(store.match(m).is_completed for m in running)  # type: ignore[union-attr]
    finally:
        await manager.close()
        store.close()
    in_copy = contiguous_steps(copy)
    assert set(in_copy) == set(running) and all(n >= 3 for n in in_copy.values())
    # Restore: a manager on the copy finds the two matches it was playing, marks them aborted, and plays on.
    restored = Store(copy)
    manager = Manager(restored, machine_for_description, settings=ManagerSettings(deadlines=FAST))
    try:
        assert sorted(restored.recovered) == sorted(running)
        assert [p.name for p in restored.players()] == ["p0", "p1", "p2", "p3", "random"]
        match_id = await manager.start_match(MatchRequest("duel", ("random", "random"), 5, 3, seed=9))
        record = await manager.wait(match_id)
        assert record is not None and record.is_completed and record.goal_values is not None
        assert [m.status for m in restored.matches()].count("completed") == 1
    finally:
        await manager.close()
        restored.close()


def test_the_cli_backs_up_in_one_line_and_refuses_bad_targets_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, copy = tmp_path / "site.db", tmp_path / "copy.db"
    store = Store(path)  # the manager keeps it open: the backup needs no lock of its
    store.add_player("alice", "random")
    try:
        assert main(["archive", "backup", "--db", str(path), str(copy)]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"{path} backed up to {copy}: ") and out.endswith(
            f" bytes, 0 matches, schema version {SCHEMA_VERSION}\n")
        refusals = {
            str(copy): f"{str(copy)!r} exists; give a new file name for the backup",
            str(path): f"{str(path)!r} exists; give a new file name for the backup",
        }
        for target, message in refusals.items():
            assert main(["archive", "backup", "--db", str(path), target]) == 1
            assert capsys.readouterr().err == f"ggp archive: {message}\n"
        missing = tmp_path / "none.db"
        assert main(["archive", "backup", "--db", str(missing), str(tmp_path / "b.db")]) == 1
        assert capsys.readouterr().err == f"ggp archive: no database at {str(missing)!r}\n"
        (tmp_path / "junk.db").write_text("not a database, just text " * 100)
        assert main(["archive", "backup", "--db", str(tmp_path / "junk.db"), str(tmp_path / "c.db")]) == 1
        assert "is not an SQLite database" in capsys.readouterr().err
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith("partial")) == []
        assert not (tmp_path / "c.db").exists()
    finally:
        store.close()
    reopened = Store(copy)
    assert reopened.player("alice") is not None
    reopened.close()
