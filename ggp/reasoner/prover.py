"""ProverMachine: answer each query top-down, by tabled SLD resolution, instead of grounding.

The ground-once and per-state engines enumerate relations bottom-up: every instance a rule can derive.
Some games define relations whose bottom-up extension is astronomically large although a query needs a
handful of instances: laikLee_hex's ``isList`` (every list of up to 25 cell ids), merrills'
``count_loop`` (stone counts carried along the 24 pits), gt_two_thirds_4p's ``total`` (101^4 sums of
guesses once ``true`` is open), mummymaze1p's static geometry (millions of atoms). A goal-directed
evaluation only visits the instances a query reaches, which is how ggp-base's prover plays them.

How a query is answered:

- A *call* is an atom with the caller's bindings applied; its free variables are renamed in order of
  appearance (a *variant*), which keys a table of its ground answers (GDL's safety makes every
  answer ground). A rule is tried when its head fits the call's ground parts; its body runs left to
  right, ``not`` and ``distinct`` moved to the first place where their variables are bound, ``or``
  expanded into one rule per disjunct at start-up.
- Recursion is tabled: a call that is already being evaluated further up the stack gets the answers
  found so far, and the lowest call of such a cycle (its leader) evaluates again until no table grows;
  then every call of the cycle is complete. Negation as failure asks a ground call that must be
  complete (a negative cycle is a :class:`ReasonerError`). A ground call stops at its first answer.
- Tables live as long as what they depend on: relations that use neither ``true`` nor ``does`` are
  tabled for the whole game (up to :data:`STATIC_TABLE_ANSWERS` answers, then started afresh),
  relations of ``true`` for the state (the last :data:`STATE_TABLES` states keep theirs), and relations
  of ``does`` for one ``next`` query.

Each query is bounded by ``limits.max_atoms`` answers and ``limits.seconds`` of work (and by
:data:`_RECURSION_LIMIT` nested calls)
(:class:`ReasonerError` beyond either), so a game whose queries explode fails with one line instead
of hanging. The answers are the same as the other engines' (the differential tests check them): legal
moves sorted by KIF text, ``goals`` raising :class:`ReasonerError` unless each role has exactly one
integer goal, GDL-II ``sees`` percepts, and :class:`IllegalMoveError` for an illegal joint move.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif('''(role a) (init (count 0)) (succ 0 1) (succ 1 2)
...   (<= (legal a step) (true (count ?n)) (succ ?n ?m))
...   (<= (next (count ?m)) (true (count ?n)) (succ ?n ?m))
...   (<= terminal (true (count 2))) (goal a 100)''')
>>> machine = ProverMachine(game)
>>> state = machine.next_state(machine.next_state(machine.initial_state(), (Const("step"),)), (Const("step"),))
>>> str(state), machine.is_terminal(state), machine.goals(state)
('(count 2)', True, (100,))
"""

from __future__ import annotations

import itertools
import logging
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeAlias

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.gdl.terms import Const, Description, Distinct, Func, Literal, Not, Or, Rule, Term, Var
from ggp.reasoner.machine import (
    GroundingLimits,
    JointMove,
    Move,
    Role,
    State,
    StateInfo,
    goals_from_values,
    joint_moves_product,
)

log = logging.getLogger(__name__)

STATIC_TABLE_ANSWERS = 500_000
"""Answers kept in the game-long tables of the static relations before they are started afresh."""

STATE_TABLES = 4
"""How many recent states keep the tables of their state-dependent relations."""

_RECURSION_LIMIT = 100_000
"""Python's recursion limit while a prover query runs: a recursion of depth d in the rules (a count chain,
a list) nests a few Python calls per level, and Python 3.11 runs Python-to-Python calls without growing
the C stack. It is restored when the last running query ends: C code that recurses on the C stack (the
json module on a body of 100,000 brackets) would crash the process under such a limit instead of raising
RecursionError."""

_DEEP_LOCK = threading.Lock()
_deep_queries = 0
_limit_before = 0


@contextmanager
def _deep_recursion() -> Iterator[None]:
    """Python's recursion limit at :data:`_RECURSION_LIMIT` while any thread runs a prover query."""
    global _deep_queries, _limit_before
    with _DEEP_LOCK:
        if _deep_queries == 0:
            _limit_before = sys.getrecursionlimit()
            sys.setrecursionlimit(_RECURSION_LIMIT)
        _deep_queries += 1
    try:
        yield
    finally:
        with _DEEP_LOCK:
            _deep_queries -= 1
            if _deep_queries == 0:
                sys.setrecursionlimit(_limit_before)


class _Var:
    """A variable of a compiled rule (or of a call pattern): an index into a binding list."""

    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i

    def __repr__(self) -> str:
        return f"_{self.i}"


_T: TypeAlias = Any
"""An internal term: a constant (``str``), ``(name, arg...)`` (a ``tuple``) or a :class:`_Var`; ``Any``
because the evaluation loops test ``type(t)`` directly, which is what keeps them fast."""
_CHECK_EVERY = 20_000  # candidate answers tried between two looks at the clock
_CANON: list[_Var] = [_Var(i) for i in range(64)]

# Literal kinds of a compiled body.
_CALL, _TRUE, _DOES, _NOT, _DISTINCT = range(5)
_STATIC, _STATE, _MOVE = range(3)  # how long a relation's tables live


def _canon_var(i: int) -> _Var:
    while i >= len(_CANON):
        _CANON.append(_Var(len(_CANON)))
    return _CANON[i]


def _is_ground(t: _T) -> bool:
    if type(t) is str:
        return True
    if type(t) is _Var:
        return False
    for a in t:  # noqa: SIM110 - a loop, not all(...): no generator on the hot path
        if type(a) is not str and not _is_ground(a):
            return False
    return True


def _subst(t: _T, env: list[_T | None]) -> _T | None:
    """``t`` with the bindings of ``env`` applied; None when a variable is unbound."""
    if type(t) is str:
        return t
    if type(t) is _Var:
        return env[t.i]
    out = []
    for a in t:
        if type(a) is not str:
            a = env[a.i] if type(a) is _Var else _subst(a, env)
            if a is None:
                return None
        out.append(a)
    return tuple(out)


def _canon(t: _T, env: list[_T | None], seen: dict[int, _Var]) -> _T:
    """``t`` with bound variables replaced by their values and the free ones renamed in order of
    appearance: the variant of a call, the key of its table."""
    if type(t) is str:
        return t
    if type(t) is _Var:
        value = env[t.i]
        if value is not None:
            return value
        var = seen.get(t.i)
        if var is None:
            var = seen[t.i] = _canon_var(len(seen))
        return var
    out = []
    for a in t:
        ta = type(a)
        if ta is _Var:
            value = env[a.i]
            if value is None:
                value = seen.get(a.i)
                if value is None:
                    value = seen[a.i] = _canon_var(len(seen))
            a = value
        elif ta is tuple:
            a = _canon(a, env, seen)
        out.append(a)
    return tuple(out)


def _match(p: _T, g: _T, env: list[_T | None]) -> bool:
    """Bind the variables of pattern ``p`` so that it equals the ground term ``g`` (mutates ``env``).
    The first level of arguments is handled inline: most patterns are flat."""
    tp = type(p)
    same: bool
    if tp is str:
        same = p == g
        return same
    if tp is _Var:
        current = env[p.i]
        if current is None:
            env[p.i] = g
            return True
        same = current == g
        return same
    if type(g) is not tuple or len(g) != len(p):
        return False
    for a, b in zip(p, g):  # the name at index 0 is a str, compared like any constant
        ta = type(a)
        if ta is str:
            if a != b:
                return False
        elif ta is _Var:
            current = env[a.i]
            if current is None:
                env[a.i] = b
            elif current != b:
                return False
        elif not _match(a, b, env):
            return False
    return True


def _head_match(h: _T, c: _T, env: list[_T | None]) -> bool:
    """Whether rule head ``h`` can produce instances of call ``c``, binding the head's variables to the
    call's ground parts (a variable of the call, or a non-ground part under a head variable, is left
    open: the answers are filtered against the call afterwards)."""
    tc = type(c)
    if tc is _Var:
        return True
    th = type(h)
    same: bool
    if th is _Var:
        if _is_ground(c):
            current = env[h.i]
            if current is None:
                env[h.i] = c
                return True
            same = current == c
            return same
        return True
    if th is str:
        same = h == c
        return same
    if tc is not tuple or len(c) != len(h) or c[0] != h[0]:
        return False
    for a, b in zip(h[1:], c[1:]):  # noqa: SIM110 - as in _match
        if not _head_match(a, b, env):
            return False
    return True


def _to_internal(term: Term, names: dict[str, int]) -> _T:
    if isinstance(term, Const):
        return term.name
    if isinstance(term, Var):
        index = names.setdefault(term.name, len(names))
        return _canon_var(index)
    if not term.args:  # ``(f)`` is the constant ``f``, as in clingo and the other engines
        return term.name
    return tuple([term.name, *(_to_internal(a, names) for a in term.args)])


def _to_term(t: _T) -> Term:
    if type(t) is str:
        return Const(t)
    if type(t) is tuple:
        return Func(t[0], tuple(_to_term(a) for a in t[1:]))
    raise ReasonerError(f"an answer is not ground: {t!r}")


def _ground_internal(term: Term) -> _T:
    if isinstance(term, Var):
        raise ReasonerError(f"a state fluent or move is not ground: {term}")
    return _to_internal(term, {})


def _relation(t: _T) -> tuple[str, int]:
    return (t, 0) if type(t) is str else (t[0], len(t) - 1)


def _vars_of(t: _T) -> set[int]:
    if type(t) is _Var:
        return {t.i}
    if type(t) is tuple:
        out: set[int] = set()
        for a in t[1:]:
            out |= _vars_of(a)
        return out
    return set()


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


# A compiled body literal: (kind, pattern, negated kind or tier, right side of distinct).
_Lit = tuple[int, _T, int, _T]


class _Rule:
    __slots__ = ("body", "head", "nvars", "text")

    def __init__(self, head: _T, body: tuple[_Lit, ...], nvars: int, text: str) -> None:
        self.head, self.body, self.nvars, self.text = head, body, nvars, text


def _expand_or(body: Sequence[Literal]) -> list[list[Literal]]:
    """The bodies a body with ``or`` literals stands for (one per choice of disjuncts)."""
    choices: list[list[Literal]] = []
    for literal in body:
        if isinstance(literal, Or):
            options: list[Literal] = []
            stack = list(reversed(literal.disjuncts))
            while stack:  # a nested or is the same as its disjuncts
                disjunct = stack.pop()
                if isinstance(disjunct, Or):
                    stack.extend(reversed(disjunct.disjuncts))
                else:
                    options.append(disjunct)
            choices.append(options)
        else:
            choices.append([literal])
    return [list(combo) for combo in itertools.product(*choices)]


class _Program:
    """The game's rules compiled for top-down evaluation, by relation, with each relation's tier."""

    def __init__(self, description: Description) -> None:
        self.file = description.file
        self.rules: dict[tuple[str, int], list[_Rule]] = {}
        depends: dict[tuple[str, int], set[tuple[str, int]]] = {}
        sources: list[tuple[Rule, list[Literal]]] = []
        for rule in description.rules:
            for body in _expand_or(rule.body):
                sources.append((rule, body))
                key = (rule.head.name, len(rule.head.args) if isinstance(rule.head, Func) else 0)
                deps = depends.setdefault(key, set())
                for literal in body:
                    atom = literal.arg if isinstance(literal, Not) else literal
                    if isinstance(atom, Or):
                        raise ReasonerError(f"{self.file}: the prover cannot evaluate a negated 'or' in {rule}")
                    if isinstance(atom, (Const, Func)):
                        deps.add((atom.name, len(atom.args) if isinstance(atom, Func) else 0))
        self.tier = self._tiers(depends)
        for rule, body in sources:
            compiled = self._compile(rule, body)
            self.rules.setdefault(_relation(compiled.head), []).append(compiled)

    @staticmethod
    def _tiers(depends: dict[tuple[str, int], set[tuple[str, int]]]) -> dict[tuple[str, int], int]:
        tier = {key: _STATIC for key in depends}
        for key in list(depends) + [dep for deps in depends.values() for dep in deps]:
            if key[0] == "true":
                tier[key] = _STATE
            elif key[0] == "does":
                tier[key] = _MOVE
            else:
                tier.setdefault(key, _STATIC)
        changed = True
        while changed:
            changed = False
            for key, deps in depends.items():
                if key[0] in ("true", "does"):
                    continue
                level = max((tier[dep] for dep in deps), default=_STATIC)
                if level > tier[key]:
                    tier[key], changed = level, True
        return tier

    def _literal(self, literal: Literal, names: dict[str, int], rule: Rule) -> _Lit:
        if isinstance(literal, Distinct):
            return (_DISTINCT, _to_internal(literal.left, names), 0, _to_internal(literal.right, names))
        if isinstance(literal, Not):
            inner = self._literal(literal.arg, names, rule)
            if inner[0] not in (_CALL, _TRUE, _DOES):
                raise ReasonerError(f"{self.file}: the prover cannot evaluate (not {literal.arg}) in {rule}")
            return (_NOT, inner[1], inner[0], inner[1])
        if isinstance(literal, (Const, Func)):
            pattern = _to_internal(literal, names)
            if literal.name == "true" and isinstance(literal, Func) and len(literal.args) == 1:
                return (_TRUE, pattern[1], 0, "")
            if literal.name == "does" and isinstance(literal, Func) and len(literal.args) == 2:
                return (_DOES, pattern, 0, "")
            return (_CALL, pattern, self.tier.get(_relation(pattern), _STATIC), "")
        raise ReasonerError(f"{self.file}: the prover cannot evaluate {literal} in {rule}")

    def _compile(self, rule: Rule, body: list[Literal]) -> _Rule:
        names: dict[str, int] = {}
        head = _to_internal(rule.head, names)
        literals = [self._literal(literal, names, rule) for literal in body]
        # Tests (not, distinct) go right after the positive literal that binds their last variable.
        ordered: list[_Lit] = []
        waiting: list[_Lit] = []
        bound: set[int] = set()

        def needs(lit: _Lit) -> set[int]:
            return _vars_of(lit[1]) | (_vars_of(lit[3]) if lit[0] == _DISTINCT else set())

        def release() -> None:
            for lit in list(waiting):
                if needs(lit) <= bound:
                    ordered.append(lit)
                    waiting.remove(lit)

        for lit in literals:
            if lit[0] in (_NOT, _DISTINCT):
                waiting.append(lit)
            else:
                ordered.append(lit)
                bound |= _vars_of(lit[1])
            release()
        ordered.extend(waiting)  # unsafe tests: evaluated last, an unbound variable is an error then
        return _Rule(head, tuple(ordered), len(names), str(rule))


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


class _Solver:
    """Evaluates calls against one state (and optionally one joint move) with the game-long static tables."""

    def __init__(self, machine: ProverMachine, state: _Facts, state_tables: _Tables,
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



class _Known:
    """What the machine remembers about a state: its indexed fluents, its tables and its answers."""

    __slots__ = ("facts", "goal_values", "legal", "tables", "terminal")

    def __init__(self, facts: _Facts) -> None:
        self.facts = facts
        self.tables: _Tables | None = None
        # Each answer is computed when first asked: a player asks legal moves and the terminal flag of
        # many states and goals only of terminal ones, and a goal can cost more than both (a count).
        self.legal: tuple[tuple[Move, ...], ...] | None = None
        self.terminal: bool | None = None
        self.goal_values: tuple[tuple[Term, ...], ...] | None = None


class ProverMachine:
    """A :class:`~ggp.reasoner.machine.StateMachine` that answers queries by tabled top-down resolution.

    Nothing is grounded at start-up (it takes milliseconds on every game); ``limits.max_atoms`` bounds
    the answers one query may table and ``limits.seconds`` its time (``isolate`` does not apply).
    Queries are serialised by a lock. Raises :class:`ReasonerError` for a game without roles, a query
    over its limits or a negative cycle met while evaluating, and :class:`IllegalMoveError` for an
    illegal joint move. The description is not validated here; :func:`~ggp.reasoner.engines.make_machine`
    validates.
    """

    def __init__(self, description: Description, limits: GroundingLimits | None = None, *,
                 cache_size: int = 4096) -> None:
        self.description = description
        self.limits = limits or GroundingLimits()
        self._roles: tuple[Role, ...] = tuple(description.roles)
        if not self._roles:
            raise ReasonerError(f"{description.file}: the game defines no role")
        self._role_index = {role: i for i, role in enumerate(self._roles)}
        self._role_values = tuple(_ground_internal(role) for role in self._roles)
        self._value_index = {value: i for i, value in enumerate(self._role_values)}
        self.program = _Program(description)
        self.static_tables = _Tables()
        self._known: OrderedDict[State, _Known] = OrderedDict()
        self._with_tables: OrderedDict[State, _Known] = OrderedDict()
        self._cache_size = cache_size
        self._terms: dict[_T, Term] = {}
        self._lock = threading.RLock()
        self.query_count = 0
        if self.program.tier.get(("init", 1), _STATIC) != _STATIC:
            raise ReasonerError(f"{description.file}: init depends on true or does")

    # --- plumbing -----------------------------------------------------------------------------

    def _term(self, value: _T) -> Term:
        term = self._terms.get(value)
        if term is None:
            if len(self._terms) > 200_000:
                self._terms.clear()
            term = self._terms[value] = _to_term(value)
        return term

    def _lookup(self, state: State) -> _Known:
        known = self._known.get(state)
        if known is not None:
            self._known.move_to_end(state)
            return known
        known = self._known[state] = _Known(_Facts([_ground_internal(fact) for fact in state.facts]))
        if len(self._known) > self._cache_size:
            self._known.popitem(last=False)
        return known

    def _state_tables(self, state: State, known: _Known) -> _Tables:
        if known.tables is None:
            known.tables = _Tables()
        self._with_tables[state] = known
        self._with_tables.move_to_end(state)
        while len(self._with_tables) > STATE_TABLES:
            _, old = self._with_tables.popitem(last=False)
            old.tables = None
        return known.tables

    def _ask(self, state: State | None, does: Sequence[_T] | None, goals: Sequence[_T]) -> list[list[_T]]:
        """The answers of each goal in ``state`` (and with the joint move ``does``)."""
        with _deep_recursion():
            return self._ask_deep(state, does, goals)

    def _ask_deep(self, state: State | None, does: Sequence[_T] | None, goals: Sequence[_T]) -> list[list[_T]]:
        try:
            if state is None:
                solver = _Solver(self, _Facts([]), _Tables(), None, None)
            else:
                known = self._lookup(state)
                solver = _Solver(self, known.facts, self._state_tables(state, known),
                                 _Facts(does) if does is not None else None, _Tables() if does is not None else None)
            if self.query_count % 256 == 0 and self._static_answers() > STATIC_TABLE_ANSWERS:
                self.static_tables.entries.clear()
            self.query_count += 1
            return [solver.ask(goal, self.program.tier.get(_relation(goal), _STATIC)) for goal in goals]
        except _Budget as exc:
            self._forget_partial(state)
            raise ReasonerError(
                f"{self.description.file}: the prover stopped a query after {exc} "
                f"(limits: {self.limits.max_atoms:,} answers, {self.limits.seconds:g} s)"
            ) from None
        except RecursionError:
            self._forget_partial(state)
            raise ReasonerError(
                f"{self.description.file}: the prover's recursion went deeper than {sys.getrecursionlimit():,} calls"
            ) from None
        except BaseException:
            self._forget_partial(state)
            raise

    def _static_answers(self) -> int:
        return sum(len(entry.answers) for entry in self.static_tables.entries.values())

    def _forget_partial(self, state: State | None) -> None:
        """Drop tables a failed query left incomplete (they would answer later queries wrongly)."""
        for entries in (self.static_tables.entries,):
            for call in [call for call, entry in entries.items() if not entry.complete]:
                del entries[call]
        if state is not None and state in self._known:
            self._known[state].tables = None
            self._with_tables.pop(state, None)

    # --- the StateMachine protocol -------------------------------------------------------------

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        with self._lock:
            (answers,) = self._ask(None, None, [("init", _CANON[0])])
            return State(frozenset(self._term(answer[1]) for answer in answers))

    def _by_role(self, rows: list[_T]) -> tuple[tuple[Term, ...], ...]:
        """``(relation role value)`` answers as each role's values, sorted by KIF text."""
        out: list[list[Term]] = [[] for _ in self._roles]
        for row in rows:
            index = self._value_index.get(row[1])
            if index is not None:
                out[index].append(self._term(row[2]))
        return tuple(tuple(sorted(values, key=str)) for values in out)

    def _legal(self, state: State) -> tuple[tuple[Move, ...], ...]:
        with self._lock:
            known = self._lookup(state)
            if known.legal is None:
                (rows,) = self._ask(state, None, [("legal", _CANON[0], _CANON[1])])
                known.legal = self._by_role(rows)
            return known.legal

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        try:
            index = self._role_index[role]
        except KeyError:
            raise ValueError(f"unknown role {str(role)!r}") from None
        return self._legal(state)[index]

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product(self._legal(state))

    def is_terminal(self, state: State) -> bool:
        with self._lock:
            known = self._lookup(state)
            if known.terminal is None:
                (rows,) = self._ask(state, None, ["terminal"])
                known.terminal = bool(rows)
            return known.terminal

    def goal_values(self, state: State) -> tuple[tuple[Term, ...], ...]:
        """Every goal value derived for each role (normally exactly one), sorted by KIF text."""
        with self._lock:
            known = self._lookup(state)
            if known.goal_values is None:
                (rows,) = self._ask(state, None, [("goal", _CANON[0], _CANON[1])])
                known.goal_values = self._by_role(rows)
            return known.goal_values

    def goals(self, state: State) -> tuple[int, ...]:
        """Each role's goal; raises ReasonerError unless every role has exactly one integer goal."""
        return goals_from_values(self.description.file, self._roles, self.goal_values(state), state)

    def state_info(self, state: State) -> StateInfo:
        """Legal moves, terminal and goal values of ``state`` (each cached per state)."""
        return StateInfo(self._legal(state), self.is_terminal(state), self.goal_values(state))

    def next_state(self, state: State, joint_move: JointMove) -> State:
        return self.next_state_and_percepts(state, joint_move)[0]

    def next_state_and_percepts(self, state: State, joint_move: JointMove) -> tuple[State, tuple[frozenset[Term], ...]]:
        """The successor state and what each role sees (GDL-II ``sees``) after ``joint_move``."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(
                f"a joint move needs {len(self._roles)} moves (one per role), got {len(joint_move)}"
            )
        legal = self._legal(state)
        does: list[_T] = []
        for i, (role, move) in enumerate(zip(self._roles, joint_move)):
            if move not in legal[i]:
                raise IllegalMoveError(f"{move} is not a legal move for {role} in state {state}")
            does.append(("does", self._role_values[i], _ground_internal(move)))
        with self._lock:
            next_rows, sees_rows = self._ask(state, does, [("next", _CANON[0]), ("sees", _CANON[0], _CANON[1])])
            successor = State(frozenset(self._term(row[1]) for row in next_rows))
            percepts: list[set[Term]] = [set() for _ in self._roles]
            for row in sees_rows:
                where = self._value_index.get(row[1])
                if where is not None:
                    percepts[where].add(self._term(row[2]))
        return successor, tuple(frozenset(p) for p in percepts)

