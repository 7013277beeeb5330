"""Outcome basics every metric shares: the winner, rank utilities, what counts as a timeout.

Every game metric, the Ludi criteria of the metrics specification included, has one definition on one
play record, :class:`~ggp.evaluation.ludii.trace.PlayTrace`, and one entry in the metric catalogue
(:mod:`ggp.evaluation.ludii.catalogue`): the Ludi criteria that Ludii also has (completion, balance,
drawishness, ...) are Ludii's metrics there, under Ludii's names with the Ludi names as aliases, and the
two Ludii lacks are in :mod:`ggp.evaluation.ludii.single` beside Ludii's.

>>> winner((0, 100)), winner((50, 50)), utilities((100, 0))
(1, None, (1.0, -1.0))
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from ggp.match.rules import EndReason

LUDI_PREFERRED_MOVES = 60
"""Ludi's preferred game length M_pref (about 30 minutes at 30 s a move)."""


def winner(goals: Sequence[int]) -> int | None:
    """Index of the role with the strictly highest goal, or None on a tie at the top.

    In a one-player game the player "wins" only with the full 100 points.
    """
    if len(goals) == 1:
        return 0 if goals[0] >= 100 else None
    best = max(goals)
    leaders = [i for i, g in enumerate(goals) if g == best]
    return leaders[0] if len(leaders) == 1 else None


def utilities(goals: Sequence[int]) -> tuple[float, ...]:
    """Rank utilities in [-1, 1]: 1 - 2(rank-1)/(N-1), tied roles sharing their ranks' mean.

    >>> utilities((100, 0)), utilities((50, 50)), utilities((100, 50, 0))
    ((1.0, -1.0), (0.0, 0.0), (1.0, 0.0, -1.0))
    """
    n = len(goals)
    if n == 1:
        return (2 * goals[0] / 100 - 1,)
    order = sorted(range(n), key=lambda i: -goals[i])
    result = [0.0] * n
    position = 0
    while position < n:
        tied = [i for i in order[position:] if goals[i] == goals[order[position]]]
        ranks = range(position + 1, position + len(tied) + 1)
        shared = fmean(1 - 2 * (rank - 1) / (n - 1) for rank in ranks)
        for i in tied:
            result[i] = shared
        position += len(tied)
    return tuple(result)


TIMEOUT_REASONS: tuple[EndReason, ...] = ("turn_limit", "step_cap")
"""End reasons that mean a length limit ended the play (the game's own or the manager's step cap)."""
