"""The manager's aiohttp app: a JSON REST API, server-sent events and the static web UI.

Bad input gets ``400 {"error": "..."}`` (never a traceback; a body field the route does not know is
bad input too, named in the error); bodies are size-limited; when an admin
token is set (required when the server is exposed beyond loopback) every state-changing request
must carry ``Authorization: Bearer <token>``. A cross-site POST (an ``Origin`` that is not this
host) is refused, so a web page cannot drive a loopback manager.

Routes (all JSON unless said otherwise)::

    GET  /api/games                    POST /api/games {key, kif | sbg, name?}
    GET  /api/games/{key}?version=     GET  /games/ and /games/... (the ggp.org repository API:
                                       ggp.manager.repository)    GET /api/repository (broken games)
    GET  /api/games/{key}/pieces/{piece}-{owner}.svg  (image/svg+xml; games uploaded as SBG)
    GET  /api/players                  POST /api/players {name, url | builtin}
    POST /api/players/{name}/unsuspend GET /api/players/{name}/ping  (INFO, 1 s)
    POST /api/players/{name}/pause|resume   GET /api/schedule  (continuous scheduling: ggp.manager.scheduler)
    GET  /api/matches?status=&game=&player=&tournament=&limit=
    GET  /matches/{id}.json            GET  /api/archive?game=&player=&since=&until=&outcome=&page=&per_page=
    GET  /api/matches/export?since=    (JSON lines; the archive: ggp.manager.archive)
    POST /api/matches {game, players, startclock?, playclock?, seed?}
    GET  /api/matches/{id}             (ggp.org match JSON; ?download=1 as a file)
    GET  /api/matches/{id}/events      (text/event-stream: snapshot, step, end; x-board: the geometry)
    POST /api/matches/{id}/abort
    GET  /api/matches/{id}/human/{role}?since=V   (a person's view; long poll; X-Seat-Secret)
    POST /api/matches/{id}/human/{role}/move {move, turn?}   (a person's move; X-Seat-Secret)
    GET  /api/tournaments              POST /api/tournaments (JSON, or YAML with Content-Type */yaml)
    GET  /api/tournaments/{id}         POST /api/tournaments/{id}/abort
    GET  /api/ratings?game=&system=elo|agon   GET  /api/events (dashboard feed)
    GET  /                             (the web UI; static files under /static/)
    GET  /metrics  GET /healthz        (Prometheus text format; health JSON: ggp.manager.metrics)
    POST /api/members {name, url, invite?}   POST|DELETE /api/members/{name}[/pause|resume|rename]
                                       (owners' players, X-Player-Token: ggp.manager.members)
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from ggp.errors import InputError
from ggp.manager import archive, members, metrics, repository, scheduler, streams
from ggp.manager.fields import read_json, reject_unknown
from ggp.manager.human import HUMAN_KIND, HumanSeat, NotYourTurn, human_view
from ggp.manager.match_requests import MatchRequest
from ggp.manager.records import MatchRecord
from ggp.manager.service import GameRejected, Manager
from ggp.manager.store import OVERALL, MatchSummary, StoreUnavailable
from ggp.manager.tournament import MAX_TOURNAMENT_BODY, spec_from_mapping, spec_from_yaml
from ggp.protocol.httpguard import cap_connections, cross_site

log = logging.getLogger(__name__)

MANAGER = web.AppKey("manager", Manager)
TOKEN = web.AppKey("token", str)
ALLOWED_HOSTS = web.AppKey("allowed_hosts", frozenset)
STATIC_DIR = Path(__file__).with_name("static")
MAX_BODY = 2 * 1024 * 1024
"""Largest request body accepted (a big KIF game is well under this)."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str, **extra: Any) -> web.Response:
    return web.json_response({"error": message, **extra}, status=status)


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Map bad input to 400 and anything unexpected to a 500 without a traceback."""
    try:
        return await handler(request)
    except GameRejected as exc:
        return _error(400, str(exc), problems=exc.problems)
    except StoreUnavailable as exc:  # a full disk: logged once by the store, nothing of the request kept
        response = _error(503, str(exc))
        response.headers["Retry-After"] = "60"
        return response
    except (InputError, ValueError) as exc:
        return _error(400, str(exc))
    except web.HTTPException as exc:
        if exc.status >= 400 and exc.content_type != "application/json":
            return _error(exc.status, exc.reason)
        raise
    except asyncio.CancelledError:
        raise
    except ConnectionResetError:  # the client went away (a closed tab): normal, and nobody to answer
        log.debug("client left during %s %s", request.method, request.path)
        return _error(499, "client closed the connection")  # aiohttp drops it quietly: nowhere to write
    except Exception:
        log.exception("internal error on %s %s", request.method, request.path)
        return _error(500, "internal error; see the manager's log")


ADMIN_READS = frozenset({"/api/players/{name}/ping"})
"""GET routes that make the manager contact someone (a player): they need the admin token too."""
SEAT_ROUTES = frozenset({"/api/matches/{id}/human/{role}/move"})
"""POST routes authorised by a seat's secret (``X-Seat-Secret``) instead of the admin token."""
SEAT_SECRET_HEADER = "X-Seat-Secret"

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
                               "form-action 'self'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Sent with every response: the UI loads only its own scripts and styles and is never framed."""


def _host_name(host: str) -> str:
    """``HOST[:PORT]`` or ``[V6]:PORT`` -> the lower-case host name."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Host allow-list, then admin token and same-origin checks for every state-changing request."""
    allowed = request.app[ALLOWED_HOSTS]
    if allowed and _host_name(request.host) not in allowed:
        # A DNS-rebinding page reaches a loopback manager under its own host name: refuse it.
        return _error(403, f"unexpected Host header {request.host!r}")
    route = request.match_info.route.resource
    admin_read = route is not None and route.canonical in ADMIN_READS
    if request.method not in ("GET", "HEAD", "OPTIONS") or admin_read:
        if cross_site(request):
            return _error(403, "cross-origin requests are not allowed")
        token = request.app[TOKEN]
        seat_route = route is not None and route.canonical in SEAT_ROUTES | members.OWNER_ROUTES
        if token and not seat_route and not hmac.compare_digest(bearer_token(request).encode(), token.encode()):
            return _error(401, "this action needs the admin token (Authorization: Bearer <token>)")
    return await handler(request)


def bearer_token(request: web.Request) -> str:
    """The token of an ``Authorization: Bearer <token>`` header (the scheme in any case); ``""`` for any
    other header, a bare token included: only the documented form is accepted."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


@web.middleware
async def _security_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


MAX_ID = 2**63 - 1
"""Largest whole number accepted in a path or query (SQLite's INTEGER range)."""


def _whole(text: str, what: str) -> int:
    """``text`` as a whole number from 0 to :data:`MAX_ID`; raises :class:`InputError` naming ``what``."""
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{what} must be a whole number, found {text[:40]!r}") from None
    if not 0 <= value <= MAX_ID:
        raise InputError(f"{what} must be a whole number from 0 to {MAX_ID}")
    return value


async def _json_body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise web.HTTPUnsupportedMediaType(
            reason=f"the request body must be JSON (Content-Type: application/json), not {request.content_type!r}")
    data = await read_json(request)
    if not isinstance(data, dict):
        raise InputError("the request body must be a JSON object")
    return data


def _str_field(data: dict[str, Any], key: str, required: bool = True, default: str = "") -> str:
    value = data.get(key, None if required else default)
    if not isinstance(value, str):
        raise InputError(f"field {key!r} must be a string")
    return value


def _int_field(data: dict[str, Any], key: str, default: int | None) -> int | None:
    value = data.get(key, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise InputError(f"field {key!r} must be a whole number")
    return value


def _summary(match: MatchSummary) -> dict[str, Any]:
    return {"matchId": match.match_id, "game": match.game_key, "status": match.status,
            "players": list(match.players), "goals": list(match.goals) if match.goals else None,
            "tournament": match.tournament_id, "created": match.created, "finished": match.finished}


# --- games ------------------------------------------------------------------------------------------


async def list_games(request: web.Request) -> web.Response:
    games = request.app[MANAGER].store.games()
    return web.json_response([{"key": g.key, "name": g.name, "version": g.version, "roles": list(g.roles)}
                              for g in games], headers={"X-Game-Formats": ",".join(request.app[MANAGER].game_formats())})


async def add_game(request: web.Request) -> web.Response:
    """``{key, name?}`` plus the rules in exactly one format field: ``kif``, or ``sbg`` (translated to KIF)."""
    manager = request.app[MANAGER]
    data = await _json_body(request)
    reject_unknown(data, ("key", "name", *manager.game_formats()))
    given = [fmt for fmt in manager.game_formats() if fmt in data]
    if len(given) != 1:
        raise InputError(f"give the rules in exactly one of the fields {list(manager.game_formats())}")
    [game_format] = given
    row = await manager.add_game(_str_field(data, "key"), _str_field(data, game_format),
                                 _str_field(data, "name", False), game_format)
    return web.json_response({"key": row.key, "version": row.version, "roles": list(row.roles),
                              "format": game_format}, status=201)


async def get_game(request: web.Request) -> web.Response:
    """The latest version of a game (or ``?version=N``), its rules and its board geometry (``null`` when
    it has none; see :mod:`ggp.manager.boards`)."""
    manager = request.app[MANAGER]
    version = request.query.get("version")
    row = manager.store.game(request.match_info["key"], _whole(version, "a game version") if version else None)
    if row is None:
        raise web.HTTPNotFound(reason="unknown game")
    return web.json_response({"key": row.key, "name": row.name, "version": row.version, "roles": list(row.roles),
                              "kif": row.kif, "gameMetaURL": manager.game_url(row), "board": await manager.board(row)})


PIECE_FILE = re.compile(r"([A-Za-z])-(white|black)\.svg")
"""``{piece}-{owner}.svg``: an SBG piece letter as the GDL ``(cell x y owner type)`` names it, and its owner."""


async def piece_image(request: web.Request) -> web.Response:
    """The generated shape of a piece of an SBG game (made once per game, then cached); 404 otherwise."""
    match = PIECE_FILE.fullmatch(request.match_info["file"])
    svg = await request.app[MANAGER].piece_svg(request.match_info["key"], *match.groups()) if match else None
    if svg is None:
        raise web.HTTPNotFound(reason="unknown game or piece")
    return web.Response(body=svg, content_type="image/svg+xml", headers={"Cache-Control": "max-age=60"})


# --- players ----------------------------------------------------------------------------------------


async def list_players(request: web.Request) -> web.Response:
    manager = request.app[MANAGER]
    overall = manager.store.ratings(OVERALL)
    return web.json_response([
        {"name": p.name, "kind": p.kind, "url": p.url, "builtin": p.builtin, "suspended": p.suspended,
         "failStreak": p.fail_streak, "elo": round(overall.get(p.name, (1500.0, 0))[0], 1)}
        for p in manager.store.players()
    ], headers={"X-Builtin-Types": ",".join(["random", HUMAN_KIND, *manager.builtin_kinds()])})


async def add_player(request: web.Request) -> web.Response:
    data = await _json_body(request)
    reject_unknown(data, ("name", "url", "builtin"))
    url = data.get("url")
    builtin = data.get("builtin")
    if (url is not None and not isinstance(url, str)) or (builtin is not None and not isinstance(builtin, str)):
        raise InputError("fields 'url' and 'builtin' must be strings")
    row = request.app[MANAGER].register_player(_str_field(data, "name"), url=url, builtin=builtin)
    return web.json_response({"name": row.name, "kind": row.kind}, status=201)


async def ping_player(request: web.Request) -> web.Response:
    return web.json_response(await request.app[MANAGER].ping(request.match_info["name"]))


async def unsuspend_player(request: web.Request) -> web.Response:
    store = request.app[MANAGER].store
    name = request.match_info["name"]
    if store.player(name) is None:
        raise web.HTTPNotFound(reason="unknown player")
    store.set_suspended(name, False)
    return web.json_response({"name": name, "suspended": False})


# --- matches ----------------------------------------------------------------------------------------


async def list_matches(request: web.Request) -> web.Response:
    query = request.query
    status = query.get("status") or None
    if status not in (None, "running", "completed", "aborted"):
        raise InputError("status must be running, completed or aborted")
    tournament = query.get("tournament")
    limit = _whole(query.get("limit", "100"), "limit")
    tournament_id = _whole(tournament, "tournament") if tournament else None
    matches = request.app[MANAGER].store.matches(
        status=status, game=query.get("game") or None, player=query.get("player") or None,
        tournament_id=tournament_id, limit=max(1, min(limit, 1000)))
    return web.json_response([_summary(m) for m in matches])


MATCH_FIELDS = ("game", "players", "startclock", "playclock", "seed")
"""The fields of ``POST /api/matches``."""


async def create_match(request: web.Request) -> web.Response:
    data = await _json_body(request)
    reject_unknown(data, MATCH_FIELDS)
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InputError("field 'players' must be a list of player names, one per role")
    match_request = MatchRequest(
        game=_str_field(data, "game"), players=tuple(players),
        start_clock=_int_field(data, "startclock", 10) or 0, play_clock=_int_field(data, "playclock", 5) or 0,
        seed=_int_field(data, "seed", None),
    )
    manager = request.app[MANAGER]
    match_id = await manager.start_match(match_request)
    reply: dict[str, Any] = {"matchId": match_id}
    humans = manager.human_seats(match_id)
    if humans:  # only the creator learns the secrets that let a browser tab move for a person's seat
        reply["humanSeats"] = {role: seat.secret for role, seat in humans.items()}
    return web.json_response(reply, status=201)


def _record_or_404(request: web.Request) -> MatchRecord:
    record = request.app[MANAGER].live(request.match_info["id"])
    if record is None:
        raise web.HTTPNotFound(reason="unknown match")
    return record


async def get_match(request: web.Request) -> web.Response:
    """The match record as a spectator may see it; ``?view=1`` adds what the match page draws besides
    (``x-board``, ``x-endWhy``), for its ``?static=1`` view that reads the record once."""
    record = _record_or_404(request)
    headers = {}
    if request.query.get("download"):
        headers["Content-Disposition"] = f'attachment; filename="{record.match_id}.json"'
    data = streams.spectator_dict(request.app[MANAGER], record)
    if request.query.get("view"):
        data.update(await streams.page_extras(request.app[MANAGER], record))
    text = json.dumps(data, indent=1)
    return web.Response(text=text, content_type="application/json", headers=headers)


async def abort_match(request: web.Request) -> web.Response:
    match_id = request.match_info["id"]
    if not await request.app[MANAGER].abort(match_id):
        raise InputError(f"match {match_id!r} is not running")
    return web.json_response({"matchId": match_id, "aborted": True})


def _human_seat(request: web.Request) -> HumanSeat:
    """The person's seat the path names, once the request shows its secret; 404 or 403 otherwise."""
    match_id, role = request.match_info["id"], request.match_info["role"]
    seat = request.app[MANAGER].human_seats(match_id).get(role)
    if seat is None:
        raise web.HTTPNotFound(reason=f"role {role!r} of match {match_id!r} is not a person's seat in a running match")
    if not seat.allows(request.headers.get(SEAT_SECRET_HEADER, "")):
        raise web.HTTPForbidden(reason=f"this request does not carry the secret of role {role!r} ({SEAT_SECRET_HEADER})")
    return seat


async def human_state(request: web.Request) -> web.Response:
    """What the person at one seat sees (:func:`ggp.manager.human.human_view`).

    ``?since=V`` waits (up to 10 s) until the view's ``version`` differs from V. While the match runs
    the seat's secret is required; a finished match's view is public, like its record.
    """
    manager = request.app[MANAGER]
    match_id, role = request.match_info["id"], request.match_info["role"]
    seat: HumanSeat | None = None
    if role in manager.human_seats(match_id):
        seat = _human_seat(request)
        since = request.query.get("since")
        if since is not None:
            await seat.wait_change(_whole(since, "since"))
    record = _record_or_404(request)
    if not record.finished and seat is None:
        raise web.HTTPNotFound(reason=f"role {role!r} of match {match_id!r} is not a person's seat")
    return web.json_response({**human_view(record, role, seat), "board": await manager.match_board(record),
                              "endWhy": await manager.end_reason(record)})


async def human_move(request: web.Request) -> web.Response:
    """``{move, turn?}``: the person's move for the pending turn (400 illegal, 409 not asked now)."""
    seat = _human_seat(request)
    data = await _json_body(request)
    reject_unknown(data, ("move", "turn"))
    turn = _int_field(data, "turn", None)
    try:
        move = seat.submit(_str_field(data, "move"), turn)
    except NotYourTurn as exc:
        return _error(409, str(exc))
    return web.json_response({"move": seat.spell(move)})


# --- tournaments and ratings ------------------------------------------------------------------------


async def list_tournaments(request: web.Request) -> web.Response:
    rows = request.app[MANAGER].store.tournaments()
    return web.json_response([{"id": t.tournament_id, "name": t.name, "game": t.game_key, "status": t.status,
                               "config": t.config, "created": t.created} for t in rows])


async def create_tournament(request: web.Request) -> web.Response:
    """A tournament from JSON or YAML; a body over :data:`MAX_TOURNAMENT_BODY` is refused unread (413)."""
    size = len(await request.read())  # read already (the connection guard), but not parsed yet
    if size > MAX_TOURNAMENT_BODY:
        return _error(413, f"a tournament description may have at most {MAX_TOURNAMENT_BODY} bytes, found {size}")
    if request.content_type in ("application/yaml", "application/x-yaml", "text/yaml"):
        try:
            text = await request.text()
        except UnicodeDecodeError:
            raise InputError("the request body is not UTF-8 text") from None
        spec = await asyncio.to_thread(spec_from_yaml, text, "<request>")  # pure-Python YAML: off the loop
    else:
        spec = spec_from_mapping(await _json_body(request))
    tournament_id = await request.app[MANAGER].start_tournament(spec)
    return web.json_response({"id": tournament_id}, status=201)


async def get_tournament(request: web.Request) -> web.Response:
    manager = request.app[MANAGER]
    tournament_id = _whole(request.match_info["id"], "a tournament id")
    row = manager.store.tournament(tournament_id)
    if row is None:
        raise web.HTTPNotFound(reason="unknown tournament")
    matches = manager.store.matches(tournament_id=tournament_id, limit=10_000)
    return web.json_response({"id": row.tournament_id, "name": row.name, "game": row.game_key,
                              "status": row.status, "config": row.config,
                              "standings": manager.standings(tournament_id),
                              "matches": [_summary(m) for m in matches]})


async def abort_tournament(request: web.Request) -> web.Response:
    tournament_id = _whole(request.match_info["id"], "a tournament id")
    if not await request.app[MANAGER].abort_tournament(tournament_id):
        raise InputError(f"tournament {tournament_id} is not running")
    return web.json_response({"id": tournament_id, "aborted": True})


async def get_ratings(request: web.Request) -> web.Response:
    """``?system=elo`` (the default) or ``?system=agon``; ``?game=KEY`` for one game, else overall."""
    system = request.query.get("system", "elo")
    if system == "agon":
        return _agon_ratings(request)
    if system != "elo":
        raise InputError(f"system must be elo or agon, not {system[:20]!r}")
    store = request.app[MANAGER].store
    game = request.query.get("game") or OVERALL
    ratings = store.ratings(game)
    return web.json_response({"game": game, "games": [g for g in store.rated_games() if g != OVERALL],
                              "ratings": [{"player": p, "elo": round(r, 1), "matches": n}
                                          for p, (r, n) in ratings.items()]})


def _agon_ratings(request: web.Request) -> web.Response:
    """Agon skills (best first) and role difficulties (hardest first) of one game or overall."""
    agon = request.app[MANAGER].agon
    game = request.query.get("game") or OVERALL
    rated = agon.ratings(game)
    skills = sorted(rated.skills.items(), key=lambda item: -item[1][0])
    roles = sorted(rated.difficulties.items(), key=lambda item: -item[1][0])
    return web.json_response({
        "system": "agon", "game": game, "games": [g for g in agon.scopes() if g != OVERALL],
        "ratings": [{"player": p, "skill": round(r, 1), "matches": n} for p, (r, n) in skills],
        "roles": [{"game": key.split("/", 1)[0], "role": key.split("/", 1)[1], "difficulty": round(r, 1),
                   "matches": n} for key, (r, n) in roles],
    })


async def index(request: web.Request) -> web.Response:
    """The UI's one page; its ``<body data-admin-token>`` says whether actions need the admin token
    (``required``) or not (``none``), so the UI shows no button that can only fail."""
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    needed = "required" if request.app[TOKEN] else "none"
    return web.Response(text=page.replace("<body>", f'<body data-admin-token="{needed}">', 1), content_type="text/html")


async def _close_manager(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[MANAGER].close()


def create_app(manager: Manager, *, token: str = "", allowed_hosts: frozenset[str] = frozenset()) -> web.Application:
    """The manager's web application. A non-empty ``token`` guards every state-changing request (and the
    player ping); a non-empty ``allowed_hosts`` refuses requests whose Host header names another host."""
    app = web.Application(client_max_size=MAX_BODY, middlewares=[_security_headers, _errors, _guard])
    app[MANAGER] = manager
    cap_connections(app)
    app[TOKEN] = token
    app[ALLOWED_HOSTS] = frozenset(_host_name(host) for host in allowed_hosts)
    add = app.router
    add.add_get("/", index)
    add.add_static("/static/", STATIC_DIR)
    add.add_get("/api/games", list_games)
    add.add_post("/api/games", add_game)
    add.add_get("/api/games/{key}", get_game)
    add.add_get("/api/games/{key}/pieces/{file}", piece_image)
    repository.add_routes(app, manager.store, manager.repository)
    add.add_get("/api/players", list_players)
    add.add_post("/api/players", add_player)
    add.add_post("/api/players/{name}/unsuspend", unsuspend_player)
    scheduler.add_routes(app, scheduler.Scheduler(manager))  # started by `ggp serve --schedule`
    members.add_routes(app, manager)  # players registered by their owners (ggp serve --registration)
    metrics.add_routes(app, manager)  # GET /metrics, /healthz; after the scheduler, whose rounds it counts
    add.add_get("/api/players/{name}/ping", ping_player)
    archive.add_routes(app, manager)  # before /api/matches/{id}: 'export' is no match id
    add.add_get("/api/matches", list_matches)
    add.add_post("/api/matches", create_match)
    add.add_get("/api/matches/{id}", get_match)
    add.add_post("/api/matches/{id}/abort", abort_match)
    add.add_get("/api/matches/{id}/human/{role}", human_state)
    add.add_post("/api/matches/{id}/human/{role}/move", human_move)
    add.add_get("/api/tournaments", list_tournaments)
    add.add_post("/api/tournaments", create_tournament)
    add.add_get("/api/tournaments/{id}", get_tournament)
    add.add_post("/api/tournaments/{id}/abort", abort_tournament)
    add.add_get("/api/ratings", get_ratings)
    streams.add_routes(app, manager)
    app.cleanup_ctx.append(_close_manager)
    return app
