"""Simulation checks (GDL spec §6.3): seeded random playouts that sample a game's dynamic properties.

Checks and their ids (``Finding.check``):

- ``S1-termination`` (error): every playout reaches a terminal state within ``depth`` joint moves.
- ``S2-playability`` (error): every role has a legal move in every reached non-terminal state.
- ``S3-goals`` (error): every role has exactly one integer goal in every reached terminal state; a value
  outside 0..100 is a warning (an error with ``strict``).
- ``S4-transition`` (error): computing the next state never fails.
- ``S4b-empty-init`` (warning): the initial state has no fluent.
- ``S5-base`` / ``S6-input`` (error, only when the game defines ``base`` / ``input``): every reached fluent
  is in the base set; every reached legal move is in the role's input set.
- ``S7-winnability`` (warning): some playout gave the role 100 (the GDL-II nature role ``random`` is skipped).
- ``S8-constant-sum`` (warning, two-player games): the goal sum is the same in every reached terminal state.
- ``grounding`` (error): the reasoner could not ground the game; the message names the phase.

Each check is reported once, at its first occurrence, with how often it happened. The description
is expected to have passed the static validator (``ggp validate`` runs it first); an unstratified
game gives unreliable answers here.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= (next t) (true s))"
...                  "(<= terminal (true t)) (goal a 50)")
>>> for finding in simulate_checks(game, playouts=2, engine="naive"):
...     print(finding)
warning[S7-winnability]: role a never scored 100 in 2 random playouts (best 50)
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from ggp.errors import GgpError, ReasonerError
from ggp.gdl.terms import Description, Term
from ggp.gdl.validator import Finding, Severity
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import GoalValueMachine, GroundingLimits, Role, State, StateMachine
from ggp.reasoner.relations import static_relation


@dataclass(slots=True)
class _Report:
    """First occurrence and count of each (severity, check, key) problem."""

    first: dict[tuple[Severity, str, str], str] = field(default_factory=dict)
    counts: Counter[tuple[Severity, str, str]] = field(default_factory=Counter)

    def add(self, severity: Severity, check: str, message: str, key: str = "") -> None:
        slot = (severity, check, key)
        self.counts[slot] += 1
        self.first.setdefault(slot, message)

    def findings(self) -> list[Finding]:
        out = []
        for slot, message in self.first.items():
            count = self.counts[slot]
            suffix = f" ({count} times)" if count > 1 else ""
            out.append(Finding(slot[0], slot[1], message + suffix))
        out.sort(key=lambda f: (f.severity != "error", f.check))
        return out


def _defines(description: Description, name: str) -> bool:
    return any(rule.head.name == name for rule in description.rules)


def _goal_values(machine: StateMachine, state: State) -> tuple[tuple[Term, ...], ...] | None:
    return machine.goal_values(state) if isinstance(machine, GoalValueMachine) else None


def _check_goals(
    machine: StateMachine, state: State, where: str, strict: bool, report: _Report
) -> tuple[int, ...] | None:
    """S3 for one terminal state; the goals when every role has exactly one integer value."""
    raw = _goal_values(machine, state)
    if raw is None:
        try:
            goals = machine.goals(state)
        except GgpError as exc:
            report.add("error", "S3-goals", f"{where}: {exc}")
            return None
    else:
        goals_list = []
        for role, values in zip(machine.roles, raw):
            if len(values) != 1:
                shown = ", ".join(sorted(str(v) for v in values)) or "none"
                report.add("error", "S3-goals",
                           f"{where}: role {role} has {len(values)} goal values ({shown}) in terminal state {state}",
                           str(role))
                return None
            try:
                goals_list.append(int(str(values[0])))
            except ValueError:
                report.add("error", "S3-goals", f"{where}: goal value {values[0]!s} of role {role} is not an integer",
                           str(role))
                return None
        goals = tuple(goals_list)
    for role, value in zip(machine.roles, goals):
        if not 0 <= value <= 100:
            report.add("error" if strict else "warning", "S3-goals",
                       f"{where}: goal value {value} of role {role} is outside 0..100", str(role))
    return goals


def _playout(
    machine: StateMachine,
    rng: random.Random,
    depth: int,
    where_prefix: str,
    strict: bool,
    base: frozenset[Term] | None,
    inputs: dict[Role, frozenset[Term]] | None,
    report: _Report,
) -> tuple[int, ...] | None:
    """One random playout with all per-state checks; the terminal goals when it ended cleanly."""
    state = machine.initial_state()
    roles = machine.roles
    for step in range(depth + 1):
        where = f"{where_prefix} step {step}"
        if base is not None:
            for fact in state.facts:
                if fact not in base:
                    report.add("error", "S5-base", f"{where}: fluent {fact} is not in the base set", str(fact))
        if machine.is_terminal(state):
            return _check_goals(machine, state, where, strict, report)
        if step == depth:
            report.add("error", "S1-termination",
                       f"{where_prefix}: depth bound hit: no terminal state within {depth} steps")
            return None
        legal = [machine.legal_moves(state, role) for role in roles]
        for role, moves in zip(roles, legal):
            if not moves:
                report.add("error", "S2-playability",
                           f"{where}: role {role} has no legal move in non-terminal state {state}", str(role))
            if inputs is not None:
                allowed = inputs.get(role, frozenset())
                for move in moves:
                    if move not in allowed:
                        report.add("error", "S6-input",
                                   f"{where}: legal move {move} of role {role} is not in its input set",
                                   f"{role} {move}")
        if not all(legal):
            return None
        joint = tuple(rng.choice(moves) for moves in legal)
        try:
            state = machine.next_state(state, joint)
        except GgpError as exc:
            report.add("error", "S4-transition", f"{where}: next state failed after {[str(m) for m in joint]}: {exc}")
            return None
    return None  # pragma: no cover - the loop returns at step == depth


def _base_and_inputs(
    description: Description, max_atoms: int
) -> tuple[frozenset[Term] | None, dict[Role, frozenset[Term]] | None]:
    base = None
    if _defines(description, "base"):
        base = frozenset(args[0] for args in static_relation(description, "base", 1, max_atoms))
    inputs = None
    if _defines(description, "input"):
        grouped: dict[Role, set[Term]] = {}
        for role, move in static_relation(description, "input", 2, max_atoms):
            grouped.setdefault(role, set()).add(move)
        inputs = {role: frozenset(moves) for role, moves in grouped.items()}
    return base, inputs


@dataclass(slots=True)
class PlayoutCount:
    """What :func:`simulate_checks` played: playouts started, and those that failed (an error ended them
    before a terminal state's goals were read: S1, S2, S3, S4)."""

    played: int = 0
    failed: int = 0


def simulate_checks(
    description: Description,
    *,
    playouts: int,
    depth: int = 1000,
    seed: int = 0,
    strict: bool = False,
    engine: str = "clingo",
    limits: GroundingLimits | None = None,
    counts: PlayoutCount | None = None,
) -> list[Finding]:
    """Run ``playouts`` seeded random playouts (at most ``depth`` joint moves each) and return the findings;
    ``counts``, when given, is filled with how many were played and failed.

    Errors come first. A game the reasoner cannot ground yields one ``grounding`` error naming the
    phase instead of raising (no playout is played).
    """
    counts = counts if counts is not None else PlayoutCount()
    report = _Report()
    try:
        machine = make_machine(description, engine, limits, validate=False)
        base, inputs = _base_and_inputs(description, (limits or GroundingLimits()).max_atoms)
    except ReasonerError as exc:
        message = str(exc)
        prefix = f"{description.file}: "  # the finding is printed after the file name already
        return [Finding("error", "grounding", message[len(prefix):] if message.startswith(prefix) else message)]
    try:
        initial = machine.initial_state()
    except GgpError as exc:
        return [Finding("error", "S4-transition", f"computing the initial state failed: {exc}")]
    if not initial.facts:
        report.add("warning", "S4b-empty-init", "the initial state is empty (no init facts hold)")
    rng = random.Random(seed)
    results: list[tuple[int, ...]] = []
    for playout in range(playouts):
        try:
            goals = _playout(machine, rng, depth, f"playout {playout + 1}", strict, base, inputs, report)
        except GgpError as exc:
            report.add("error", "S4-transition", f"playout {playout + 1}: the reasoner failed: {exc}")
            goals = None
        counts.played += 1
        if goals is not None:
            results.append(goals)
        else:
            counts.failed += 1
    if results:
        # GDL-II's nature role ``random`` plays no strategy, so winnability and sums ignore it.
        players = [(index, role) for index, role in enumerate(machine.roles) if str(role) != "random"]
        for index, role in players:
            best = max(goals[index] for goals in results)
            if best != 100:
                report.add("warning", "S7-winnability",
                           f"role {role} never scored 100 in {playouts} random playouts (best {best})", str(role))
        sums = sorted({sum(goals[index] for index, _ in players) for goals in results})
        if len(players) == 2 and len(sums) > 1:
            report.add("warning", "S8-constant-sum",
                       f"the goal sum differs between terminal states: {', '.join(map(str, sums))}")
    return report.findings()

