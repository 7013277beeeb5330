"""SQLite persistence for the manager: games, players, matches (step by step), tournaments, ratings.

One :class:`Store` owns one ``sqlite3`` connection in WAL mode and is used from one thread (the
event loop). Every match step is committed as it happens, so a crash loses at most the step in
flight; when a store is opened, matches and tournaments left ``running`` by a previous process are
marked aborted (a tournament's config then says how many matches had started and which never ran).
One store per database file: a second one, in any process, is refused before it writes anything
(:class:`StoreInUse`), since it would take the first one's running matches for leftovers.

Opening a database brings its schema up to date (:mod:`ggp.manager.schema`: ``PRAGMA user_version`` and
ordered migrations) and refuses one written by a newer ``ggp``. A write the database cannot take (a full
disk, an I/O error, a read-only file) raises :class:`StoreUnavailable` after one ERROR line in the log
(one per outage, not per write; the next write that succeeds logs that writes work again). SQLite rolls
the failed transaction back, so the database keeps everything committed before and stays readable.

>>> store = Store(":memory:")
>>> store.add_game("nim", "(role a)", ("a",), "Nim").version
1
>>> store.add_game("nim", "(role a) ; now with a comment", ("a",), "Nim").version
2
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from ggp.errors import GgpError, InputError
from ggp.manager.records import MatchRecord, from_dict, to_dict
from ggp.manager.schema import check_not_newer, migrate

log = logging.getLogger(__name__)

MatchStatus = Literal["running", "completed", "aborted"]
OVERALL = "*"
"""The game key under which overall (all games) ratings are kept."""

_HISTORY = ("states", "moves", "stateTimes", "errors")


class StoreInUse(InputError):
    """The database is held by another open :class:`Store` (another ``ggp serve``, in any process)."""


class StoreUnavailable(GgpError):
    """A write the database could not take (disk full, I/O error, read-only): nothing of it was kept. The
    HTTP API answers 503; a running match is aborted."""


_UNAVAILABLE = ("full", "disk i/o", "readonly", "read-only", "locked", "unable to open")
"""Words of the SQLite errors that mean the database cannot take writes now (not a bug in a statement)."""
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLAC", "COMMIT")


class GuardedConnection(sqlite3.Connection):
    """A connection whose :meth:`execute` turns "cannot write now" errors into :class:`StoreUnavailable`,
    logging one line when writes start failing and one when they work again. Every table's writes go
    through it (the store's, Agon's, the scheduler's), since they share the store's connection."""

    name = "?"
    failing = False
    refused = 0
    """Writes refused since the connection opened."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            cursor = self._execute(sql, parameters)
        except sqlite3.OperationalError as exc:
            if not any(word in str(exc).lower() for word in _UNAVAILABLE):
                raise
            self.refused += 1
            if not self.failing:
                log.error("database %s: writes fail: %s", self.name, exc)
                self.failing = True
            if self.in_transaction:
                super().execute("ROLLBACK")  # SQLite may have rolled back already; then there is none
            raise StoreUnavailable(f"the database cannot take writes now ({exc}); try again later") from exc
        if self.failing and sql.lstrip()[:6].upper() in _WRITES:
            log.warning("database %s: writes work again", self.name)
            self.failing = False
        return cursor

    def _execute(self, sql: str, parameters: Any) -> sqlite3.Cursor:
        """The plain ``execute`` (the one place a test injects a failing disk)."""
        return super().execute(sql, parameters)


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN`` ... ``COMMIT`` on an autocommit connection, rolled back when the body raises (unless the
    failed write already ended the transaction). Inside another transaction it is part of that one."""
    if db.in_transaction:
        yield
        return
    db.execute("BEGIN")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _lock_beside(path: str | Path) -> IO[str] | None:
    """Hold an exclusive lock on ``<path>.lock`` (a file beside the database) for as long as the returned
    file is open; ``None`` for an in-memory database. Raises :class:`StoreInUse` at once when another
    store holds it: two managers on one database would each mark the other's running matches aborted.

    The lock is ``flock``'s, held by the open file: it goes when the process exits, however it exits,
    so a ``kill -9`` never leaves a stale lock behind.
    """
    if str(path) in ("", ":memory:") or str(path).startswith("file:"):
        return None
    lock_path = Path(f"{path}.lock")
    handle = lock_path.open("a+")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise StoreInUse(f"database {str(path)!r} is in use by another manager ({holder}); stop it or give "
                         "another --db") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle


@dataclass(frozen=True, slots=True)
class GameRow:
    """One version of a stored game; ``version`` increments whenever the rules text changes."""

    key: str
    version: int
    name: str
    kif: str
    roles: tuple[str, ...]
    added: float


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """A registered player: ``kind`` is ``remote`` (with ``url``), ``builtin`` (with ``builtin``) or ``random``."""

    name: str
    kind: str
    url: str | None
    builtin: str | None
    suspended: bool
    fail_streak: int


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A match without its history, for lists."""

    match_id: str
    game_key: str
    status: MatchStatus
    players: tuple[str, ...]
    goals: tuple[int, ...] | None
    tournament_id: int | None
    created: float
    finished: float | None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    tournament_id: int
    name: str
    game_key: str
    config: dict[str, Any]
    status: str
    created: float


class Store:
    """The manager's database. ``path`` may be ``":memory:"`` for tests. Close with :meth:`close`."""

    def __init__(self, path: str | Path) -> None:
        self._lock = _lock_beside(path)  # before anything is written: a second manager writes nothing
        self._db = sqlite3.connect(str(path), isolation_level=None, factory=GuardedConnection)
        self._db.name = str(path)
        try:
            try:
                check_not_newer(self._db, str(path))  # before WAL mode, which writes the file's header
            except sqlite3.DatabaseError as exc:
                raise InputError(f"{str(path)!r} is not a ggp database ({exc})") from None
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a commit survives the process dying at any moment (kill -9, a crash);
            # only a power cut or an OS crash may lose the last commits, never the database.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self.schema_versions = migrate(self._db, str(path))
            """(before, after): the schema version found when opening and the one now."""
        except BaseException:
            self.close()
            raise
        self._links: dict[str, int] = {}
        self.recovered = self._abort_leftovers()
        self.recovered_tournaments = self._abort_leftover_tournaments()

    def close(self) -> None:
        """Close the connection and release the lock (idempotent)."""
        self._db.close()
        if self._lock is not None:
            self._lock.close()  # closing the file releases the lock
            self._lock = None

    @property
    def db(self) -> GuardedConnection:
        """The connection, for modules that keep tables of their own in the same file (Agon ratings,
        the scheduler); use it from the store's thread only."""
        return self._db

    def _abort_leftovers(self) -> list[str]:
        """Mark matches a previous process left running as aborted; returns their ids."""
        rows = self._db.execute("SELECT id, header FROM matches WHERE status = 'running'").fetchall()
        for row in rows:
            header = json.loads(row["header"])
            header.update({"isAborted": True, "x-endReason": "aborted", "x-abortDetail": "manager stopped"})
            self._db.execute(
                "UPDATE matches SET status = 'aborted', header = ?, finished = ? WHERE id = ?",
                (json.dumps(header), time.time(), row["id"]),
            )
        return [row["id"] for row in rows]

    def _abort_leftover_tournaments(self) -> list[int]:
        """Mark tournaments a previous process left running as aborted, recording in their config how many
        matches were started and the seatings (from the saved schedule) that never ran; returns their ids."""
        rows = self._db.execute("SELECT id, config FROM tournaments WHERE status = 'running'").fetchall()
        for row in rows:
            config = json.loads(row["config"])
            started = self._db.execute(
                "SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (row["id"],)).fetchone()[0]
            schedule = config.get("schedule", [])
            config.update({"x-abortDetail": "manager stopped", "started": started, "never_ran": schedule[started:]})
            self._db.execute("UPDATE tournaments SET status = 'aborted', config = ? WHERE id = ?",
                             (json.dumps(config), row["id"]))
        return [row["id"] for row in rows]

    # --- games ----------------------------------------------------------------------------------

    def add_game(self, key: str, kif: str, roles: Sequence[str], name: str = "") -> GameRow:
        """Store a game; the same text again keeps its version, changed text gets the next version."""
        latest = self.game(key)
        if latest is not None and latest.kif == kif:
            return latest
        version = latest.version + 1 if latest else 1
        added = time.time()
        self._db.execute(
            "INSERT INTO games (key, version, name, kif, roles, added) VALUES (?, ?, ?, ?, ?, ?)",
            (key, version, name or key, kif, json.dumps(list(roles)), added),
        )
        return GameRow(key, version, name or key, kif, tuple(roles), added)

    def game(self, key: str, version: int | None = None) -> GameRow | None:
        """The latest (or the given) version of a game, or ``None``."""
        if version is None:
            row = self._db.execute(
                "SELECT * FROM games WHERE key = ? ORDER BY version DESC LIMIT 1", (key,)).fetchone()
        else:
            row = self._db.execute("SELECT * FROM games WHERE key = ? AND version = ?", (key, version)).fetchone()
        return self._game_row(row) if row else None

    def games(self) -> list[GameRow]:
        """The latest version of every game, by key."""
        rows = self._db.execute(
            "SELECT g.* FROM games g JOIN (SELECT key, MAX(version) AS v FROM games GROUP BY key) m "
            "ON g.key = m.key AND g.version = m.v ORDER BY g.key").fetchall()
        return [self._game_row(row) for row in rows]

    def set_source(self, key: str, version: int, game_format: str, source: str) -> None:
        """Keep the text a game version was translated from (e.g. its SBG rules, which the piece shapes
        are made from); the same version again replaces it."""
        self._db.execute("INSERT OR REPLACE INTO game_sources (key, version, format, source) VALUES (?, ?, ?, ?)",
                         (key, version, game_format, source))

    def source(self, key: str, version: int) -> tuple[str, str] | None:
        """(format, text) a game version was translated from, or ``None`` for a game uploaded as KIF."""
        row = self._db.execute("SELECT format, source FROM game_sources WHERE key = ? AND version = ?",
                               (key, version)).fetchone()
        return (row["format"], row["source"]) if row else None

    @staticmethod
    def _game_row(row: sqlite3.Row) -> GameRow:
        return GameRow(row["key"], row["version"], row["name"], row["kif"], tuple(json.loads(row["roles"])),
                       row["added"])

    # --- players --------------------------------------------------------------------------------

    def add_player(self, name: str, kind: str, url: str | None = None, builtin: str | None = None) -> PlayerRow:
        """Register (or re-register, clearing a suspension) a player."""
        self._db.execute(
            "INSERT INTO players (name, kind, url, builtin, added) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, url = excluded.url, "
            "builtin = excluded.builtin, suspended = 0, fail_streak = 0",
            (name, kind, url, builtin, time.time()),
        )
        player = self.player(name)
        assert player is not None
        return player

    def player(self, name: str) -> PlayerRow | None:
        row = self._db.execute("SELECT * FROM players WHERE name = ?", (name,)).fetchone()
        return self._player_row(row) if row else None

    def players(self) -> list[PlayerRow]:
        return [self._player_row(r) for r in self._db.execute("SELECT * FROM players ORDER BY name")]

    @staticmethod
    def _player_row(row: sqlite3.Row) -> PlayerRow:
        return PlayerRow(row["name"], row["kind"], row["url"], row["builtin"], bool(row["suspended"]),
                         row["fail_streak"])

    def add_owned_player(self, name: str, url: str, token_hash: str, address: str) -> PlayerRow:
        """Register a remote player for an owner (who proves it with the token ``token_hash`` hashes), from the
        client ``address``; raises :class:`InputError` when the name is taken (nothing is replaced)."""
        with transaction(self._db):
            if self.player(name) is not None:
                raise InputError(f"player name {name!r} is taken")
            self._db.execute("INSERT INTO players (name, kind, url, added) VALUES (?, 'remote', ?, ?)",
                             (name, url, time.time()))
            self._db.execute("INSERT INTO player_owners (name, token_hash, address, registered) VALUES (?, ?, ?, ?)",
                             (name, token_hash, address, time.time()))
        player = self.player(name)
        assert player is not None
        return player

    def owner_hash(self, name: str) -> str | None:
        """The hash of the token of a player's owner, or ``None`` (the admin's player, or unknown)."""
        row = self._db.execute("SELECT token_hash FROM player_owners WHERE name = ?", (name,)).fetchone()
        return str(row[0]) if row else None

    def rename_player(self, old: str, new: str) -> None:
        """Give a player a new name, with its owner, pause and ratings (past match records keep the name they
        were played under); raises :class:`InputError` when ``new`` is taken."""
        with transaction(self._db):
            if self.player(new) is not None:
                raise InputError(f"player name {new!r} is taken")
            for sql in ("UPDATE players SET name = ? WHERE name = ?", "UPDATE player_owners SET name = ? WHERE name = ?",
                        "UPDATE schedule_players SET name = ? WHERE name = ?",
                        "UPDATE ratings SET player = ? WHERE player = ?",
                        "UPDATE agon SET name = ? WHERE kind = 'skill' AND name = ?"):
                self._db.execute(sql, (new, old))

    def delete_player(self, name: str) -> None:
        """Remove a player, its owner, pause and ratings (past match records keep its name)."""
        with transaction(self._db):
            for sql in ("DELETE FROM player_owners WHERE name = ?", "DELETE FROM schedule_players WHERE name = ?",
                        "DELETE FROM ratings WHERE player = ?", "DELETE FROM agon WHERE kind = 'skill' AND name = ?",
                        "DELETE FROM players WHERE name = ?"):
                self._db.execute(sql, (name,))

    def note_player_result(self, name: str, failed: bool, suspend_after: int) -> PlayerRow | None:
        """Count a failed match (or reset the count); suspend at ``suspend_after`` failures in a row."""
        if failed:
            self._db.execute(
                "UPDATE players SET fail_streak = fail_streak + 1, "
                "suspended = CASE WHEN fail_streak + 1 >= ? AND ? > 0 THEN 1 ELSE suspended END WHERE name = ?",
                (suspend_after, suspend_after, name))
        else:
            self._db.execute("UPDATE players SET fail_streak = 0 WHERE name = ?", (name,))
        return self.player(name)

    def set_suspended(self, name: str, suspended: bool) -> None:
        self._db.execute("UPDATE players SET suspended = ?, fail_streak = 0 WHERE name = ?", (int(suspended), name))

    # --- matches (a MatchObserver) --------------------------------------------------------------

    def match_event(self, record: MatchRecord, event: str) -> None:
        """Persist a runner event: the match row on ``created``, the first step row (and the players' reported
        configurations) on ``start``, one step row per step, the end state."""
        if event == "created":
            self._insert_match(record)
        elif event == "start":
            self._insert_step(record, 0)
            if record.configurations:  # what the players chose at START, kept even if the manager stops mid-match
                self._db.execute("UPDATE matches SET header = ? WHERE id = ?", (self._header(record), record.match_id))
        elif event == "step":
            self._insert_step(record, record.step)
        else:
            self._finish(record)

    def _header(self, record: MatchRecord) -> str:
        data = to_dict(record)
        for key in _HISTORY:
            del data[key]
        return json.dumps(data)

    def _insert_match(self, record: MatchRecord, tournament_id: int | None = None) -> None:
        with transaction(self._db):
            self._db.execute(
                "INSERT OR REPLACE INTO matches (id, game_key, status, header, players, tournament_id, created) "
                "VALUES (?, ?, 'running', ?, ?, ?, ?)",
                (record.match_id, record.game_key, self._header(record), json.dumps(list(record.player_names)),
                 self._links.get(record.match_id, tournament_id),
                 time.time()),
            )
            self._db.execute("DELETE FROM match_steps WHERE match_id = ?", (record.match_id,))
            for step in range(len(record.states)):
                self._insert_step(record, step)

    def link_tournament(self, match_id: str, tournament_id: int) -> None:
        """Attach a match to a tournament; may be called before the match's ``start`` event."""
        self._links[match_id] = tournament_id
        self._db.execute("UPDATE matches SET tournament_id = ? WHERE id = ?", (tournament_id, match_id))

    def _insert_step(self, record: MatchRecord, step: int) -> None:
        moves = json.dumps(list(record.moves[step - 1])) if step > 0 else None
        errors = record.errors[step] if step < len(record.errors) else ()
        self._db.execute(
            "INSERT OR REPLACE INTO match_steps (match_id, step, state, moves, errors, time_ms) VALUES (?, ?, ?, ?, ?, ?)",
            (record.match_id, step, record.states[step], moves, json.dumps(list(errors)), record.state_times[step]),
        )

    def _finish(self, record: MatchRecord) -> None:
        status: MatchStatus = "completed" if record.is_completed else "aborted"
        goals = json.dumps(list(record.goal_values)) if record.goal_values is not None else None
        self._db.execute(
            "UPDATE matches SET status = ?, header = ?, goals = ?, finished = ? WHERE id = ?",
            (status, self._header(record), goals, time.time(), record.match_id),
        )

    def match(self, match_id: str) -> MatchRecord | None:
        """The full record of a stored match, or ``None``."""
        row = self._db.execute("SELECT header FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            return None
        data = json.loads(row["header"])
        steps = self._db.execute(
            "SELECT * FROM match_steps WHERE match_id = ? ORDER BY step", (match_id,)).fetchall()
        data["states"] = [s["state"] for s in steps]
        data["moves"] = [json.loads(s["moves"]) for s in steps[1:]]
        data["stateTimes"] = [s["time_ms"] for s in steps]
        data["errors"] = [json.loads(s["errors"]) for s in steps]
        return from_dict(data)

    def matches(self, *, status: str | None = None, game: str | None = None, player: str | None = None,
                tournament_id: int | None = None, limit: int = 100) -> list[MatchSummary]:
        """Newest first, filtered by status, game key, player name and tournament."""
        query, params = "SELECT * FROM matches WHERE 1 = 1", []  # type: tuple[str, list[Any]]
        if status:
            query += " AND status = ?"
            params.append(status)
        if game:
            query += " AND game_key = ?"
            params.append(game)
        if tournament_id is not None:
            query += " AND tournament_id = ?"
            params.append(tournament_id)
        if player:
            query += " AND EXISTS (SELECT 1 FROM json_each(matches.players) WHERE value = ?)"
            params.append(player)
        query += " ORDER BY created DESC, id DESC LIMIT ?"
        params.append(limit)
        return [self._summary(row) for row in self._db.execute(query, params)]

    def fallbacks(self, tournament_id: int) -> dict[str, tuple[int, ...]]:
        """Per match of a tournament, the moves replaced by the fallback per seat (a timeout, a
        connection error, an illegal or unparseable reply: a non-empty error code), for matches with any."""
        counts: dict[str, dict[int, int]] = {}
        query = ("SELECT s.match_id, CAST(e.key AS INTEGER) AS seat, COUNT(*) AS n "
                 "FROM matches m JOIN match_steps s ON s.match_id = m.id, json_each(s.errors) e "
                 "WHERE m.tournament_id = ? AND e.value != '' GROUP BY s.match_id, seat")
        for row in self._db.execute(query, (tournament_id,)):
            counts.setdefault(row["match_id"], {})[row["seat"]] = row["n"]
        return {match: tuple(seats.get(i, 0) for i in range(max(seats) + 1)) for match, seats in counts.items()}

    @staticmethod
    def _summary(row: sqlite3.Row) -> MatchSummary:
        return MatchSummary(
            row["id"], row["game_key"], row["status"], tuple(json.loads(row["players"])),
            tuple(json.loads(row["goals"])) if row["goals"] else None, row["tournament_id"], row["created"],
            row["finished"],
        )

    # --- tournaments ----------------------------------------------------------------------------

    def add_tournament(self, name: str, game_key: str, config: dict[str, Any]) -> int:
        cursor = self._db.execute(
            "INSERT INTO tournaments (name, game_key, config, status, created) VALUES (?, ?, ?, 'running', ?)",
            (name, game_key, json.dumps(config), time.time()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def set_tournament_status(self, tournament_id: int, status: str) -> None:
        self._db.execute("UPDATE tournaments SET status = ? WHERE id = ?", (status, tournament_id))

    def tournament(self, tournament_id: int) -> TournamentRow | None:
        row = self._db.execute("SELECT * FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        return self._tournament_row(row) if row else None

    def tournaments(self) -> list[TournamentRow]:
        return [self._tournament_row(r) for r in self._db.execute("SELECT * FROM tournaments ORDER BY id DESC")]

    @staticmethod
    def _tournament_row(row: sqlite3.Row) -> TournamentRow:
        return TournamentRow(row["id"], row["name"], row["game_key"], json.loads(row["config"]), row["status"],
                             row["created"])

    # --- ratings --------------------------------------------------------------------------------

    def ratings(self, game_key: str = OVERALL) -> dict[str, tuple[float, int]]:
        """Player name -> (Elo rating, rated matches) for one game, or overall by default."""
        rows = self._db.execute("SELECT * FROM ratings WHERE game_key = ? ORDER BY rating DESC", (game_key,))
        return {row["player"]: (row["rating"], row["matches"]) for row in rows}

    def set_ratings(self, game_key: str, ratings: dict[str, tuple[float, int]]) -> None:
        with transaction(self._db):
            for player, (rating, count) in ratings.items():
                self._db.execute(
                    "INSERT OR REPLACE INTO ratings (game_key, player, rating, matches) VALUES (?, ?, ?, ?)",
                    (game_key, player, rating, count))

    def rated_games(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT DISTINCT game_key FROM ratings ORDER BY game_key")]


def iter_json_lines(records: Sequence[MatchRecord]) -> Iterator[str]:
    """Records as JSON lines (for exports)."""
    for record in records:
        yield json.dumps(to_dict(record))


def require(value: Any, what: str) -> Any:
    """``value`` unless it is ``None``; then :class:`InputError` saying ``what`` is unknown."""
    if value is None:
        raise InputError(f"unknown {what}")
    return value
