"""One game loader for every command (ggp/commands/_games.py), and one clear line for a broken game."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.cli import main
from ggp.commands._games import load_game
from ggp.errors import InputError
from tests.conftest import KIF_DIR

ROOT = Path(__file__).resolve().parents[3]
LEVELS = """#####
#@$.#
#####

######
#@$ .#
#  $.#
######
"""
STUCK = """(role a) (role b) (init (step 0))
(<= (legal a go) (true (step 0))) (<= (legal b wait) (true (step 0))) (<= (legal a go) (true (step 1)))
(<= (next (step 1)) (true (step 0))) (<= (next (step 1)) (true (step 1)))
(<= terminal (true (step 2))) (goal a 50) (goal b 50)
"""


def test_kif_sbg_sokoban_and_a_kif_key_all_load_as_gdl(tmp_path: Path) -> None:
    levels = tmp_path / "levels.txt"
    levels.write_text(LEVELS)
    kif = load_game(KIF_DIR / "ticTacToe" / "ticTacToe.kif")
    assert load_game("ticTacToe").description == kif.description and kif.turn_limit is None
    sbg = load_game(ROOT / "games" / "six_demo.sbg")
    assert [str(r) for r in sbg.description.roles] == ["white", "black"] and sbg.turn_limit
    first, second = load_game(levels), load_game(f"{levels}#2")
    assert (first.name, second.name) == ("levels", "levels-2")
    assert first.description != second.description and "(role player)" in second.kif


def test_an_unknown_format_or_a_missing_game_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello")
    with pytest.raises(InputError, match=r"unknown game format '\.md'; use \.kif"):
        load_game(tmp_path / "notes.md")
    with pytest.raises(InputError, match="no game 'nosuchgame'"):
        load_game("nosuchgame")
    with pytest.raises(InputError, match="no such file or directory"):
        load_game(tmp_path / "gone.kif")


def test_a_bad_sbg_file_keeps_its_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sbg"
    bad.write_text("<<this is not sbg>>")
    with pytest.raises(InputError) as info:
        load_game(bad)
    assert str(info.value).startswith(f"{bad}:1:")


def test_trace_replay_and_arena_run_on_an_sbg_game_and_a_sokoban_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    levels = tmp_path / "levels.txt"
    levels.write_text(LEVELS)
    for game in (str(ROOT / "games" / "six_demo.sbg"), f"{levels}#2"):
        trace = tmp_path / "trace.json"
        assert main(["trace", game, "--playouts", "1", "--max-moves", "30", "-o", str(trace)]) == 0
        assert main(["replay", game, str(trace)]) == 0
        assert "steps agree" in capsys.readouterr().out
    assert main(["arena", str(ROOT / "games" / "six_demo.sbg"), "--player", "random", "--player", "random",
                 "--games", "2", "--engine", "clingo"]) == 0
    assert "random#1      2" in capsys.readouterr().out


@pytest.mark.parametrize("engine", ["clingo", "circuit"])
def test_bench_reports_a_role_without_legal_moves_in_one_line(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "stuck.kif"
    game.write_text(STUCK)
    assert main(["bench", str(game), "--engine", engine, "--seconds", "0.2"]) == 1
    assert capsys.readouterr().err.strip() == (
        "ggp bench: role 'b' has no legal move in a non-terminal state after 1 steps"
    )
    if engine == "circuit":
        assert main(["bench", str(game), "--engine", engine, "--seconds", "0.2", "--batch", "64"]) == 1
        assert "random playouts reached a non-terminal state where a role has no legal move" in capsys.readouterr().err


def test_trace_reports_a_role_without_legal_moves_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "stuck.kif"
    game.write_text(STUCK)
    assert main(["trace", str(game), "-o", str(tmp_path / "t.json")]) == 1
    assert capsys.readouterr().err.strip() == (
        "ggp trace: role 'b' has no legal move in a non-terminal state after 1 steps"
    )
    assert not (tmp_path / "t.json").exists()


def test_one_factory_plays_an_sbg_game_on_the_sbg_engine_from_its_text_or_its_gdl_rules() -> None:
    # Every command (arena, match, play, evaluate, the manager's seats) builds its machines with GameMachines:
    # an SBG game read by this process plays on the SBG engine even when asked for by its GDL rules, as a
    # built-in player gets them in a START message (printed and parsed again).
    from ggp.commands._games import GameMachines, load_game
    from ggp.commands._manager_glue import machine_factory
    from ggp.gdl.parser import parse_kif
    from ggp.translators.sbg.machine import SbgStateMachine

    loaded = load_game(Path(__file__).resolve().parents[3] / "games" / "gardner.sbg")
    machines = GameMachines("clingo")
    assert machine_factory("clingo") == machines
    assert isinstance(machines.load(loaded), SbgStateMachine)
    assert isinstance(machines(parse_kif(loaded.kif, "from-the-wire.kif")), SbgStateMachine)
    assert not isinstance(machines.load(load_game("ticTacToe")), SbgStateMachine)


def test_the_factory_takes_the_registered_sbg_games_to_another_process(tmp_path: Path) -> None:
    # Under `ggp serve` a built-in player reasons in a worker process, which gets the factory pickled with
    # the START arguments: an SBG game the manager read as SBG still plays on the SBG engine there.
    import pickle
    import subprocess
    import sys

    from ggp.commands._games import GameMachines, load_game

    loaded = load_game(Path(__file__).resolve().parents[3] / "games" / "gardner.sbg")
    (tmp_path / "factory.pickle").write_bytes(pickle.dumps(GameMachines("clingo")))
    (tmp_path / "rules.kif").write_text(loaded.kif)
    script = (
        "import pickle, sys; from pathlib import Path; from ggp.gdl.parser import parse_kif\n"
        f"machines = pickle.loads(Path({str(tmp_path / 'factory.pickle')!r}).read_bytes())\n"
        f"machine = machines(parse_kif(Path({str(tmp_path / 'rules.kif')!r}).read_text()))\n"
        "print(type(machine).__name__)\n"
    )
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert found.stdout.strip() == "SbgStateMachine"
