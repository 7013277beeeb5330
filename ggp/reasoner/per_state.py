"""PerStateMachine: evaluate the rules for each queried state instead of grounding the game once.

:class:`~ggp.reasoner.clingo_machine.ClingoStateMachine` grounds every rule over an over-approximated
fluent domain; on games with wide fluents (the seed games' ``playerStat``: 59,051 candidate fluents on
classicMap) that grounding does not finish. This machine never grounds the dynamic rules: clingo
computes the state-independent relations once, and each query runs the compiled rules of
:mod:`ggp.reasoner.rulecode` over the handful of fluents of *that* state (and the joint move).
Start-up takes about a second at most on the seed games; a query costs tens of microseconds there.

Answers are the same as ClingoStateMachine's (the tests cross-check them along random playouts):
legal moves sorted by KIF text, ``goals`` raising :class:`ReasonerError` unless each role has exactly
one integer goal, ``next_state_and_percepts`` returning GDL-II ``sees`` percepts per role, and
:class:`IllegalMoveError` for an illegal joint move.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif('''(role a) (init (count 0)) (<= (legal a step) (true (count 0)))
...   (<= (next (count 1)) (does a step)) (<= terminal (true (count 1))) (goal a 100)''')
>>> machine = PerStateMachine(game)
>>> state = machine.initial_state()
>>> machine.legal_moves(state, machine.roles[0])
(step,)
>>> after = machine.next_state(state, machine.legal_joint_moves(state)[0])
>>> machine.is_terminal(after), machine.goals(after)
(True, (100,))
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.gdl.terms import Description, Term
from ggp.reasoner.machine import GroundingLimits, JointMove, Move, Role, State, StateInfo, goals_from_values, joint_moves_product
from ggp.reasoner.relations import Value, to_term, to_value
from ggp.reasoner.rulecode import RuleProgram, compile_rules, group_fluents

log = logging.getLogger(__name__)


class _Known:
    """What the machine remembers about a state: its compact fluents and, once asked, its answers."""

    __slots__ = ("fluents", "grouped", "info", "legal_values")

    def __init__(self, fluents: frozenset[Value]) -> None:
        self.fluents = fluents
        self.grouped = group_fluents(fluents)
        self.info: StateInfo | None = None
        self.legal_values: tuple[dict[Move, Value], ...] | None = None


class PerStateMachine:
    """A :class:`~ggp.reasoner.machine.StateMachine` that evaluates compiled rules per state.

    ``limits.max_atoms`` bounds the one clingo grounding of the static relations. When ``limits`` are
    given with ``isolate`` set, that grounding runs in a child process under ``limits.seconds`` and
    ``limits.memory_mb`` (what :func:`~ggp.reasoner.auto.choose_machine` does); without ``limits`` it
    runs in this process, which is faster to start. Queries are serialised by a lock,
    like ClingoStateMachine's. Raises :class:`ReasonerError` for a game without roles, unsafe or
    unstratified rules, and :class:`IllegalMoveError` for an illegal joint move. The description is
    not validated here; :func:`ggp.reasoner.engines.make_machine` validates. ``program`` is a compiled
    program to use instead of compiling one (what :func:`~ggp.reasoner.auto.choose_machine` built from
    the static facts its probe computed).
    """

    engine = "per-state"
    """The registered engine this machine is (:func:`ggp.reasoner.engines.engine_name`)."""

    def __init__(
        self, description: Description, limits: GroundingLimits | None = None, *, cache_size: int = 4096,
        program: RuleProgram | None = None,
    ) -> None:
        self.description = description
        isolate = limits is not None and limits.isolate
        self.limits = limits or GroundingLimits()
        self._roles: tuple[Role, ...] = tuple(description.roles)
        if not self._roles:
            raise ReasonerError(f"{description.file}: the game defines no role")
        started = time.perf_counter()
        self.program: RuleProgram = program or compile_rules(
            description, self.limits.max_atoms,
            seconds=self.limits.seconds if isolate else None, memory_mb=self.limits.memory_mb,
        )
        self._role_values = tuple(to_value(role) for role in self._roles)
        self._role_index = {role: i for i, role in enumerate(self._roles)}
        self._role_value_index = {value: i for i, value in enumerate(self._role_values)}
        self._cache_size = cache_size
        self._known: OrderedDict[State, _Known] = OrderedDict()
        self._terms: dict[Value, Term] = {}
        self._sort_key: dict[Term, str] = {}
        self._lock = threading.RLock()
        self.query_count = 0
        self.setup_seconds = time.perf_counter() - started
        log.info("%s: per-state reasoner ready in %.2f s%s", description.file, self.setup_seconds,
                 " (static facts computed before)" if program is not None else "")

    @classmethod
    def from_kif(cls, text: str, file: str = "<string>", limits: GroundingLimits | None = None) -> PerStateMachine:
        from ggp.gdl.parser import parse_kif

        return cls(parse_kif(text, file), limits)

    # --- conversions and caches ---------------------------------------------------------------

    def _term(self, value: Value) -> Term:
        term = self._terms.get(value)
        if term is None:
            if len(self._terms) > 200_000:
                self._terms.clear()
            term = self._terms[value] = to_term(value)
        return term

    def _key(self, term: Term) -> str:
        key = self._sort_key.get(term)
        if key is None:
            if len(self._sort_key) > 200_000:
                self._sort_key.clear()
            key = self._sort_key[term] = str(term)
        return key

    def _remember(self, state: State, fluents: frozenset[Value]) -> _Known:
        known = _Known(fluents)
        with self._lock:  # the cache is shared by a player's search thread and its protocol handler
            self._known[state] = known
            if len(self._known) > self._cache_size:
                self._known.popitem(last=False)
        return known

    def _lookup(self, state: State) -> _Known:
        with self._lock:
            known = self._known.get(state)
            if known is not None:
                self._known.move_to_end(state)
                return known
        try:
            fluents = frozenset(to_value(fact) for fact in state.facts)
        except ValueError as exc:
            raise ReasonerError(f"{self.description.file}: a state fluent is not ground ({exc})") from None
        return self._remember(state, fluents)

    # --- queries ------------------------------------------------------------------------------

    def _info(self, state: State) -> tuple[_Known, StateInfo]:
        known = self._lookup(state)
        if known.info is not None:
            return known, known.info
        with self._lock:
            derived = self.program.query("state", known.fluents, (), known.grouped)
            self.query_count += 1
        legal: list[dict[Move, Value]] = [{} for _ in self._roles]
        goals: list[list[Term]] = [[] for _ in self._roles]
        index = self._role_value_index
        for role, move in derived[("legal", 2)]:
            i = index.get(role)
            if i is not None:
                legal[i][self._term(move)] = move
        for role, value in derived[("goal", 2)]:
            i = index.get(role)
            if i is not None:
                goals[i].append(self._term(value))
        key = self._key
        known.legal_values = tuple(legal)  # set before info: a reader that sees info sees these too
        known.info = StateInfo(
            tuple(tuple(sorted(moves, key=key)) for moves in legal),
            bool(derived[("terminal", 0)]),
            tuple(tuple(sorted(values, key=key)) for values in goals),
        )
        return known, known.info

    def state_info(self, state: State) -> StateInfo:
        """Legal moves, terminal and goal values of ``state`` (cached)."""
        return self._info(state)[1]

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        rows = self.program.static.get(("init", 1), set())
        if ("init", 1) in self.program.dynamic:
            raise ReasonerError(f"{self.description.file}: init depends on true or does")
        fluents = frozenset(row[0] for row in rows)
        state = State(frozenset(self._term(value) for value in fluents))
        if state not in self._known:
            self._remember(state, fluents)
        return state

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        try:
            index = self._role_index[role]
        except KeyError:
            raise ValueError(f"unknown role {str(role)!r}") from None
        return self._info(state)[1].legal[index]

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product(self._info(state)[1].legal)

    def is_terminal(self, state: State) -> bool:
        return self._info(state)[1].terminal

    def goal_values(self, state: State) -> tuple[tuple[Term, ...], ...]:
        """Every goal value derived for each role (normally exactly one)."""
        return self._info(state)[1].goal_values

    def goals(self, state: State) -> tuple[int, ...]:
        """Each role's goal; raises ReasonerError unless every role has exactly one integer goal."""
        return goals_from_values(self.description.file, self._roles, self._info(state)[1].goal_values, state)

    def next_state(self, state: State, joint_move: JointMove) -> State:
        return self.next_state_and_percepts(state, joint_move)[0]

    def next_state_and_percepts(self, state: State, joint_move: JointMove) -> tuple[State, tuple[frozenset[Term], ...]]:
        """The successor state and what each role sees (GDL-II ``sees``) after ``joint_move``."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(
                f"a joint move needs {len(self._roles)} moves (one per role), got {len(joint_move)}"
            )
        known, _ = self._info(state)
        assert known.legal_values is not None
        does: list[tuple[Value, Value]] = []
        for i, (role, move) in enumerate(zip(self._roles, joint_move)):
            value = known.legal_values[i].get(move)
            if value is None:
                raise IllegalMoveError(f"{move} is not a legal move for {role} in state {state}")
            does.append((self._role_values[i], value))
        with self._lock:
            derived = self.program.query("next", known.fluents, does, known.grouped)
            self.query_count += 1
        fluents = frozenset(row[0] for row in derived[("next", 1)])
        successor = State(frozenset(self._term(value) for value in fluents))
        if successor not in self._known:
            self._remember(successor, fluents)
        percepts: list[set[Term]] = [set() for _ in self._roles]
        for seer, percept in derived[("sees", 2)]:
            where = self._role_value_index.get(seer)
            if where is not None:
                percepts[where].add(self._term(percept))
        return successor, tuple(frozenset(p) for p in percepts)
