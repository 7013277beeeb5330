"""The manager's server-sent event streams: a match's live steps (``GET /api/matches/{id}/events``) and the
dashboard's feed (``GET /api/events``), with what a spectator may see of a match (a person's running GDL-II
match is sealed). A client that goes away is normal: it is logged at DEBUG only."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from typing import Any

from aiohttp import web

from ggp.manager.human import SEALED_MOVE, SEALED_STATE, sealed
from ggp.manager.records import MatchRecord, to_dict
from ggp.manager.service import Manager

log = logging.getLogger(__name__)

SSE_PING_S = 15.0
"""Seconds between the comment lines that keep an idle stream open through proxies."""


def add_routes(app: web.Application, manager: Manager) -> None:
    """Register the two event streams of ``manager`` on ``app``."""
    app.router.add_get("/api/matches/{id}/events", functools.partial(match_events, manager))
    app.router.add_get("/api/events", functools.partial(feed_events, manager))


def _sealed_for_spectators(manager: Manager, record: MatchRecord) -> bool:
    """True while a person plays a running GDL-II match: spectators then see no state, move or percept
    (:func:`ggp.manager.human.sealed`), or the person could read the hidden information off them."""
    return record.gdl2 and not record.finished and bool(manager.human_seats(record.match_id))


def spectator_dict(manager: Manager, record: MatchRecord) -> dict[str, Any]:
    """The record as a spectator sees it (sealed while a person plays a running GDL-II match)."""
    if _sealed_for_spectators(manager, record):
        return {**to_dict(sealed(record)), "x-sealed": True}
    return to_dict(record)


async def _sse(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    return response


async def _send(response: web.StreamResponse, event: str, data: Any) -> None:
    await response.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())


async def page_extras(manager: Manager, record: MatchRecord) -> dict[str, Any]:
    """What the match page shows beyond the record: the board geometry and, once the match is completed,
    why it ended (``x-endWhy``, as a person's own view gives it; ``None`` when the game cannot say)."""
    return {"x-board": await manager.match_board(record), "x-endWhy": await manager.end_reason(record)}


async def match_events(manager: Manager, request: web.Request) -> web.StreamResponse:
    """A snapshot of the record, then one event per step, then ``end`` with the final record."""
    match_id = request.match_info["id"]
    queue = manager.subscribe(match_id)
    record = manager.live(match_id)
    if record is None:
        raise web.HTTPNotFound(reason="unknown match")
    extras = await page_extras(manager, record)
    response = await _sse(request)
    try:
        await _send(response, "snapshot", {**spectator_dict(manager, record), **extras})
        if queue is None or record.finished:
            await _send(response, "end", {**to_dict(record), **extras})
            return response
        sent = record.step
        while True:
            try:
                event, current = await asyncio.wait_for(queue.get(), SSE_PING_S)
            except TimeoutError:
                await response.write(b": ping\n\n")
                continue
            hidden = _sealed_for_spectators(manager, current)
            for step in range(sent + 1, current.step + 1):
                data = {"step": step, "state": SEALED_STATE if hidden else current.states[step],
                        "moves": [SEALED_MOVE] * len(current.roles) if hidden else list(current.moves[step - 1]),
                        "errors": list(current.errors[step]), "time": current.state_times[step]}
                if current.gdl2 and not hidden and step <= len(current.percepts):
                    data["percepts"] = [list(seen) for seen in current.percepts[step - 1]]
                await _send(response, "step", data)
            sent = current.step
            if event == "start":
                started: dict[str, Any] = {"errors": list(current.errors[0])}
                if current.configurations:
                    started["configurations"] = list(current.configurations)
                await _send(response, "start", started)
            if event == "end":
                await _send(response, "end", {**to_dict(current), **await page_extras(manager, current)})
                break
    except ConnectionResetError:  # the page was closed: normal, DEBUG only
        log.debug("event stream of match %s closed by the client", match_id)
    finally:
        if queue is not None:
            manager.unsubscribe(match_id, queue)
    return response


async def feed_events(manager: Manager, request: web.Request) -> web.StreamResponse:
    """Dashboard feed: one event per match created or ended."""
    queue = manager.subscribe_feed()
    response = await _sse(request)
    try:
        while True:
            try:
                note = await asyncio.wait_for(queue.get(), SSE_PING_S)
            except TimeoutError:
                await response.write(b": ping\n\n")
                continue
            await _send(response, "match", note)
    except ConnectionResetError:
        log.debug("dashboard feed closed by the client")
    finally:
        manager.unsubscribe_feed(queue)
    return response
