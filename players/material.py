"""Material read from GDL fluents alone: which role a fluent's piece belongs to, and pieces per role.

A fluent ``(cell 1 1 x)`` belongs to ``xplayer`` when an argument after the first names the role,
starts it, or (two-letter pieces like ``wp``) shares its first letter with exactly one role. Usual
blank names (``b``, ``blank``, ``empty``) never count as pieces, nor do ``control``, ``step`` and
``turn`` fluents. Used by the alpha-beta and min-max players' evaluations.

>>> from ggp.gdl.terms import Const, Func
>>> material = FluentMaterial((Const("white"), Const("black")))
>>> material.owner_of_fact(Func("cell", (Const("1"), Const("1"), Const("wp"))))
0
>>> material.owner_of_fact(Func("cell", (Const("1"), Const("1"), Const("b")))) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

from ggp.gdl.terms import Const, Func, Term
from ggp.reasoner.machine import Role, State

IGNORED_FLUENTS = frozenset({"control", "step", "turn"})
BLANKS = frozenset({"b", "blank", "empty", "e", "none", "nil", "free", "0"})
"""Usual names of an empty square; never taken for a piece (``b`` would otherwise look like ``black``'s)."""


class FluentMaterial:
    """Counts the pieces of each role in a state, by the naming conventions above."""

    def __init__(self, roles: Sequence[Role]) -> None:
        self.roles = tuple(str(role) for role in roles)
        initials = [role[:1] for role in self.roles]
        self._initials = initials if len(set(initials)) == len(initials) else None

    def owner(self, term: Term) -> int | None:
        """Which role a piece symbol belongs to, if exactly one."""
        if not isinstance(term, Const) or term.name in BLANKS:
            return None
        text = term.name
        found = {r for r, role in enumerate(self.roles) if text == role or role.startswith(text) or text.startswith(role)}
        if not found and len(text) == 2 and self._initials is not None:
            found = {r for r, initial in enumerate(self._initials) if text[0] == initial}
        return found.pop() if len(found) == 1 else None

    def owner_of_fact(self, fact: Term) -> int | None:
        """The role owning the piece a fluent mentions (in an argument after the first), if any."""
        if not isinstance(fact, Func) or len(fact.args) < 2 or fact.name in IGNORED_FLUENTS:
            return None
        for arg in fact.args[1:]:
            owner = self.owner(arg)
            if owner is not None:
                return owner
        return None

    def counts(self, state: State) -> list[int]:
        """Pieces per role, in role order."""
        counts = [0] * len(self.roles)
        for fact in state.facts:
            owner = self.owner_of_fact(fact)
            if owner is not None:
                counts[owner] += 1
        return counts
