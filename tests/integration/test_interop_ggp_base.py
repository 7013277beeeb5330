"""Interoperability with ggp-base itself (../shared/peer): its GameServer hosts our player.

Skips without java or ../shared/peer locally; in CI both are there, so it runs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ggp.gdl.parser import parse_kif
from tests.conftest import ROOT, SHARED
from tests.helpers.network import free_port, wait_listening
from tests.prerequisites import missing

PEER = SHARED / "peer" / "run"

CAPITALS = """
(role Robot)
(init (Cell 1))
(<= (legal Robot (moveUp)) (true (Cell ?x)) (Succ ?x ?y))
(<= (legal Robot (Stay)) (true (Cell ?x)))
(<= (next (Cell ?y)) (does Robot (moveUp)) (true (Cell ?x)) (Succ ?x ?y))
(<= (next (Cell ?x)) (does Robot (Stay)) (true (Cell ?x)))
(<= (next (Count ?n)) (true (Count ?m)) (Succ ?m ?n))
(init (Count 1))
(<= terminal (true (Count 4)))
(<= (goal Robot 100) (true (Cell 4)))
(<= (goal Robot 0) (not (true (Cell 4))))
(Succ 1 2) (Succ 2 3) (Succ 3 4)
"""
"""A one-player game whose moves and fluents are written with capitals (like snake2p's moveUp)."""


def _wait_ready(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    for _ in range(100):
        if process.poll() is not None:
            raise AssertionError(f"the player exited: {log.read_text()}")
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=b"( INFO )",
                                             headers={"Content-Type": "text/acl"})
            with urllib.request.urlopen(request, timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the player did not start")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("spec", ["legal", "mcts"])
def test_ggp_base_records_no_illegal_move_of_ours_in_a_game_with_capitals(spec: str, tmp_path: Path) -> None:
    if shutil.which("java") is None or not PEER.is_file():
        missing("java and ../shared/peer (ggp-base) for the interoperability test")
    game = tmp_path / "capitals.kif"
    game.write_text(CAPITALS)
    port = free_port()
    log = tmp_path / "player.log"
    with log.open("wb") as sink, subprocess.Popen(
        [sys.executable, "-m", "ggp", "player", spec, "--port", str(port), "--name", "ours"],
        cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT,
    ) as player:
        try:
            _wait_ready(port, player, log)
            result = subprocess.run([str(PEER), "RunMatch", str(game), "10", "2", f"127.0.0.1:{port}"],
                                    capture_output=True, text=True, timeout=240)
        finally:
            player.terminate()
            player.wait(timeout=30)
    assert result.returncode == 0, result.stderr[-2000:]
    record = json.loads(result.stdout)
    errors = [e for step in record.get("errors", []) for e in step if e]
    assert errors == [], (errors, result.stderr[-2000:])
    moves = [joint[0] for joint in record["moves"]]
    assert moves and all(move in ("( moveUp )", "( Stay )") for move in moves), moves


@pytest.mark.timeout(300)
def test_our_match_record_replays_on_ggp_base_without_folding_case(tmp_path: Path) -> None:
    if shutil.which("java") is None or not PEER.is_file():
        missing("java and ../shared/peer (ggp-base) for the interoperability test")
    game = tmp_path / "capitals.kif"
    game.write_text(CAPITALS)
    record = tmp_path / "record.json"
    ours = subprocess.run([sys.executable, "-m", "ggp", "match", str(game), "--player", "legal", "--startclock", "5",
                           "--playclock", "2", "--out", str(record), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert ours.returncode == 0, ours.stderr
    data = json.loads(record.read_text())
    assert all(code == "" for row in data["errors"] for code in row), data["errors"]  # (moveUp) is not IL
    assert "(Cell 1)" in data["states"][0]
    check = subprocess.run([str(PEER), "MatchCheck", str(game), str(record)], capture_output=True, text=True,
                           timeout=120)
    assert check.returncode == 0 and "replay=agree" in check.stdout, check.stdout + check.stderr


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game", ["ticTacToe", "capitals"])
def test_our_match_loop_hosts_ggp_base_players(game: str, tmp_path: Path) -> None:
    """ggp-base's own players (SampleMonteCarloGamer) in every seat of a match we host: none of their
    moves is refused (capitals: they answer `( moveUp )` in the rules' spelling), and ggp-base's
    MatchCheck replays the record we wrote."""
    if shutil.which("java") is None or not PEER.is_file():
        missing("java and ../shared/peer (ggp-base) for the interoperability test")
    if game == "capitals":
        path = tmp_path / "capitals.kif"
        path.write_text(CAPITALS)
        seats = 1
    else:
        path = ROOT / "kif" / game / f"{game}.kif"
        seats = 2
    players: list[subprocess.Popen[bytes]] = []
    urls = []
    try:
        for seat in range(seats):
            port = free_port()
            log = tmp_path / f"peer{seat}.log"
            with log.open("wb") as sink:
                players.append(subprocess.Popen([str(PEER), "PlayerMain", str(port), "SampleMonteCarloGamer"],
                                                stdout=sink, stderr=subprocess.STDOUT))
            wait_listening(port, players[-1], log)
            urls += ["--player", f"http://127.0.0.1:{port}"]
        record = tmp_path / "record.json"
        ours = subprocess.run([sys.executable, "-m", "ggp", "match", str(path), *urls, "--startclock", "5",
                               "--playclock", "1", "--out", str(record), "--quiet"],
                              cwd=ROOT, capture_output=True, text=True, timeout=240)
    finally:
        for player in players:
            player.kill()
            player.wait(timeout=30)
    assert ours.returncode == 0, ours.stderr[-2000:]
    data = json.loads(record.read_text())
    assert all(code == "" for row in data["errors"] for code in row), data["errors"]
    assert len(data["moves"]) >= (3 if game == "capitals" else 5)
    check = subprocess.run([str(PEER), "MatchCheck", str(path), str(record)], capture_output=True, text=True,
                           timeout=120)
    assert check.returncode == 0 and "replay=agree" in check.stdout, check.stdout + check.stderr


HOSTED = [
    ("ticTacToe", "random"), ("ticTacToe", "monte_carlo"), ("ticTacToe", "alphabeta"),
    ("ticTacToe", "minimax:h=CM,depth=2"), ("connectFourSimultaneous", "mcts"), ("3pttc", "mcts"),
]
"""Each of our player kinds on ggp-base's host: turn-taking, simultaneous-move and three-player games."""


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("game", "spec"), HOSTED, ids=[f"{g}-{s}" for g, s in HOSTED])
def test_ggp_base_hosts_each_of_our_players_without_errors(game: str, spec: str, tmp_path: Path) -> None:
    """ggp-base's GameServer plays a whole match with our player in the first seat and ggp-base's
    RandomGamer in the others: the host records no TO, IL or CE against us."""
    if shutil.which("java") is None or not PEER.is_file():
        missing("java and ../shared/peer (ggp-base) for the interoperability test")
    path = ROOT / "kif" / game / f"{game}.kif"
    if not path.is_file():
        path = SHARED / "gdl-corpus" / f"{game}.kif"
    roles = len(parse_kif(path.read_text()).roles)
    _host_our_player(tmp_path, path, roles, [sys.executable, "-m", "ggp", "player", spec, "--name", "ours"],
                     start_clock=10, play_clock=1)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_ggp_base_records_no_nil_illegal_move_or_timeout_of_ours_while_our_setup_is_slow(tmp_path: Path) -> None:
    """Issue 30's "a legal move at any clock" on ggp-base's host: our player's setup is made slower than
    any clock (an injected hour, killed at its 2 s bound), yet every step gets a legal move (the standby
    seat's, then the restarted player's): no TO, no IL (``nil`` included), no CE."""
    if shutil.which("java") is None or not PEER.is_file():
        missing("java and ../shared/peer (ggp-base) for the interoperability test")
    path = ROOT / "kif" / "ticTacToe" / "ticTacToe.kif"
    _host_our_player(tmp_path, path, 2, [sys.executable, "-m", "tests.helpers.slow_player", "{port}", "mcts"],
                     start_clock=3, play_clock=2)


def _host_our_player(tmp_path: Path, path: Path, roles: int, ours: list[str], *, start_clock: int,
                     play_clock: int) -> None:
    """ggp-base's GameServer plays ``path`` with our player (``ours``, with ``--port PORT`` added, or its
    ``{port}`` filled in) in the first seat and ggp-base's RandomGamer in the others; asserts the host
    recorded no TO, IL or CE of ours and that the match had a few steps."""
    processes: list[subprocess.Popen[bytes]] = []
    seats = []
    try:
        for seat in range(roles):
            port = free_port()
            log = tmp_path / f"seat{seat}.log"
            if seat:
                command = [str(PEER), "PlayerMain", str(port), "RandomGamer"]
            elif "{port}" in ours:
                command = [part.replace("{port}", str(port)) for part in ours]
            else:
                command = [*ours, "--port", str(port)]
            with log.open("wb") as sink:
                processes.append(subprocess.Popen(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT))
            wait_listening(port, processes[-1], log)
            seats.append(f"127.0.0.1:{port}")
        result = subprocess.run([str(PEER), "RunMatch", str(path), str(start_clock), str(play_clock), *seats],
                                capture_output=True, text=True, timeout=240)
    finally:
        for process in processes:
            process.kill()
            process.wait(timeout=30)
    assert result.returncode == 0, result.stderr[-2000:]
    record = json.loads(result.stdout)
    ours_errors = [step[0] for step in record.get("errors", []) if step[0]]
    assert ours_errors == [], (ours_errors, (tmp_path / "seat0.log").read_text()[-3000:])
    assert len(record["moves"]) >= 3
