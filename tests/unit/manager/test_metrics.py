"""GET /metrics and GET /healthz (issue 43 item 4): the Prometheus text parses and its counters move."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from prometheus_client.parser import text_string_to_metric_families

from ggp.manager.app import create_app
from ggp.manager.metrics import METRICS, STALL_MIN_S
from ggp.manager.scheduler import SCHEDULER
from ggp.manager.schema import SCHEMA_VERSION
from ggp.manager.service import Manager
from tests.helpers.manager_machines import NIM_KIF
from tests.helpers.network import free_port

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(client: Client) -> Samples:
    response = await client.get("/metrics")
    assert response.status == 200 and response.content_type == "text/plain"
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(await response.text()) for sample in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def test_the_metrics_parse_and_count_matches_requests_errors_and_player_errors(
        aiohttp_client: ClientFactory, manager: Manager) -> None:
    await manager.add_game("nim", NIM_KIF)
    manager.register_player("silent", url=f"http://127.0.0.1:{free_port()}/")  # nothing listens: CE
    client = await aiohttp_client(create_app(manager))
    before = await scrape(client)
    assert value(before, "ggp_matches", status="completed") == 0 and value(before, "ggp_matches_started_total") == 0
    assert value(before, "ggp_database_schema_version") >= 1
    created = await client.post("/api/matches", json={"game": "nim", "players": ["random", "random"], "seed": 1})
    assert created.status == 201
    record = await manager.wait((await created.json())["matchId"])
    assert record is not None and record.is_completed
    created = await client.post("/api/matches", json={"game": "nim", "players": ["silent", "random"], "seed": 2})
    silent = await manager.wait((await created.json())["matchId"])
    assert silent is not None
    assert (await client.post("/api/matches", json={"game": "nim"})).status == 400
    assert (await client.get("/no/such/page")).status == 404
    after = await scrape(client)
    completed = 1 + int(silent.is_completed)
    assert value(after, "ggp_matches", status="completed") == completed
    assert value(after, "ggp_matches_ended_total", status="completed") == completed
    assert value(after, "ggp_matches_started_total") == 2
    assert value(after, "ggp_matches_running") == 0
    connection_errors = sum(1 for row in silent.errors for code in row if code == "CE")
    assert connection_errors > 0 and value(after, "ggp_player_errors_total", kind="connection") == connection_errors
    steps = record.step + silent.step
    assert value(after, "ggp_match_step_seconds_count") == steps
    assert value(after, "ggp_http_requests_total", route="/api/matches", method="POST", status="201") == 2
    assert value(after, "ggp_http_errors_total", route="/api/matches", status="400") == 1
    assert value(after, "ggp_http_errors_total", route="unmatched", status="404") == 1
    assert value(after, "ggp_http_request_seconds_count", route="/api/matches") == 3
    assert value(after, "ggp_http_requests_total", route="/metrics", method="GET", status="200") == 1  # the first scrape
    assert value(after, "ggp_schedule_rounds_total") == 0 and value(after, "ggp_schedule_running") == 0
    assert value(after, "ggp_reasoner_workers") >= 1


async def test_healthz_says_ok_and_fails_when_the_schedule_dies_or_stalls_or_the_disk_refuses_writes(
        aiohttp_client: ClientFactory, manager: Manager, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(manager)
    client = await aiohttp_client(app)
    response = await client.get("/healthz")
    assert response.status == 200
    assert await response.json() == {"status": "ok", "database": "ok", "schedule": "off",
                                     "schemaVersion": SCHEMA_VERSION, "matchesRunning": 0}
    scheduler = app[SCHEDULER]
    scheduler.start()
    await asyncio.sleep(0)  # the first round runs (no players: it seats no one)
    while scheduler.last_round_end is None:
        await asyncio.sleep(0.01)
    assert (await (await client.get("/healthz")).json())["schedule"] == "running"
    samples = await scrape(client)
    assert value(samples, "ggp_schedule_rounds_total") >= 1 and value(samples, "ggp_schedule_running") == 1
    assert value(samples, "ggp_schedule_matches_started_total") == 0  # no players: no match
    metrics = app[METRICS]
    stalled = metrics.health(now=scheduler.last_round_end + STALL_MIN_S + 1)
    assert stalled["status"] == "failing" and stalled["schedule"].startswith("stalled (no round finished for 6")
    assert scheduler._task is not None
    scheduler._task.cancel()  # the loop dies without stop(): a crash, not a shutdown
    while scheduler.running:
        await asyncio.sleep(0.01)
    response = await client.get("/healthz")
    assert response.status == 503 and (await response.json())["schedule"] == "stopped unexpectedly"
    await scheduler.stop()
    assert (await client.get("/healthz")).status == 200
    monkeypatch.setattr(manager.store.db, "failing", True)
    response = await client.get("/healthz")
    assert response.status == 503 and (await response.json())["database"] == "writes fail (see the log)"
