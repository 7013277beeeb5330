"""The rules every match follows, whoever plays it: step cap, fallbacks, chance, end reasons.

These are decided once here and documented once in docs/matches.md; the arena, self-play and the
manager all play through :func:`ggp.match.loop.play`, so they cannot disagree.

>>> MatchRules().step_cap, MatchRules().step_cap_outcome, STEP_CAP_DRAW_GOAL
(1000, 'draw', 50)
>>> MatchRules(step_cap=0)
Traceback (most recent call last):
...
ggp.errors.InputError: the step cap must be at least 1 joint move, found 0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from ggp.errors import GgpError, InputError
from ggp.reasoner.machine import CHANCE_ROLE as CHANCE_TERM

EndReason = Literal["terminal", "turn_limit", "step_cap", "aborted", "error"]
"""Why a match ended: the rules reached a terminal state (``terminal``; self-play reports
``turn_limit`` for a terminal draw at the game's own length limit), the step cap
(``step_cap``), the match was stopped from outside (``aborted``: cancelled, wedged, an internal
error), or the game itself failed (``error``: a role without a legal move, no goal values)."""
END_REASONS: Final = ("terminal", "turn_limit", "step_cap", "aborted", "error")

StepCapOutcome = Literal["draw", "abort"]
"""What a match that reaches the step cap becomes:

- ``draw`` (the default): completed, every role scores :data:`STEP_CAP_DRAW_GOAL`;
- ``abort``: aborted with no goal values (protocol.md §4's Decision for the manager).

Either way the end reason is ``step_cap`` and players get ABORT, not STOP (the state is not
terminal, so STOP's "the game ended" would be false)."""
STEP_CAP_OUTCOMES: Final[tuple[StepCapOutcome, ...]] = ("draw", "abort")

DEFAULT_STEP_CAP: Final = 1000
"""Joint moves after which a match ends with end reason ``step_cap``."""

STEP_CAP_DRAW_GOAL: Final = 50
"""Every role's goal in a step-cap draw: equal for all (a draw) and the usual GGP draw value. The
rules' own goals at the cap are not used: they may be undefined in a non-terminal state, and where
defined (running point totals) they would turn the cap into a win."""

CHANCE_ROLE: Final = str(CHANCE_TERM)
"""The role played by the match loop itself, uniformly at random (GDL-II's ``random``)."""

FALLBACK: Final = "random"
"""The fallback for a missing, late, unparseable or illegal move: a uniformly random legal move."""


@dataclass(frozen=True, slots=True)
class MatchRules:
    """The settings of the one match loop; the defaults are what every caller uses unless told.

    Raises :class:`InputError` for a step cap below 1.
    """

    step_cap: int = DEFAULT_STEP_CAP
    step_cap_outcome: StepCapOutcome = "draw"

    def __post_init__(self) -> None:
        if self.step_cap < 1:
            raise InputError(f"the step cap must be at least 1 joint move, found {self.step_cap}")
        if self.step_cap_outcome not in STEP_CAP_OUTCOMES:
            raise InputError(f"unknown step cap outcome {self.step_cap_outcome!r}; expected one of "
                             f"{', '.join(STEP_CAP_OUTCOMES)}")


class GameBroken(GgpError):
    """The game itself failed during a match (no legal move, no goal): the match ends with ``error``."""
