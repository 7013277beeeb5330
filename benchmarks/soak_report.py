"""The soak benchmark's report (``benchmarks/soak.py``): what the archive holds, and the goals.

Read after the manager stopped, from its database: matches completed and aborted (by reason), acknowledged
matches missing (*lost*), and Elo and Agon recomputed from the archive, every completed match rated in the
order it finished by the manager's own :func:`ggp.manager.rating_log.rate_match` into a fresh store, then
compared with the stored ratings. From the run's samples: GET latency percentiles outside the restart
windows and the manager's resident memory growth after warm-up (see :func:`rss_growth`).
"""

from __future__ import annotations

import json
import re
import sqlite3
import statistics
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ggp.manager.agon import AgonTable
from ggp.manager.rating_log import rate_match
from ggp.manager.store import Store

TOLERANCE = 1e-6
"""How far a stored rating may be from its recomputation (floating-point noise only)."""


def archive(db: Path) -> list[tuple[str, str, dict[str, Any], float | None]]:
    """Every stored match as (id, status, header, finished), read-only, in the order they finished."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT id, status, header, finished FROM matches ORDER BY finished IS NULL, finished, rowid").fetchall()
    finally:
        connection.close()
    return [(row[0], row[1], json.loads(row[2]), row[3]) for row in rows]


def player_errors(db: Path) -> dict[str, int]:
    """The players' errors in every stored step, by code (``TO`` timeout, ``CE`` connection, ``IL`` illegal)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT errors FROM match_steps WHERE errors != '[]'").fetchall()
    finally:
        connection.close()
    return dict(Counter(code.split()[0] for (errors,) in rows for code in json.loads(errors) if code).most_common())


def abort_reason(header: dict[str, Any]) -> str:
    """An aborted match's reason, its numbers and quoted words blanked so that reasons group."""
    detail = re.sub(r"\d+(\.\d+)?", "N", str(header.get("x-abortDetail", "")))
    detail = re.sub(r"'[^']*'", "'…'", detail)[:90]
    return f"{header.get('x-endReason', '?')}: {detail}" if detail else str(header.get("x-endReason", "?"))


def _compare(stored: dict[str, tuple[float, int]], again: dict[str, tuple[float, int]], what: str) -> list[str]:
    differences = []
    for name in sorted(set(stored) | set(again)):
        one, two = stored.get(name), again.get(name)
        if one is None or two is None or one[1] != two[1] or abs(one[0] - two[0]) > TOLERANCE:
            differences.append(f"{what} {name}: stored {one}, recomputed {two}")
    return differences


def ratings_check(db: Path) -> tuple[int, list[str]]:
    """Recompute Elo and Agon from the archive; returns (matches rated, differences with the stored ratings).

    Opens ``db`` as a :class:`Store` (the manager must be stopped: it takes the store's lock)."""
    store = Store(db)
    rated = 0
    with tempfile.TemporaryDirectory(prefix="ggp-soak-ratings-") as scratch:
        fresh = Store(Path(scratch) / "recomputed.db")
        try:
            fresh_agon = AgonTable(fresh.db)
            for match_id, status, _header, _finished in archive(db):
                record = store.match(match_id) if status == "completed" else None
                if record is not None and rate_match(fresh, fresh_agon, record):
                    rated += 1
            differences = []
            for game in sorted(set(store.rated_games()) | set(fresh.rated_games())):
                differences += _compare(store.ratings(game), fresh.ratings(game), f"Elo[{game}]")
            agon = AgonTable(store.db)
            for scope in sorted(set(agon.scopes()) | set(fresh_agon.scopes())):
                one, two = agon.ratings(scope), fresh_agon.ratings(scope)
                differences += _compare(dict(one.skills), dict(two.skills), f"Agon skill[{scope}]")
                differences += _compare(dict(one.difficulties), dict(two.difficulties), f"Agon difficulty[{scope}]")
        finally:
            fresh.close()
            store.close()
    return rated, differences


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p95, p99 and max of ``values`` (milliseconds)."""
    if not values:
        return {}
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "max": ordered[-1], "n": len(ordered)}


def rss_growth(samples: list[list[float]], warmup_s: float, equal_uptime_s: float) -> dict[str, Any]:
    """The manager's resident memory growth after warm-up, from samples ``[run_s, lifetime, uptime_s, kb]``.

    The manager is killed every few minutes, so one process rarely lives past the warm-up; two measures:

    - *per lifetime*: for each manager process alive after ``warmup_s`` of the run, its last RSS over its
      first sample taken after both the run's warm-up and ``equal_uptime_s`` of its own uptime (a leak
      inside one process: with no kills, the one process's growth after the first ``warmup_s``);
    - *at equal uptime*: the RSS of each process at ``equal_uptime_s`` of uptime, for the processes started
      after ``warmup_s`` of the run; the largest over the first (what grows with the archive and the run,
      across restarts: every process is compared with its peers at the same age).

    ``growth_pct`` is the larger of the two (``None`` when neither has data).
    """
    lifetimes: dict[int, list[list[float]]] = {}
    for sample in samples:
        lifetimes.setdefault(int(sample[1]), []).append(sample)
    within = []
    for rows in lifetimes.values():
        late = [row for row in rows if row[2] >= equal_uptime_s and row[0] >= warmup_s]
        if len(late) >= 2:
            within.append(100.0 * (late[-1][3] - late[0][3]) / late[0][3])
    at_age = []
    for rows in lifetimes.values():
        if rows[0][0] - rows[0][2] >= warmup_s:  # started after the run's warm-up
            aged = [row for row in rows if row[2] >= equal_uptime_s]
            if aged:
                at_age.append(aged[0][3])
    across = 100.0 * (max(at_age[1:]) - at_age[0]) / at_age[0] if len(at_age) >= 2 else None
    measures = [value for value in (max(within, default=None), across) if value is not None]
    return {"per_lifetime_pct": max(within, default=None), "equal_uptime_pct": across,
            "equal_uptime_processes": len(at_age), "growth_pct": max(measures, default=None)}


def rss_table(samples: list[list[float]], every_s: float = 60.0) -> list[str]:
    """One line per ``every_s`` of the run: run time, manager process (lifetime), its uptime, RSS in MB."""
    lines, next_s = [], 0.0
    for run_s, lifetime, uptime_s, kb in samples:
        if run_s >= next_s:
            lines.append(f"  {run_s / 60:6.1f} min  process {int(lifetime):3d}  up {uptime_s:6.0f} s  {kb / 1024:7.1f} MB")
            next_s = run_s + every_s
    return lines


def goal_lines(summary: dict[str, Any], p99_ms: float = 100.0, rss_pct: float = 10.0) -> list[str]:
    """``PASS``/``FAIL`` per goal of issue 43."""
    p99 = summary["latency"].get("p99")
    growth = summary["rss"]["growth_pct"]
    ratings = summary["ratings"]

    def verdict(ok: bool | None) -> str:
        return "n/a " if ok is None else "PASS" if ok else "FAIL"

    return [
        f"{verdict(summary['lost'] == 0)} 0 acknowledged matches lost ({summary['lost']})",
        f"{verdict(summary['stuck'] == 0)} 0 matches stuck ({summary['stuck']})",
        f"{verdict(None if p99 is None else p99 < p99_ms)} GET p99 under {p99_ms:g} ms outside restart windows "
        f"({'-' if p99 is None else f'{p99:.1f} ms'})",
        f"{verdict(None if growth is None else growth < rss_pct)} manager RSS growth under {rss_pct:g}% after warm-up "
        f"({'-' if growth is None else f'{growth:.1f}%'})",
        f"{verdict(ratings['differences'] == 0 and ratings['rated'] > 0)} Elo and Agon equal their recomputation "
        f"({ratings['rated']} matches rated, {ratings['differences']} differences)",
    ]


def summarize(db: Path, state: dict[str, Any], warmup_s: float, equal_uptime_s: float) -> dict[str, Any]:
    """The soak's numbers over every piece so far (``state`` as ``soak.py`` keeps it)."""
    stored = archive(db)
    ids = {row[0] for row in stored}
    acknowledged = set(state["seen"]) | set(state["created"])
    status = Counter(row[1] for row in stored)
    reasons = Counter(abort_reason(row[2]) for row in stored if row[1] == "aborted")
    rated, differences = ratings_check(db)
    latency: list[float] = [ms for values in state["latency"].values() for ms in values]
    return {
        "minutes": round(state["seconds"] / 60, 1), "pieces": state["pieces"], "kills": state["kills"],
        "matches": len(stored), "completed": status["completed"], "aborted": status["aborted"],
        "running_left": status["running"], "aborted_by_reason": dict(reasons.most_common()),
        "player_errors": player_errors(db),
        "acknowledged": len(acknowledged), "created_by_post": len(state["created"]),
        "lost": len(acknowledged - ids), "lost_ids": sorted(acknowledged - ids)[:20],
        "stuck": len(state["stuck"]), "stuck_ids": sorted(state["stuck"])[:20],
        "latency": percentiles(latency),
        "latency_by_path": {path: percentiles(values) for path, values in sorted(state["latency"].items())},
        "get_errors": state["get_errors"], "rss": rss_growth(state["rss"], warmup_s, equal_uptime_s),
        "ratings": {"rated": rated, "differences": len(differences), "first_differences": differences[:10]},
    }


def report_lines(summary: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """The printed report."""
    lines = [
        f"soak: {summary['minutes']} min in {summary['pieces']} piece(s), manager SIGKILLed {summary['kills']} times",
        f"matches: {summary['matches']} stored ({summary['completed']} completed, {summary['aborted']} aborted, "
        f"{summary['running_left']} running), {summary['acknowledged']} acknowledged "
        f"({summary['created_by_post']} created by POST /api/matches)",
        "aborted by reason:",
        *(f"  {count:5d}  {reason}" for reason, count in summary["aborted_by_reason"].items()),
        f"player errors (per seat and step): {summary['player_errors']}",
        f"lost: {summary['lost']} {summary['lost_ids'] or ''}",
        f"stuck: {summary['stuck']} {summary['stuck_ids'] or ''}",
        "GET latency outside restart windows (ms): " + _latency_text(summary["latency"]),
        *(f"  {path}: {_latency_text(values)}" for path, values in summary["latency_by_path"].items()),
        f"GET errors outside restart windows: {summary['get_errors']}",
        f"manager RSS growth after warm-up: per lifetime {_pct(summary['rss']['per_lifetime_pct'])}, at equal uptime "
        f"{_pct(summary['rss']['equal_uptime_pct'])} over {summary['rss']['equal_uptime_processes']} processes",
        "manager RSS over time:", *rss_table(state["rss"]),
        f"ratings: {summary['ratings']['rated']} completed matches re-rated, {summary['ratings']['differences']} "
        "differences", *(f"  {line}" for line in summary["ratings"]["first_differences"]),
        *goal_lines(summary),
    ]
    return lines


def _latency_text(values: dict[str, float]) -> str:
    if not values:
        return "no samples"
    return (f"p50 {values['p50']:.1f} p95 {values['p95']:.1f} p99 {values['p99']:.1f} max {values['max']:.1f} "
            f"(n {int(values['n'])})")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


def mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0
