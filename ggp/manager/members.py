"""Players registered by their owners: a site lets people (everyone, or those with an invite) add players.

The admin chooses (``ggp serve --registration``): ``closed`` (the default: only the admin registers
players), ``open`` (anyone may) or ``invite:CODE`` (anyone who gives the code). Routes::

    POST   /api/members                {name, url, invite?} -> 201 {name, token}  (the token is shown once)
    POST   /api/members/{name}/pause   POST /api/members/{name}/resume
    POST   /api/members/{name}/rename  {name}
    DELETE /api/members/{name}

The owner's routes need ``X-Player-Token: <token>``, the token registration returned; the database keeps only
its SHA-256 (a token is 32 random bytes: no salt or slow hash needed), so a copy of the database lets no one
act for an owner. A token acts for its own player and no other. They need no admin token (their own
authorisation), but, like every state-changing request, are refused from a cross-site page.

A registration is refused (one line, and nothing stored) when registration is closed or the invite code is
wrong (403), when the client address has made :attr:`RegistrationSettings.per_address` attempts in the last
:attr:`RegistrationSettings.window_s` seconds (429, with ``Retry-After``; failed attempts count too, so an
invite code cannot be guessed quickly), when the name is taken (409) or malformed, or when the URL is not
accepted (400): :func:`ggp.manager.urls.url_problem`, then :func:`ggp.manager.urls.owner_url_problem` on
the addresses its host resolves to (not this manager, an HTTP port, inside the allowed networks).
An owner's player is a remote player like any other: the schedule seats it once it answers a ping.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from aiohttp import web

from ggp.errors import InputError
from ggp.manager.fields import read_json, reject_unknown
from ggp.manager.scheduler import SCHEDULER
from ggp.manager.service import NAME_PATTERN, Manager
from ggp.manager.urls import UrlPolicy, owner_url_problem, url_port, url_problem

log = logging.getLogger(__name__)

TOKEN_HEADER = "X-Player-Token"
OWNER_ROUTES = frozenset({"/api/members", "/api/members/{name}/pause", "/api/members/{name}/resume",
                          "/api/members/{name}/rename", "/api/members/{name}"})
"""State-changing routes with their own authorisation (an invite or an owner's token), not the admin token."""
RESOLVE_S = 5.0
"""Seconds a player's host name gets to resolve at registration."""

Mode = Literal["open", "invite", "closed"]


@dataclass(frozen=True, slots=True)
class RegistrationSettings:
    """Who may register (``mode``; ``invite`` needs ``code``), how many attempts per client address per window,
    and the networks players may be in (:class:`~ggp.manager.urls.UrlPolicy`; empty: public addresses)."""

    mode: Mode = "closed"
    code: str = ""
    per_address: int = 5
    window_s: float = 3600.0
    policy: UrlPolicy = field(default_factory=UrlPolicy)

    def __post_init__(self) -> None:
        if self.mode == "invite" and len(self.code) < 6:
            raise InputError("an invite code needs at least 6 characters (--registration invite:CODE)")
        if self.per_address < 1 or self.window_s <= 0:
            raise InputError("registration limits must be positive")


def parse_registration(text: str) -> tuple[Mode, str]:
    """``open``, ``closed`` or ``invite:CODE`` as (mode, code); raises :class:`InputError`.

    >>> parse_registration("invite:letmein"), parse_registration("open")
    (('invite', 'letmein'), ('open', ''))
    """
    if text in ("open", "closed"):
        return ("open" if text == "open" else "closed"), ""
    if text.startswith("invite:"):
        return "invite", text.removeprefix("invite:")
    raise InputError(f"--registration wants open, closed or invite:CODE, not {text!r}")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RateLimit:
    """At most ``limit`` events per key in any ``window_s`` seconds (a sliding window; ``clock`` for tests)."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window_s, self._clock = limit, window_s, clock
        self._events: dict[str, deque[float]] = {}

    def wait_s(self, key: str) -> float:
        """0 and the event counted when allowed, else the seconds until it would be."""
        now = self._clock()
        for stale in [k for k, events in self._events.items() if events[-1] <= now - self.window_s]:
            del self._events[stale]  # forget idle addresses: the table stays small over months
        events = self._events.setdefault(key, deque())
        while events and events[0] <= now - self.window_s:
            events.popleft()
        if len(events) >= self.limit:
            return events[0] + self.window_s - now
        events.append(now)
        return 0.0


async def resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (``getaddrinfo``); raises :class:`InputError` when it does not."""
    try:
        infos = await asyncio.wait_for(
            asyncio.get_running_loop().getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM), RESOLVE_S)
    except (OSError, TimeoutError) as exc:
        raise InputError(f"the host {host!r} does not resolve ({exc})") from None
    return sorted({str(info[4][0]) for info in infos})


class Members:
    """Registration and the owners' actions for one manager app (use from its event loop)."""

    def __init__(self, manager: Manager, settings: RegistrationSettings | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.manager = manager
        self._clock = clock
        self.configure(settings or RegistrationSettings())

    def configure(self, settings: RegistrationSettings) -> None:
        """Replace the settings (``ggp serve`` gives its options before serving)."""
        self.settings = settings
        self.limit = RateLimit(settings.per_address, settings.window_s, self._clock)

    def policy(self, request_host: str) -> UrlPolicy:
        """The settings' policy, with this manager's own addresses: its public URL and the request's Host."""
        public = self.manager.settings.public_url
        own = {((_host(public)), url_port(public))}
        if request_host:
            host, _, port = request_host.rpartition(":") if not request_host.endswith("]") else (request_host, "", "")
            if port.isdigit():
                own.add((host.strip("[]").lower(), int(port)))
        return UrlPolicy(self.settings.policy.networks, self.settings.policy.own | frozenset(own))

    async def register(self, name: str, url: str, invite: str, address: str, request_host: str) -> tuple[str, str]:
        """(name, token) of a new owner's player; raises :class:`Refused` or :class:`InputError`."""
        settings = self.settings
        if settings.mode == "closed":
            raise Refused(403, "registration is closed on this site; ask its admin")
        wait = self.limit.wait_s(address)
        if wait > 0:
            raise Refused(429, f"too many registrations from {address}; try again in {wait:.0f} s",
                          retry_after=max(1, round(wait)))
        if settings.mode == "invite" and not hmac.compare_digest(invite.encode(), settings.code.encode()):
            raise Refused(403, "registration on this site needs its invite code (field 'invite')" if not invite
                          else "wrong invite code")
        if not NAME_PATTERN.fullmatch(name):
            raise InputError(f"player name {name!r} must be 1-64 letters, digits, '_', '.', ':' or '-'")
        if self.manager.store.player(name) is not None:
            raise Refused(409, f"player name {name!r} is taken")
        problem = url_problem(url)
        if problem is None:
            host = _host(url)
            problem = owner_url_problem(url, await resolve(host, url_port(url)), self.policy(request_host))
        if problem is not None:
            raise InputError(f"player url {url[:100]!r}: {problem}")
        token = secrets.token_urlsafe(32)
        self.manager.store.add_owned_player(name, url, token_hash(token), address)
        log.info("player %s registered by its owner from %s (%s)", name, address, url)
        return name, token

    def check_owner(self, name: str, token: str) -> None:
        """Raise :class:`Refused` unless ``token`` is the token of ``name``'s owner."""
        if self.manager.store.player(name) is None:
            raise Refused(404, f"unknown player {name!r}")
        stored = self.manager.store.owner_hash(name)
        if stored is None:
            raise Refused(403, f"player {name!r} is the admin's; only the admin manages it")
        if not token or not hmac.compare_digest(token_hash(token).encode(), stored.encode()):
            raise Refused(403, f"this request does not carry the token of player {name!r}'s owner ({TOKEN_HEADER})")


class Refused(Exception):
    """A registration or owner's action refused with an HTTP status (and, for 429, seconds to wait)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().removesuffix(".")


# --- routes -----------------------------------------------------------------------------------------

MEMBERS = web.AppKey("members", Members)


def _refusal(exc: Refused) -> web.Response:
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return web.json_response({"error": str(exc)}, status=exc.status, headers=headers)


async def _body(request: web.Request, allowed: tuple[str, ...]) -> dict[str, str]:
    if request.content_type != "application/json":
        raise InputError(f"the request body must be JSON (Content-Type: application/json), not {request.content_type!r}")
    data = await read_json(request)
    if not isinstance(data, dict):
        raise InputError("the request body must be a JSON object")
    reject_unknown(data, allowed)
    for key, value in data.items():
        if not isinstance(value, str):
            raise InputError(f"field {key!r} must be a string")
    return data


async def register(request: web.Request) -> web.Response:
    data = await _body(request, ("name", "url", "invite"))
    for key in ("name", "url"):
        if key not in data:
            raise InputError(f"field {key!r} is required")
    try:
        name, token = await request.app[MEMBERS].register(data["name"], data["url"], data.get("invite", ""),
                                                          request.remote or "unknown", request.host)
    except Refused as exc:
        return _refusal(exc)
    return web.json_response({"name": name, "token": token}, status=201)


async def _owned(request: web.Request) -> tuple[Members, str] | web.Response:
    members, name = request.app[MEMBERS], request.match_info["name"]
    try:
        members.check_owner(name, request.headers.get(TOKEN_HEADER, ""))
    except Refused as exc:
        return _refusal(exc)
    return members, name


def _idle(request: web.Request, name: str) -> web.Response | None:
    if name in request.app[SCHEDULER].busy():
        return _refusal(Refused(409, f"player {name!r} is playing a match; try again when it ends"))
    return None


async def _set_paused(request: web.Request, paused: bool) -> web.Response:
    """Pause or resume the owner's player in the schedule."""
    owned = await _owned(request)
    if isinstance(owned, web.Response):
        return owned
    request.app[SCHEDULER].set_paused(owned[1], paused)
    return web.json_response({"name": owned[1], "paused": paused})


async def pause(request: web.Request) -> web.Response:
    return await _set_paused(request, True)


async def resume(request: web.Request) -> web.Response:
    return await _set_paused(request, False)


async def rename(request: web.Request) -> web.Response:
    owned = await _owned(request)
    if isinstance(owned, web.Response):
        return owned
    members, name = owned
    new = (await _body(request, ("name",))).get("name", "")
    if not NAME_PATTERN.fullmatch(new):
        raise InputError(f"player name {new!r} must be 1-64 letters, digits, '_', '.', ':' or '-'")
    if members.manager.store.player(new) is not None:
        return _refusal(Refused(409, f"player name {new!r} is taken"))
    busy = _idle(request, name)
    if busy is not None:
        return busy
    members.manager.store.rename_player(name, new)
    log.info("player %s renamed %s by its owner", name, new)
    return web.json_response({"name": new, "was": name})


async def delete(request: web.Request) -> web.Response:
    owned = await _owned(request)
    if isinstance(owned, web.Response):
        return owned
    members, name = owned
    busy = _idle(request, name)
    if busy is not None:
        return busy
    members.manager.store.delete_player(name)
    log.info("player %s deleted by its owner", name)
    return web.json_response({"name": name, "deleted": True})


def add_routes(app: web.Application, manager: Manager) -> Members:
    """The routes above (after the scheduler's: pauses are the schedule's); registration starts closed."""
    members = Members(manager)
    app[MEMBERS] = members
    app.router.add_post("/api/members", register)
    app.router.add_post("/api/members/{name}/pause", pause)
    app.router.add_post("/api/members/{name}/resume", resume)
    app.router.add_post("/api/members/{name}/rename", rename)
    app.router.add_delete("/api/members/{name}", delete)
    return members
