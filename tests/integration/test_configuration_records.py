"""One mechanism for the default ``mcts``'s self-configuration (issue 41): ``ggp arena``, the manager's built-in
``mcts`` seat and a ``ggp player mcts`` over HTTP make the same choice for the same game and seed, and the
manager's match record holds it (from the ``X-GGP-Configuration`` header of the player's ``ready``)."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

from ggp.arena import run_arena
from ggp.commands._manager_glue import builtin_launcher, machine_factory
from ggp.commands._manager_server import load_games
from ggp.files import load_kif
from ggp.manager.match_requests import MatchRequest
from ggp.manager.runner import RANDOM_SEAT, HttpTransport, MatchConfig, Seat, run_match
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from ggp.native import find_compiler
from ggp.players.registry import make_player
from ggp.reasoner.engines import make_machine
from tests.conftest import KIF_DIR, ROOT
from tests.helpers.network import free_port, wait_listening
from tests.prerequisites import missing, needs

pytestmark = needs(find_compiler() is not None, "no c compiler (cc)")

SEED = 5
TIC_TAC_TOE = KIF_DIR / "ticTacToe" / "ticTacToe.kif"


def arena_choice() -> str:
    """What the default ``mcts`` seeded :data:`SEED` chooses for tic-tac-toe in ``ggp arena`` (its first game,
    first seat: the arena seeds that player with the arena's seed)."""
    if not TIC_TAC_TOE.is_file():
        missing("kif/ticTacToe/ticTacToe.kif is not present")
    machine = make_machine(load_kif(TIC_TAC_TOE), "circuit")
    games = run_arena(machine, [partial(make_player, "mcts:iterations=20"), partial(make_player, "random")], 1, SEED)
    assert games[0].seats == (0, 1) and games[0].configurations[1] == ""
    return games[0].configurations[0]


async def test_the_managers_built_in_mcts_seat_records_the_arenas_choice() -> None:
    expected = arena_choice()
    assert expected.startswith("decisive=") and "sampled decisions" in expected  # measured, not the defaults
    launcher = builtin_launcher(SEED, engine="circuit")  # its first launch plays with seed SEED
    manager = Manager(Store(":memory:"), machine_factory("circuit"), launcher, ManagerSettings(step_cap=2))
    try:
        assert await load_games(manager, [TIC_TAC_TOE]) == ["ticTacToe"]
        match_id = await manager.start_match(MatchRequest("ticTacToe", ("mcts", "random"), 20, 1, seed=1))
        record = await manager.wait(match_id)
    finally:
        await manager.close()
    assert record is not None and record.finished and record.errors[0] == ("", "")
    assert record.configurations == (expected, "")
    stored = manager.store.match(match_id)
    assert stored is not None and stored.configurations == (expected, "")


async def test_a_ggp_player_mcts_reports_its_choice_over_http(tmp_path: Path) -> None:
    expected = arena_choice()
    port = free_port()
    log = tmp_path / "player.log"
    with log.open("wb") as sink, subprocess.Popen(
        [sys.executable, "-m", "ggp", "player", "mcts", "--port", str(port), "--engine", "circuit", "--seed", str(SEED)],
        cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT,
    ) as process:
        try:
            wait_listening(port, process, log)
            config = MatchConfig(match_id="cfg1", game_key="ticTacToe", description=load_kif(TIC_TAC_TOE),
                                 seats=(Seat("ours", f"http://127.0.0.1:{port}/"), RANDOM_SEAT),
                                 start_clock=30, play_clock=1, seed=1, step_cap=2)
            async with HttpTransport() as transport:
                record = await run_match(make_machine(config.description, "circuit"), config, transport)
        finally:
            process.terminate()
            process.wait(timeout=20)
    assert record.errors[0] == ("", ""), log.read_text(errors="replace")[-2000:]
    assert record.configurations == (expected, ""), log.read_text(errors="replace")[-2000:]
