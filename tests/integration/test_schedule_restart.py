"""``ggp serve --schedule`` survives a crash: killed with SIGKILL in the middle of a scheduled match, the
restarted manager shows that match aborted (none left "running") and goes on scheduling."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.helpers.network import free_port
from tests.helpers.step_players import step_game_kif


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def _post(url: str, body: dict[str, str]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def _serve(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "ggp", "serve", "--port", str(port), "--no-kif", "--db", str(tmp_path / "m.db"),
               "--repository", str(tmp_path / "repo"), "--schedule", "--schedule-round", "0.5"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    assert server.stdout is not None
    for line in server.stdout:
        if "ggp manager at" in line:
            return server
    raise AssertionError(f"the manager exited with {server.wait()}")


def _close(process: subprocess.Popen[str]) -> None:
    if process.stdout is not None:
        process.stdout.close()


def _until(what: str, check: Any, seconds: float = 60.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_crash_leaves_no_match_running_and_the_schedule_resumes(tmp_path: Path) -> None:
    game = tmp_path / "repo" / "duel"
    game.mkdir(parents=True)
    (game / "duel.kif").write_text(step_game_kif(2, 20))
    (game / "METADATA").write_text(json.dumps({"gameName": "Duel", "rulesheet": "duel.kif", "startClock": 2,
                                               "playClock": 1}))
    ports = [free_port(), free_port()]
    players = subprocess.Popen([sys.executable, "-m", "tests.helpers.step_players", "0.1", *map(str, ports)],
                               stdout=subprocess.PIPE, text=True, cwd=ROOT)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = None
    try:
        assert players.stdout is not None and players.stdout.readline().strip() == "ready"
        server = _serve(tmp_path, port)
        for index, player_port in enumerate(ports):
            _post(f"{base}/api/players", {"name": f"bot{index}", "url": f"http://127.0.0.1:{player_port}/"})

        def running_with_steps() -> str | None:
            for match in _get(f"{base}/api/matches?status=running"):
                if len(_get(f"{base}/api/matches/{match['matchId']}")["moves"]) >= 2:
                    return str(match["matchId"])
            return None

        crashed = _until("a scheduled match under way", running_with_steps)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        _close(server)

        server = _serve(tmp_path, port)
        record = _get(f"{base}/matches/{crashed}.json")
        assert record["isAborted"] and record["x-abortDetail"] == "manager stopped"
        assert len(record["moves"]) >= 2 and record["tournamentNameFromHost"] == "schedule"
        before = {m["matchId"] for m in _get(f"{base}/api/matches?limit=1000")}
        new = _until("a match scheduled after the restart", lambda: [
            m for m in _get(f"{base}/api/matches?limit=1000") if m["matchId"] not in before])
        assert sorted(new[0]["players"]) == ["bot0", "bot1"]
        schedule = _get(f"{base}/api/schedule")
        assert schedule["running"] is True
        finished = _until("the new match to finish", lambda: _get(f"{base}/matches/{new[0]['matchId']}.json")
                          if _get(f"{base}/matches/{new[0]['matchId']}.json")["isCompleted"] else None, 90)
        assert len(finished["moves"]) == 20 and re.fullmatch(r"duel\.[0-9a-f]+", finished["matchId"])
    finally:
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
        if server is not None:
            _close(server)
        players.kill()
        players.wait(10)
        _close(players)
