"""``ggp match``, ``ggp demo --once`` and ``ggp serve`` guards, on real games with the clingo reasoner."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from aiohttp import web

from ggp.cli import main
from ggp.commands._manager_server import check_exposure, is_loopback
from ggp.errors import InputError
from ggp.manager.records import from_json
from tests.conftest import KIF_DIR
from tests.helpers.fake_players import FakePlayer, dropping
from tests.helpers.network import free_port
from tests.prerequisites import needs

TICTACTOE = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
needs_tictactoe = needs(TICTACTOE.is_file(), "kif/ticTacToe is not present")


@needs_tictactoe
def test_match_command_writes_a_complete_record_fixed_by_the_seed(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        assert main(["match", str(TICTACTOE), "--player", "random", "--player", "random", "--seed", "11",
                     "--out", str(out), "--quiet"]) == 0
        runs.append(from_json(out.read_text()))
    first, second = runs
    assert first.is_completed and first.seed == 11 and first.moves == second.moves
    assert len(first.states) == len(first.errors) == len(first.moves) + 1
    assert "completed after" in capsys.readouterr().out


@needs_tictactoe
def test_match_command_runs_built_in_players_over_loopback_http(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "ticTacToe", "--player", "legal", "--player", "random", "--startclock", "5",
                 "--playclock", "1", "--seed", "2", "--quiet"]) == 0
    assert "errors: none" in capsys.readouterr().out


@needs_tictactoe
def test_match_command_stops_when_a_built_in_player_refuses_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    # min-max with W needs piece rules: on plain GDL it refuses at START, and the match stops with its reason
    # instead of completing with fallback moves played for it; a built-in player is asked before it is launched.
    assert main(["match", "ticTacToe", "--player", "minimax:h=WGCM", "--player", "random", "--startclock", "5",
                 "--playclock", "1", "--seed", "2", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(
        "ggp match: ticTacToe.kif: player minimax:h=WGCM cannot play role xplayer: min-max WGCM: heuristic term W")
    assert captured.err.count("\n") == 1


def test_match_command_plays_an_sbg_game_on_the_sbg_engine(capsys: pytest.CaptureFixture[str]) -> None:
    # The built-in players get the game as GDL in START and find the SBG engine by its rules: W plays itself.
    game = Path(__file__).resolve().parents[2] / "games" / "gardner.sbg"
    assert main(["match", str(game), "--player", "minimax:h=WGCM,depth=1", "--player", "minimax:h=C,depth=1",
                 "--startclock", "5", "--playclock", "2", "--step-cap", "4", "--seed", "2", "--quiet"]) == 0
    assert "errors: none" in capsys.readouterr().out


def test_match_command_refuses_bad_games_and_players_in_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.kif"
    game.write_text("(role a) (<= (legal a ?x) (true s)) (init s) (<= terminal (true s)) (goal a 100)")
    assert main(["match", str(game), "--player", "random"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("ggp match: invalid game:") and "\n" not in err
    assert main(["match", "no-such-game", "--player", "random"]) == 1
    assert "no game" in capsys.readouterr().err


@needs_tictactoe
def test_match_command_stops_in_one_line_when_a_player_url_does_not_answer(
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    url = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    assert main(["match", "ticTacToe", "--player", url, "--player", "random", "--seed", "0"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"ggp match: player {url} cannot be reached:") and "is it running?" in captured.err
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def _serve_in_a_thread(app: web.Application) -> tuple[str, threading.Event]:
    """Serve ``app`` on a free loopback port from a thread with its own event loop until the event is set."""
    port, ready, stop = free_port(), threading.Event(), threading.Event()

    def serve() -> None:
        async def main_loop() -> None:
            runner = web.AppRunner(app)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", port).start()
            ready.set()
            while not stop.is_set():
                await asyncio.sleep(0.02)
            await runner.cleanup()

        asyncio.run(main_loop())

    threading.Thread(target=serve, daemon=True).start()
    assert ready.wait(10)
    return f"http://127.0.0.1:{port}/", stop


@needs_tictactoe
def test_match_command_reports_a_player_lost_mid_match_once_with_its_count(
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    # oplayer answers its first PLAY (noop, legal) and drops the connection on every later message.
    player = FakePlayer(dropping("noop", from_play=2))
    url, stop = _serve_in_a_thread(player.app())
    try:
        assert main(["match", "ticTacToe", "--player", "random", "--player", url, "--seed", "0",
                     "--playclock", "1", "--quiet"]) == 0
    finally:
        stop.set()
    out = capsys.readouterr().out
    record_steps = int(re.search(r"completed after (\d+) steps", out).group(1))  # type: ignore[union-attr]
    lost = record_steps - 1
    assert f"errors: oplayer {lost} (its moves in {lost} of {record_steps} steps played for it)" in out
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert f"fallback moves played for {lost} moves: {lost} x oplayer ({url}) CE" in warnings[0]


@needs_tictactoe
def test_demo_once_runs_a_round_robin_and_prints_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--once", "--port", "0", "--games", "ticTacToe", "--players", "random,random2",
                 "--matches-per-pairing", "2", "--startclock", "1", "--playclock", "1"]) == 0
    out = capsys.readouterr().out
    assert "ggp demo at http://127.0.0.1:" in out and "ticTacToe: standings" in out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith("random")]
    assert sorted(row[0] for row in rows) == ["random", "random2"] and all(row[1] == "2" for row in rows)


def test_serving_beyond_loopback_needs_expose_and_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    check_exposure("127.0.0.1", False, "")
    check_exposure("0.0.0.0", True, "long-enough-token")
    with pytest.raises(InputError, match="--expose"):
        check_exposure("0.0.0.0", False, "")
    with pytest.raises(InputError, match="--token"):
        check_exposure("0.0.0.0", True, "short")
    assert main(["serve", "--host", "0.0.0.0", "--db", ":memory:"]) == 1
    assert "--expose" in capsys.readouterr().err


@pytest.mark.parametrize(("sigint", "hint"), [("default_int_handler", "Ctrl-C stops it"), ("SIG_IGN", "SIGTERM stops it")],
                         ids=["foreground", "background"])
def test_serve_starts_answers_and_stops_on_sigterm(tmp_path: Path, sigint: str, hint: str) -> None:
    """Its banner says how to stop it: Ctrl-C, or SIGTERM where a shell started it with SIGINT ignored."""
    started_as = (f"import runpy, signal; signal.signal(signal.SIGINT, signal.{sigint}); "
                  "runpy.run_module('ggp', run_name='__main__', alter_sys=True)")
    command = [sys.executable, "-c", started_as, "serve", "--port", "0", "--no-kif", "--db", str(tmp_path / "m.db")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            assert found, line
            assert hint in line
            with urllib.request.urlopen(found.group(1) + "api/players", timeout=10) as response:
                names = {p["name"] for p in json.load(response)}
            assert "random" in names
            process.send_signal(signal.SIGTERM)
            assert process.wait(20) == 0
        finally:
            if process.poll() is None:
                process.kill()
    assert (tmp_path / "m.db").is_file()


def test_serve_refuses_a_bad_tournament_file_in_one_line_with_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "club.yaml"
    bad.write_text("game: ticTacToe\nplayers: [random, legal\n")
    assert main(["serve", "--port", "0", "--no-kif", "--db", ":memory:", "--tournament", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"ggp serve: {bad}:") and "not valid YAML" in err and "\n" not in err


async def test_the_managers_built_in_seats_play_an_sbg_game_on_the_sbg_engine() -> None:
    # As in `ggp demo` and `ggp serve --sbg`: the manager's built-in players get gardner as GDL in START and
    # play it on the SBG engine, where min-max with W plays every move itself (on the translation it refused
    # the game and the manager played fallback moves for it).
    from ggp.commands._manager_glue import builtin_launcher, game_translators, machine_factory
    from ggp.commands._manager_server import load_games
    from ggp.manager.match_requests import MatchRequest
    from ggp.manager.service import Manager
    from ggp.manager.store import Store
    from ggp.manager.wiring import ManagerSettings

    launcher = builtin_launcher(1, options="h=WGCM,depth=1")
    manager = Manager(Store(":memory:"), machine_factory("auto"), launcher, ManagerSettings(step_cap=4),
                      translators=game_translators())
    try:
        assert await load_games(manager, [Path(__file__).resolve().parents[2] / "games" / "gardner.sbg"]) == ["gardner"]
        match_id = await manager.start_match(MatchRequest("gardner", ("minimax", "minimax"), 10, 2, seed=1))
        record = await manager.wait(match_id)
    finally:
        await manager.close()
    assert record is not None and record.is_completed and record.step == 4
    assert {code for row in record.errors for code in row} == {""}
