"""Recorded playouts (traces): load, replay against a StateMachine, and record.

The JSON format is the one of ``../shared/traces`` (recorded with ggp-base's prover)::

    {"game": "<key>.kif", "source": "...", "seed": 0, "roles": ["xplayer", "oplayer"],
     "playouts": [{"steps": [
        {"state": ["(cell 1 1 b)", ...], "terminal": false,
         "legal": [["(mark 1 1)", ...], ["noop"]], "does": ["(mark 1 1)", "noop"]},
        ...,
        {"state": [...], "terminal": true, "goals": [100, 0]}]}]}

A playout cut at the length limit ends with a non-terminal step without ``legal``/``does``. Terms
are compared by their canonical KIF text, with a zero-argument function ``(f)`` equal to ``f``.

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.reasoner.naive import NaiveStateMachine
>>> machine = NaiveStateMachine(parse_kif(
...     "(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)"))
>>> trace = record_trace(machine, playouts=1, seed=0, game="tiny.kif")
>>> replay_trace(machine, trace).summary()
'2/2 steps agree'
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggp.errors import GgpError, IllegalMoveError, InputError, ReasonerError
from ggp.gdl.parser import parse_term
from ggp.reasoner.machine import State, StateMachine
from ggp.reasoner.playouts import require_legal

MAX_TRACE_MOVES = 200
"""Playouts are cut after this many joint moves, as in the reference traces."""

_EMPTY_FUNC = re.compile(r"\(([^\s()]+)\)")


def normalize_term_text(text: str) -> str:
    """Canonical text for comparison: ``(f)`` (a zero-argument function) reads as ``f``."""
    return _EMPTY_FUNC.sub(r"\1", text)


def _folded(text: str) -> str:
    """Comparison text: the reference traces are lower-case KIF, and a game read with case-sensitive
    names (``parse_kif(..., case_sensitive=True)``) prints its names as written."""
    return normalize_term_text(text).lower()


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One recorded state: its fluents, terminal flag, and either the legal moves and joint move taken
    (non-terminal) or the goals (terminal); a cut playout's last step has neither."""

    state: tuple[str, ...]
    terminal: bool
    legal: tuple[tuple[str, ...], ...] | None = None
    does: tuple[str, ...] | None = None
    goals: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Trace:
    """A game's recorded playouts."""

    game: str
    roles: tuple[str, ...]
    playouts: tuple[tuple[TraceStep, ...], ...]
    source: str = ""
    seed: int | None = None

    @property
    def step_count(self) -> int:
        return sum(len(steps) for steps in self.playouts)


class TraceError(InputError):
    """A trace file that is not valid trace JSON."""


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TraceError(f"{what} must be a list of strings")
    return tuple(value)


def _step_from_json(data: Any, where: str) -> TraceStep:
    if not isinstance(data, dict):
        raise TraceError(f"{where}: a step must be an object")
    if not isinstance(data.get("terminal"), bool):
        raise TraceError(f"{where}: 'terminal' must be true or false")
    legal = None
    if "legal" in data:
        if not isinstance(data["legal"], list):
            raise TraceError(f"{where}: 'legal' must be a list of move lists")
        legal = tuple(_strings(moves, f"{where}: 'legal'") for moves in data["legal"])
    goals = None
    if "goals" in data:
        raw = data["goals"]
        if not isinstance(raw, list) or not all(isinstance(g, int) and not isinstance(g, bool) for g in raw):
            raise TraceError(f"{where}: 'goals' must be a list of integers")
        goals = tuple(raw)
    return TraceStep(
        state=_strings(data.get("state"), f"{where}: 'state'"),
        terminal=data["terminal"],
        legal=legal,
        does=_strings(data["does"], f"{where}: 'does'") if "does" in data else None,
        goals=goals,
    )


def trace_from_json(data: Any, file: str = "<trace>") -> Trace:
    """A :class:`Trace` from parsed JSON; raises :class:`TraceError` naming the bad field."""
    if not isinstance(data, dict):
        raise TraceError(f"{file}: a trace must be a JSON object")
    if not isinstance(data.get("playouts"), list):
        raise TraceError(f"{file}: 'playouts' must be a list")
    playouts = []
    for p, playout in enumerate(data["playouts"]):
        if not isinstance(playout, dict) or not isinstance(playout.get("steps"), list):
            raise TraceError(f"{file}: playout {p + 1} must be an object with a 'steps' list")
        playouts.append(
            tuple(_step_from_json(step, f"{file}: playout {p + 1} step {s}") for s, step in enumerate(playout["steps"]))
        )
    seed = data.get("seed")
    return Trace(
        game=str(data.get("game", "")),
        roles=_strings(data.get("roles"), f"{file}: 'roles'"),
        playouts=tuple(playouts),
        source=str(data.get("source", "")),
        seed=seed if isinstance(seed, int) else None,
    )


def load_trace(path: Path) -> Trace:
    """Read a trace file; raises :class:`TraceError` (one line, with the file) for malformed JSON."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceError(f"{path}:{exc.lineno}:{exc.colno}: malformed trace JSON: {exc.msg}") from None
    return trace_from_json(data, str(path))


def trace_to_json(trace: Trace) -> dict[str, Any]:
    """The JSON object of a trace (the inverse of :func:`trace_from_json`)."""
    playouts = []
    for steps in trace.playouts:
        out = []
        for step in steps:
            item: dict[str, Any] = {"state": list(step.state), "terminal": step.terminal}
            if step.legal is not None:
                item["legal"] = [list(moves) for moves in step.legal]
            if step.does is not None:
                item["does"] = list(step.does)
            if step.goals is not None:
                item["goals"] = list(step.goals)
            out.append(item)
        playouts.append({"steps": out})
    data: dict[str, Any] = {"game": trace.game, "source": trace.source}
    if trace.seed is not None:
        data["seed"] = trace.seed
    data["roles"] = list(trace.roles)
    data["playouts"] = playouts
    return data


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """How a replay went: steps compared, steps that agreed, and the first disagreement (if any)."""

    total: int
    agreed: int
    disagreement: str | None = None

    @property
    def ok(self) -> bool:
        return self.disagreement is None and self.agreed == self.total

    def summary(self) -> str:
        text = f"{self.agreed}/{self.total} steps agree"
        return text if self.disagreement is None else f"{text}; first disagreement: {self.disagreement}"


def _diff(expected: Sequence[str], got: Sequence[str]) -> str:
    want = {_folded(x) for x in expected}
    have = {_folded(x) for x in got}
    missing = sorted(want - have)
    extra = sorted(have - want)
    return f"missing {missing}, extra {extra}"


def _same(expected: Sequence[str], got: Sequence[str]) -> bool:
    return {_folded(x) for x in expected} == {_folded(x) for x in got}


def replay_trace(machine: StateMachine, trace: Trace, *, max_playouts: int | None = None) -> ReplayResult:
    """Replay every playout's joint moves on ``machine`` and compare states, legal sets, terminal, goals.

    Stops at the first disagreement. Errors the machine raises while replaying (an illegal recorded
    move, a failed query) count as a disagreement rather than propagating.
    """
    roles = [str(role) for role in machine.roles]
    total = sum(len(steps) for steps in trace.playouts[:max_playouts])
    if [normalize_term_text(r) for r in roles] != [normalize_term_text(r) for r in trace.roles]:
        return ReplayResult(total, 0, f"roles {roles} differ from the trace's {list(trace.roles)}")
    agreed = 0
    for p, steps in enumerate(trace.playouts[:max_playouts]):
        where = f"playout {p + 1} start"
        try:
            state = machine.initial_state()
            for s, step in enumerate(steps):
                where = f"playout {p + 1} step {s}"
                problem = _compare_step(machine, state, step)
                if problem is not None:
                    return ReplayResult(total, agreed, f"{where}: {problem}")
                if step.terminal or step.does is None:
                    agreed += 1
                    break
                state = _next(machine, state, step.does)
                agreed += 1
        except (GgpError, ValueError) as exc:
            return ReplayResult(total, agreed, f"{where}: the engine failed: {exc}")
    return ReplayResult(total, agreed)


def _next(machine: StateMachine, state: State, does: Sequence[str]) -> State:
    """The successor after the trace's joint move; a move the machine spells with capitals (a game read
    case-sensitively) is found among the legal moves by its lower-case text."""
    moves = tuple(parse_term(move) for move in does)
    try:
        return machine.next_state(state, moves)
    except IllegalMoveError:
        spelled = []
        for role, move, text in zip(machine.roles, moves, does):
            legal = {_folded(str(m)): m for m in machine.legal_moves(state, role)}
            spelled.append(legal.get(_folded(text), move))
        if tuple(spelled) == moves:
            raise
        return machine.next_state(state, tuple(spelled))


def _compare_step(machine: StateMachine, state: State, step: TraceStep) -> str | None:
    got_state = state.sorted_texts()
    if not _same(step.state, got_state):
        return f"state differs: {_diff(step.state, got_state)}"
    terminal = machine.is_terminal(state)
    if terminal != step.terminal:
        return f"terminal is {terminal}, the trace says {step.terminal} in state {state}"
    if step.goals is not None:
        try:
            goals = machine.goals(state)
        except ReasonerError as exc:
            return f"goals failed ({exc}), the trace says {list(step.goals)}"
        if tuple(goals) != step.goals:
            return f"goals are {list(goals)}, the trace says {list(step.goals)} in state {state}"
    if step.legal is not None:
        for role, expected in zip(machine.roles, step.legal):
            got = [str(move) for move in machine.legal_moves(state, role)]
            if not _same(expected, got):
                return f"legal moves of {role} differ: {_diff(expected, got)} in state {state}"
    return None


def record_trace(
    machine: StateMachine,
    *,
    playouts: int,
    seed: int = 0,
    game: str = "",
    source: str = "ggp clingo reasoner",
    max_moves: int = MAX_TRACE_MOVES,
) -> Trace:
    """Record seeded uniformly random playouts (each cut after ``max_moves`` joint moves)."""
    rng = random.Random(seed)
    recorded = []
    for _ in range(playouts):
        state = machine.initial_state()
        steps = []
        for _ in range(max_moves + 1):
            texts = tuple(state.sorted_texts())
            if machine.is_terminal(state):
                steps.append(TraceStep(texts, True, goals=tuple(machine.goals(state))))
                break
            if len(steps) == max_moves:
                steps.append(TraceStep(texts, False))
                break
            legal = [require_legal(machine, state, role, len(steps)) for role in machine.roles]
            joint = tuple(rng.choice(moves) for moves in legal)
            steps.append(
                TraceStep(
                    texts,
                    False,
                    legal=tuple(tuple(sorted(str(m) for m in moves)) for moves in legal),
                    does=tuple(str(m) for m in joint),
                )
            )
            state = machine.next_state(state, joint)
        recorded.append(tuple(steps))
    return Trace(game, tuple(str(r) for r in machine.roles), tuple(recorded), source, seed)


def trace_json_text(trace: Trace) -> str:
    """The trace as compact JSON text, one step per line (small diffs in version control)."""
    data = trace_to_json(trace)
    playouts = data.pop("playouts")
    head = json.dumps(data)[:-1]
    lines = [head + ', "playouts": [']
    for p, playout in enumerate(playouts):
        lines.append(' {"steps": [')
        steps = playout["steps"]
        for s, step in enumerate(steps):
            lines.append("  " + json.dumps(step) + ("," if s < len(steps) - 1 else ""))
        lines.append(" ]}" + ("," if p < len(playouts) - 1 else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"

