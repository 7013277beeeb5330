"""The manager database's schema, versioned: ``PRAGMA user_version`` and ordered migrations.

Every table of the manager's database (the store's, Agon's, the scheduler's, the owners' of
registered players) is made here and nowhere else. A database records the number of the last migration
applied in SQLite's ``user_version``; opening it applies the later ones in order, each in one
transaction together with its new version number, so an upgrade interrupted halfway leaves the
database at the last version it completed. A database written before versions existed reads
``user_version`` 0: migration 1 is the schema of that time (``CREATE ... IF NOT EXISTS``), so such a
database keeps every row and gains whatever tables it lacked. A database newer than this code is
refused before anything is written (:class:`SchemaTooNew`): an old ``ggp`` must not guess at tables it
does not know.

A migration is only ever appended: never edit one that has shipped, add the next.

>>> import sqlite3
>>> db = sqlite3.connect(":memory:", isolation_level=None)
>>> migrate(db, ":memory:") == (0, SCHEMA_VERSION)
True
>>> db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
True
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

from ggp.errors import GgpError, InputError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: the version it leads to, what it does (for the log) and its SQL."""

    version: int
    summary: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the tables of the manager before schema versions (store, Agon, schedule)", """
CREATE TABLE IF NOT EXISTS games (
    key TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, kif TEXT NOT NULL,
    roles TEXT NOT NULL, added REAL NOT NULL, PRIMARY KEY (key, version));
CREATE TABLE IF NOT EXISTS game_sources (
    key TEXT NOT NULL, version INTEGER NOT NULL, format TEXT NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY (key, version));
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY, kind TEXT NOT NULL, url TEXT, builtin TEXT,
    suspended INTEGER NOT NULL DEFAULT 0, fail_streak INTEGER NOT NULL DEFAULT 0, added REAL NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY, game_key TEXT NOT NULL, status TEXT NOT NULL, header TEXT NOT NULL,
    players TEXT NOT NULL, goals TEXT, tournament_id INTEGER, created REAL NOT NULL, finished REAL);
CREATE INDEX IF NOT EXISTS matches_by_status ON matches (status, created);
CREATE INDEX IF NOT EXISTS matches_by_tournament ON matches (tournament_id);
CREATE TABLE IF NOT EXISTS match_steps (
    match_id TEXT NOT NULL, step INTEGER NOT NULL, state TEXT NOT NULL, moves TEXT,
    errors TEXT NOT NULL, time_ms INTEGER NOT NULL, PRIMARY KEY (match_id, step));
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, game_key TEXT NOT NULL,
    config TEXT NOT NULL, status TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS ratings (
    game_key TEXT NOT NULL, player TEXT NOT NULL, rating REAL NOT NULL, matches INTEGER NOT NULL,
    PRIMARY KEY (game_key, player));
CREATE TABLE IF NOT EXISTS agon (
    scope TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, rating REAL NOT NULL, matches INTEGER NOT NULL,
    PRIMARY KEY (scope, kind, name));
CREATE TABLE IF NOT EXISTS schedule_players (
    name TEXT PRIMARY KEY, paused INTEGER NOT NULL DEFAULT 0, suspended_since REAL);
"""),
    Migration(2, "players registered by their owners: a hash of each owner's token", """
CREATE TABLE player_owners (
    name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, address TEXT NOT NULL,
    registered REAL NOT NULL);
CREATE INDEX player_owners_by_address ON player_owners (address, registered);
"""),
)

SCHEMA_VERSION = MIGRATIONS[-1].version
"""The schema version this code writes."""


class SchemaTooNew(InputError):
    """The database was written by a newer ``ggp`` (its schema version is above :data:`SCHEMA_VERSION`)."""


class MigrationFailed(GgpError):
    """A migration could not be applied (a full disk, say); the database stays at the version before it."""


def schema_version(db: sqlite3.Connection) -> int:
    """The database's ``PRAGMA user_version`` (0 for one written before versions, or a new file)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def check_not_newer(db: sqlite3.Connection, name: str) -> int:
    """The database's schema version; raises :class:`SchemaTooNew` when it is newer than this code."""
    found = schema_version(db)
    if found > SCHEMA_VERSION:
        raise SchemaTooNew(f"database {name!r}: schema version {found} is newer than this ggp ({SCHEMA_VERSION}); "
                           "upgrade ggp")
    return found


def migrate(db: sqlite3.Connection, name: str) -> tuple[int, int]:
    """Apply the migrations the database lacks, in order, each in its own transaction; returns the versions
    (before, after). ``db`` must be in autocommit mode (``isolation_level=None``). Raises
    :class:`SchemaTooNew` (nothing written) for a database newer than this code, :class:`MigrationFailed`
    when a migration cannot be applied (the database keeps the versions applied before it)."""
    before = check_not_newer(db, name)
    for migration in MIGRATIONS:
        if migration.version <= before:
            continue
        # One script, one transaction: the tables and the version number land together or not at all.
        script = f"BEGIN IMMEDIATE;\n{migration.sql}\nPRAGMA user_version = {migration.version};\nCOMMIT;"
        try:
            db.executescript(script)
        except BaseException as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise MigrationFailed(f"database {name!r}: upgrading the schema to version {migration.version} "
                                      f"failed, it stays at version {schema_version(db)}: {exc}") from exc
            raise
        if before > 0 or migration.version > 1:
            log.info("database %s: schema upgraded to version %d (%s)", name, migration.version, migration.summary)
    return before, schema_version(db)
