"""A match as the manager is asked for it, and the two rules it applies to a match's players.

:class:`MatchRequest` is what the HTTP API, the scheduler and the CLI start a match with;
:func:`player_roles` says which roles need a player (the manager plays the chance role) and
:func:`failed_match` when a finished match counts against its players (suspension after repeated failures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ggp.manager.records import MatchRecord
from ggp.manager.runner import CHANCE_ROLE


@dataclass(frozen=True, slots=True)
class MatchRequest:
    """A match to start: a game key, one player name (or URL) per role, clocks in seconds, a seed."""

    game: str
    players: tuple[str, ...]
    start_clock: int = 10
    play_clock: int = 5
    seed: int | None = None


def player_roles(roles: Sequence[str]) -> list[str]:
    """The roles that need a player: all but the chance role ``random``, which the manager plays."""
    return [role for role in roles if role != CHANCE_ROLE]


def failed_match(record: MatchRecord, seats: Sequence[int]) -> bool:
    """True when at least half of the requests to the given seats (START and PLAY) got an error."""
    total = sum(1 for row in record.errors for i in seats)
    bad = sum(1 for row in record.errors for i in seats if i < len(row) and row[i])
    return total > 0 and 2 * bad >= total
