"""The match archive: stable match URLs, a filtered and paged list, JSON-lines export, checked import.

Every match the manager plays is kept as ggp.org match JSON (:mod:`ggp.manager.records`); this module
publishes and extends that archive:

    GET /matches/<id>.json                  one match's ggp.org JSON (a stable URL for papers and tools)
    GET /api/archive?game=&player=&since=&until=&outcome=&page=&per_page=
                                            {total, page, per_page, matches: [...]}, newest first
    GET /api/matches/export?since=          every finished match (finished at or after ``since``) as
                                            JSON lines, oldest first, for mirroring and re-import
    POST /api/archive/import[?game=KEY]     one match JSON, checked and stored (admin token when set)

``since``/``until`` are Unix seconds or ISO dates (``2026-11-27``, ``2026-11-27T12:00:00``, UTC).
``outcome`` is ``completed``, ``aborted``, ``running`` or ``errors`` (a match in which some request got
TO, CE or IL). :func:`check_replay` replays a match JSON under its game's rules and names the first
step that does not follow them; ``ggp archive import`` uses it to refuse such files, so that old public
archives can be browsed and rated beside the manager's own matches (:func:`store_imported`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from ggp.errors import GgpError, InputError
from ggp.gdl.parser import SList, read_sexprs, sexpr_to_term
from ggp.manager.agon import AgonTable
from ggp.manager.fields import read_json
from ggp.manager.rating_log import rate_match
from ggp.manager.records import MatchRecord, from_dict, to_dict
from ggp.manager.service import Manager
from ggp.manager.store import GameRow, Store
from ggp.match.referee import Referee
from ggp.reasoner.machine import State
from ggp.reasoner.traces import normalize_term_text

OUTCOMES = ("completed", "aborted", "running", "errors")
MAX_PER_PAGE = 200
_GAME_URL = re.compile(r"/games/([A-Za-z0-9][A-Za-z0-9_-]*)/(?:v\d+/?)?$")
_ERROR_CODE = ("%\"TO%", "%\"CE%", "%\"IL%")


def parse_when(text: str, what: str) -> float:
    """Unix seconds from a number or an ISO date/time (UTC unless it says otherwise); raises
    :class:`InputError` naming ``what``.

    >>> parse_when("86400", "since"), parse_when("1970-01-02", "since")
    (86400.0, 86400.0)
    """
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"{what} must be Unix seconds or an ISO date such as 2026-11-27, not {text[:40]!r}") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


@dataclass(frozen=True, slots=True)
class ArchiveQuery:
    """A page of the archive: filters (all optional) and the page, counted from 1."""

    game: str | None = None
    player: str | None = None
    since: float | None = None
    until: float | None = None
    outcome: str | None = None
    page: int = 1
    per_page: int = 50

    def __post_init__(self) -> None:
        if self.outcome is not None and self.outcome not in OUTCOMES:
            raise InputError(f"outcome must be one of {', '.join(OUTCOMES)}, not {self.outcome[:20]!r}")
        if self.page < 1 or not 1 <= self.per_page <= MAX_PER_PAGE:
            raise InputError(f"page must be 1 or more and per_page from 1 to {MAX_PER_PAGE}")


def _where(query: ArchiveQuery) -> tuple[str, list[Any]]:
    clauses, params = ["1 = 1"], []  # type: tuple[list[str], list[Any]]
    if query.game:
        clauses.append("game_key = ?")
        params.append(query.game)
    if query.player:
        clauses.append("EXISTS (SELECT 1 FROM json_each(matches.players) WHERE value = ?)")
        params.append(query.player)
    if query.since is not None:
        clauses.append("created >= ?")
        params.append(query.since)
    if query.until is not None:
        clauses.append("created < ?")
        params.append(query.until)
    if query.outcome in ("completed", "aborted", "running"):
        clauses.append("status = ?")
        params.append(query.outcome)
    elif query.outcome == "errors":
        clauses.append("EXISTS (SELECT 1 FROM match_steps s WHERE s.match_id = matches.id AND ("
                       + " OR ".join("s.errors LIKE ?" for _ in _ERROR_CODE) + "))")
        params.extend(_ERROR_CODE)
    return " AND ".join(clauses), params


def find(store: Store, query: ArchiveQuery) -> tuple[int, list[dict[str, Any]]]:
    """The number of matches the filters select, and the requested page of them (newest first) as
    list entries: id, game, status, players, goals, created, finished, error count."""
    where, params = _where(query)
    db = store.db
    total = db.execute(f"SELECT COUNT(*) FROM matches WHERE {where}", params).fetchone()[0]
    rows = db.execute(
        "SELECT id, game_key, status, players, goals, created, finished, "
        "(SELECT COUNT(*) FROM match_steps s WHERE s.match_id = matches.id AND ("
        + " OR ".join("s.errors LIKE ?" for _ in _ERROR_CODE)
        + f")) AS bad FROM matches WHERE {where} ORDER BY created DESC, id DESC LIMIT ? OFFSET ?",
        [*_ERROR_CODE, *params, query.per_page, (query.page - 1) * query.per_page]).fetchall()
    return total, [{"matchId": r[0], "game": r[1], "status": r[2], "players": json.loads(r[3]),
                    "goals": json.loads(r[4]) if r[4] else None, "created": r[5], "finished": r[6],
                    "stepsWithErrors": r[7]} for r in rows]


def export_lines(store: Store, since: float | None = None) -> Iterator[str]:
    """Every finished match (finished at or after ``since``), oldest first, one JSON text each."""
    rows = store.db.execute(
        "SELECT id FROM matches WHERE status != 'running' AND finished >= ? ORDER BY finished, id",
        (since if since is not None else float("-inf"),)).fetchall()
    for (match_id,) in rows:
        record = store.match(match_id)
        if record is not None:
            yield json.dumps(to_dict(record))


# --- import -----------------------------------------------------------------------------------------


def game_key_of(record: MatchRecord) -> str | None:
    """The game a match JSON was played on: ``x-gameKey``, else the key in its ``gameMetaURL``
    (``.../games/<key>/`` or ``.../games/<key>/v<N>/``, as ggp.org wrote them).

    >>> from ggp.manager.records import from_dict
    >>> game_key_of(from_dict({"matchId": "m", "startTime": 0, "randomToken": "t", "startClock": 1,
    ...     "playClock": 1, "states": [], "moves": [], "stateTimes": [],
    ...     "gameMetaURL": "http://games.ggp.org/base/games/ticTacToe/v0/"}))
    'ticTacToe'
    """
    if record.game_key:
        return record.game_key
    found = _GAME_URL.search(record.game_meta_url)
    return found.group(1) if found else None


def _texts(state_text: str) -> set[str]:
    """The fluents of a recorded state (``( (cell 1 1 b) (control x) )``, any spacing) as comparison texts."""
    items = read_sexprs(state_text, "<state>")
    if len(items) != 1 or not isinstance(items[0], SList):
        raise InputError(f"a state must be one list of fluents, not {state_text[:60]!r}")
    return {_fold(str(sexpr_to_term(item))) for item in items[0].items}


def _fold(text: str) -> str:
    return normalize_term_text(text).lower()


def _state_texts(state: State) -> set[str]:
    return {_fold(text) for text in state.sorted_texts()}


async def check_replay(referee: Referee, record: MatchRecord) -> str | None:
    """Replay a match under the rules ``referee`` (fresh, at the initial state) reasons with; ``None``
    when every recorded state follows from the one before by the recorded joint move (each legal), else
    the first problem as ``step N: ...`` (step 0 is the initial state). A completed match must end in a
    terminal state with the recorded goal values. Names are compared case-insensitively (ggp.org records
    are lower case). The referee may reason here or in the manager's worker process."""
    roles = referee.roles
    try:
        for step, recorded in enumerate(record.states):
            if step > 0:
                joint = record.moves[step - 1]
                if len(joint) != len(roles):
                    return f"step {step}: {len(joint)} moves for {len(roles)} roles"
                if await referee.is_terminal():
                    return f"step {step}: a move was recorded after a terminal state"
                chosen = []
                for role, text, moves in zip(roles, joint, await referee.legal()):
                    legal = {_fold(str(move)): move for move in moves}
                    move = legal.get(_fold(str(sexpr_to_term(read_sexprs(text, "<move>")[0]))))
                    if move is None:
                        return f"step {step}: {text!r} is not a legal move of {role} (legal: {sorted(legal)[:8]})"
                    chosen.append(move)
                await referee.advance(tuple(chosen))
            if _texts(recorded) != _state_texts(referee.state):
                missing = sorted(_state_texts(referee.state) - _texts(recorded))[:3]
                extra = sorted(_texts(recorded) - _state_texts(referee.state))[:3]
                return f"step {step}: the recorded state differs from the rules' (missing {missing}, extra {extra})"
        if record.is_completed:
            if not await referee.is_terminal():
                return f"step {len(record.moves)}: the match is marked completed in a state that is not terminal"
            goals = await referee.goals()
            if record.goal_values is not None and tuple(record.goal_values) != tuple(goals):
                return f"step {len(record.moves)}: goal values {list(record.goal_values)} differ from the rules' {list(goals)}"
    except (GgpError, ValueError) as exc:
        return f"step {len(record.moves)}: cannot replay: {exc}"
    return None


def record_to_import(data: Any, game: str | None = None) -> MatchRecord:
    """A match JSON object as read for import; ``game`` names the game of a record that names none (no
    ``gameMetaURL``, as ggp-base's ephemeral matches). Raises :class:`InputError` naming a bad field."""
    if isinstance(data, dict) and game is not None and not data.get("gameMetaURL"):
        data = {**data, "gameMetaURL": ""}
        data.setdefault("x-gameKey", game)
    return from_dict(data)


RefereeFor = Callable[[GameRow], Awaitable[tuple[Referee, Callable[[], Awaitable[None]]]]]
"""Gives a fresh referee for a stored game version and what to call when done with it."""


async def import_record(store: Store, referee_for: RefereeFor, record: MatchRecord, game: str | None = None) -> bool:
    """Check a match under its game's rules and add it to the archive (rated when completed): True when
    stored, False when a match with its id is there already. Raises :class:`InputError` with the reason
    a match is refused: its game is unknown, or ``step N: ...`` from :func:`check_replay`."""
    key = game_key_of(record) or game
    row = store.game(key) if key else None
    if row is None:
        raise InputError(f"unknown game {key!r}; load it first (ggp serve --repository DIR, or --rules KEY=FILE.kif)")
    referee, done = await referee_for(row)
    try:
        prepared = completed_for_import(record, row.key, [str(role) for role in referee.roles])
        problem = await check_replay(referee, prepared)
    finally:
        await done()
    if problem is not None:
        raise InputError(problem)
    return store_imported(store, prepared)


def completed_for_import(record: MatchRecord, key: str, roles: Sequence[str]) -> MatchRecord:
    """The record as the archive keeps it: its game key, the game's roles when it named none (ggp.org
    records do not), anonymous player names when it gave none, and one error row per state."""
    names = record.player_names or tuple(f"anonymous{i + 1}" for i in range(len(roles)))
    errors = record.errors if len(record.errors) == len(record.states) else tuple(("",) * len(roles) for _ in record.states)
    return replace(record, game_key=key, roles=tuple(roles) if record.roles != tuple(roles) else record.roles,
                   player_names=tuple(names), errors=errors,
                   player_types=record.player_types if len(record.player_types) == len(roles) else ("remote",) * len(roles),
                   state_times=record.state_times if len(record.state_times) == len(record.states)
                   else (record.start_time_ms,) * len(record.states))


def store_imported(store: Store, record: MatchRecord) -> bool:
    """Add a checked match to the archive and rate it (Elo and Agon) when it completed; False (nothing
    done) when a match with its id is there already, so importing a file twice changes nothing."""
    if store.match(record.match_id) is not None:
        return False
    store.match_event(record, "created")
    store.match_event(record, "end")
    started = record.start_time_ms / 1000.0
    finished = record.state_times[-1] / 1000.0 if record.state_times else started
    store.db.execute("UPDATE matches SET created = ?, finished = ? WHERE id = ?", (started, finished, record.match_id))
    rate_match(store, AgonTable(store.db), record)
    return True


# --- routes -----------------------------------------------------------------------------------------

STORE = web.AppKey("archive_store", Store)
MANAGER = web.AppKey("archive_manager", Manager)


async def match_json(request: web.Request) -> web.Response:
    """``GET /matches/<id>.json``: a stored match's ggp.org JSON (a running match's so far)."""
    record = request.app[STORE].match(request.match_info["id"])
    if record is None:
        raise web.HTTPNotFound(reason="unknown match")
    return web.Response(text=json.dumps(to_dict(record)), content_type="application/json")


def _number(text: str | None, what: str, default: int) -> int:
    if text is None or text == "":
        return default
    if not text.isdigit() or len(text) > 9:
        raise InputError(f"{what} must be a whole number")
    return int(text)


async def archive_page(request: web.Request) -> web.Response:
    """``GET /api/archive``: one page of the filtered archive."""
    q = request.query
    since, until = q.get("since"), q.get("until")
    query = ArchiveQuery(game=q.get("game") or None, player=q.get("player") or None,
                         since=parse_when(since, "since") if since else None,
                         until=parse_when(until, "until") if until else None,
                         outcome=q.get("outcome") or None, page=_number(q.get("page"), "page", 1),
                         per_page=_number(q.get("per_page"), "per_page", 50))
    total, matches = find(request.app[STORE], query)
    return web.json_response({"total": total, "page": query.page, "per_page": query.per_page, "matches": matches})


async def export(request: web.Request) -> web.StreamResponse:
    """``GET /api/matches/export?since=``: finished matches as JSON lines (``application/x-ndjson``)."""
    since = request.query.get("since")
    lines = export_lines(request.app[STORE], parse_when(since, "since") if since else None)
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    for line in lines:
        await response.write(line.encode() + b"\n")
    await response.write_eof()
    return response


async def import_match(request: web.Request) -> web.Response:
    """``POST /api/archive/import[?game=KEY]`` with one match JSON object: replayed in the game's worker,
    then stored (201 ``{matchId, imported}``; ``imported`` false when it was there already) or refused
    (400 with the first bad step)."""
    manager = request.app[MANAGER]
    data = await read_json(request)
    game = request.query.get("game") or None
    record = record_to_import(data, game)

    async def referee_for(row: GameRow) -> tuple[Referee, Callable[[], Awaitable[None]]]:
        slot = await manager.game_for(row)
        manager.reasoners.hold(slot)
        return manager.reasoners.referee(slot), lambda: manager.reasoners.release(slot)

    try:
        imported = await import_record(manager.store, referee_for, record, game)
    except InputError as exc:
        raise InputError(f"match {record.match_id!r} refused: {exc}") from None
    return web.json_response({"matchId": record.match_id, "imported": imported}, status=201)


def add_routes(app: web.Application, manager: Manager) -> None:
    """The archive's routes; register before ``/api/matches/{id}`` so ``export`` is not taken for an id."""
    app[STORE] = manager.store
    app[MANAGER] = manager
    app.router.add_post("/api/archive/import", import_match)
    app.router.add_get(r"/matches/{id}.json", match_json)
    app.router.add_get("/api/archive", archive_page)
    app.router.add_get("/api/matches/export", export)
