"""The fluents a game can ever hold, computed from its rules once (to draw its board before any move).

``base`` says it exactly where a game defines it; otherwise the relaxed domain of ``init`` and ``next``
(the clingo engine's first grounding phase) over-approximates it. Both are groundings, so the
isolated form bounds time and memory the way every grounding probe does.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role r) (index 1) (index 2) (<= (base (cell ?x)) (index ?x)) (init (cell 1))")
>>> sorted(str(fluent) for fluent in possible_fluents(game))
['(cell 1)', '(cell 2)']
>>> sorted(str(fluent) for fluent in initial_fluents(game))
['(cell 1)']
"""

from __future__ import annotations

from ggp.gdl.terms import Description, Term
from ggp.reasoner.clingo_machine import fluent_domain_terms
from ggp.reasoner.isolation import IsolationError, grounding_error, run_isolated
from ggp.reasoner.relations import static_relation

MAX_ATOMS = 500_000
"""Largest grounding accepted for the domain (a board is a few hundred fluents; huge games are skipped)."""


def possible_fluents(description: Description, max_atoms: int = MAX_ATOMS) -> frozenset[Term]:
    """The ``base`` fluents when the game defines ``base``, else the relaxed fluent domain.

    Raises :class:`~ggp.errors.ReasonerError` when grounding fails or makes more than ``max_atoms`` atoms.
    """
    if any(rule.head.name == "base" for rule in description.rules):
        return frozenset(args[0] for args in static_relation(description, "base", 1, max_atoms))
    return fluent_domain_terms(description, max_atoms)


def initial_fluents(description: Description, max_atoms: int = MAX_ATOMS) -> frozenset[Term]:
    """The initial state's fluents (``init`` depends on neither ``true`` nor ``does``), without building a
    state machine; raises :class:`~ggp.errors.ReasonerError` as :func:`possible_fluents` does."""
    return frozenset(args[0] for args in static_relation(description, "init", 1, max_atoms))


def isolated_possible_fluents(description: Description, seconds: float = 20.0, memory_mb: int = 1024,
                              max_atoms: int = MAX_ATOMS) -> frozenset[Term]:
    """:func:`possible_fluents` in a child process killed after ``seconds`` or past ``memory_mb``; raises
    :class:`~ggp.errors.ReasonerError` naming the phase when it gives no result."""
    try:
        fluents: frozenset[Term] = run_isolated(possible_fluents, (description, max_atoms),
                                                seconds=seconds, memory_mb=memory_mb)
    except IsolationError as exc:
        raise grounding_error(description.file, "board domain", exc, seconds, memory_mb) from None
    return fluents
