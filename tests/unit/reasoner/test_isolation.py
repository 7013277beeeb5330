"""The one isolated-child mechanism (ggp.reasoner.isolation): results, reports, limits and failures."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ggp.errors import ReasonerError
from ggp.reasoner.isolation import IsolationError, Report, grounding_error, run_isolated
from tests.conftest import KIF_DIR

REPO = Path(__file__).resolve().parents[3]


def phases(count: int, report: Report) -> str:
    for index in range(count):
        report(f"phase {index}")
    return "finished"


def sleeps(seconds: float) -> None:
    time.sleep(seconds)


def exits() -> None:
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


def test_a_child_that_dies_is_reported_as_died() -> None:
    with pytest.raises(IsolationError) as info:
        run_isolated(exits, (), seconds=60, memory_mb=1024)
    assert info.value.kind == "died" and "exit status 3" in info.value.detail


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
