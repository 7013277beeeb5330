"""What a :class:`~ggp.manager.service.Manager` is built with: the callables and Protocols the CLI wires in, and its settings.

The manager never builds a reasoner, reads an SBG file or draws a piece itself (STYLE.md: only the CLI
wires concrete classes): the CLI passes a machine factory, game translators, a fluent domain, piece
images and end reasons of these types, and a :class:`ManagerSettings` with its tunables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ggp.gdl.terms import Description, Term
from ggp.manager.reasoning import ReasonerLimits
from ggp.manager.runner import DEFAULT_STEP_CAP, DEFAULT_STEP_CAP_OUTCOME, Deadlines, StepCapOutcome
from ggp.match.rules import MatchRules
from ggp.reasoner.machine import StateMachine

MachineFactory = Callable[[Description], StateMachine]
"""Builds a state machine for a validated description (the CLI passes its ``--engine``, default ``auto``).
It runs in a worker process (:mod:`ggp.manager.reasoning`), so it must pickle: a module-level function
or an instance of a module-level class."""
GameTranslator = Callable[[str, str], str]
"""Turns a game in another format (text, file name for messages) into KIF text; raises
:class:`InputError` (or ``ValueError``) with a position for a bad file. The CLI wires these (``sbg``)."""
FluentDomain = Callable[[Description], frozenset[Term]]
"""Every fluent a game can hold, for drawing its board from the first state; raises
:class:`~ggp.errors.GgpError` when it cannot tell. The CLI wires the reasoner's (``base``, else the
relaxed domain, bounded in a child process)."""


class PieceImages(Protocol):
    """Pictures of a game's pieces, made from the text the game was uploaded in (the CLI wires generated
    SBG piece shapes, cached on disk). Blocking; the manager calls it from a worker thread."""

    def svg(self, game_format: str, source: str, piece: str, owner: str) -> bytes | None:
        """The SVG image of ``piece`` (as the GDL names it) for ``owner``, or ``None`` when the game has no
        such piece or this format has no pictures."""
        ...

class EndReasons(Protocol):
    """Why a finished match ended, in words a player reads (the CLI wires one for SBG games: the goal the
    last state meets, or the turn limit). Blocking; the manager calls it from a worker thread."""

    def explain(self, game_format: str, source: str, final_state: str) -> str | None:
        """The reason for a game uploaded in ``game_format`` as ``source`` whose last state is ``final_state``
        (KIF text), or ``None`` when this format has no explanation."""
        ...


@dataclass(frozen=True, slots=True)
class ManagerSettings:
    """Tunables: the URL games are published under, suspension after N failed matches in a row
    (0 = never), the step cap and what reaching it means (a draw or an abort), the most matches running
    at once, the reasoner's time and memory limits, and deadline overrides for tests."""

    public_url: str = "http://127.0.0.1:9140"
    suspend_after: int = 3
    step_cap: int = DEFAULT_STEP_CAP
    step_cap_outcome: StepCapOutcome = DEFAULT_STEP_CAP_OUTCOME
    max_running: int = 500
    deadlines: Deadlines | None = None
    reasoner: ReasonerLimits = field(default_factory=ReasonerLimits)

    def __post_init__(self) -> None:
        MatchRules(self.step_cap, self.step_cap_outcome)  # InputError now, not at the first match
