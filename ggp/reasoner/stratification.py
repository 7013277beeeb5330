"""Stratification on ground atoms: refuse a game whose ground program has a cycle through negation.

GDL asks for stratification on relations, but real games only have it on ground atoms (locally
stratified: ``(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))``) and the validator lets them through
with a warning (:mod:`ggp.gdl.validator`). Their ground program is stratified, so it has exactly one
answer set and clingo finds it. A ground program with a cycle through negation may have none or several
(``p :- not q. q :- not p.``): clingo would silently pick one. The engines therefore read the ground
rules of any game whose relation graph has a negative cycle (clingo's observer interface; free for every
other game) and raise :class:`~ggp.errors.NotStratifiedError` naming the atoms of one ground negative cycle.

>>> import clingo
>>> from ggp.gdl.parser import parse_kif
>>> rules = parse_kif("(<= p (not q)) (<= q (not p))").rules
>>> ctl = clingo.Control(["--warn=none"])
>>> observer = watch(ctl, rules)
>>> ctl.add("base", [], "p :- not q. q :- not p.")
>>> ctl.ground([("base", [])])
>>> check_ground(ctl, observer, "game.kif")
Traceback (most recent call last):
...
ggp.errors.NotStratifiedError: game.kif: not stratified: ground atoms depend on their own negation: q <- not p <- not q
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import clingo

from ggp.errors import NotStratifiedError
from ggp.gdl.dependencies import dependency_graph
from ggp.gdl.terms import Description, Rule
from ggp.graphs import strongly_connected_components
from ggp.reasoner.asp import symbol_to_term

_SHOWN_ATOMS = 8
"""A printed cycle longer than this is cut in the middle."""


def negative_relation_cycle(rules: Sequence[Rule]) -> bool:
    """Whether some relation of ``rules`` depends on its own negation (at the relation level)."""
    graph = dependency_graph(Description(tuple(rules)))
    component = graph.components()
    return any(
        negative and component[body] == component[head]
        for body, heads in graph.edges.items()
        for head, negative in heads.items()
    )


class GroundRules:
    """A clingo observer that keeps the ground rules as (head atoms, signed body literals)."""

    def __init__(self) -> None:
        self.rules: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        self.rules.append((tuple(head), tuple(body)))

    def weight_rule(self, choice: bool, head: Sequence[int], lower_bound: int, body: Sequence[tuple[int, int]]) -> None:
        self.rules.append((tuple(head), tuple(literal for literal, _ in body)))


def watch(ctl: clingo.Control, rules: Sequence[Rule]) -> GroundRules | None:
    """Register an observer on ``ctl`` (before grounding) when ``rules`` have a negative cycle among
    relations; None (nothing to check, nothing recorded) otherwise."""
    if not negative_relation_cycle(rules):
        return None
    observer = GroundRules()
    ctl.register_observer(observer)  # type: ignore[arg-type]  # duck-typed, as clingo documents
    return observer


def ground_negative_cycle(rules: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[tuple[int, bool]] | None:
    """One cycle through negation of a ground program, or None when it is stratified.

    The cycle is a list of (atom, negated) read from its last atom backwards along the derivations: the
    last atom is derived from the first, each other atom from the one after it, under ``not`` when the
    source's flag says so: ``[(3, True), (1, False), (2, False)]`` reads ``2 <- not 3 <- 1 <- 2``.

    >>> ground_negative_cycle([((1,), (-2,)), ((2,), (-1,))])
    [(2, True), (1, True)]
    >>> ground_negative_cycle([((1,), (-2,)), ((2,), (3,))]) is None
    True
    """
    edges: dict[int, dict[int, bool]] = {}  # body atom -> head atom -> through negation
    for heads, body in rules:
        for literal in body:
            targets = edges.setdefault(abs(literal), {})
            for head in heads:
                targets[head] = targets.get(head, False) or literal < 0
    components = strongly_connected_components(sorted(edges), lambda atom: edges.get(atom, {}).keys())
    component = {atom: number for number, group in enumerate(components) for atom in group}
    for source, targets in edges.items():
        for head, negative in targets.items():
            if negative and component.get(head) == component[source]:
                return _cycle(edges, component, head, source)
    return None


def _cycle(edges: dict[int, dict[int, bool]], component: dict[int, int], head: int, body: int) -> list[tuple[int, bool]]:
    """The cycle ``head <- not body <- ... <- head``, closed by a shortest derivation path from ``head``
    to ``body`` inside their component."""
    parent: dict[int, int] = {head: head}
    frontier = [head]
    while body not in parent:
        following = []
        for atom in frontier:
            for succ in edges.get(atom, {}):
                if succ not in parent and component.get(succ) == component[head]:
                    parent[succ] = atom
                    following.append(succ)
        frontier = following
    backwards = [body]  # body, ..., head: each atom is derived from the one after it
    while backwards[-1] != head:
        backwards.append(parent[backwards[-1]])
    cycle = [(body, True)]
    for derived, source in itertools.pairwise(backwards):
        cycle.append((source, edges[source][derived]))
    return cycle


def check_ground(ctl: clingo.Control, observer: GroundRules | None, file: str) -> None:
    """Raise :class:`NotStratifiedError` naming the atoms when the rules ``observer`` recorded while
    ``ctl`` grounded have a cycle through negation; nothing when ``observer`` is None."""
    if observer is None:
        return
    rules, observer.rules = observer.rules, []
    check_rules(ctl, rules, file)


def check_rules(ctl: clingo.Control, rules: Sequence[tuple[Sequence[int], Sequence[int]]], file: str) -> None:
    """Raise :class:`NotStratifiedError` naming the atoms (read from ``ctl``, which grounded ``rules``)
    when ``rules`` have a cycle through negation."""
    cycle = ground_negative_cycle(rules)
    if cycle is None:
        return
    wanted = {atom for atom, _ in cycle}
    names = {
        atom.literal: str(symbol_to_term(atom.symbol)) for atom in ctl.symbolic_atoms if atom.literal in wanted
    }
    links = [f"{'not ' if negated else ''}{names.get(atom, f'#{atom}')}" for atom, negated in cycle]
    if len(links) > _SHOWN_ATOMS:
        links = [*links[: _SHOWN_ATOMS // 2], "...", *links[-_SHOWN_ATOMS // 2:]]
    text = " <- ".join([names.get(cycle[-1][0], f"#{cycle[-1][0]}"), *links])
    raise NotStratifiedError(f"{file}: not stratified: ground atoms depend on their own negation: {text}")
