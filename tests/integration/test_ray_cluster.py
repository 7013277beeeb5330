"""``ggp evaluate`` and ``ggp evolve`` on a real two-node Ray cluster started on this machine (a head and
a second node joined with ``ray start --address``): the results equal the local run for the same seeds.

Bounded: every command has a timeout, and the cluster is stopped whatever happens.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import KIF_DIR
from tests.helpers.network import free_port
from tests.prerequisites import missing, require_module

ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def _ray(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).with_name("ray")), *args], env=ENV, capture_output=True,
                          text=True, timeout=120, check=False)


NODES = """
import time, ray
ray.init(address="{address}", log_to_driver=False)
for _ in range(60):
    alive = sum(1 for node in ray.nodes() if node["Alive"])
    if alive >= 2:
        break
    time.sleep(0.5)
print(alive)
"""


def _alive_nodes(address: str) -> int:
    """How many nodes of the cluster are alive (waiting up to 30 s for the second to register)."""
    done = subprocess.run([sys.executable, "-c", NODES.format(address=address)], env=ENV, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The address of a running two-node Ray cluster (one CPU each)."""
    require_module("ray")
    if not Path(sys.executable).with_name("ray").exists():
        missing("the ray command is not installed next to this Python")
    port = free_port()
    temp = tempfile.mkdtemp(prefix="ggpray", dir="/tmp")  # Ray's socket paths must stay short
    address = f"127.0.0.1:{port}"
    try:
        head = _ray("start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=1",
                    "--include-dashboard=false", f"--temp-dir={temp}", "--disable-usage-stats")
        assert head.returncode == 0, head.stderr[-2000:]
        node = _ray("start", f"--address={address}", "--node-ip-address=127.0.0.1", "--num-cpus=1")
        assert node.returncode == 0, node.stderr[-2000:]
        assert _alive_nodes(address) == 2
        yield address
    finally:
        _ray("stop", "--force")
        shutil.rmtree(temp, ignore_errors=True)


def _ggp(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "ggp", *args], env=ENV, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_evaluate_on_the_cluster_gives_the_local_results(cluster: str, tmp_path: Path) -> None:
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"algorithms": ["legal", "random"], "games": ["g"], "matrix": [[0.5, 0.5], [0.5, 0.5]]}))
    common = [str(KIF_DIR / "connectFour" / "connectFour.kif"), "--players", "legal;random", "--model", str(model),
              "--matches", "3", "--seed", "5"]
    _ggp("evaluate", *common, "--out", str(tmp_path / "local"))
    _ggp("evaluate", *common, "--ray", cluster, "--out", str(tmp_path / "ray"))
    local, remote = (json.loads((tmp_path / side / "summary.json").read_text())["games"][0] for side in ("local", "ray"))
    assert remote["matches"] == local["matches"] == 6 and remote["failed"] == 0
    assert remote["rapp"] == local["rapp"] and remote["win_matrix"] == local["win_matrix"]
    assert remote["lengths"] == local["lengths"]


def test_evolve_on_the_cluster_gives_the_local_results(cluster: str, tmp_path: Path) -> None:
    common = ["--population", "2", "--generations", "0", "--seed", "3", "--fitness", "rapp"]
    _ggp("evolve", *common, "--out", str(tmp_path / "local"))
    _ggp("evolve", *common, "--ray", cluster, "--out", str(tmp_path / "ray"))
    local, remote = (json.loads((tmp_path / side / "gen_0000" / "population.json").read_text()) for side in ("local", "ray"))
    assert remote == local
    assert local["individuals"][0]["fitness"] >= 0
