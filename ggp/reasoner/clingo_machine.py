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
(Const(name='step'),)
>>> after = machine.next_state(state, machine.legal_joint_moves(state)[0])
>>> machine.is_terminal(after), machine.goals(after)
(True, (100,))
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import clingo

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.gdl.terms import Description, Term
from ggp.reasoner.asp import encode_name, relaxed_rule, rules_to_asp, symbol_to_term, term_to_symbol
from ggp.reasoner.machine import JointMove, Move, Role, State, joint_moves_product

log = logging.getLogger(__name__)

_TRUE_DOM = "ggp_tdom"
_DOES_DOM = "ggp_ddom"
_RELAXED_TRUE = "ggp_rtrue"
_RELAXED_DOES = "ggp_rdoes"

_SHOWN = """
#show legal/2. #show next/1. #show terminal/0. #show goal/2. #show init/1. #show sees/2.
"""


@dataclass(frozen=True, slots=True)
class GroundingLimits:
    """Bounds on grounding a game.

    ``seconds`` and ``memory_mb`` apply to each phase in a child process when ``isolate`` is true;
    ``max_atoms`` bounds the number of ground atoms in every mode.
    """

    seconds: float = 60.0
    memory_mb: int = 4096
    max_atoms: int = 5_000_000
    isolate: bool = True


def _clingo_logger(code: clingo.MessageCode, message: str) -> None:
    log.debug("clingo %s: %s", code, message.strip())


def _new_control() -> clingo.Control:
    return clingo.Control(["--warn=none"], logger=_clingo_logger)


def domain_program(description: Description) -> str:
    """The relaxed program whose least model over-approximates the fluent and move domains."""
    relaxed = [relaxed_rule(rule, _RELAXED_TRUE, _RELAXED_DOES) for rule in description.rules]
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


def compute_domain(description: Description, max_atoms: int) -> tuple[list[str], list[str]]:
    """Fluent and (role, move) domains as ASP fact texts for the main program."""
    ctl = _new_control()
    ctl.add("base", [], domain_program(description))
    ctl.ground([("base", [])])
    if (count := _count_atoms(ctl)) > max_atoms:
        raise ReasonerError(
            f"{description.file}: grounding phase 'domain' made {count:,} atoms, more than the limit of {max_atoms:,}"
        )
    fluents = [f"{_TRUE_DOM}({atom.symbol.arguments[0]})." for atom in ctl.symbolic_atoms.by_signature(encode_name(_RELAXED_TRUE), 1)]
    moves = [
        f"{_DOES_DOM}({atom.symbol.arguments[0]},{atom.symbol.arguments[1]})."
        for atom in ctl.symbolic_atoms.by_signature(encode_name(_RELAXED_DOES), 2)
    ]
    return fluents, moves


def main_program(description: Description, fluent_facts: Sequence[str], move_facts: Sequence[str]) -> str:
    """The game's rules plus the external declarations over the given domains."""
    return "\n".join(
        [
            rules_to_asp(description.rules),
            *fluent_facts,
            *move_facts,
            f"#external true(F) : {_TRUE_DOM}(F). [false]",
            f"#external does(R, M) : {_DOES_DOM}(R, M). [false]",
            _SHOWN,
        ]
    )


def _probe(description: Description, limits: GroundingLimits, conn: Any) -> None:
    """Child process: ground both phases under an address-space limit, report the phase reached."""
    try:
        import resource

        limit = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # pragma: no cover - platform without rlimits
        pass
    try:
        conn.send(("phase", "domain"))
        fluents, moves = compute_domain(description, limits.max_atoms)
        conn.send(("phase", "main"))
        ctl = _new_control()
        ctl.add("base", [], main_program(description, fluents, moves))
        ctl.ground([("base", [])])
        if (count := _count_atoms(ctl)) > limits.max_atoms:
            raise ReasonerError(
                f"{description.file}: grounding phase 'main' made {count:,} atoms, "
                f"more than the limit of {limits.max_atoms:,}"
            )
        conn.send(("done", (fluents, moves)))
    except MemoryError:
        conn.send(("error", f"ran out of the {limits.memory_mb} MB memory limit"))
    except ReasonerError as exc:
        conn.send(("error", str(exc)))
    except Exception as exc:  # noqa: BLE001 - reported to the parent as text
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _isolated_domain(description: Description, limits: GroundingLimits) -> tuple[list[str], list[str]]:
    """Run :func:`_probe` in a child; return the domains or raise a ReasonerError naming the phase."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_probe, args=(description, limits, child), daemon=True)
    process.start()
    child.close()
    phase = "start"
    deadline = time.monotonic() + limits.seconds
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ReasonerError(
                    f"{description.file}: grounding phase '{phase}' exceeded the time limit of {limits.seconds:g} s"
                )
            if not parent.poll(min(remaining, 0.5)):
                if not process.is_alive() and not parent.poll(0):
                    raise ReasonerError(
                        f"{description.file}: grounding phase '{phase}' failed (the grounder process died, "
                        f"likely over the {limits.memory_mb} MB memory limit)"
                    )
                continue
            try:
                kind, payload = parent.recv()
            except EOFError:
                raise ReasonerError(
                    f"{description.file}: grounding phase '{phase}' failed (the grounder process died, "
                    f"likely over the {limits.memory_mb} MB memory limit)"
                ) from None
            if kind == "phase":
                phase = payload
            elif kind == "error":
                message = payload if payload.startswith(description.file) else f"{description.file}: {payload}"
                raise ReasonerError(f"{message} (grounding phase '{phase}')")
            else:
                fluents, moves = payload
                return list(fluents), list(moves)
    finally:
        if process.is_alive():
            process.kill()
        process.join(5)
        parent.close()


@dataclass(frozen=True, slots=True)
class StateInfo:
    """Everything that depends on the state alone: legal moves per role, terminal, raw goal values."""

    legal: tuple[tuple[Move, ...], ...]
    terminal: bool
    goal_values: tuple[tuple[Term, ...], ...]


class ClingoStateMachine:
    """A :class:`~ggp.reasoner.machine.StateMachine` backed by one clingo grounding of the game.

    Not thread-safe by design of clingo; a lock serialises queries so a player's search thread and its
    protocol handler can share one machine. Raises :class:`ReasonerError` when grounding exceeds the
    limits and :class:`IllegalMoveError` for an illegal joint move.
    """

    def __init__(
        self, description: Description, limits: GroundingLimits | None = None, *, cache_size: int = 4096
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
        self._ctl = _new_control()
        self._ctl.add("base", [], main_program(description, fluents, moves))
        self._ctl.ground([("base", [])])
        self._lock = threading.RLock()
        self._index_atoms()
        self.ground_seconds = time.perf_counter() - started
        log.info(
            "%s: grounded in %.2f s (%d fluents, %d moves)",
            description.file, self.ground_seconds, len(self._true_lit), len(self._does_lit),
        )
        self._current_true: set[int] = set()
        self._current_does: set[int] = set()
        self._info_cache: OrderedDict[State, StateInfo] = OrderedDict()
        self._cache_size = cache_size
        self.solve_count = 0

    @classmethod
    def from_description(cls, description: Description, limits: GroundingLimits | None = None) -> ClingoStateMachine:
        return cls(description, limits)

    @classmethod
    def from_kif(cls, text: str, file: str = "<string>", limits: GroundingLimits | None = None) -> ClingoStateMachine:
        from ggp.gdl.parser import parse_kif

        return cls(parse_kif(text, file), limits)

    # --- indexing -----------------------------------------------------------------------------

    def _index_atoms(self) -> None:
        atoms = self._ctl.symbolic_atoms
        self._true_lit: dict[Term, int] = {}
        self._fact_fluents: set[Term] = set()
        for atom in atoms.by_signature("true", 1):
            term = symbol_to_term(atom.symbol.arguments[0])
            if atom.is_external:
                self._true_lit[term] = atom.literal
        self._does_lit: dict[tuple[Role, Move], int] = {}
        for atom in atoms.by_signature("does", 2):
            if atom.is_external:
                role = symbol_to_term(atom.symbol.arguments[0])
                move = symbol_to_term(atom.symbol.arguments[1])
                self._does_lit[(role, move)] = atom.literal
        # What each shown symbol means, so a model decodes with one dict lookup per atom.
        self._decode: dict[clingo.Symbol, tuple[str, Any]] = {}
        for atom in atoms.by_signature("legal", 2):
            role = symbol_to_term(atom.symbol.arguments[0])
            if role in self._role_index:
                move = symbol_to_term(atom.symbol.arguments[1])
                self._decode[atom.symbol] = ("legal", (self._role_index[role], move))
        for atom in atoms.by_signature("next", 1):
            self._decode[atom.symbol] = ("next", symbol_to_term(atom.symbol.arguments[0]))
        for atom in atoms.by_signature("init", 1):
            self._decode[atom.symbol] = ("init", symbol_to_term(atom.symbol.arguments[0]))
        for atom in atoms.by_signature("goal", 2):
            role = symbol_to_term(atom.symbol.arguments[0])
            if role in self._role_index:
                self._decode[atom.symbol] = ("goal", (self._role_index[role], symbol_to_term(atom.symbol.arguments[1])))
        for atom in atoms.by_signature("sees", 2):
            role = symbol_to_term(atom.symbol.arguments[0])
            if role in self._role_index:
                self._decode[atom.symbol] = ("sees", (self._role_index[role], symbol_to_term(atom.symbol.arguments[1])))
        for atom in atoms.by_signature("terminal", 0):
            self._decode[atom.symbol] = ("terminal", None)
        self._sort_key: dict[Term, str] = {}

    # --- solving ------------------------------------------------------------------------------

    def _set_externals(self, wanted: set[int], current: set[int]) -> None:
        assign = self._ctl.assign_external
        for literal in current - wanted:
            assign(literal, False)
        for literal in wanted - current:
            assign(literal, True)
        current.clear()
        current.update(wanted)

    def _fluent_literals(self, state: State) -> set[int]:
        try:
            return {self._true_lit[fact] for fact in state.facts}
        except KeyError:
            unknown = sorted(str(f) for f in state.facts if f not in self._true_lit)
            raise ReasonerError(
                f"{self.description.file}: fluent {unknown[0]} can never hold in this game"
            ) from None

    def _solve(self, state: State | None, does: set[int]) -> list[tuple[str, Any]]:
        with self._lock:
            self._set_externals(self._fluent_literals(state) if state is not None else set(), self._current_true)
            self._set_externals(does, self._current_does)
            decoded: list[tuple[str, Any]] = []
            decode = self._decode

            def on_model(model: clingo.Model) -> None:
                decoded.extend(decode[symbol] for symbol in model.symbols(shown=True) if symbol in decode)

            result = self._ctl.solve(on_model=on_model)
            self.solve_count += 1
        if not result.satisfiable:
            raise ReasonerError(f"{self.description.file}: no answer set for a state (is the game stratified?)")
        return decoded

    def _key(self, term: Term) -> str:
        key = self._sort_key.get(term)
        if key is None:
            key = self._sort_key[term] = str(term)
        return key

    def state_info(self, state: State) -> StateInfo:
        """Legal moves, terminal and goal values of ``state`` (cached)."""
        cached = self._info_cache.get(state)
        if cached is not None:
            self._info_cache.move_to_end(state)
            return cached
        legal: list[list[Move]] = [[] for _ in self._roles]
        goals: list[list[Term]] = [[] for _ in self._roles]
        terminal = False
        for kind, payload in self._solve(state, set()):
            if kind == "legal":
                legal[payload[0]].append(payload[1])
            elif kind == "goal":
                goals[payload[0]].append(payload[1])
            elif kind == "terminal":
                terminal = True
        info = StateInfo(
            tuple(tuple(sorted(moves, key=self._key)) for moves in legal),
            terminal,
            tuple(tuple(values) for values in goals),
        )
        self._info_cache[state] = info
        if len(self._info_cache) > self._cache_size:
            self._info_cache.popitem(last=False)
        return info

    # --- StateMachine protocol ----------------------------------------------------------------

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        facts = frozenset(payload for kind, payload in self._solve(None, set()) if kind == "init")
        return State(facts)

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        try:
            index = self._role_index[role]
        except KeyError:
            raise ValueError(f"unknown role {str(role)!r}") from None
        return self.state_info(state).legal[index]

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product(self.state_info(state).legal)

    def is_terminal(self, state: State) -> bool:
        return self.state_info(state).terminal

    def goal_values(self, state: State) -> tuple[tuple[Term, ...], ...]:
        """Every goal value derived for each role (normally exactly one)."""
        return self.state_info(state).goal_values

    def goals(self, state: State) -> tuple[int, ...]:
        """Each role's goal; raises ReasonerError unless every role has exactly one integer goal."""
        values = []
        for role, found in zip(self._roles, self.state_info(state).goal_values):
            if len(found) != 1:
                shown = ", ".join(sorted(str(v) for v in found)) or "none"
                raise ReasonerError(
                    f"{self.description.file}: role {role} has {len(found)} goal values ({shown}) in state {state}"
                )
            try:
                values.append(int(str(found[0])))
            except ValueError:
                raise ReasonerError(f"{self.description.file}: goal value {found[0]} of role {role} is not an integer") from None
        return tuple(values)

    def _does_literals(self, state: State, joint_move: JointMove) -> set[int]:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        legal = self.state_info(state).legal
        literals = set()
        for index, (role, move) in enumerate(zip(self._roles, joint_move)):
            if move not in legal[index]:
                raise IllegalMoveError(f"{move} is not a legal move for {role} in state {state}")
            literals.add(self._does_lit[(role, move)])
        return literals

    def next_state(self, state: State, joint_move: JointMove) -> State:
        return self.next_state_and_percepts(state, joint_move)[0]

    def next_state_and_percepts(self, state: State, joint_move: JointMove) -> tuple[State, tuple[frozenset[Term], ...]]:
        """The successor state and what each role sees (GDL-II ``sees``) after ``joint_move``."""
        facts: set[Term] = set()
        percepts: list[set[Term]] = [set() for _ in self._roles]
        for kind, payload in self._solve(state, self._does_literals(state, joint_move)):
            if kind == "next":
                facts.add(payload)
            elif kind == "sees":
                percepts[payload[0]].add(payload[1])
        return State(frozenset(facts)), tuple(frozenset(p) for p in percepts)

    # --- extras -------------------------------------------------------------------------------

    @property
    def fluent_domain(self) -> frozenset[Term]:
        """Every fluent that can ever hold (an over-approximation)."""
        return frozenset(self._true_lit)

    def move_domain(self, role: Role) -> frozenset[Move]:
        """Every move the role can ever make (an over-approximation)."""
        return frozenset(move for (r, move) in self._does_lit if r == role)

