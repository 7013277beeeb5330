"""UpgradingMachine: the player's quick machine answers at once, the circuit takes over when it is built."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ggp.errors import ReasonerError
from ggp.files import load_kif
from ggp.player import Budget
from ggp.players.mcts import MctsPlayer
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.budget import DEFAULT_BUDGET
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits, StateMachine
from ggp.reasoner.upgrade import UpgradingMachine, playing_machine
from tests.conftest import KIF_DIR

TIC_TAC_TOE = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
LOCAL = GroundingLimits(isolate=False)


def test_a_search_that_straddles_the_switch_plays_legal_moves_to_the_end() -> None:
    description = load_kif(TIC_TAC_TOE)
    reference = ClingoStateMachine(description, LOCAL)
    gate = threading.Event()

    def gated_circuit() -> StateMachine:
        gate.wait(30)
        return CircuitStateMachine(description, LOCAL, evaluator="interpreter")

    machine = UpgradingMachine(ClingoStateMachine(description, LOCAL), gated_circuit, "circuit")
    players = [MctsPlayer(seed=seat, playouts_per_leaf=2) for seat in range(2)]
    for player, role in zip(players, machine.roles):
        player.start(machine, role, Budget(iterations=50))
    state = machine.initial_state()
    turns = 0
    while not machine.is_terminal(state):
        if turns == 2:
            assert not machine.upgraded  # the first moves were searched on the quick machine
            gate.set()
            assert machine.wait(60) and machine.upgraded
            assert isinstance(machine.current, CircuitStateMachine)
        joint = tuple(player.choose(state, Budget(iterations=50)) for player in players)
        for role, move in zip(reference.roles, joint):
            assert move in reference.legal_moves(state, role)
        after = machine.next_state(state, joint)
        assert after == reference.next_state(state, joint)  # the same state whichever machine answered
        state = after
        turns += 1
    assert turns >= 5 and machine.goals(state) == reference.goals(state)


def test_a_failed_build_leaves_the_quick_machine_answering(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ggp.reasoner.upgrade")
    description = load_kif(TIC_TAC_TOE)
    quick = ClingoStateMachine(description, LOCAL)

    def failing() -> StateMachine:
        raise ReasonerError("no C compiler")

    machine = UpgradingMachine(quick, failing, "circuit", "ticTacToe")
    assert machine.wait(10) and not machine.upgraded and machine.current is quick and machine.quick is quick
    assert "did not build: no C compiler" in caplog.text
    state = machine.initial_state()
    assert machine.legal_moves(state, machine.roles[0]) == quick.legal_moves(state, quick.roles[0])


def test_capabilities_are_the_current_machines() -> None:
    description = load_kif(TIC_TAC_TOE)
    machine = UpgradingMachine(ClingoStateMachine(description, LOCAL),
                               lambda: CircuitStateMachine(description, LOCAL, evaluator="interpreter"), "circuit")
    assert machine.wait(60) and machine.upgraded
    assert isinstance(machine.quick, ClingoStateMachine) and machine.current is not machine.quick
    assert hasattr(machine, "playout_goals")  # the circuit's batched playouts, reached through the wrapper
    goals = machine.playout_goals(machine.initial_state(), 4, 0)
    assert len(goals) == 4 and all(set(g) <= {0, 50, 100} for g in goals)


def test_only_auto_upgrades() -> None:
    description = load_kif(TIC_TAC_TOE)
    assert not isinstance(playing_machine(description, "clingo"), UpgradingMachine)
    machine = playing_machine(description, "auto")
    assert isinstance(machine, UpgradingMachine)
    assert machine.wait(120) and machine.upgraded and isinstance(machine.current, CircuitStateMachine)


def test_the_background_build_runs_in_a_child_process_with_a_larger_budget_than_the_circuits_default(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path,
) -> None:
    """gt_two_thirds_4p takes 13.6 s of CPU to compile, over the compiler's default budget, but its circuit
    plays far faster than the prover: the upgrade, which costs no start-up, takes a larger budget, and
    grounds in a child process (in the player's process, Python ran for every ground rule and the
    search thread got moves late for two minutes)."""
    from ggp.reasoner import isolation, upgrade
    from ggp.reasoner.circuit import machine as circuit_machine

    assert DEFAULT_BUDGET.cpu_seconds < upgrade.UPGRADE_CPU_SECONDS
    calls: list[tuple[str, int]] = []
    real = isolation.run_isolated

    def spy(function: Callable[..., object], args: tuple[object, ...], **kwargs: Any) -> object:
        calls.append((function.__name__, args[1]))  # type: ignore[arg-type]
        return real(function, args, **kwargs)

    monkeypatch.setattr(isolation, "run_isolated", spy)
    monkeypatch.setattr(upgrade, "_BUILDS", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no circuit kept on disk by an earlier run
    description = load_kif(TIC_TAC_TOE)
    machine = playing_machine(description, "auto")
    assert isinstance(machine, UpgradingMachine) and machine.wait(120) and machine.upgraded
    assert isinstance(machine.current, CircuitStateMachine)
    assert calls == [("circuit_in_child", circuit_machine.DEFAULT_MAX_NODES)]
    state = machine.initial_state()
    assert machine.legal_moves(state, machine.roles[0]) == ClingoStateMachine(description, LOCAL).legal_moves(
        state, machine.roles[0])
    again = playing_machine(description, "auto")  # the next match of the game: the same circuit, no build
    assert isinstance(again, UpgradingMachine) and again.wait(10) and again.current is machine.current
    assert len(calls) == 1
    caplog.set_level(logging.INFO, logger="ggp.reasoner.upgrade")
    monkeypatch.setattr(upgrade, "_BUILDS", {})
    monkeypatch.setattr(upgrade, "UPGRADE_CPU_SECONDS", 0.001)  # a game over its budget stays on the quick machine
    machine = playing_machine(description, "auto")
    assert isinstance(machine, UpgradingMachine) and machine.wait(120) and not machine.upgraded
    assert "compiling the circuit exceeded its budget of 0.001 s of CPU" in caplog.text


def test_a_built_circuit_is_kept_on_disk_for_the_next_process_and_a_damaged_one_is_built_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """A new player process (a benchmark's next player, a tournament's next match of the game) loads the
    circuit at once instead of grounding it again (chineseCheckers3: 15-120 s, a whole match on the prover)."""
    from ggp.reasoner import isolation, upgrade

    calls: list[str] = []
    real = isolation.run_isolated

    def spy(function: Callable[..., object], args: tuple[object, ...], **kwargs: Any) -> object:
        calls.append(function.__name__)
        return real(function, args, **kwargs)

    monkeypatch.setattr(isolation, "run_isolated", spy)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    description = load_kif(TIC_TAC_TOE)
    path = upgrade.built_circuit_path(description)
    assert path.is_relative_to(tmp_path) and not path.exists()
    monkeypatch.setattr(upgrade, "_BUILDS", {})
    first = playing_machine(description, "auto")
    assert isinstance(first, UpgradingMachine) and first.wait(120) and first.upgraded
    assert calls == ["circuit_in_child"] and path.exists() and (path.parent.stat().st_mode & 0o777) == 0o700
    monkeypatch.setattr(upgrade, "_BUILDS", {})  # as in a new process
    second = playing_machine(description, "auto")
    assert isinstance(second, UpgradingMachine) and second.wait(120) and second.upgraded
    assert calls == ["circuit_in_child"]  # loaded, not built
    assert isinstance(first.current, CircuitStateMachine) and isinstance(second.current, CircuitStateMachine)
    assert second.current is not first.current and second.current.circuit == first.current.circuit
    path.write_bytes(b"not a pickle")
    monkeypatch.setattr(upgrade, "_BUILDS", {})
    third = playing_machine(description, "auto")
    assert isinstance(third, UpgradingMachine) and third.wait(120) and third.upgraded
    assert calls == ["circuit_in_child", "circuit_in_child"]
    other = load_kif(KIF_DIR / "connectFour" / "connectFour.kif")
    assert upgrade.built_circuit_path(other) != path


def test_the_circuit_plays_on_the_interpreter_while_its_c_compiles_then_on_the_compiled_c(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path,
) -> None:
    """gcc took 100 s at -O2 on cylinder-checkers' circuit, and the player lost that match on the prover: the
    game-independent interpreter answers as soon as the circuit is built, and a search tree grown on it is
    grown again on the compiled C when that is loaded. A library already in the cache is loaded at once."""
    from ggp.reasoner import upgrade
    from ggp.reasoner.circuit import evaluate, native_evaluator

    caplog.set_level(logging.INFO, logger="ggp.reasoner.upgrade")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # nothing compiled or built before
    monkeypatch.setattr(upgrade, "_BUILDS", {})
    gate = threading.Event()
    real = native_evaluator.CEvaluator

    def slow_compiler(*args: Any, **kwargs: Any) -> object:
        assert gate.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate, "CEvaluator", slow_compiler)
    description = load_kif(TIC_TAC_TOE)
    machine = playing_machine(description, "auto")
    assert isinstance(machine, UpgradingMachine) and machine.wait_upgraded(120) and machine.upgraded
    interpreted = machine.current
    assert isinstance(interpreted, CircuitStateMachine) and interpreted.evaluator.name == "interpreter"
    assert not machine.wait(0.2)  # the compiler is still running
    player = MctsPlayer(seed=0)
    player.start(machine, machine.roles[0], Budget(iterations=20))
    state = machine.initial_state()
    assert player.choose(state, Budget(iterations=20)) in machine.legal_moves(state, machine.roles[0])
    assert player._native_machine is interpreted
    gate.set()
    assert machine.wait(120) and isinstance(machine.current, CircuitStateMachine)
    assert machine.current is not interpreted and machine.current.evaluator.name == "c"
    assert player.choose(state, Budget(iterations=20)) in machine.legal_moves(state, machine.roles[0])
    assert player._native_machine is machine.current  # the tree was grown again on the compiled C
    assert "switched to the circuit engine on its interpreter evaluator" in caplog.text
    assert "switched to the circuit engine on its c evaluator (its faster form" in caplog.text
    caplog.clear()
    monkeypatch.setattr(upgrade, "_BUILDS", {})  # a new process: the circuit and its C are both kept on disk
    again = playing_machine(description, "auto")
    assert isinstance(again, UpgradingMachine) and again.wait(120) and isinstance(again.current, CircuitStateMachine)
    assert again.current.evaluator.name == "c"
    assert caplog.text.count("switched to the circuit engine") == 1


def test_a_failed_faster_form_keeps_the_first_built_machine(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ggp.reasoner.upgrade")
    description = load_kif(TIC_TAC_TOE)
    first = CircuitStateMachine(description, LOCAL, evaluator="interpreter")

    def failing() -> StateMachine:
        raise ReasonerError("gcc: out of memory")

    machine = UpgradingMachine(ClingoStateMachine(description, LOCAL), lambda: first, "circuit", "ttt", then=failing)
    assert machine.wait(60) and machine.upgraded and machine.current is first and machine.failure is None
    assert "stays on the circuit engine's first form; its faster form did not build: gcc: out of memory" in caplog.text


def test_the_docs_set_up_table_is_printed_from_its_committed_rows() -> None:
    from tests.helpers.benchmarks import load_benchmark

    bench = load_benchmark("setup_interpreter")
    root = Path(__file__).resolve().parents[3]
    rows = [json.loads(line) for line in (root / "benchmarks" / "data" / "setup_interpreter_2026-11-29.jsonl")
            .read_text().splitlines() if line.strip()]
    assert {row["first_engine"] for row in rows} == {"circuit (interpreter)"}
    assert all(row["first_s"] < row["final_s"] for row in rows)
    assert bench.table(rows) in (root / "docs" / "reasoner.md").read_text(encoding="utf-8")
