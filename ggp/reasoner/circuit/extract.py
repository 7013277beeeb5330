"""Ground a game once with clingo and read its ground program through the observer interface.

The result, :class:`GroundProgram`, is plain data (program atoms are positive ints, body literals are
signed ints): the circuit builder never sees a ``clingo.Symbol``. Output atoms are mapped back to terms
with :func:`~ggp.reasoner.asp.symbol_to_term`; clingo reports an output atom it decided true while
grounding as atom ``0``, which is kept as the fact marker :data:`TRUE_ATOM`.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NoReturn

import clingo

from ggp.gdl.terms import KEYWORDS, Description, Rule, Term
from ggp.reasoner.asp import symbol_to_term
from ggp.reasoner.circuit.budget import CHECK_EVERY, DEFAULT_BUDGET, BudgetMeter
from ggp.reasoner.circuit.errors import CircuitError, CircuitTooLargeError, CompileBudgetError
from ggp.reasoner.clingo_machine import _isolated_domain, compute_domain, main_program
from ggp.reasoner.decompose import decompose_rules
from ggp.reasoner.isolation import IsolationError
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.relations import relation_key, relations_needed
from ggp.reasoner.specialize import specialize_calls
from ggp.reasoner.stratification import check_rules, negative_relation_cycle

__all__ = [
    "OUTPUT_KINDS", "TRUE_ATOM", "CircuitError", "CircuitTooLargeError", "CompileBudgetError", "GroundProgram",
    "ground_program", "split_rules",
]

log = logging.getLogger(__name__)

TRUE_ATOM = 0
"""The atom number clingo uses for an output atom that is a fact."""

OUTPUT_KINDS = ("legal", "next", "terminal", "goal", "init", "sees")




@dataclass(frozen=True, slots=True)
class GroundProgram:
    """A game's ground program: rules over program atoms, its inputs and its outputs.

    ``rules`` are ``(head, body)`` pairs whose body literals are signed atoms; ``true_atoms`` and
    ``does_atoms`` are the external inputs; ``outputs`` lists ``(kind, arguments, atom)`` for every
    shown atom, where ``atom`` is :data:`TRUE_ATOM` for a fact.
    """

    rules: tuple[tuple[int, tuple[int, ...]], ...]
    true_atoms: tuple[tuple[Term, int], ...]
    does_atoms: tuple[tuple[Term, Term, int], ...]
    outputs: tuple[tuple[str, tuple[Term, ...], int], ...]


class _Observer:
    """Collects the ground rules; refuses choice, disjunctive, constraint and weight rules. Past
    ``max_rules`` rules with a body (facts cost the circuit nothing: gt_two_thirds_4p has 1.1 million) it
    stops the grounding with :class:`CircuitTooLargeError`; ``None`` counts none. Every rule is charged
    to ``meter``. Clingo wraps what a callback raises, so the error is also kept in ``error``."""

    def __init__(self, max_rules: int | None, file: str, meter: BudgetMeter) -> None:
        self.rules: list[tuple[int, tuple[int, ...]]] = []
        self.outputs: list[tuple[clingo.Symbol, int]] = []
        self.error: CircuitError | None = None
        self._max_rules = max_rules
        self._limit = sys.maxsize if max_rules is None else max_rules
        self._counted = 0
        self._file = file
        self._meter = meter

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice or len(head) != 1:
            self._fail(CircuitError(f"{self._file}: the ground program has a rule a circuit cannot express"))
        rules = self.rules
        rules.append((head[0], tuple(body)))
        if body:
            self._counted += 1
            if self._counted > self._limit:
                self._fail(CircuitTooLargeError(
                    f"{self._file}: the ground program has more than {self._max_rules:,} rules (the node limit)"))
        if len(rules) % CHECK_EVERY == 0:  # this callback is the grounding's hottest path: no call unless due
            try:
                self._meter.check_due(f"while grounding, at {len(rules):,} ground rules")
            except CircuitError as exc:
                self._fail(exc)

    def _fail(self, error: CircuitError) -> NoReturn:
        self.error = error
        raise error

    def weight_rule(self, choice: bool, head: Sequence[int], lower_bound: int, body: Sequence[tuple[int, int]]) -> None:
        self._fail(CircuitError(f"{self._file}: the ground program has a weight rule a circuit cannot express"))

    def output_atom(self, symbol: clingo.Symbol, atom: int) -> None:
        self.outputs.append((symbol, atom))


def _clingo_logger(code: clingo.MessageCode, message: str) -> None:
    log.debug("clingo %s: %s", code, message.strip())


def ground_program(
    description: Description, limits: GroundingLimits, max_rules: int, meter: BudgetMeter | None = None,
) -> GroundProgram:
    """Ground the game's main program once and return it as plain data.

    The rules are grounded as written; when that makes more than ``max_rules`` ground rules (facts not
    counted), they are grounded again, over the same fluent and move domains, as :func:`split_rules`
    rewrites them (the same relations, joined a few variables at a time, general relations asked with
    constants specialised; hex's 746,000 ground rules become 94,000, chineseCheckers3's 1.1 million
    36,000), however many rules that makes. Games that fit as written keep exactly their circuit (splitting
    can also cost a few gates: each new relation is a node the builder does not inline).

    The whole of it is charged to ``meter`` (by default a fresh one of :data:`DEFAULT_BUDGET`): past its
    budget, :class:`CompileBudgetError`. Also raises :class:`CircuitError` for rules a circuit cannot express
    and :class:`ReasonerError` when grounding exceeds ``limits``.
    """
    meter = meter or BudgetMeter(DEFAULT_BUDGET, description.file)
    domains = _domain(description, limits, meter)
    try:
        return _ground_program(description, domains, max_rules, meter)
    except CircuitTooLargeError as exc:
        split = replace(description, rules=split_rules(description.rules))
        program = _ground_program(split, domains, None, meter)
        log.info("%s; %s ground rules with the rule bodies split", exc, f"{len(program.rules):,}")
    return program


def _domain(description: Description, limits: GroundingLimits, meter: BudgetMeter) -> tuple[list[str], list[str]]:
    """The fluent and move domains; with ``limits.isolate``, from a child process held to the budget (the
    domain phase is where a grounding that would not end is found, in C; the main grounding that follows
    here hands over its rules one by one, so the meter stops it). The child's CPU time is charged to
    ``meter``: the budget counts the whole compile."""
    if not limits.isolate:
        return compute_domain(description, limits.max_atoms)
    probe_limits = replace(limits, memory_mb=min(limits.memory_mb, meter.budget.memory_mb))
    try:
        domains = _isolated_domain(description, probe_limits, cpu_seconds=max(1.0, meter.cpu_left()), main=False,
                                   charge=meter.charge)
    except IsolationError as exc:
        raise meter.exceeded(exc.kind, f"the {exc.detail} of its child process") from None
    meter.check("after the domain phase", memory=False)
    return domains


def split_rules(rules: Sequence[Rule]) -> tuple[Rule, ...]:
    """The rules as the second grounding takes them: calls with constant arguments specialised
    (:func:`~ggp.reasoner.specialize.specialize_calls`: chineseCheckers' goal asks ``count`` for one
    board and colour, whose general rules join three cells over every cell), the relations no output
    needs dropped (the general rules a specialised call no longer reaches), the bodies split by
    variable elimination (:func:`~ggp.reasoner.decompose.decompose_rules`)."""
    relations = frozenset(relation_key(rule.head) for rule in rules if rule.head.name not in KEYWORDS)
    specialised = specialize_calls(rules, relations)
    needed = relations_needed(Description(tuple(specialised)), frozenset((*OUTPUT_KINDS, "role")))
    return decompose_rules(rule for rule in specialised if rule.head.name in needed)


def _ground_program(
    description: Description, domains: tuple[list[str], list[str]], max_rules: int | None, meter: BudgetMeter,
) -> GroundProgram:
    fluents, moves = domains
    ctl = clingo.Control(["--warn=none"], logger=_clingo_logger)
    observer = _Observer(max_rules, description.file, meter)
    ctl.register_observer(observer)  # type: ignore[arg-type]  # duck-typed, as clingo documents
    ctl.add("base", [], main_program(description, fluents, moves))
    try:
        ctl.ground([("base", [])])
    except RuntimeError as exc:  # clingo wraps exceptions raised in observer callbacks
        if observer.error is not None:
            raise observer.error from None
        raise CircuitError(f"{description.file}: grounding for the circuit failed: {exc}") from exc
    meter.check(f"after grounding {len(observer.rules):,} rules")
    if negative_relation_cycle(description.rules):
        # Locally stratified games compile (the builder orders ground atoms); a ground negative cycle is
        # refused here with its atoms named, not as a circuit limit that another engine could lift.
        check_rules(ctl, [((head,), body) for head, body in observer.rules], description.file)
    true_atoms: list[tuple[Term, int]] = []
    for atom in ctl.symbolic_atoms.by_signature("true", 1):
        if atom.is_external:
            true_atoms.append((symbol_to_term(atom.symbol.arguments[0]), atom.literal))
    does_atoms: list[tuple[Term, Term, int]] = []
    for atom in ctl.symbolic_atoms.by_signature("does", 2):
        if atom.is_external:
            args = atom.symbol.arguments
            does_atoms.append((symbol_to_term(args[0]), symbol_to_term(args[1]), atom.literal))
    outputs: list[tuple[str, tuple[Term, ...], int]] = []
    for symbol, program_atom in observer.outputs:
        if symbol.type == clingo.SymbolType.Function and symbol.name in OUTPUT_KINDS:
            outputs.append((symbol.name, tuple(symbol_to_term(arg) for arg in symbol.arguments), program_atom))
    return GroundProgram(tuple(observer.rules), tuple(true_atoms), tuple(does_atoms), tuple(outputs))
