"""The one isolated-child mechanism (ggp.reasoner.isolation): results, reports, limits and failures."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ggp.errors import ReasonerError
from ggp.reasoner.isolation import IsolationError, Report, Worker, grounding_error, run_isolated
from tests.conftest import KIF_DIR

REPO = Path(__file__).resolve().parents[3]


def phases(count: int, report: Report) -> str:
    for index in range(count):
        report(f"phase {index}")
    return "finished"


def sleeps(seconds: float) -> None:
    time.sleep(seconds)


def spins() -> None:
    while True:
        pass


def exits() -> None:
    sys.stderr.write("fatal: the reason\n")
    sys.stderr.flush()
    os._exit(3)


def allocates(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def raises() -> None:
    raise ValueError("bad rules")


def test_the_child_returns_the_result_and_reports_progress_in_order() -> None:
    seen: list[object] = []
    assert run_isolated(phases, (3,), seconds=60, memory_mb=1024, on_report=seen.append) == "finished"
    assert seen == ["phase 0", "phase 1", "phase 2"]


def test_a_child_past_its_time_limit_is_killed() -> None:
    with pytest.raises(IsolationError) as info:
        run_isolated(sleeps, (60.0,), seconds=0.5, memory_mb=1024)
    assert info.value.kind == "timeout"


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_CPU is enforced as tested only on Linux")
def test_a_child_past_its_cpu_time_limit_is_stopped_by_the_kernel_before_its_wall_clock_limit() -> None:
    with pytest.raises(IsolationError) as info:
        run_isolated(spins, (), seconds=300, memory_mb=1024, cpu_seconds=0.5)
    assert info.value.kind == "cpu"


def test_a_child_that_dies_is_reported_as_died() -> None:
    with pytest.raises(IsolationError) as info:
        run_isolated(exits, (), seconds=60, memory_mb=1024)
    assert info.value.kind == "died" and info.value.detail == "exit status 3: fatal: the reason"


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced as tested only on Linux")
def test_a_child_over_its_memory_limit_fails_with_the_limit_named() -> None:
    with pytest.raises(IsolationError) as info:
        run_isolated(allocates, (2048,), seconds=60, memory_mb=512)
    assert info.value.kind in ("failed", "died")
    if info.value.kind == "failed":
        assert info.value.detail == "ran out of the 512 MB memory limit"


def test_an_exception_in_the_child_comes_back_as_one_line() -> None:
    with pytest.raises(IsolationError) as info:
        run_isolated(raises, (), seconds=60, memory_mb=1024)
    assert info.value.kind == "failed" and info.value.detail == "ValueError: bad rules"


def test_grounding_errors_name_the_file_the_phase_and_the_limit() -> None:
    timeout = grounding_error("g.kif", "main", IsolationError("timeout", "x"), 2.5, 100)
    died = grounding_error("g.kif", "domain", IsolationError("died", "exit status -9"), 2.5, 100)
    failed = grounding_error("g.kif", "static", IsolationError("failed", "ran out of memory"), 2.5, 100)
    assert isinstance(timeout, ReasonerError)
    assert str(timeout) == "g.kif: grounding phase 'main' exceeded the time limit of 2.5 s"
    assert "grounding phase 'domain' failed (the grounder process died, likely over the 100 MB" in str(died)
    assert str(failed) == "g.kif: ran out of memory (grounding phase 'static')"


def test_a_plain_script_without_a_main_guard_can_build_an_isolated_machine(tmp_path: Path) -> None:
    # spawn-based children re-ran such a script (and its grounder, again and again) before.
    script = tmp_path / "plain.py"
    script.write_text(
        "from ggp.files import load_kif\n"
        "from ggp.reasoner.clingo_machine import ClingoStateMachine, GroundingLimits\n"
        f"machine = ClingoStateMachine(load_kif({str(KIF_DIR / 'ticTacToe' / 'ticTacToe.kif')!r}), GroundingLimits())\n"
        "print('ran', len(machine.legal_moves(machine.initial_state(), machine.roles[0])))\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("ran") == 1 and "ran 9" in done.stdout


# --- the long-lived Worker ---------------------------------------------------------------------

_KEPT: list[int] = []


def remember(value: int) -> list[int]:
    """Keeps state in the worker's own module globals between calls."""
    _KEPT.append(value)
    return list(_KEPT)


def fails() -> None:
    raise ValueError("bad value")


async def test_a_worker_keeps_its_state_between_calls_and_survives_a_failing_one() -> None:
    worker = Worker(memory_mb=512)
    try:
        assert await worker.call(remember, (1,), 30) == [1]
        with pytest.raises(IsolationError) as failed:
            await worker.call(fails, (), 30)
        assert failed.value.kind == "failed" and failed.value.detail == "ValueError: bad value"
        assert await worker.call(remember, (2,), 30) == [1, 2]
        assert worker.alive and worker.memory_bytes() is not None
    finally:
        await worker.close()


async def test_a_worker_over_its_time_or_memory_limit_is_killed_and_refuses_further_calls() -> None:
    slow = Worker(memory_mb=512)
    try:
        await slow.call(remember, (1,), 30)  # started: the time limit below covers only the call
        with pytest.raises(IsolationError) as late:
            await slow.call(sleeps, (30,), 0.5)
        assert late.value.kind == "timeout" and not slow.alive
        with pytest.raises(IsolationError) as stopped:
            await slow.call(remember, (2,), 30)
        assert stopped.value.kind == "stopped"
    finally:
        await slow.close()
    greedy = Worker(memory_mb=512)
    try:
        with pytest.raises(IsolationError) as hungry:
            await greedy.call(allocates, (2048,), 30)
        assert hungry.value.kind == "memory" and "512 MB" in hungry.value.detail and not greedy.alive
    finally:
        await greedy.close()


async def test_a_cancelled_caller_does_not_leave_its_answer_to_the_next_one() -> None:
    worker = Worker(memory_mb=512)
    try:
        waiting = asyncio.create_task(worker.call(sleeps, (0.5,), 30))
        await asyncio.sleep(0.2)
        waiting.cancel()
        assert await worker.call(remember, (7,), 30) == [7]
    finally:
        await worker.close()
