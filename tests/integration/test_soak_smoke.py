"""A one-minute soak (``benchmarks/soak.py``): 20 misbehaving and honest players, the manager killed with
SIGKILL once and restarted; nothing acknowledged is lost, nothing is stuck, and the ratings equal their
recomputation from the archive."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from tests.helpers.benchmarks import BENCHMARKS, load_benchmark
from tests.helpers.network import free_port, free_port_block


@pytest.mark.timeout(170)
def test_a_short_soak_with_one_sigkill_loses_nothing(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))  # soak.py imports its siblings
    try:
        soak = load_benchmark("soak")
        args = soak.parser().parse_args([
            "--dir", str(tmp_path / "soak"), "--minutes", "1", "--players", "20", "--games", "4",
            "--port", str(free_port()), "--first-port", str(free_port_block(20)), "--kill-every", "30,40",
            "--clocks", "2,1", "--round", "1", "--final-s", "30", "--window", "5", "--create-every", "5",
            "--warmup", "0.2", "--equal-uptime", "10", "--out", str(tmp_path / "soak.txt"),
        ])
        summary = asyncio.run(soak.soak_piece(args))
    finally:
        sys.path.remove(str(BENCHMARKS))
    assert summary["kills"] == 1
    assert summary["completed"] > 0 and summary["acknowledged"] >= summary["completed"]
    assert summary["lost"] == 0, summary["lost_ids"]
    assert summary["stuck"] == 0, summary["stuck_ids"]
    assert summary["ratings"]["rated"] > 0
    assert summary["ratings"]["differences"] == 0, summary["ratings"]["first_differences"]
    assert summary["latency"]["n"] > 10
    assert "PASS 0 acknowledged matches lost" in (tmp_path / "soak.txt").read_text()
