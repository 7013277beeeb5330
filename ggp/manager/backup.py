"""Online backups of the manager's database (``ggp archive backup FILE``), taken while it serves and writes.

SQLite's online backup API copies the database through a connection of its own, in one step, so the copy
is the database as of one moment (one read transaction: in WAL mode the manager goes on writing
meanwhile, and what it commits after that moment is simply not in the copy). No lock of the manager's is
needed, and the manager's own lock (:func:`ggp.manager.store._lock_beside`) is not taken. The copy is
written beside the target under a temporary name, checked (``PRAGMA integrity_check``) and only then
renamed to the target, so a target that exists is always a whole, checked backup. A copy is an ordinary
single-file database (rollback journal, not WAL): restoring is stopping the manager and putting the copy
in place of its ``--db`` (or starting one with ``--db COPY``).

>>> import tempfile, sqlite3
>>> folder = Path(tempfile.mkdtemp())
>>> db = sqlite3.connect(folder / "site.db"); _ = db.execute("CREATE TABLE t (x)"); db.close()
>>> backup(folder / "site.db", folder / "copy.db").tables
1
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from ggp.errors import InputError
from ggp.manager.schema import schema_version


@dataclass(frozen=True, slots=True)
class BackupResult:
    """What was copied: the target, its size in bytes, its tables, matches (0 when it has no such table) and
    schema version."""

    path: Path
    size: int
    tables: int
    matches: int
    schema_version: int


def backup(source: str | Path, target: str | Path) -> BackupResult:
    """Copy the database at ``source`` to ``target`` (a new file) while its manager may be writing.

    Raises :class:`InputError` when ``source`` is not a database file, ``target`` exists or is the source,
    and :class:`OSError` when the target cannot be written (nothing is left at the target then).
    """
    source, target = Path(source), Path(target)
    if not source.is_file():
        raise InputError(f"no database at {str(source)!r}")
    if target.exists():
        raise InputError(f"{str(target)!r} exists; give a new file name for the backup")
    if target.resolve() == source.resolve():
        raise InputError("the backup must go to another file than the database")
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with closing(sqlite3.connect(source, isolation_level=None)) as live, \
                closing(sqlite3.connect(partial, isolation_level=None)) as copy:
            try:
                live.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            except sqlite3.DatabaseError as exc:
                raise InputError(f"{str(source)!r} is not an SQLite database ({exc})") from None
            live.backup(copy, pages=-1)  # one step: one read transaction, one moment of the database
            copy.execute("PRAGMA journal_mode=DELETE")
            checked = copy.execute("PRAGMA integrity_check").fetchone()[0]
            if checked != "ok":
                raise InputError(f"the copy of {str(source)!r} is damaged ({checked}); the database may be too")
            tables = [row[0] for row in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            matches = copy.execute("SELECT COUNT(*) FROM matches").fetchone()[0] if "matches" in tables else 0
            version = schema_version(copy)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return BackupResult(target, target.stat().st_size, len(tables), matches, version)
