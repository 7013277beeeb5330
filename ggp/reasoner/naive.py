"""NaiveStateMachine: a fresh clingo ground-and-solve for every query (the baseline).

Each query writes the state as ``true`` facts (and the joint move as ``does`` facts) next to the game's
rules, grounds the whole program and reads the single answer set. Nothing is kept between queries
except the translated program text and the last state's answers, so this is the simple, slow
reference point that the grounded :class:`~ggp.reasoner.clingo_machine.ClingoStateMachine` is
measured against (``ggp bench --engine naive``).

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif('''(role a) (init (count 0)) (<= (legal a step) (true (count 0)))
...   (<= (next (count 1)) (does a step)) (<= terminal (true (count 1))) (goal a 100)''')
>>> machine = NaiveStateMachine(game)
>>> after = machine.next_state(machine.initial_state(), (machine.legal_moves(machine.initial_state(), machine.roles[0])[0],))
>>> machine.is_terminal(after), machine.goals(after)
(True, (100,))
"""

from __future__ import annotations

import logging

import clingo

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.gdl.terms import Description, Term
from ggp.reasoner.asp import rules_to_asp, symbol_to_term, term_to_symbol
from ggp.reasoner.machine import GroundingLimits, JointMove, Move, Role, State, StateInfo, StateInfoQueries
from ggp.reasoner.stratification import check_ground, negative_relation_cycle, watch

log = logging.getLogger(__name__)

_SHOWN = "#show legal/2. #show next/1. #show terminal/0. #show goal/2. #show init/1."


def _clingo_logger(code: clingo.MessageCode, message: str) -> None:
    log.debug("clingo %s: %s", code, message.strip())


class NaiveStateMachine(StateInfoQueries):
    """A :class:`~ggp.reasoner.machine.StateMachine` that grounds the game again for every query.

    ``limits.max_atoms`` bounds each grounding; the time limit and isolation are not applied (this
    engine is for measurements and cross-checks on small games). Raises :class:`ReasonerError` when a
    query has no answer set and :class:`IllegalMoveError` for an illegal joint move.
    """

    engine = "naive"
    """The registered engine this machine is (:func:`ggp.reasoner.engines.engine_name`)."""

    def __init__(self, description: Description, limits: GroundingLimits | None = None) -> None:
        self.description = description
        self.limits = limits or GroundingLimits()
        self._roles: tuple[Role, ...] = tuple(description.roles)
        if not self._roles:
            raise ReasonerError(f"{description.file}: the game defines no role")
        self._role_index = {role: i for i, role in enumerate(self._roles)}
        self._program = rules_to_asp(description.rules) + "\n" + _SHOWN
        self._check = negative_relation_cycle(description.rules)
        self._last: tuple[State, StateInfo] | None = None
        self.solve_count = 0

    def _answer(self, facts: list[str]) -> list[clingo.Symbol]:
        ctl = clingo.Control(["--warn=none"], logger=_clingo_logger)
        observer = watch(ctl, self.description.rules) if self._check else None
        ctl.add("base", [], self._program + "\n" + "\n".join(facts))
        try:
            ctl.ground([("base", [])])
        except RuntimeError as exc:
            raise ReasonerError(f"{self.description.file}: grounding failed: {exc}") from exc
        check_ground(ctl, observer, self.description.file)
        atoms = len(ctl.symbolic_atoms)
        if atoms > self.limits.max_atoms:
            raise ReasonerError(
                f"{self.description.file}: grounding phase 'main' made {atoms:,} atoms, "
                f"more than the limit of {self.limits.max_atoms:,}"
            )
        symbols: list[clingo.Symbol] = []
        result = ctl.solve(on_model=lambda model: symbols.extend(model.symbols(shown=True)))
        self.solve_count += 1
        if not result.satisfiable:
            raise ReasonerError(f"{self.description.file}: no answer set for a state (is the game stratified?)")
        return symbols

    @staticmethod
    def _state_facts(state: State) -> list[str]:
        return [f"true({term_to_symbol(fact)})." for fact in state.facts]

    def state_info(self, state: State) -> StateInfo:
        """Legal moves, terminal and goal values of ``state`` (only the last state is remembered)."""
        if self._last is not None and self._last[0] == state:
            return self._last[1]
        legal: list[list[Move]] = [[] for _ in self._roles]
        goals: list[list[Term]] = [[] for _ in self._roles]
        terminal = False
        for symbol in self._answer(self._state_facts(state)):
            if symbol.name == "legal" and len(symbol.arguments) == 2:
                index = self._role_index.get(symbol_to_term(symbol.arguments[0]))
                if index is not None:
                    legal[index].append(symbol_to_term(symbol.arguments[1]))
            elif symbol.name == "goal" and len(symbol.arguments) == 2:
                index = self._role_index.get(symbol_to_term(symbol.arguments[0]))
                if index is not None:
                    goals[index].append(symbol_to_term(symbol.arguments[1]))
            elif symbol.name == "terminal" and not symbol.arguments:
                terminal = True
        info = StateInfo(
            tuple(tuple(sorted(moves, key=str)) for moves in legal),
            terminal,
            tuple(tuple(values) for values in goals),
        )
        self._last = (state, info)
        return info

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        return State(
            frozenset(
                symbol_to_term(s.arguments[0]) for s in self._answer([]) if s.name == "init" and len(s.arguments) == 1
            )
        )

    _info = state_info  # the StateInfoQueries hook, bound directly (one call less per query)

    def next_state(self, state: State, joint_move: JointMove) -> State:
        legal = self.state_info(state).legal
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        for index, (role, move) in enumerate(zip(self._roles, joint_move)):
            if move not in legal[index]:
                raise IllegalMoveError(f"{move} is not a legal move for {role} in state {state}")
        facts = self._state_facts(state) + [
            f"does({term_to_symbol(role)},{term_to_symbol(move)})." for role, move in zip(self._roles, joint_move)
        ]
        return State(
            frozenset(
                symbol_to_term(s.arguments[0]) for s in self._answer(facts) if s.name == "next" and len(s.arguments) == 1
            )
        )
