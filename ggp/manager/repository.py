"""A game repository with the ggp.org HTTP API, served from the manager's stored games.

ggp-base's ``RemoteGameRepository`` (and every tool built on it) reads a repository at a base URL:

    GET /games/                      JSON list of game keys
    GET /games/metadata              {key: metadata} for every game (one request instead of one per game)
    GET /games/<key>/                the latest version's metadata
    GET /games/<key>/v<N>/           version N's metadata
    GET /games/<key>[/v<N>]/<file>   a file the metadata names (``rulesheet.kif``, ``description.txt``,
                                     ``stylesheet.xsl``)

Metadata is ``{version, gameName, rulesheet, description?, stylesheet?, roleNames, numRoles}``; the
client fetches ``<game URL>v<version>/<rulesheet>`` and, when named, the description and the stylesheet
(kept from the repository folder; a game uploaded otherwise has neither, which ggp-base reads as none).
Versions are the store's: a game's version grows whenever its rules text changes, so a ``gameMetaURL``
in a match record always names the rules that match was played with.

:func:`scan` reads a folder of games in the ggp.org layout (``<key>/METADATA`` naming the rulesheet and
description, as ``kif/``) or flat ``<key>.kif`` files (as ``../shared/gdl-corpus``); :class:`RepositoryIndex`
keeps the descriptions read and every game that could not be loaded with the reason, so a broken game is
listed instead of stopping the server.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from ggp.errors import InputError
from ggp.manager.store import GameRow, Store

log = logging.getLogger(__name__)

RULESHEET = "rulesheet.kif"
DESCRIPTION = "description.txt"
STYLESHEET = "stylesheet.xsl"
MAX_DESCRIPTION = 64 * 1024
"""Longest description text kept (a description is a paragraph or two)."""


@dataclass(frozen=True, slots=True)
class FoundGame:
    """A game found in a repository folder: its key, rules file, display name and description text
    (empty when the folder has none)."""

    key: str
    rules: Path
    name: str = ""
    description: str = ""
    stylesheet: str = ""
    """The XSL stylesheet the ggp.org viewers drew states with, when METADATA names one."""
    clocks: tuple[int, int] | None = None
    """(start clock, play clock) in seconds from ``METADATA``'s ``startClock`` and ``playClock``, when it
    gives both (an extension of the ggp.org format; the scheduler uses them, defaults otherwise)."""


@dataclass(frozen=True, slots=True)
class BrokenGame:
    """A game of a repository folder that the manager could not load, and why (one line)."""

    key: str
    path: str
    error: str


@dataclass(slots=True)
class RepositoryIndex:
    """What the manager knows beyond its store about the repository it serves: description texts by game
    key, and the broken games of the folders it loaded. Empty when no ``--repository`` was given."""

    descriptions: dict[str, str] = field(default_factory=dict)
    stylesheets: dict[str, str] = field(default_factory=dict)
    broken: dict[str, BrokenGame] = field(default_factory=dict)
    clocks: dict[str, tuple[int, int]] = field(default_factory=dict)

    def add_found(self, game: FoundGame) -> None:
        """Remember a game's description and clocks (and forget an earlier failure of the same key)."""
        self.broken.pop(game.key, None)
        if game.description:
            self.descriptions[game.key] = game.description
        if game.stylesheet:
            self.stylesheets[game.key] = game.stylesheet
        if game.clocks:
            self.clocks[game.key] = game.clocks

    def add_broken(self, game: BrokenGame) -> None:
        self.broken[game.key] = game


def _metadata_file(folder: Path) -> dict[str, Any]:
    """The parsed ``METADATA`` of a game folder; raises ``ValueError`` (with the reason) when unreadable."""
    try:
        data = json.loads((folder / "METADATA").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read METADATA: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"METADATA is not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise ValueError("METADATA must be a JSON object")
    return data


def _description(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")[:MAX_DESCRIPTION]
    except (OSError, UnicodeDecodeError):
        return ""


def _from_folder(folder: Path) -> FoundGame:
    """A ``<key>/`` folder: ``METADATA`` naming ``rulesheet`` (and ``description``), else ``<key>.kif``."""
    key = folder.name
    if not (folder / "METADATA").is_file():
        rules = folder / f"{key}.kif"
        if not rules.is_file():
            raise ValueError(f"neither METADATA nor {key}.kif in {str(folder)!r}")
        return FoundGame(key, rules, key, _description(folder / f"{key}.txt"))
    meta = _metadata_file(folder)
    rulesheet = meta.get("rulesheet")
    if not isinstance(rulesheet, str) or not rulesheet or "/" in rulesheet:
        raise ValueError("METADATA names no rulesheet file ('rulesheet')")
    if not (folder / rulesheet).is_file():
        raise ValueError(f"METADATA names the rulesheet {rulesheet!r}, which is not in the folder")
    name = meta.get("gameName")
    described = meta.get("description")
    text = _description(folder / described) if isinstance(described, str) and "/" not in described else ""
    styled = meta.get("stylesheet")
    style = _description(folder / styled) if isinstance(styled, str) and "/" not in styled else ""
    start, play = meta.get("startClock"), meta.get("playClock")
    clocks = None
    if isinstance(start, int) and isinstance(play, int) and all(not isinstance(c, bool) and 1 <= c <= 3600
                                                                 for c in (start, play)):
        clocks = (start, play)
    return FoundGame(key, folder / rulesheet, name if isinstance(name, str) else key, text, style, clocks)


def scan(directory: Path) -> tuple[list[FoundGame], list[BrokenGame]]:
    """The games of a repository folder, and those whose files are unusable (before any validation).

    Each sub-folder is one game (ggp.org layout); each ``*.kif`` file directly inside is one game too.
    Hidden entries are skipped. Raises ``ValueError`` when ``directory`` is not a folder.
    """
    if not directory.is_dir():
        raise ValueError(f"repository {str(directory)!r} is not a folder")
    found: list[FoundGame] = []
    broken: list[BrokenGame] = []
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            try:
                found.append(_from_folder(entry))
            except ValueError as exc:
                broken.append(BrokenGame(entry.name, str(entry), str(exc)))
        elif entry.suffix == ".kif":
            found.append(FoundGame(entry.stem, entry, entry.stem, _description(entry.with_suffix(".txt"))))
    return found, broken


def metadata(row: GameRow, index: RepositoryIndex) -> dict[str, Any]:
    """The ggp.org metadata of one stored game version.

    >>> row = GameRow("nim", 2, "Nim", "(role a)", ("a",), 0.0)
    >>> metadata(row, RepositoryIndex(descriptions={"nim": "Take the last."}))["description"]
    'description.txt'
    """
    data: dict[str, Any] = {"gameName": row.name, "version": row.version, "rulesheet": RULESHEET,
                            "roleNames": list(row.roles), "numRoles": len(row.roles)}
    if index.descriptions.get(row.key):
        data["description"] = DESCRIPTION
    if index.stylesheets.get(row.key):
        data["stylesheet"] = STYLESHEET
    return data


# --- routes -----------------------------------------------------------------------------------------

STORE = web.AppKey("repository_store", Store)
INDEX = web.AppKey("repository_index", RepositoryIndex)


MAX_VERSION = 2**63 - 1
"""Largest version number accepted in a path (SQLite's INTEGER range)."""


def _row(request: web.Request) -> GameRow:
    version_text = request.match_info.get("version")
    version = int(version_text) if version_text is not None else None
    if version is not None and version > MAX_VERSION:
        raise InputError(f"a game version must be a whole number from 0 to {MAX_VERSION}")
    row = request.app[STORE].game(request.match_info["key"], version)
    if row is None:
        raise web.HTTPNotFound(reason="unknown game or version")
    return row


async def game_keys(request: web.Request) -> web.Response:
    """``GET /games/``: every stored game's key."""
    return web.json_response([row.key for row in request.app[STORE].games()])


async def all_metadata(request: web.Request) -> web.Response:
    """``GET /games/metadata``: the latest metadata of every game, by key."""
    index = request.app[INDEX]
    return web.json_response({row.key: metadata(row, index) for row in request.app[STORE].games()})


async def game_metadata(request: web.Request) -> web.Response:
    """``GET /games/<key>/`` or ``/games/<key>/v<N>/``: one version's metadata."""
    return web.json_response(metadata(_row(request), request.app[INDEX]))


async def game_file(request: web.Request) -> web.Response:
    """A file beside the metadata: the rulesheet, the description, or ``METADATA`` itself."""
    row = _row(request)
    name = request.match_info["file"]
    if name == RULESHEET:
        return web.Response(text=row.kif, content_type="text/plain")
    if name == "METADATA":
        return await game_metadata(request)
    index = request.app[INDEX]
    if name == DESCRIPTION and index.descriptions.get(row.key):
        return web.Response(text=index.descriptions[row.key], content_type="text/plain")
    if name == STYLESHEET and index.stylesheets.get(row.key):
        return web.Response(text=index.stylesheets[row.key], content_type="text/xsl")
    raise web.HTTPNotFound(reason="no such file")


async def repository_status(request: web.Request) -> web.Response:
    """``GET /api/repository``: the served games' keys and the broken ones with their error."""
    index = request.app[INDEX]
    return web.json_response({
        "games": [row.key for row in request.app[STORE].games()],
        "broken": [{"key": b.key, "path": b.path, "error": b.error} for b in index.broken.values()],
    })


def add_routes(app: web.Application, store: Store, index: RepositoryIndex) -> None:
    """Serve the repository API of ``store``'s games on ``app`` (versioned routes before the others)."""
    app[STORE] = store
    app[INDEX] = index
    add = app.router
    add.add_get("/games/", game_keys)
    add.add_get("/games/metadata", all_metadata)
    add.add_get(r"/games/{key}/v{version:\d+}/", game_metadata)
    add.add_get(r"/games/{key}/v{version:\d+}/{file}", game_file)
    add.add_get("/games/{key}/", game_metadata)
    add.add_get("/games/{key}/{file}", game_file)
    add.add_get("/api/repository", repository_status)
