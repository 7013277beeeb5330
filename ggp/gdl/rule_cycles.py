"""Negative cycles among rule instances: whether a relation-level cycle through ``not`` holds for ground atoms.

A game whose relations depend on their own negation is still valid GDL when it is locally stratified: no
ground atom depends on its own negation. :class:`_RuleGraph` links each rule to the body atoms its head
unifies with (rules renamed apart), and follows a cycle through a negated atom until the heads unify to
ground atoms, to tell the validator (:mod:`ggp.gdl.validator`) an error from a warning.
"""

from __future__ import annotations

from ggp.gdl.dependencies import _body_atoms
from ggp.gdl.terms import Atom, Const, Func, Rule, Term, Var, is_ground
from ggp.graphs import strongly_connected_components

_Tagged = tuple[int, Term]
"""A term of one renamed-apart copy of a rule: (copy number, term)."""


class _RuleGraph:
    """The rules of some relation components, with an edge from each rule to every (rule, body atom)
    its head unifies with (after renaming apart): a cycle of ground instances maps to a cycle here."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.index = {id(rule): i for i, rule in enumerate(rules)}
        by_head: dict[str, list[int]] = {}
        for i, rule in enumerate(rules):
            by_head.setdefault(rule.head.name, []).append(i)
        # edges[i]: (j, body atom of rule j, negated) for each body atom of rule j that rule i's head unifies with.
        self.edges: list[list[tuple[int, Atom, bool]]] = [[] for _ in rules]
        for j, rule in enumerate(rules):
            for atom, negated, _ in _body_atoms(rule.body):
                for i in by_head.get(atom.name, ()):
                    if _unify([((0, rules[i].head), (1, atom))], {}) is not None:
                        self.edges[i].append((j, atom, negated))
        groups = strongly_connected_components(range(len(rules)), lambda i: [j for j, _, _ in self.edges[i]])
        self.component = {member: number for number, group in enumerate(groups) for member in group}

    def negative_cycle(self, rule: Rule, atom: Atom) -> str | None:
        """None when no rule cycle goes through ``(not atom)`` in ``rule``; else the text of one cycle of
        ground atoms (the rules' heads unify all the way round to ground atoms), or ``""`` when the first
        cycle found does not close or leaves variables (only grounding can tell)."""
        j = self.index[id(rule)]
        for i in range(len(self.rules)):
            if self.component[i] != self.component[j]:
                continue
            for target, body_atom, negated in self.edges[i]:
                if target == j and negated and body_atom is atom:
                    return self._instance(self._path(j, i) + [j], atom)
        return None

    def _path(self, start: int, end: int) -> list[int]:
        """Rule numbers of a shortest path from ``start`` to ``end`` inside their component."""
        parent: dict[int, int] = {start: start}
        frontier = [start]
        while end not in parent:
            following = []
            for node in frontier:
                for succ, _, _ in self.edges[node]:
                    if succ not in parent and self.component[succ] == self.component[start]:
                        parent[succ] = node
                        following.append(succ)
            frontier = following
        path = [end]
        while path[-1] != start:
            path.append(parent[path[-1]])
        return path[::-1]

    def _instance(self, cycle: list[int], atom: Atom) -> str:
        """Unify each rule's head with the next rule's body atom along ``cycle`` (its first and last rule
        are the same copy); the instantiated cycle as text, or "" when the unifications conflict."""
        pairs: list[tuple[_Tagged, _Tagged]] = []
        negations: list[bool] = []
        last = len(cycle) - 1
        for step in range(last):
            here, there = cycle[step], cycle[step + 1]
            body_atom, negated = (atom, True) if step + 1 == last else next(
                (a, n) for t, a, n in self.edges[here] if t == there)
            pairs.append(((step, self.rules[here].head), (0 if step + 1 == last else step + 1, body_atom)))
            negations.append(negated)
        subst = _unify(pairs, {})
        if subst is None:
            return ""
        heads = [_resolve(self.rules[cycle[step]].head, step, subst) for step in range(last)]
        if not all(is_ground(head) for head in heads):
            return ""  # a cycle of some instances only if the bodies allow them: the grounder decides
        # Read backwards: the first rule's head comes from the last link, and so on round to itself.
        shown = [str(heads[0])]
        for step in range(last - 1, -1, -1):
            shown.append(f"{'not ' if negations[step] else ''}{heads[step]}")
        return " <- ".join(shown)


def _walk(tagged: _Tagged, subst: dict[tuple[int, str], _Tagged]) -> _Tagged:
    copy, term = tagged
    while isinstance(term, Var) and (copy, term.name) in subst:
        copy, term = subst[(copy, term.name)]
    return copy, term


def _unify(pairs: list[tuple[_Tagged, _Tagged]],
           subst: dict[tuple[int, str], _Tagged]) -> dict[tuple[int, str], _Tagged] | None:
    """Most general unifier of tagged term pairs (variables of different copies are different), or None."""
    stack = list(pairs)
    budget = 10_000  # no occurs check: a cyclic binding must not spin forever
    while stack:
        budget -= 1
        if budget < 0:
            return None
        left, right = stack.pop()
        (lc, lt), (rc, rt) = _walk(left, subst), _walk(right, subst)
        if isinstance(lt, Var) and isinstance(rt, Var) and lc == rc and lt == rt:
            continue
        if isinstance(lt, Var):
            subst[(lc, lt.name)] = (rc, rt)
        elif isinstance(rt, Var):
            subst[(rc, rt.name)] = (lc, lt)
        elif isinstance(lt, Const) or isinstance(rt, Const):
            if lt != rt:
                return None
        elif lt.name != rt.name or len(lt.args) != len(rt.args):
            return None
        else:
            stack.extend(((lc, a), (rc, b)) for a, b in zip(lt.args, rt.args))
    return subst


def _resolve(term: Term, copy: int, subst: dict[tuple[int, str], _Tagged], depth: int = 0) -> Term:
    """``term`` of a copy with the substitution applied (cut off on a cyclic binding)."""
    copy, term = _walk((copy, term), subst)
    if isinstance(term, Func) and depth < 32:
        return Func(term.name, tuple(_resolve(arg, copy, subst, depth + 1) for arg in term.args))
    return term
