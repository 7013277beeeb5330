"""The prover's tabled top-down resolution: call tables, indexed facts and the solver that fills them.

A :class:`_Solver` evaluates calls against one state (and optionally one joint move), tabling each
call's ground answers and iterating the leader of a recursive cycle until no table grows (the module
docstring of :mod:`ggp.reasoner.prover` describes the method). It raises :class:`_Budget` when a
query goes over its limits; :class:`~ggp.reasoner.prover.ProverMachine` turns that into a
:class:`~ggp.errors.ReasonerError`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Protocol

from ggp.errors import ReasonerError
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.prover_rules import _CALL, _DISTINCT, _DOES, _NOT, _STATIC, _TRUE, _Program, _Rule
from ggp.reasoner.prover_terms import _T, _canon, _head_match, _is_ground, _match, _relation, _subst, _to_term, _Var, _vars_of

_CHECK_EVERY = 20_000  # candidate answers tried between two looks at the clock


class _Entry:
    """One call's table: its ground answers (in the order found) and whether that list is final."""

    __slots__ = ("answers", "call", "complete", "depth", "nvars", "seen")

    def __init__(self, call: _T, nvars: int) -> None:
        self.call = call
        self.nvars = nvars  # the call's variables are the canonical 0 .. nvars - 1
        self.answers: list[_T] = []
        self.seen: set[_T] = set()
        self.complete = False
        self.depth = -1  # position on the evaluation stack while being evaluated


class _Budget(Exception):
    """Raised inside a query that went over its limits (turned into a ReasonerError outside)."""


class _Tables:
    """The tables of one state (state-dependent relations) or one joint move."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: dict[_T, _Entry] = {}


class _Facts:
    """Ground facts (a state's fluents or a joint move) indexed by name and by name and first argument."""

    __slots__ = ("all", "by_first", "by_name")

    def __init__(self, facts: Sequence[_T]) -> None:
        self.all = list(facts)
        self.by_name: dict[str, list[_T]] = {}
        self.by_first: dict[tuple[str, _T], list[_T]] = {}
        for fact in facts:
            name = fact if type(fact) is str else fact[0]
            self.by_name.setdefault(name, []).append(fact)
            if type(fact) is tuple and len(fact) > 1:
                self.by_first.setdefault((fact[0], fact[1]), []).append(fact)

    def candidates(self, pattern: _T, env: list[_T | None]) -> list[_T]:
        if type(pattern) is _Var:  # (true ?x)
            value = env[pattern.i]
            if value is None:
                return self.all
            pattern = value
        if type(pattern) is str:
            return self.by_name.get(pattern, [])
        if len(pattern) > 1:
            first = pattern[1]
            if type(first) is _Var:
                first = env[first.i]
            if first is not None and (type(first) is str or _is_ground(first)):
                return self.by_first.get((pattern[0], first), [])
        return self.by_name.get(pattern[0], [])


class _Game(Protocol):
    """What a solver reads from its machine (a :class:`~ggp.reasoner.prover.ProverMachine`): the compiled
    rules, the game-long tables of the static relations and the limits of a query."""

    program: _Program
    static_tables: _Tables
    limits: GroundingLimits


class _Solver:
    """Evaluates calls against one state (and optionally one joint move) with the game-long static tables."""

    def __init__(self, machine: _Game, state: _Facts, state_tables: _Tables,
                 does: _Facts | None, move_tables: _Tables | None) -> None:
        self.program = machine.program
        self.static = machine.static_tables
        self.tables = (machine.static_tables, state_tables, move_tables)
        self.state = state
        self.does = does
        self.stack: list[_Entry] = []
        self.pending: list[_Entry] = []
        self.low = sys.maxsize
        self.added = 0
        self.steps = 0  # candidate answers tried: the measure of work the time limit is checked by
        self.next_check = _CHECK_EVERY
        self.max_answers = machine.limits.max_atoms
        self.started = time.monotonic()
        self.deadline = self.started + machine.limits.seconds

    def ask(self, goal: _T, tier: int) -> list[_T]:
        """The ground answers of ``goal`` (a pattern with canonical variables)."""
        entry = self.solve(goal, tier, len(_vars_of(goal)))
        if not entry.complete:  # pragma: no cover - a top-level call has nothing below it
            raise AssertionError("a top-level call did not complete")
        return entry.answers

    def solve(self, call: _T, tier: int, nvars: int) -> _Entry:
        tables = self.tables[tier]
        if tables is None:
            raise ReasonerError(f"{self.program.file}: {call} depends on does outside a next query")
        entry = tables.entries.get(call)
        if entry is not None:
            if entry.complete:
                return entry
            if entry.depth >= 0:  # a recursive call: the answers so far; the cycle's leader iterates
                if entry.depth < self.low:
                    self.low = entry.depth
                return entry
        else:
            entry = tables.entries[call] = _Entry(call, nvars)
        depth = len(self.stack)
        self.stack.append(entry)
        entry.depth = depth
        outer_low = self.low
        pending_mark = len(self.pending)
        ground = _is_ground(call)
        rules = self.program.rules.get(_relation(call), ())
        while True:
            self.low = sys.maxsize
            before = self.added
            for rule in rules:
                env: list[_T | None] = [None] * rule.nvars
                if _head_match(rule.head, call, env) and self._body(rule, 0, env, entry, ground):
                    break
            if ground and entry.answers:
                # A ground call with its answer is final whatever it consumed. The calls of its cycle
                # that consumed it while it had no answer yet are not: they stay incomplete (evaluated
                # again when next asked), never marked complete by a leader further down.
                del self.pending[pending_mark:]
                self.low = sys.maxsize
                break
            if self.low != depth or self.added == before:
                break
        self.stack.pop()
        entry.depth = -1
        if self.low < depth:  # part of a cycle led further down: final once the leader is
            self.pending.append(entry)
            self.low = min(outer_low, self.low)
            return entry
        entry.complete = True
        for member in self.pending[pending_mark:]:
            member.complete = True
        del self.pending[pending_mark:]
        self.low = outer_low
        return entry

    def _body(self, rule: _Rule, i: int, env: list[_T | None], entry: _Entry, ground: bool) -> bool:
        """Run ``rule``'s body from literal ``i`` under ``env``, adding head instances to ``entry``;
        True once a ground call has its answer (nothing more to find)."""
        body = rule.body
        n = len(body)
        while i < n:
            kind, pattern, sub, right = body[i]
            if kind == _DISTINCT:
                left_value, right_value = _subst(pattern, env), _subst(right, env)
                if left_value is None or right_value is None:
                    raise ReasonerError(f"{self.program.file}: unbound variable in a distinct of {rule.text}")
                if left_value == right_value:
                    return False
                i += 1
            elif kind == _NOT:
                value = _subst(pattern, env)
                if value is None:
                    raise ReasonerError(f"{self.program.file}: unbound variable under not in {rule.text}")
                if self._holds(value, sub, rule):
                    return False
                i += 1
            else:
                break
        if i == n:
            answer = _subst(rule.head, env)
            if answer is None:
                raise ReasonerError(f"{self.program.file}: a head variable is unbound in {rule.text}")
            if answer not in entry.seen and (ground or _match(entry.call, answer, [None] * entry.nvars)):
                entry.seen.add(answer)
                entry.answers.append(answer)
                self.added += 1
                if self.added > self.max_answers:
                    raise _Budget(f"more than {self.max_answers:,} answers")
                return ground
            return False
        kind, pattern, tier, _ = body[i]
        if kind == _CALL:
            seen: dict[int, _Var] = {}
            sub_entry = self.solve(_canon(pattern, env, seen), tier, len(seen))
            candidates = sub_entry.answers if sub_entry.complete else list(sub_entry.answers)
        elif kind == _TRUE:
            candidates = self.state.candidates(pattern, env)
        else:
            if self.does is None:
                raise ReasonerError(f"{self.program.file}: does is asked outside a next query in {rule.text}")
            candidates = self.does.candidates(pattern, env)
        self.steps += len(candidates)
        if self.steps > self.next_check:
            self.next_check = self.steps + _CHECK_EVERY
            if time.monotonic() > self.deadline:
                raise _Budget(f"{time.monotonic() - self.started:.1f} s")
        for candidate in candidates:
            bound = env.copy()
            if _match(pattern, candidate, bound) and self._body(rule, i + 1, bound, entry, ground):
                return True
        return False

    def _holds(self, atom: _T, kind: int, rule: _Rule) -> bool:
        if kind == _TRUE:
            return any(fact == atom for fact in self.state.candidates(atom, []))
        if kind == _DOES:
            if self.does is None:
                raise ReasonerError(f"{self.program.file}: does is asked outside a next query in {rule.text}")
            return any(fact == atom for fact in self.does.candidates(atom, []))
        relation = _relation(atom)
        entry = self.solve(atom, self.program.tier.get(relation, _STATIC), 0)
        if not entry.complete:
            raise ReasonerError(
                f"{self.program.file}: {_to_term(atom)} depends on its own negation (in {rule.text})"
            )
        return bool(entry.answers)
