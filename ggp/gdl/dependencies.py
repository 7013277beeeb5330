"""The relation dependency graph of GDL spec §4, and the atoms of a rule body it is built from.

An edge goes from each relation used in a body to the rule's head relation, marked negative when the
use is under ``not``. The validator (:mod:`ggp.gdl.validator`) checks stratification, recursion and the
``true``/``does`` restrictions on it; the reasoner's stratification of locally stratified games
(:mod:`ggp.reasoner.stratification`) reuses it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ggp.gdl.terms import Atom, Const, Description, Func, Literal, Not, Or
from ggp.graphs import strongly_connected_components


@dataclass(frozen=True, slots=True)
class DependencyGraph:
    """The relation dependency graph of spec §4: an edge from each body relation to the head relation.

    ``edges[q]`` maps each head relation p that has q in a body to ``True`` when some such
    occurrence is under ``not`` (a negative edge). Nodes are relation names (keywords included).
    """

    nodes: frozenset[str]
    edges: Mapping[str, Mapping[str, bool]]

    def successors(self, name: str) -> Iterable[str]:
        """The relations whose rules use ``name`` in a body."""
        return self.edges.get(name, {}).keys()

    def reachable_from(self, name: str) -> dict[str, str]:
        """Every relation that depends on ``name``, mapped to its predecessor on one shortest path."""
        parent: dict[str, str] = {}
        frontier = [name]
        while frontier:
            following = []
            for node in frontier:
                for succ in self.successors(node):
                    if succ not in parent and succ != name:
                        parent[succ] = node
                        following.append(succ)
            frontier = following
        return parent

    def components(self) -> dict[str, int]:
        """Strongly connected components: each node mapped to a component number (dependencies first)."""
        groups = strongly_connected_components(sorted(self.nodes), self.successors)
        return {member: number for number, group in enumerate(groups) for member in group}


def dependency_graph(description: Description) -> DependencyGraph:
    """Build the dependency graph of a description (every body atom, including under ``not``/``or``).

    >>> from ggp.gdl.parser import parse_kif
    >>> graph = dependency_graph(parse_kif("(<= (p ?x) (q ?x) (not (r ?x)))"))
    >>> sorted(graph.nodes), dict(graph.edges["r"])
    (['p', 'q', 'r'], {'p': True})
    """
    edges: dict[str, dict[str, bool]] = {}
    nodes: set[str] = set()
    for rule in description.rules:
        head = rule.head.name
        nodes.add(head)
        for atom, negated, _ in _body_atoms(rule.body):
            nodes.add(atom.name)
            targets = edges.setdefault(atom.name, {})
            targets[head] = targets.get(head, False) or negated
    return DependencyGraph(frozenset(nodes), edges)


def _body_atoms(body: Iterable[Literal]) -> Iterator[tuple[Atom, bool, bool]]:
    """Every atom in a body as (atom, negated, inside an ``or``), left to right."""
    stack: list[tuple[Literal, bool, bool]] = [(lit, False, False) for lit in reversed(tuple(body))]
    while stack:
        node, negated, in_or = stack.pop()
        if isinstance(node, (Const, Func)):
            yield node, negated, in_or
        elif isinstance(node, Not):
            stack.append((node.arg, True, in_or))
        elif isinstance(node, Or):
            stack.extend((d, negated, True) for d in reversed(node.disjuncts))
