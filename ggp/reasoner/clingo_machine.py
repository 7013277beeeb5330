"""ClingoStateMachine: ground a GDL game once, answer every query by solving under fixed externals.

How it works:

1. *Domain.* A relaxed copy of the rules (negation dropped, ``true``/``does`` renamed) has a least model
   that contains every fluent and every move that can ever occur; clingo computes it while grounding.
2. *Ground once.* The real rules are grounded with ``true/1`` and ``does/2`` declared as externals (false until assigned)
   over those domains. No query ever grounds again.
3. *Query.* A state sets the ``true`` externals (only the ones that changed since the last query are
   reassigned), a joint move sets ``does``; stratification makes the answer set unique, and the shown
   ``legal``, ``next``, ``terminal``, ``goal`` and ``sees`` atoms are mapped back to KIF terms.

Both grounding phases can run first in a child process under a time and memory limit (see
:class:`GroundingLimits`), so a game whose grounding explodes is refused with a clear error instead of
hanging or exhausting the caller's memory.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif('''(role a) (init (count 0)) (<= (legal a step) (true (count 0)))
...   (<= (next (count 1)) (does a step)) (<= terminal (true (count 1))) (goal a 100)''')
>>> machine = ClingoStateMachine(game, GroundingLimits(isolate=False))
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
from collections.abc import Callable, Sequence
from typing import Any, Literal

import clingo

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.gdl.terms import Description, Rule, Term
from ggp.reasoner.asp import encode_name, relaxed_rule, rules_to_asp, symbol_to_term
from ggp.reasoner.decompose import decompose_rules
from ggp.reasoner.isolation import IsolationError, Report, grounding_error, run_isolated
from ggp.reasoner.machine import GroundingLimits, JointMove, Move, Role, State, StateInfo, StateInfoQueries, StateMachine
from ggp.reasoner.relations import relations_needed
from ggp.reasoner.stratification import check_ground, watch
from ggp.reasoner.wrappers import CachedStateMachine

log = logging.getLogger(__name__)

_TRUE_DOM = "ggp_tdom"
_DOES_DOM = "ggp_ddom"
_RELAXED_TRUE = "ggp_rtrue"
_RELAXED_DOES = "ggp_rdoes"

_STATE_TARGETS = frozenset({"legal", "terminal", "goal", "init", "role"})
_NEXT_TARGETS = frozenset({"next", "sees", "role"})

_SHOWN = """
#show legal/2. #show next/1. #show terminal/0. #show goal/2. #show init/1. #show sees/2.
"""


def _clingo_logger(code: clingo.MessageCode, message: str) -> None:
    log.debug("clingo %s: %s", code, message.strip())


def _new_control() -> clingo.Control:
    return clingo.Control(["--warn=none"], logger=_clingo_logger)


def domain_program(description: Description, split: bool = True) -> str:
    """The relaxed program whose least model over-approximates the fluent and move domains.

    Only the rules that ``init``, ``next`` and ``legal`` depend on through positive literals are kept:
    relations used only by ``goal`` or ``terminal`` (often recursive counts or paths), or only under
    negation, cannot add a fluent or a move, and without negation their relaxed extension can be far
    larger than anything a real state reaches.

    The kept rules are split by variable elimination (:func:`~ggp.reasoner.decompose.decompose_rules`):
    the least model is the same on the game's relations, but no rule joins literals that share no
    variable outside the head. Chess (Fawcett's ``chess.kif``) joins its 7,622 relaxed moves with every
    relaxed cell and the king's square in its frame and check-blocking rules; split, its domain grounds in
    4.6 s instead of 21.1 s (racer: from more than 40 s to 0.5 s; ``benchmarks/domain_split.py`` compares
    both ways on the corpus). ``split=False`` gives the rules as written (the comparison's other side).
    """
    relaxed_all = tuple(relaxed_rule(rule, _RELAXED_TRUE, _RELAXED_DOES) for rule in description.rules)
    # Needed through the relaxed bodies: a relation used only under negation (chess's 8-argument
    # threatened_with_capture) cannot add a fluent or a move either.
    needed = relations_needed(Description(relaxed_all), frozenset({"init", "next", "legal"}))
    kept = [rule for rule in relaxed_all if rule.head.name in needed]
    relaxed = decompose_rules(kept) if split else kept
    rtrue, rdoes = encode_name(_RELAXED_TRUE), encode_name(_RELAXED_DOES)
    return "\n".join(
        [
            rules_to_asp(relaxed),
            f"{rtrue}(F) :- init(F).",
            f"{rtrue}(F) :- next(F).",
            f"{rdoes}(R, M) :- legal(R, M).",
        ]
    )


def _count_atoms(ctl: clingo.Control) -> int:
    return sum(1 for _ in ctl.symbolic_atoms)


def _ground_domain(description: Description, max_atoms: int) -> clingo.Control:
    """A control with :func:`domain_program` grounded; ReasonerError past ``max_atoms`` atoms."""
    ctl = _new_control()
    ctl.add("base", [], domain_program(description))
    ctl.ground([("base", [])])
    if (count := _count_atoms(ctl)) > max_atoms:
        raise ReasonerError(
            f"{description.file}: grounding phase 'domain' made {count:,} atoms, more than the limit of {max_atoms:,}"
        )
    return ctl


def fluent_domain_terms(description: Description, max_atoms: int) -> frozenset[Term]:
    """Every fluent the relaxed rules reach from ``init`` through ``next`` (an over-approximation of the
    fluents any state can hold), as terms; raises :class:`ReasonerError` past ``max_atoms`` atoms."""
    ctl = _ground_domain(description, max_atoms)
    return frozenset(
        symbol_to_term(atom.symbol.arguments[0])
        for atom in ctl.symbolic_atoms.by_signature(encode_name(_RELAXED_TRUE), 1)
    )


def compute_domain(description: Description, max_atoms: int) -> tuple[list[str], list[str]]:
    """Fluent and (role, move) domains as ASP fact texts for the main program."""
    ctl = _ground_domain(description, max_atoms)
    fluents = [
        f"{_TRUE_DOM}({atom.symbol.arguments[0]})."
        for atom in ctl.symbolic_atoms.by_signature(encode_name(_RELAXED_TRUE), 1)
    ]
    moves = [
        f"{_DOES_DOM}({atom.symbol.arguments[0]},{atom.symbol.arguments[1]})."
        for atom in ctl.symbolic_atoms.by_signature(encode_name(_RELAXED_DOES), 2)
    ]
    return fluents, moves


def main_program(
    description: Description,
    fluent_facts: Sequence[str],
    move_facts: Sequence[str],
    rules: Sequence[Rule] | None = None,
) -> str:
    """The game's rules (or the given subset) plus the external declarations over the given domains."""
    return "\n".join(
        [
            rules_to_asp(description.rules if rules is None else rules),
            *fluent_facts,
            *move_facts,
            f"#external true(F) : {_TRUE_DOM}(F). [false]",
            f"#external does(R, M) : {_DOES_DOM}(R, M). [false]",
            _SHOWN,
        ]
    )


def _probe(
    description: Description, limits: GroundingLimits, main: bool, report: Report,
) -> tuple[list[str], list[str], float]:
    """Child process: ground both phases, or the domain only (reporting each as it starts), and return the
    domains with the CPU seconds this work took (imports not counted)."""
    started = time.process_time()
    report("domain")
    fluents, moves = compute_domain(description, limits.max_atoms)
    if not main:
        return fluents, moves, time.process_time() - started
    report("main")
    ctl = _new_control()
    ctl.add("base", [], main_program(description, fluents, moves))
    ctl.ground([("base", [])])
    if (count := _count_atoms(ctl)) > limits.max_atoms:
        raise ReasonerError(
            f"{description.file}: grounding phase 'main' made {count:,} atoms, more than the limit of {limits.max_atoms:,}"
        )
    return fluents, moves, time.process_time() - started


def _isolated_domain(
    description: Description, limits: GroundingLimits, cpu_seconds: float | None = None, main: bool = True,
    charge: Callable[[float], None] | None = None,
) -> tuple[list[str], list[str]]:
    """Run :func:`_probe` in an isolated child; return the domains or raise a ReasonerError naming the phase.

    With ``cpu_seconds`` (a compiler's budget, :mod:`ggp.reasoner.circuit.budget`) the child is also held
    to that much CPU time, and an :class:`IsolationError` of kind ``cpu`` or ``memory`` is the caller's
    to word (the caller names its budget). ``main=False`` grounds the domain phase only (the caller
    watches its own main grounding). ``charge`` is given the CPU seconds the child's work took (a compiler's
    budget counts them)."""
    phase = ["start"]
    try:
        fluents, moves, spent = run_isolated(
            _probe, (description, limits, main), seconds=limits.seconds, memory_mb=limits.memory_mb,
            on_report=lambda reached: phase.__setitem__(0, str(reached)), cpu_seconds=cpu_seconds,
        )
    except IsolationError as exc:
        if cpu_seconds is not None and (exc.kind == "cpu" or "memory limit" in exc.detail):
            raise IsolationError("cpu" if exc.kind == "cpu" else "memory", f"grounding phase '{phase[0]}'") from None
        raise grounding_error(description.file, phase[0], exc, limits.seconds, limits.memory_mb) from None
    if charge is not None:
        charge(spent)
    return list(fluents), list(moves)


def _symbol_ids(model: clingo.Model) -> list[int]:
    """The ids of the model's shown symbols, read without building a Symbol object for each.

    This reads two clingo internals on purpose: the raw id array behind the symbol sequence
    (``_p_symbols``) and a symbol's id (``Symbol._rep``; clingo interns symbols, so the id identifies
    a symbol for the life of the process). Decoding by id instead of by Symbol through the public API
    makes a whole query 1.29x faster (breakthrough, ``ggp bench --engine clingo``: 256-266 us vs
    328-344 us of CPU per state step). The clingo version is pinned to the tested range in
    pyproject.toml and ``tests/unit/reasoner/test_clingo_internals.py`` fails if these internals
    change meaning, before any game could be answered wrongly.
    """
    sequence = model.symbols(shown=True)
    return list(sequence._p_symbols)  # type: ignore[attr-defined]


QueryMode = Literal["auto", "grounded", "fresh"]
"""How queries are answered: by the one grounding, by grounding per query, or the faster (timed)."""

_TRIALS = 3
"""Queries a part answers both ways before it settles on the faster mode (see :class:`_Part`)."""

_GROUND_TO_FRESH = 20
"""A part whose grounding took this many times longer than one fresh query goes fresh at once."""


class _Part:
    """One kind of query (state facts, or transitions) answered by clingo in the faster of two modes.

    *Grounded*: the rules were grounded once with ``true``/``does`` as externals; a query assigns them
    and solves. *Fresh*: a query grounds the rules together with the state (and move) as facts. Grounded
    wins by far on most games, but when the ground program is huge because ``does`` multiplies the
    fluents (frame axioms over thousands of moves), propagating all of it costs more than grounding
    the few rules one query needs. The first :data:`_TRIALS` queries run both ways (the results are the
    same) and time them; the part then keeps the faster mode and frees the grounded control if unused.
    """

    def __init__(self, name: str, description: Description, rules: Sequence[Rule], fluents: Sequence[str],
                 moves: Sequence[str], roles: dict[Term, int], max_atoms: int, mode: QueryMode = "auto") -> None:
        self.name = name
        self.file = description.file
        self.max_atoms = max_atoms
        self.fresh_program = rules_to_asp(rules) + "\n" + _SHOWN
        ctl = _new_control()
        observer = watch(ctl, rules)
        ctl.add("base", [], main_program(description, fluents, moves, rules))
        started = time.process_time()
        try:
            ctl.ground([("base", [])])
            self.ground_seconds = time.process_time() - started
        except RuntimeError as exc:
            raise ReasonerError(f"{description.file}: grounding phase '{name}' failed: {exc}") from exc
        # A locally stratified game has one answer set per state; a ground negative cycle may have none or
        # several, and clingo would silently pick one.
        check_ground(ctl, observer, description.file)
        atoms = ctl.symbolic_atoms
        if (count := len(atoms)) > max_atoms:
            raise ReasonerError(
                f"{description.file}: grounding phase '{name}' made {count:,} atoms, more than the limit of {max_atoms:,}"
            )
        self.ctl: clingo.Control | None = ctl
        self.true_lit: dict[Term, int] = {}
        self.true_fact: dict[int, str] = {}
        for atom in atoms.by_signature("true", 1):
            if atom.is_external:
                self.true_lit[symbol_to_term(atom.symbol.arguments[0])] = atom.literal
                self.true_fact[atom.literal] = f"{atom.symbol}."
        self.does_lit: dict[tuple[Role, Move], int] = {}
        self.does_fact: dict[int, str] = {}
        for atom in atoms.by_signature("does", 2):
            if atom.is_external:
                key = (symbol_to_term(atom.symbol.arguments[0]), symbol_to_term(atom.symbol.arguments[1]))
                self.does_lit[key] = atom.literal
                self.does_fact[atom.literal] = f"{atom.symbol}."
        # What each shown symbol id means, so a model decodes with one int-keyed dict lookup per atom.
        # Symbols are interned process-wide, so the ids also decode models of fresh controls.
        self.decode: dict[int, tuple[str, Any]] = {}
        for kind, arity in (("legal", 2), ("goal", 2), ("sees", 2)):
            for atom in atoms.by_signature(kind, arity):
                index = roles.get(symbol_to_term(atom.symbol.arguments[0]))
                if index is not None:
                    self.decode[atom.symbol._rep] = (kind, (index, symbol_to_term(atom.symbol.arguments[1])))
        for kind in ("next", "init"):
            for atom in atoms.by_signature(kind, 1):
                self.decode[atom.symbol._rep] = (kind, symbol_to_term(atom.symbol.arguments[0]))
        for atom in atoms.by_signature("terminal", 0):
            self.decode[atom.symbol._rep] = ("terminal", None)
        self.current_true: frozenset[int] = frozenset()
        self.current_does: frozenset[int] = frozenset()
        self.solve_count = 0
        self.mode: str = "trial" if mode == "auto" else mode
        if self.mode == "fresh":
            self.ctl = None
        self._timings: list[tuple[float, float]] = []

    def solve(self, true_lits: frozenset[int], does_lits: frozenset[int]) -> list[tuple[str, Any]]:
        """The decoded shown atoms of the unique answer set for the given true and does literals."""
        self.solve_count += 1
        if self.mode == "grounded":
            return self._decode(self._solve_grounded(true_lits, does_lits))
        if self.mode == "fresh":
            return self._decode(self._solve_fresh(true_lits, does_lits))
        clock = time.process_time
        started = clock()
        ids = self._solve_fresh(true_lits, does_lits)
        fresh = clock() - started
        if not self._timings and fresh * _GROUND_TO_FRESH < self.ground_seconds:
            # Grounding took far longer than one fresh query: the first grounded solve (clasp's
            # preprocessing of the same huge program) would too, so do not pay for it.
            self._timings.append((self.ground_seconds, fresh))
            self._choose("fresh")
            return self._decode(ids)
        started = clock()
        self._solve_grounded(true_lits, does_lits)
        self._timings.append((clock() - started, fresh))
        self._settle()
        return self._decode(ids)

    def _settle(self) -> None:
        first_grounded, first_fresh = self._timings[0]
        if len(self._timings) == 1:
            # The first grounded solve also pays clasp's one-off preprocessing, so it only decides
            # when fresh is ahead even of that by far.
            if first_fresh * 30 < first_grounded:
                self._choose("fresh")
            return
        if len(self._timings) < _TRIALS:
            return
        grounded = sum(g for g, _ in self._timings[1:])
        fresh = sum(f for _, f in self._timings[1:])
        self._choose("fresh" if fresh < 0.7 * grounded else "grounded")

    def _choose(self, mode: str) -> None:
        self.mode = mode
        if mode == "fresh":
            self.ctl = None
        grounded = sum(g for g, _ in self._timings)
        fresh = sum(f for _, f in self._timings)
        log.info("%s: %s queries use %s mode (grounded %.2g s, fresh %.2g s)",
                 self.file, self.name, self.mode, grounded, fresh)

    def _solve_grounded(self, true_lits: frozenset[int], does_lits: frozenset[int]) -> list[int]:
        assert self.ctl is not None
        assign = self.ctl.assign_external
        if true_lits is not self.current_true:
            for literal in self.current_true - true_lits:
                assign(literal, False)
            for literal in true_lits - self.current_true:
                assign(literal, True)
            self.current_true = true_lits
        if does_lits != self.current_does:
            for literal in self.current_does - does_lits:
                assign(literal, False)
            for literal in does_lits - self.current_does:
                assign(literal, True)
            self.current_does = does_lits
        return self._run(self.ctl)

    def _solve_fresh(self, true_lits: frozenset[int], does_lits: frozenset[int]) -> list[int]:
        ctl = _new_control()
        facts = [self.true_fact[lit] for lit in true_lits] + [self.does_fact[lit] for lit in does_lits]
        ctl.add("base", [], self.fresh_program + "\n" + "\n".join(facts))
        try:
            ctl.ground([("base", [])])
        except RuntimeError as exc:  # pragma: no cover - the same rules grounded once already
            raise ReasonerError(f"{self.file}: grounding phase '{self.name}' failed: {exc}") from exc
        return self._run(ctl)

    def _run(self, ctl: clingo.Control) -> list[int]:
        found: list[list[int]] = []
        result = ctl.solve(on_model=lambda model: found.append(_symbol_ids(model)))
        if not result.satisfiable or not found:
            raise ReasonerError(f"{self.file}: no answer set for a state (is the game stratified?)")
        return found[-1]

    def _decode(self, ids: list[int]) -> list[tuple[str, Any]]:
        decode = self.decode
        return [decode[i] for i in ids if i in decode]


class ClingoStateMachine(StateInfoQueries):
    """A :class:`~ggp.reasoner.machine.StateMachine` backed by one clingo grounding of the game.

    The rules are grounded once into two controls: one for what depends on the state alone (``legal``,
    ``terminal``, ``goal``, ``init``) and one for transitions (``next``, ``sees``), so the cheap,
    frequent state query never propagates the large transition program. Not thread-safe by design of
    clingo; a lock serialises queries so a player's search thread and its protocol handler can share
    one machine. Raises :class:`ReasonerError` when grounding exceeds the limits and
    :class:`IllegalMoveError` for an illegal joint move. The description is not validated here; use
    :func:`ggp.reasoner.engines.make_machine` (which validates) for untrusted input.

    ``query_mode`` "auto" lets each part time its first queries grounded and fresh and keep the faster
    (see :class:`_Part`); "grounded" and "fresh" force one mode (for tests and measurements).
    """

    engine = "clingo"
    """The registered engine this machine is (:func:`ggp.reasoner.engines.engine_name`)."""

    def __init__(
        self,
        description: Description,
        limits: GroundingLimits | None = None,
        *,
        cache_size: int = 4096,
        query_mode: QueryMode = "auto",
    ) -> None:
        self.description = description
        self.limits = limits or GroundingLimits()
        roles = description.roles
        if not roles:
            raise ReasonerError(f"{description.file}: the game defines no role")
        self._roles: tuple[Role, ...] = tuple(roles)
        self._role_index = {role: i for i, role in enumerate(self._roles)}
        started = time.perf_counter()
        if self.limits.isolate:
            fluents, moves = _isolated_domain(description, self.limits)
        else:
            fluents, moves = compute_domain(description, self.limits.max_atoms)
        parts = []
        for name, targets in (("state", _STATE_TARGETS), ("next", _NEXT_TARGETS)):
            needed = relations_needed(description, targets)
            rules = [rule for rule in description.rules if rule.head.name in needed]
            parts.append(
                _Part(name, description, rules, fluents, moves, self._role_index, self.limits.max_atoms, query_mode)
            )
        self._state_part, self._next_part = parts
        self._lock = threading.RLock()
        self._true_lit = self._state_part.true_lit
        self._does_lit = self._next_part.does_lit
        self.ground_seconds = time.perf_counter() - started
        log.info(
            "%s: grounded in %.2f s (%d fluents, %d moves)",
            description.file, self.ground_seconds, len(self._true_lit), len(self._does_lit),
        )
        self._last_info: tuple[State, StateInfo] | None = None
        self._cache_size = cache_size
        self._sort_key: dict[Term, str] = {}
        self._literal_cache: dict[State, tuple[frozenset[int], frozenset[int]]] = {}
        # A next atom decodes to its fluent plus that fluent's true-literal in each control, so a
        # successor state's literals come without hashing its terms again.
        for symbol_id, (kind, fluent) in self._next_part.decode.items():
            if kind == "next":
                self._next_part.decode[symbol_id] = (
                    kind, (fluent, self._state_part.true_lit.get(fluent), self._next_part.true_lit.get(fluent))
                )

    @classmethod
    def from_description(cls, description: Description, limits: GroundingLimits | None = None) -> ClingoStateMachine:
        return cls(description, limits)

    @classmethod
    def from_kif(cls, text: str, file: str = "<string>", limits: GroundingLimits | None = None) -> ClingoStateMachine:
        from ggp.gdl.parser import parse_kif

        return cls(parse_kif(text, file), limits)

    @property
    def solve_count(self) -> int:
        """How many times clingo solved (both controls together)."""
        return self._state_part.solve_count + self._next_part.solve_count

    # --- solving ------------------------------------------------------------------------------

    def _literals(self, state: State) -> tuple[frozenset[int], frozenset[int]]:
        """The true-external literals of a state in each control (cached per state)."""
        cached = self._literal_cache.get(state)
        if cached is not None:
            return cached
        state_lit, next_lit = self._state_part.true_lit, self._next_part.true_lit
        try:
            literals = (
                frozenset([state_lit[f] for f in state.facts]), frozenset([next_lit[f] for f in state.facts])
            )
        except KeyError:
            unknown = sorted(str(f) for f in state.facts if f not in state_lit)
            raise ReasonerError(f"{self.description.file}: fluent {unknown[0]} can never hold in this game") from None
        self._remember_literals(state, literals)
        return literals

    def _remember_literals(self, state: State, literals: tuple[frozenset[int], frozenset[int]]) -> None:
        if len(self._literal_cache) >= self._cache_size:
            self._literal_cache.clear()
        self._literal_cache[state] = literals

    def _key(self, term: Term) -> str:
        key = self._sort_key.get(term)
        if key is None:
            key = self._sort_key[term] = str(term)
        return key

    def state_info(self, state: State) -> StateInfo:
        """Legal moves, terminal and goal values of ``state``, from one solve.

        Only the last state's answer is kept (the protocol asks several questions about one state in a
        row, and ``next_state`` checks legality); answers across states are cached by
        :class:`~ggp.reasoner.wrappers.CachedStateMachine`, which :func:`~ggp.reasoner.engines.make_machine`
        puts around this engine.
        """
        last = self._last_info
        if last is not None and (last[0] is state or last[0] == state):
            return last[1]
        with self._lock:
            decoded = self._state_part.solve(self._literals(state)[0], frozenset())
            legal: list[list[Move]] = [[] for _ in self._roles]
            goals: list[list[Term]] = [[] for _ in self._roles]
            terminal = False
            for kind, payload in decoded:
                if kind == "legal":
                    legal[payload[0]].append(payload[1])
                elif kind == "goal":
                    goals[payload[0]].append(payload[1])
                elif kind == "terminal":
                    terminal = True
            key = self._key
            info = StateInfo(
                tuple(tuple(sorted(moves, key=key)) for moves in legal),
                terminal,
                tuple(tuple(values) for values in goals),
            )
            self._last_info = (state, info)
            return info

    # --- StateMachine protocol ----------------------------------------------------------------

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        with self._lock:
            decoded = self._state_part.solve(frozenset(), frozenset())
        return State(frozenset(payload for kind, payload in decoded if kind == "init"))

    _info = state_info  # the StateInfoQueries hook, bound directly (one call less per query)

    def _does_literals(self, state: State, joint_move: JointMove) -> frozenset[int]:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(
                f"a joint move needs {len(self._roles)} moves (one per role), got {len(joint_move)}"
            )
        legal = self.state_info(state).legal
        literals = []
        for index, (role, move) in enumerate(zip(self._roles, joint_move)):
            if move not in legal[index]:
                raise IllegalMoveError(f"{move} is not a legal move for {role} in state {state}")
            literals.append(self._does_lit[(role, move)])
        return frozenset(literals)

    def next_state(self, state: State, joint_move: JointMove) -> State:
        return self.next_state_and_percepts(state, joint_move)[0]

    def next_state_and_percepts(self, state: State, joint_move: JointMove) -> tuple[State, tuple[frozenset[Term], ...]]:
        """The successor state and what each role sees (GDL-II ``sees``) after ``joint_move``."""
        does = self._does_literals(state, joint_move)
        with self._lock:
            decoded = self._next_part.solve(self._literals(state)[1], does)
        facts: list[Term] = []
        state_lits: list[int | None] = []
        next_lits: list[int | None] = []
        percepts: list[set[Term]] | None = None
        for kind, payload in decoded:
            if kind == "next":
                facts.append(payload[0])
                state_lits.append(payload[1])
                next_lits.append(payload[2])
            elif kind == "sees":
                if percepts is None:
                    percepts = [set() for _ in self._roles]
                percepts[payload[0]].add(payload[1])
        successor = State(frozenset(facts))
        if None not in state_lits and None not in next_lits:
            with self._lock:
                self._remember_literals(successor, (frozenset(state_lits), frozenset(next_lits)))  # type: ignore[arg-type]
        seen = tuple(frozenset(p) for p in percepts) if percepts else tuple(frozenset() for _ in self._roles)
        return successor, seen

    # --- extras -------------------------------------------------------------------------------

    @property
    def fluent_domain(self) -> frozenset[Term]:
        """Every fluent that can ever hold (an over-approximation)."""
        return frozenset(self._true_lit)

    def move_domain(self, role: Role) -> frozenset[Move]:
        """Every move the role can ever make (an over-approximation)."""
        return frozenset(move for (r, move) in self._does_lit if r == role)


def cached_clingo_machine(description: Description, limits: GroundingLimits | None = None) -> StateMachine:
    """The clingo engine behind a :class:`~ggp.reasoner.wrappers.CachedStateMachine` (what ``make_machine``
    builds for ``clingo``): the engine answers, the wrapper remembers answers across states."""
    return CachedStateMachine(ClingoStateMachine(description, limits))
