"""Factors of a game: groups of fluents and moves that never influence each other's next state or
legality (Günther, Schiffel & Thielscher, "Factoring General Games", 2009).

Read from the circuit, a pure function of the rules: fluent ``f`` is tied to every fluent and move in the
cone of its ``next`` output, and move ``m`` to every fluent in the cone of its ``legal`` output. The
connected components of that relation are the factors. ``terminal`` and ``goal`` are left out on purpose:
they are where independent sub-games meet (connectFourSimultaneous ends at the first line on either
board), so a factor is searched on its own with the rest of the state held as it is
(:func:`~ggp.reasoner.factoring.factor_of_moves`, the C search's ``ggp_mcts_set_factor``).

A factor with fluents and no moves evolves by itself (a step counter): it is no sub-game to choose in,
and a factored search keeps it running (:attr:`Factoring.free_fluents`). A move that reads and changes no
fluent (a noop legal in every state) belongs to no factor: it is allowed in every factor's search.
"""

from __future__ import annotations

from collections.abc import Iterable

from ggp.reasoner.circuit.build import Circuit, Statement
from ggp.reasoner.factoring import Factor, Factoring


class _UnionFind:
    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, item: int) -> int:
        root = item
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[item] != root:
            self.parent[item], item = root, self.parent[item]
        return root

    def union(self, items: Iterable[int]) -> None:
        first: int | None = None
        for item in items:
            root = self.find(item)
            if first is None:
                first = root
            elif root != first:
                self.parent[root] = first


def find_factors(circuit: Circuit) -> Factoring:
    """The factors of ``circuit`` (see the module notes)."""
    n_fluents, n_moves = circuit.n_fluents, circuit.n_moves
    inputs: dict[int, set[int]] = {}
    for statement in (*circuit.phase_a, *circuit.phase_b):
        _record(statement, inputs)
    outputs = [(1 + f, ref.slot) for f, ref in enumerate(circuit.next)]
    outputs += [(1 + n_fluents + m, ref.slot) for m, ref in enumerate(circuit.legal)]
    width = max([circuit.n_slots, 1 + n_fluents + n_moves, *(slot + 1 for _, slot in outputs)])
    groups = _UnionFind(width)
    seen: set[int] = set()
    for owner, slot in outputs:
        if slot == 0:
            continue  # a constant output ties nothing
        groups.union((owner, slot))
        stack = [slot]
        while stack:
            gate = stack.pop()
            if gate in seen:
                continue
            seen.add(gate)
            below = inputs.get(gate, set())
            groups.union((gate, *below))
            stack.extend(below)
    fluents_of: dict[int, set[int]] = {}
    moves_of: dict[int, set[int]] = {}
    for f in range(n_fluents):
        fluents_of.setdefault(groups.find(1 + f), set()).add(f)
    for m in range(n_moves):
        moves_of.setdefault(groups.find(1 + n_fluents + m), set()).add(m)
    factors = sorted(
        (Factor(frozenset(fluents), frozenset(moves_of[root])) for root, fluents in fluents_of.items()
         if root in moves_of),
        key=lambda factor: min(factor.fluents),
    )
    free_fluents = frozenset(f for root, fluents in fluents_of.items() if root not in moves_of for f in fluents)
    free_moves = frozenset(m for root, moves in moves_of.items() if root not in fluents_of for m in moves)
    return Factoring(tuple(factors), free_fluents, free_moves)


def _record(statement: Statement, inputs: dict[int, set[int]]) -> None:
    """The slots each of ``statement``'s slots reads (a recursive component's slots read each other too)."""
    read = {abs(lit) for terms in statement.terms for body in terms for lit in body} - {0}
    if statement.recursive:
        for slot in statement.slots:
            inputs[slot] = read | set(statement.slots)
        return
    for slot, terms in zip(statement.slots, statement.terms):
        inputs[slot] = {abs(lit) for body in terms for lit in body} - {0}
