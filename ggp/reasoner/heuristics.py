"""The heuristics of RAPP's example algorithms (Kowalski & Szykuła 2016), by name, and the capability of
machines that run the heuristic min-max search themselves.

A heuristic name is a material base, ``C`` (constant: every piece is worth 1) or ``W`` (weighted: a
piece is worth its mobility, see docs/rapp.md), followed by the extensions it uses in the order
``G`` (goal: progress towards the game's goals), ``C`` (control: squares attacked) and ``M``
(mobility: legal moves). So ``CGC`` is constant material with goal and control terms, and there are
2 x 2^3 = 16 names (:data:`HEURISTIC_NAMES`).

>>> Heuristic.parse("WGCM")
Heuristic(weighted=True, goal=True, control=True, mobility=True)
>>> Heuristic.parse("CC").name, Heuristic.parse("CC").features
('CC', ('material', 'control'))
>>> len(HEURISTIC_NAMES), HEURISTIC_NAMES[:4]
(16, ('C', 'CG', 'CC', 'CM'))
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Protocol, runtime_checkable

from ggp.reasoner.machine import Move, Role, State

_EXTENSIONS = ("G", "C", "M")


@dataclass(frozen=True, slots=True)
class Heuristic:
    """Which terms an evaluation adds up: material (constant or weighted), goal, control, mobility."""

    weighted: bool = False
    goal: bool = False
    control: bool = False
    mobility: bool = False

    @property
    def name(self) -> str:
        """The paper's name: base letter, then G, C, M as used (``CG``, ``WGCM``)."""
        flags = (self.goal, self.control, self.mobility)
        return ("W" if self.weighted else "C") + "".join(e for e, on in zip(_EXTENSIONS, flags) if on)

    @property
    def features(self) -> tuple[str, ...]:
        """The terms in use, by long name (``material`` always first)."""
        names = ("goal", "control", "mobility")
        flags = (self.goal, self.control, self.mobility)
        return ("material", *(n for n, on in zip(names, flags) if on))

    @property
    def flags(self) -> int:
        """Bit set for native code: 1 weighted, 2 goal, 4 control, 8 mobility."""
        return self.weighted | self.goal << 1 | self.control << 2 | self.mobility << 3

    @classmethod
    def parse(cls, text: str) -> Heuristic:
        """``C``/``W`` then a subsequence of ``G``, ``C``, ``M``; raises ``ValueError`` naming the problem."""
        name = text.strip().upper()
        if not name or name[0] not in "CW":
            raise ValueError(f"heuristic {text!r} must start with C (constant material) or W (weighted material)")
        rest = name[1:]
        flags = []
        for extension in _EXTENSIONS:
            found = rest.startswith(extension)
            flags.append(found)
            if found:
                rest = rest[1:]
        if rest:
            raise ValueError(
                f"heuristic {text!r}: after the base letter come G (goal), C (control), M (mobility), each at "
                f"most once and in that order; one of {', '.join(HEURISTIC_NAMES)}"
            )
        return cls(name[0] == "W", *flags)


HEURISTIC_NAMES: tuple[str, ...] = tuple(
    Heuristic(base == "W", *flags).name for base in "CW" for flags in
    sorted(product((False, True), repeat=3), key=lambda f: (sum(f), [not x for x in f]))
)
"""The 16 names, constant base first, fewer extensions first: C, CG, CC, CM, CGC, CGM, CCM, CGCM, W, ..."""


@runtime_checkable
class MinimaxSearchMachine(Protocol):
    """A machine that searches its own game with a RAPP heuristic (e.g. compiled for SBG boards).

    ``minimax_values`` runs a fixed-depth alpha-beta from ``role``'s side (``depth`` plies, the
    heuristic at the leaves, exact values at terminal states) and returns each of the role's legal
    moves with its value. The best value is exact for every move that reaches it, so a caller can
    break ties among them; the other values may be upper bounds (cut off by alpha-beta).
    """

    def minimax_values(
        self, state: State, role: Role, heuristic: Heuristic, depth: int
    ) -> tuple[tuple[Move, float], ...]: ...
