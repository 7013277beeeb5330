"""Health and metrics of a running manager: ``GET /metrics`` (Prometheus's text format) and ``GET /healthz``.

``/metrics`` (one registry per app, so several managers in one process do not mix) exports

- ``ggp_matches{status}``: matches in the database by status (running, completed, aborted), read at each
  scrape, so it is right across restarts; ``ggp_matches_running``: matches this process is playing now;
- ``ggp_matches_started_total`` and ``ggp_matches_ended_total{status}``: since this process started;
- ``ggp_player_errors_total{kind}``: moves a player did not make, by kind (``timeout``, ``connection``,
  ``illegal``, ``unparseable``, ``other``), START and PLAY alike;
- ``ggp_match_step_seconds``: histogram of the time between two states of a match (the players' thinking
  plus the manager's reasoning);
- ``ggp_http_requests_total{route,method,status}``, ``ggp_http_errors_total{route,status}`` (every answer
  of 400 or more) and ``ggp_http_request_seconds{route}`` (histogram; event streams are left out, they
  last as long as their client watches): ``route`` is the route's pattern (``/api/matches/{id}``), or
  ``unmatched``, so player or match names never become labels;
- ``ggp_schedule_rounds_total``, ``ggp_schedule_pings_total``, ``ggp_schedule_matches_started_total``,
  ``ggp_schedule_running`` (0 or 1);
- ``ggp_reasoner_workers`` (live worker processes) and ``ggp_reasoner_cached_bytes``;
- ``ggp_database_schema_version`` and ``ggp_database_write_failures_total``.

``/healthz`` answers 200 ``{"status": "ok", ...}`` when the database answers a query and takes writes
and the schedule, if it was started, is alive (its loop runs and finished a round within
:data:`STALL_ROUNDS` rounds, at least :data:`STALL_MIN_S` seconds); else 503 with ``"status": "failing"``
and what fails. Both are public GETs, like the rest of the read-only API: they name no player.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import suppress
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ggp.manager.records import MatchRecord
from ggp.manager.runner import Event
from ggp.manager.scheduler import SCHEDULER, Scheduler
from ggp.manager.service import Manager

STALL_ROUNDS = 3
"""The schedule counts as stalled after this many round intervals without a finished round ..."""
STALL_MIN_S = 60.0
"""... and at least this many seconds (a round waits for pings and for matches to start)."""
_UNTIMED = ("/events",)
"""Routes (suffixes) whose latency is not measured: event streams."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def error_kind(code: str) -> str:
    """The kind of a move's error code in a match record.

    >>> [error_kind(c) for c in ("TO", "CE", "IL (mark 1 1)", "IL null", "??")]
    ['timeout', 'connection', 'illegal', 'unparseable', 'other']
    """
    if code == "IL null":
        return "unparseable"
    return {"TO": "timeout", "CE": "connection", "IL": "illegal"}.get(code.split(" ", 1)[0], "other")


class Metrics:
    """The counters of one manager app; :meth:`match_event` is a match watcher of the :class:`Manager`."""

    def __init__(self, manager: Manager, scheduler: Scheduler) -> None:
        self.manager = manager
        self.scheduler = scheduler
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("ggp_http_requests", "HTTP requests answered, by route pattern, method and status",
                                ("route", "method", "status"), registry=self.registry)
        self.errors = Counter("ggp_http_errors", "HTTP answers of 400 or more, by route pattern and status",
                              ("route", "status"), registry=self.registry)
        self.latency = Histogram("ggp_http_request_seconds", "Time to answer an HTTP request, by route pattern",
                                 ("route",), registry=self.registry,
                                 buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0))
        self.started = Counter("ggp_matches_started", "Matches created by this process", registry=self.registry)
        self.ended = Counter("ggp_matches_ended", "Matches ended in this process, by status", ("status",),
                             registry=self.registry)
        self.player_errors = Counter("ggp_player_errors", "Moves a player did not make (the manager played a "
                                     "fallback), by kind", ("kind",), registry=self.registry)
        self.step_seconds = Histogram("ggp_match_step_seconds", "Time from one state of a match to the next",
                                      registry=self.registry,
                                      buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0))
        self.registry.register(_Snapshot(self))

    def match_event(self, record: MatchRecord, event: Event) -> None:
        """Count a runner event (the :class:`Manager` calls this after storing it)."""
        if event == "created":
            self.started.inc()
        elif event == "start" and record.errors:
            self._count_errors(record.errors[0])
        elif event == "step" and record.step > 0:
            self._count_errors(record.errors[record.step])
            self.step_seconds.observe(max(0, record.state_times[record.step] - record.state_times[record.step - 1]) / 1000)
        elif event == "end":
            self.ended.labels("completed" if record.is_completed else "aborted").inc()

    def _count_errors(self, codes: tuple[str, ...]) -> None:
        for code in codes:
            if code:
                self.player_errors.labels(error_kind(code)).inc()

    def observe_request(self, request: web.Request, status: int, seconds: float) -> None:
        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else "unmatched"
        self.requests.labels(route, request.method, str(status)).inc()
        if status >= 400:
            self.errors.labels(route, str(status)).inc()
        if not route.endswith(_UNTIMED):
            self.latency.labels(route).observe(seconds)

    def health(self, now: float | None = None) -> dict[str, Any]:
        """``{"status": "ok" | "failing", "database": ..., "schedule": ..., "schemaVersion": N}``."""
        database = "ok"
        try:
            self.manager.store.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            database = f"unreachable: {exc}"
        if database == "ok" and self.manager.store.db.failing:
            database = "writes fail (see the log)"
        schedule = self.schedule_state(time.monotonic() if now is None else now)
        ok = database == "ok" and schedule in ("off", "running")
        return {"status": "ok" if ok else "failing", "database": database, "schedule": schedule,
                "schemaVersion": self.manager.store.schema_versions[1],
                "matchesRunning": len(self.manager.running_ids())}

    def schedule_state(self, now: float) -> str:
        """``off`` (never started or stopped), ``running``, ``stopped unexpectedly`` or ``stalled``."""
        scheduler = self.scheduler
        if not scheduler.wanted:
            return "off"
        if not scheduler.running:
            return "stopped unexpectedly"
        since = scheduler.last_round_end if scheduler.last_round_end is not None else scheduler.started_at
        limit = max(STALL_MIN_S, STALL_ROUNDS * scheduler.settings.round_s)
        if since is not None and now - since > limit:
            return f"stalled (no round finished for {now - since:.0f} s)"
        return "running"


class _Snapshot(Collector):
    """The values read at each scrape: the database's match counts, the schedule's and the reasoners'."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Metric]:
        manager, scheduler = self._metrics.manager, self._metrics.scheduler
        by_status = GaugeMetricFamily("ggp_matches", "Matches in the database, by status", labels=("status",))
        counts = dict.fromkeys(("running", "completed", "aborted"), 0)
        counts.update(dict(manager.store.db.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall()))
        for status, count in sorted(counts.items()):
            by_status.add_metric((status,), count)
        yield by_status
        yield GaugeMetricFamily("ggp_matches_running", "Matches this process is playing now",
                                value=len(manager.running_ids()))
        yield CounterMetricFamily("ggp_schedule_rounds", "Scheduling rounds run", value=scheduler.rounds)
        yield CounterMetricFamily("ggp_schedule_pings", "INFO pings the schedule sent", value=scheduler.pings)
        yield CounterMetricFamily("ggp_schedule_matches_started", "Matches the schedule started",
                                  value=scheduler.started_count)
        yield GaugeMetricFamily("ggp_schedule_running", "1 while continuous scheduling runs",
                                value=int(scheduler.running))
        yield GaugeMetricFamily("ggp_reasoner_workers", "Live reasoner worker processes",
                                value=manager.reasoners.live_workers())
        yield GaugeMetricFamily("ggp_reasoner_cached_bytes", "Resident memory of the games' workers kept",
                                value=manager.reasoners.cached_bytes())
        yield GaugeMetricFamily("ggp_database_schema_version", "The database's schema version",
                                value=manager.store.schema_versions[1])
        yield CounterMetricFamily("ggp_database_write_failures", "Writes the database refused (disk full, I/O)",
                                  value=manager.store.db.refused)


METRICS = web.AppKey("metrics", Metrics)


async def get_metrics(request: web.Request) -> web.Response:
    body = generate_latest(request.app[METRICS].registry)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def get_health(request: web.Request) -> web.Response:
    health = request.app[METRICS].health()
    return web.json_response(health, status=200 if health["status"] == "ok" else 503)


@web.middleware
async def _count(request: web.Request, handler: Handler) -> web.StreamResponse:
    began = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:
        status = exc.status
        raise
    except asyncio.CancelledError:
        status = 499  # the client went away (nginx's code for it)
        raise
    finally:
        request.app[METRICS].observe_request(request, status, time.perf_counter() - began)


def add_routes(app: web.Application, manager: Manager) -> Metrics:
    """``GET /metrics`` and ``GET /healthz``, and the outermost middleware that counts every request. Call
    after the scheduler's routes (it reads the app's :class:`Scheduler`) and before the app starts."""
    metrics = Metrics(manager, app[SCHEDULER])
    app[METRICS] = metrics
    manager.watchers.append(metrics.match_event)

    async def forget(app: web.Application) -> None:  # another app on the same manager counts on its own
        with suppress(ValueError):  # an app cleaned up twice (two runners over one app) forgets once
            manager.watchers.remove(metrics.match_event)

    app.on_cleanup.append(forget)
    app.middlewares.insert(0, _count)
    app.router.add_get("/metrics", get_metrics)
    app.router.add_get("/healthz", get_health)
    return metrics
