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
>>> from ggp.gdl.terms import Const
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

import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.gdl.terms import Description, Term
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
from ggp.reasoner.prover_rules import _STATIC, _Program
from ggp.reasoner.prover_solver import _Budget, _Facts, _Solver, _Tables
from ggp.reasoner.prover_terms import _CANON, _T, _ground_internal, _relation, _to_term

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

    engine = "prover"
    """The registered engine this machine is (:func:`ggp.reasoner.engines.engine_name`)."""

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

