"""Trace files: strict loading, record/replay round trips, and replay reporting the first disagreement."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from ggp.gdl.parser import parse_kif
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.traces import (
    TraceError,
    TraceStep,
    load_trace,
    normalize_term_text,
    record_trace,
    replay_trace,
    trace_from_json,
    trace_json_text,
)

GAME = """
(role a) (role b)
(init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal a (add ?n)) (true (count ?c)) (succ ?c ?n))
(<= (legal a wait) (true (count ?c)))
(legal b noop) (legal b pass)
(<= (next (count ?n)) (does a (add ?n)))
(<= (next (count ?c)) (does a wait) (true (count ?c)))
(<= terminal (true (count 3)))
(<= (goal a 100) (true (count 3))) (<= (goal a 0) (not (true (count 3))))
(goal b 0)
"""


@pytest.fixture(scope="module")
def machine() -> ClingoStateMachine:
    return ClingoStateMachine(parse_kif(GAME, "count.kif"), GroundingLimits(isolate=False))


def test_a_recorded_trace_replays_on_the_same_machine(machine: ClingoStateMachine, tmp_path: Path) -> None:
    trace = record_trace(machine, playouts=3, seed=4, game="count.kif")
    path = tmp_path / "count.json"
    path.write_text(trace_json_text(trace))
    loaded = load_trace(path)
    assert loaded == trace
    result = replay_trace(machine, loaded)
    assert result.ok and result.summary() == f"{trace.step_count}/{trace.step_count} steps agree"
    assert all(steps[-1].terminal and steps[-1].goals == (100, 0) for steps in trace.playouts)


def test_recording_cuts_playouts_at_the_move_limit(machine: ClingoStateMachine) -> None:
    trace = record_trace(machine, playouts=2, seed=0, max_moves=1)
    for steps in trace.playouts:
        assert len(steps) == 2
        assert not steps[-1].terminal and steps[-1].legal is None and steps[-1].does is None


def _tamper(trace_step: TraceStep, **changes: object) -> TraceStep:
    return dataclasses.replace(trace_step, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"state": ("(count 7)",)}, r"playout 1 step 1: state differs: missing \['\(count 7\)'\]"),
        ({"terminal": True}, "playout 1 step 1: terminal is False, the trace says True"),
        ({"legal": (("wait",), ("noop", "pass"))}, "playout 1 step 1: legal moves of a differ"),
        ({"does": ("(add 3)", "noop")}, "playout 1 step 1: the engine failed: .*not a legal move for a"),
    ],
)
def test_replay_reports_the_first_disagreement(machine: ClingoStateMachine, change: dict[str, object],
                                               expected: str) -> None:
    trace = record_trace(machine, playouts=1, seed=1)
    steps = list(trace.playouts[0])
    steps[1] = _tamper(steps[1], **change)
    result = replay_trace(machine, dataclasses.replace(trace, playouts=(tuple(steps),)))
    assert not result.ok
    assert result.agreed == 1
    assert result.disagreement is not None


    assert re.search(expected, result.disagreement), result.disagreement


def test_replay_compares_goals_in_terminal_states(machine: ClingoStateMachine) -> None:
    trace = record_trace(machine, playouts=1, seed=2)
    steps = list(trace.playouts[0])
    steps[-1] = _tamper(steps[-1], goals=(0, 100))
    result = replay_trace(machine, dataclasses.replace(trace, playouts=(tuple(steps),)))
    assert result.disagreement is not None and "goals are [100, 0], the trace says [0, 100]" in result.disagreement


def test_replay_refuses_a_trace_of_other_roles(machine: ClingoStateMachine) -> None:
    trace = dataclasses.replace(record_trace(machine, playouts=1), roles=("x", "y"))
    assert "roles ['a', 'b'] differ" in (replay_trace(machine, trace).disagreement or "")


def test_a_zero_argument_function_equals_the_constant() -> None:
    assert normalize_term_text("(game1overlock)") == "game1overlock"
    assert normalize_term_text("(cell (f) 1)") == "(cell f 1)"
    assert normalize_term_text("(cell 1 2)") == "(cell 1 2)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 2]", "a trace must be a JSON object"),
        ('{"roles": ["a"]}', "'playouts' must be a list"),
        ('{"roles": ["a"], "playouts": [{"steps": [{"state": []}]}]}', "playout 1 step 0: 'terminal' must be"),
        ('{"roles": ["a"], "playouts": [{"steps": [{"state": [1], "terminal": false}]}]}', "'state' must be a list of strings"),
        ('{"roles": ["a"], "playouts": [{"steps": [{"state": [], "terminal": true, "goals": ["x"]}]}]}',
         "'goals' must be a list of integers"),
        ('{"playouts": []}', "'roles' must be a list of strings"),
    ],
)
def test_malformed_trace_json_is_one_clear_error(text: str, expected: str) -> None:
    with pytest.raises(TraceError, match=expected):
        trace_from_json(json.loads(text), "t.json")


def test_invalid_json_text_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"roles": [\n  oops]}')
    with pytest.raises(TraceError, match=r"bad\.json:2:3: malformed trace JSON"):
        load_trace(path)
