"""The rule-level vocabulary of the per-state engine (:mod:`ggp.reasoner.rulecode`): ground terms in
compact form, relation keys, which relations depend on the state, and the state-independent (static)
relations' facts, computed once by clingo in an isolated child.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Iterator, Sequence
from typing import Union

import clingo

from ggp.errors import NotStratifiedError, ReasonerError
from ggp.gdl.terms import Const, Description, Distinct, Func, Not, Or, Rule, Term, Var, atoms_of
from ggp.gdl.terms import Literal as GdlLiteral
from ggp.graphs import reachable
from ggp.reasoner.asp import encode_name, rules_to_asp, symbol_to_term
from ggp.reasoner.isolation import IsolationError, grounding_error, run_isolated
from ggp.reasoner.stratification import check_ground, watch

log = logging.getLogger(__name__)

Value = Union[str, tuple]  # type: ignore[type-arg]  # noqa: UP007 - a runtime alias, kept simple for mypy
"""A ground term in compact form: a constant's name, or ``(name, arg, ...)`` for a compound term."""

RelKey = tuple[str, int]
"""A relation: its name and arity."""

Facts = dict[RelKey, set[tuple[Value, ...]]]
TRUE_KEY: RelKey = ("true", 1)
DOES_KEY: RelKey = ("does", 2)
def to_value(term: Term) -> Value:
    """The compact form of a ground term; raises ``ValueError`` for a variable.

    ``(f)`` becomes ``f``, as it does in clingo, so both engines return the same states.
    """
    if isinstance(term, Const):
        return term.name
    if isinstance(term, Func):
        if not term.args:
            return term.name
        return (term.name, *(to_value(arg) for arg in term.args))
    raise ValueError(f"variable {term} is not ground")


def to_term(value: Value) -> Term:
    """The term of a compact value (inverse of :func:`to_value`)."""
    if isinstance(value, str):
        return Const(value)
    return Func(value[0], tuple(to_term(arg) for arg in value[1:]))


def relation_key(atom: Const | Func) -> RelKey:
    return (atom.name, 0) if isinstance(atom, Const) else (atom.name, len(atom.args))


def atom_args(atom: Const | Func) -> tuple[Term, ...]:
    return () if isinstance(atom, Const) else atom.args


def term_vars(term: Term) -> Iterator[str]:
    if isinstance(term, Var):
        yield term.name
    elif isinstance(term, Func):
        for arg in term.args:
            yield from term_vars(arg)


def literal_vars(literal: GdlLiteral) -> set[str]:
    if isinstance(literal, Not):
        return literal_vars(literal.arg)
    if isinstance(literal, Distinct):
        return set(term_vars(literal.left)) | set(term_vars(literal.right))
    if isinstance(literal, Or):
        return set().union(*(literal_vars(d) for d in literal.disjuncts))
    return set(term_vars(literal))


def expand_or(body: Sequence[GdlLiteral]) -> Iterator[tuple[GdlLiteral, ...]]:
    """Every or-free body obtained by choosing one disjunct of each ``or`` (nested ones too)."""
    options: list[list[tuple[GdlLiteral, ...]]] = []
    for literal in body:
        if isinstance(literal, Or):
            alternatives: list[tuple[GdlLiteral, ...]] = []
            for disjunct in literal.disjuncts:
                alternatives.extend(expand_or((disjunct,)))
            options.append(alternatives)
        else:
            options.append([(literal,)])
    for choice in itertools.product(*options):
        yield tuple(lit for part in choice for lit in part)


def body_relations(literal: GdlLiteral) -> Iterator[tuple[RelKey, bool]]:
    """(relation, negated) for each atom of a literal."""
    if isinstance(literal, Not):
        for key, _ in body_relations(literal.arg):
            yield key, True
    elif isinstance(literal, Or):
        for disjunct in literal.disjuncts:
            yield from body_relations(disjunct)
    elif isinstance(literal, (Const, Func)):
        yield relation_key(literal), False


def relation_uses(rules: Iterable[Rule]) -> dict[RelKey, set[RelKey]]:
    """Each defined relation and the relations its rules' bodies use (negated or not)."""
    uses: dict[RelKey, set[RelKey]] = {}
    for rule in rules:
        target = uses.setdefault(relation_key(rule.head), set())
        for literal in rule.body:
            target.update(key for key, _ in body_relations(literal))
    return uses


def dynamic_relations(rules: Iterable[Rule]) -> frozenset[RelKey]:
    """The relations whose truth can depend on ``true`` or ``does`` (directly or through other rules)."""
    uses = relation_uses(rules)
    dynamic = {TRUE_KEY, DOES_KEY}
    changed = True
    while changed:
        changed = False
        for head, body in uses.items():
            if head not in dynamic and body & dynamic:
                dynamic.add(head)
                changed = True
    return frozenset(dynamic)


def relations_needed(description: Description, targets: frozenset[str]) -> frozenset[str]:
    """The relation names the ``targets`` depend on (themselves included), following rule bodies."""
    uses: dict[str, set[str]] = {}
    for rule in description.rules:
        body = uses.setdefault(rule.head.name, set())
        for literal in rule.body:
            body.update(atom.name for atom, _ in atoms_of(literal))
    return frozenset(reachable(targets, uses))


def _ground(program: str, file: str, phase: str, max_atoms: int, rules: Sequence[Rule] = ()) -> clingo.Control:
    """A clingo control with ``program`` (the translation of ``rules``, when given) grounded; ReasonerError
    when grounding fails or makes more than ``max_atoms`` atoms, NotStratifiedError when the ground
    ``rules`` have a cycle through negation."""
    ctl = clingo.Control(["--warn=none"], logger=lambda code, message: log.debug("clingo: %s", message.strip()))
    observer = watch(ctl, rules)
    ctl.add("base", [], program)
    try:
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise ReasonerError(f"{file}: grounding phase '{phase}' failed: {exc}") from exc
    check_ground(ctl, observer, file)
    if (count := len(ctl.symbolic_atoms)) > max_atoms:
        raise ReasonerError(
            f"{file}: grounding phase '{phase}' made {count:,} atoms, more than the limit of {max_atoms:,}"
        )
    return ctl


def static_model(rules: Sequence[Rule], file: str, max_atoms: int) -> Facts:
    """Every fact of the given state-independent rules, computed once with clingo."""
    ctl = _ground(rules_to_asp(rules), file, "static", max_atoms, rules)
    symbols: list[clingo.Symbol] = []
    result = ctl.solve(on_model=lambda model: symbols.extend(model.symbols(atoms=True)))
    if not result.satisfiable:
        raise ReasonerError(f"{file}: the static relations have no answer set")
    facts: Facts = {}
    for symbol in symbols:
        term = symbol_to_term(symbol)
        if isinstance(term, Var):  # pragma: no cover - clingo never returns one
            continue
        facts.setdefault(relation_key(term), set()).add(tuple(to_value(arg) for arg in atom_args(term)))
    return facts


def static_relation(
    description: Description, name: str, arity: int, max_atoms: int = 5_000_000
) -> frozenset[tuple[Term, ...]]:
    """Every ground argument tuple of a relation that depends on neither ``true`` nor ``does`` (``base``,
    ``input``). Raises :class:`ReasonerError` when grounding fails or exceeds ``max_atoms``."""
    needed = relations_needed(description, frozenset({name}))
    rules = [rule for rule in description.rules if rule.head.name in needed]
    ctl = _ground(
        rules_to_asp(rules) + f"\n#show {encode_name(name)}/{arity}.", description.file, name, max_atoms, rules
    )
    found: list[tuple[Term, ...]] = []

    def on_model(model: clingo.Model) -> None:
        found.extend(tuple(symbol_to_term(arg) for arg in symbol.arguments) for symbol in model.symbols(shown=True))

    ctl.solve(on_model=on_model)
    return frozenset(found)


def isolated_static_model(rules: Sequence[Rule], file: str, max_atoms: int, seconds: float, memory_mb: int) -> Facts:
    """:func:`static_model` in an isolated child, killed after ``seconds``; ReasonerError when it does not finish."""
    try:
        facts: Facts = run_isolated(static_model, (list(rules), file, max_atoms), seconds=seconds, memory_mb=memory_mb)
    except IsolationError as exc:
        if exc.kind == "failed" and ": not stratified: " in exc.detail:
            raise NotStratifiedError(exc.detail) from None
        raise grounding_error(file, "static", exc, seconds, memory_mb) from None
    return facts
