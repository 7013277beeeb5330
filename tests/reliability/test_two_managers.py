"""Attack 5 of issue 31: a second manager on the same database is refused before it writes anything.

Before, a second ``ggp serve`` on the same SQLite file marked the first one's live match aborted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ggp.manager.store import Store, StoreInUse
from tests.helpers.network import free_port
from tests.unit.manager.test_store import header, started


def running_match(store: Store) -> None:
    record = header("m1")
    store.match_event(record, "created")
    store.match_event(started("m1"), "start")


def test_a_second_store_on_the_same_database_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    first = Store(tmp_path / "m.db")
    try:
        running_match(first)
        before = (tmp_path / "m.db").read_bytes(), (tmp_path / "m.db-wal").read_bytes()
        with pytest.raises(StoreInUse, match="in use by another manager"):
            Store(tmp_path / "m.db")
        assert ((tmp_path / "m.db").read_bytes(), (tmp_path / "m.db-wal").read_bytes()) == before
        assert [m.status for m in first.matches()] == ["running"]
    finally:
        first.close()
    again = Store(tmp_path / "m.db")  # the lock goes with the first store
    assert again.recovered == ["m1"]
    again.close()


@pytest.mark.slow
def test_a_second_ggp_serve_on_the_same_database_exits_with_one_line(tmp_path: Path) -> None:
    first = Store(tmp_path / "m.db")
    try:
        running_match(first)
        done = subprocess.run([sys.executable, "-m", "ggp", "serve", "--db", str(tmp_path / "m.db"),
                               "--port", str(free_port())], capture_output=True, text=True, timeout=120)
        assert done.returncode == 1
        assert "in use by another manager" in done.stderr and "Traceback" not in done.stderr
        assert [m.status for m in first.matches()] == ["running"]
    finally:
        first.close()
