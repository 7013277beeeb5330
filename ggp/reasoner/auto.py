"""choose_machine: ground the game once when that fits a budget, else evaluate per state.

Grounding once (:class:`~ggp.reasoner.clingo_machine.ClingoStateMachine`) gives the fastest queries
but its domain analysis can explode on games with wide fluents; the per-state reasoner
(:class:`~ggp.reasoner.per_state.PerStateMachine`) starts in under a second on every game we know and
is the fallback. The choice is logged at INFO (and the reason for a fallback at WARNING), so a match
log always says which mode played.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
>>> type(choose_machine(game, GroundingLimits(isolate=False)).inner).__name__
'ClingoStateMachine'
>>> type(choose_machine(game, GroundingLimits(isolate=False, max_atoms=5))).__name__
'PerStateMachine'
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ggp.errors import NotStratifiedError, ReasonerError
from ggp.gdl.terms import Description
from ggp.reasoner.clingo_machine import cached_clingo_machine
from ggp.reasoner.machine import GroundingLimits, StateMachine
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.wrappers import Builder, first_that_builds

log = logging.getLogger(__name__)

GROUND_ONCE_SECONDS = 10.0
"""Default time budget for the ground-once attempt (per grounding phase, in a child process)."""

GROUND_ONCE_ATOMS = 2_000_000
"""Default ground-atom budget for the ground-once attempt."""

_FAILED: dict[Description, tuple[GroundingLimits, str]] = {}
"""Games whose ground-once attempt failed in this process, with the limits it had and why (an arena plays
many matches of one game: only the first pays for the attempt)."""
_FAILED_SIZE = 64


def auto_limits(limits: GroundingLimits | None, seconds: float = GROUND_ONCE_SECONDS) -> GroundingLimits:
    """The limits of the ground-once attempt: the caller's, capped by the auto budget."""
    if limits is None:
        return GroundingLimits(seconds=seconds, max_atoms=GROUND_ONCE_ATOMS)
    return replace(limits, seconds=min(limits.seconds, seconds), max_atoms=min(limits.max_atoms, GROUND_ONCE_ATOMS))


def choose_machine(
    description: Description, limits: GroundingLimits | None = None, *, budget_seconds: float = GROUND_ONCE_SECONDS
) -> StateMachine:
    """A (cached) ClingoStateMachine if the game grounds within the budget, else a PerStateMachine.

    ``limits`` bounds the ground-once attempt, capped at ``budget_seconds`` per grounding phase and
    :data:`GROUND_ONCE_ATOMS` atoms; with ``isolate`` (the default) the attempt runs in a child process
    so a grounding that explodes is killed on time (the budget is what a game too wide to ground costs
    at start-up). A game that failed with at least these limits earlier in this process goes straight
    to the per-state reasoner. Raises :class:`ReasonerError` only when the per-state reasoner fails too
    (for example an unsafe rule).
    """
    attempt = auto_limits(limits, budget_seconds)
    candidates: list[tuple[str, Builder]] = []
    failed = _FAILED.get(description)
    skipped = failed is not None and failed[0].seconds >= attempt.seconds and failed[0].max_atoms >= attempt.max_atoms
    if skipped:
        log.info("%s: grounding once failed earlier in this process with at least these limits", description.file)
    else:
        candidates.append(("ground-once (clingo)", lambda game: _ground_once(game, attempt)))
    # The per-state reasoner grounds only the static relations, under the caller's (uncapped) limits.
    candidates.append(("per-state", lambda game: PerStateMachine(game, limits or GroundingLimits())))
    try:
        return first_that_builds(description, candidates)
    except NotStratifiedError:
        raise
    except ReasonerError as exc:
        if not skipped or failed is None:
            raise
        # Name both engines, as when both were tried now (first_that_builds' one line).
        prefix = f"{description.file}: "
        why = str(exc)[len(prefix):] if str(exc).startswith(prefix) else str(exc)
        raise ReasonerError(f"{description.file}: no engine can play this game within its limits: ground-once "
                            f"(clingo): {failed[1]} (earlier in this process); per-state: {why}") from exc


def _ground_once(description: Description, attempt: GroundingLimits) -> StateMachine:
    """The cached clingo engine, remembering a failure so later calls skip the attempt."""
    try:
        return cached_clingo_machine(description, attempt)
    except NotStratifiedError:
        raise  # not a limit: no other engine is tried (first_that_builds)
    except ReasonerError as exc:
        if len(_FAILED) >= _FAILED_SIZE:
            _FAILED.clear()
        prefix = f"{description.file}: "
        _FAILED[description] = (attempt, str(exc)[len(prefix):] if str(exc).startswith(prefix) else str(exc))
        raise
