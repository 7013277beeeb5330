"""The soak's RSS measures (benchmarks/soak_report.py): growth after the run's warm-up within each manager
process, and between processes at equal uptime; and the committed soaks' reports say what their data says."""

from __future__ import annotations

import re

from tests.helpers.benchmarks import BENCHMARKS, load_benchmark

DATA = BENCHMARKS / "data"


def samples(process: int, started_s: float, until_s: float, start_kb: float, kb_per_min: float) -> list[list[float]]:
    """RSS samples ``[run_s, process, uptime_s, kb]`` every 60 s of one manager process."""
    rows, run_s = [], started_s
    while run_s <= until_s:
        rows.append([run_s, process, run_s - started_s, start_kb + kb_per_min * (run_s - started_s) / 60])
        run_s += 60
    return rows


def test_one_process_that_is_never_killed_is_measured_after_the_warm_up() -> None:
    report = load_benchmark("soak_report")
    growth = report.rss_growth(samples(1, 0, 1500, 60_000, 100), warmup_s=600, equal_uptime_s=90)
    assert growth["per_lifetime_pct"] == 100.0 * (60_000 + 2500 - 61_000) / 61_000  # from 10 to 25 minutes
    assert growth["equal_uptime_pct"] is None and growth["growth_pct"] == growth["per_lifetime_pct"]


def test_processes_killed_and_restarted_are_compared_within_their_lives_and_at_equal_uptime() -> None:
    report = load_benchmark("soak_report")
    rows = samples(1, 0, 420, 60_000, 0) + samples(2, 660, 1020, 61_000, 0) + samples(3, 1080, 1500, 66_100, 50)
    growth = report.rss_growth(rows, warmup_s=600, equal_uptime_s=90)
    assert growth["equal_uptime_processes"] == 2  # process 1 started before the warm-up ended
    assert abs(growth["equal_uptime_pct"] - 100.0 * (66_200 - 61_000) / 61_000) < 1e-9  # at 120 s up each
    assert growth["per_lifetime_pct"] == 100.0 * (66_100 + 350 - 66_200) / 66_200  # process 3, from 120 s up
    assert growth["growth_pct"] == growth["equal_uptime_pct"]


def test_the_committed_soaks_met_every_goal_in_their_last_report() -> None:
    for name in ("soak_2026-11-28_60min.txt", "soak_2026-11-28_nokill.txt"):
        last = (DATA / name).read_text().strip().split("\n\n")[-1]
        assert re.search(r"^soak: [\d.]+ min", last, re.M), name
        verdicts = [line.split()[0] for line in last.splitlines() if line.split()[0] in ("PASS", "FAIL", "n/a")]
        assert verdicts == ["PASS"] * 5, (name, verdicts)
