"""Game-quality criteria computed from self-play records (Ludi / Ludii style).

Every function takes a sequence of :class:`PlayRecord` and returns a float (or ``None`` where the
criterion is undefined, e.g. pair metrics of a one-player game). Definitions follow the project's
metrics specification: float division throughout, utilities from ranks, aborted plays excluded.

>>> two_wins = [PlayRecord(goals=(100, 0), length=30), PlayRecord(goals=(0, 100), length=40)]
>>> completion(two_wins), balance(two_wins), mean_duration(two_wins)
(1.0, 1.0, 35.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean, pvariance

from ggp.match.rules import EndReason

LUDI_PREFERRED_MOVES = 60
"""Ludi's preferred game length M_pref (about 30 minutes at 30 s a move)."""


@dataclass(frozen=True, slots=True)
class PlayRecord:
    """One finished play, as the metrics need it.

    ``goals`` per role in role order; ``length`` in joint moves (plies in turn-taking games);
    ``first_mover`` is the index of the role that moves in the initial state; ``branching`` the
    product of legal-move counts in each non-terminal state; ``evaluations`` per state s_0..s_L one
    value in [0, 1] per role (estimated goal/100), when the players produced them.
    """

    goals: tuple[int, ...]
    length: int
    end_reason: EndReason = "terminal"
    first_mover: int = 0
    branching: tuple[int, ...] = ()
    evaluations: tuple[tuple[float, ...], ...] | None = None
    players: tuple[str, ...] = field(default=(), compare=False)


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


def _played(records: Sequence[PlayRecord]) -> list[PlayRecord]:
    return [r for r in records if r.end_reason not in ("aborted", "error")]


TIMEOUT_REASONS: tuple[EndReason, ...] = ("turn_limit", "step_cap")
"""End reasons that mean a length limit ended the play (the game's own or the manager's step cap)."""


def is_timeout(record: PlayRecord) -> bool:
    """Ended by a length limit: the game's own turn/step limit or the manager's step cap."""
    return record.end_reason in TIMEOUT_REASONS


def score_rates(records: Sequence[PlayRecord]) -> tuple[float, ...]:
    """Per role: mean of (u + 1)/2 over plays (a draw counts as half a win)."""
    plays = _played(records)
    if not plays:
        return ()
    n = len(plays[0].goals)
    return tuple(fmean((utilities(p.goals)[r] + 1) / 2 for p in plays) for r in range(n))


def completion(records: Sequence[PlayRecord]) -> float | None:
    """Fraction of plays with a winner."""
    plays = _played(records)
    return sum(winner(p.goals) is not None for p in plays) / len(plays) if plays else None


def drawishness(records: Sequence[PlayRecord]) -> float | None:
    """Fraction of plays that ended in a natural draw (terminal, no winner, not a timeout)."""
    plays = _played(records)
    if not plays:
        return None
    return sum(winner(p.goals) is None and not is_timeout(p) for p in plays) / len(plays)


def timeouts(records: Sequence[PlayRecord]) -> float | None:
    """Fraction of plays ended by a length limit."""
    plays = _played(records)
    return sum(is_timeout(p) for p in plays) / len(plays) if plays else None


def balance(records: Sequence[PlayRecord]) -> float | None:
    """1 - the largest difference of score rates between two roles (None for one role)."""
    rates = score_rates(records)
    if len(rates) < 2:
        return None
    return 1 - max(abs(a - b) for a in rates for b in rates)


def advantage_first_player(records: Sequence[PlayRecord]) -> float | None:
    """Score rate of the role that moves first in each play."""
    plays = _played(records)
    if not plays or len(plays[0].goals) < 2:
        return None
    return fmean((utilities(p.goals)[p.first_mover] + 1) / 2 for p in plays)


def outcome_uniformity(records: Sequence[PlayRecord]) -> float | None:
    """1 - mean over roles of the population variance of their utilities."""
    plays = _played(records)
    if not plays:
        return None
    n = len(plays[0].goals)
    return 1 - fmean(pvariance([utilities(p.goals)[r] for p in plays]) for r in range(n))


def mean_duration(records: Sequence[PlayRecord]) -> float | None:
    """Mean play length."""
    plays = _played(records)
    return fmean(p.length for p in plays) if plays else None


def ideal_duration(records: Sequence[PlayRecord], minimum: int, maximum: int) -> float | None:
    """Per play 1 inside [min, max], L/min below, 1 - min(1, (L-max)/max) above; averaged."""
    plays = _played(records)
    if not plays:
        return None

    def score(length: int) -> float:
        if length < minimum:
            return length / minimum
        if length > maximum:
            return 1 - min(1.0, (length - maximum) / maximum)
        return 1.0

    return fmean(score(p.length) for p in plays)


def ludi_duration(records: Sequence[PlayRecord], preferred: int = LUDI_PREFERRED_MOVES) -> float | None:
    """Ludi's A_durn = 1 - mean |M_pref - L| / M_pref, clamped to [0, 1]."""
    plays = _played(records)
    if not plays:
        return None
    raw = 1 - fmean(abs(preferred - p.length) / preferred for p in plays)
    return min(1.0, max(0.0, raw))


def branching_factor(records: Sequence[PlayRecord]) -> tuple[float, int] | None:
    """(mean over plays of the per-play mean branching, largest branching seen)."""
    plays = [p for p in _played(records) if p.branching]
    if not plays:
        return None
    return fmean(fmean(p.branching) for p in plays), max(max(p.branching) for p in plays)


def _decisive_with_evaluations(records: Sequence[PlayRecord]) -> list[tuple[PlayRecord, int]]:
    return [
        (p, w)
        for p in _played(records)
        if p.evaluations and (w := winner(p.goals)) is not None and p.length > 0
    ]


def decisiveness(records: Sequence[PlayRecord]) -> float | None:
    """Decisive plays: t*/L, t* the first state where the winner's estimate exceeds every loser's best."""
    values = []
    for play, w in _decisive_with_evaluations(records):
        evaluations = play.evaluations or ()
        threshold = max(e[r] for e in evaluations for r in range(len(e)) if r != w)
        first = next((t for t, e in enumerate(evaluations) if e[w] > threshold), play.length)
        values.append(min(first, play.length) / play.length)
    return fmean(values) if values else None


def lead_change(records: Sequence[PlayRecord]) -> float | None:
    """Per play: how often the set of leading roles changes from one state to the next, over L."""
    values = []
    for play in _played(records):
        if not play.evaluations or play.length == 0:
            continue
        leaders = [frozenset(r for r, v in enumerate(e) if v == max(e)) for e in play.evaluations]
        changes = sum(leaders[t] != leaders[t - 1] for t in range(1, len(leaders)))
        values.append(changes / play.length)
    return fmean(values) if values else None


def drama(records: Sequence[PlayRecord]) -> tuple[float, float] | None:
    """Decisive plays: (mean, max) of how far the winner trailed the leader, averaged over plays."""
    means, maxima = [], []
    for play, w in _decisive_with_evaluations(records):
        evaluations = (play.evaluations or ())[: play.length]
        gaps = [max(e) - e[w] for e in evaluations]
        if gaps:
            means.append(fmean(gaps))
            maxima.append(max(gaps))
    return (fmean(means), fmean(maxima)) if means else None


def all_metrics(
    records: Sequence[PlayRecord], *, preferred_length: int = LUDI_PREFERRED_MOVES
) -> Mapping[str, float | None]:
    """Every criterion in one flat mapping (pairs such as drama split into two keys)."""
    branching = branching_factor(records)
    drama_values = drama(records)
    return {
        "plays": float(len(_played(records))),
        "completion": completion(records),
        "balance": balance(records),
        "advantage_first_player": advantage_first_player(records),
        "drawishness": drawishness(records),
        "timeouts": timeouts(records),
        "duration_mean": mean_duration(records),
        "duration_ludi": ludi_duration(records, preferred_length),
        "outcome_uniformity": outcome_uniformity(records),
        "branching_mean": branching[0] if branching else None,
        "branching_max": float(branching[1]) if branching else None,
        "decisiveness": decisiveness(records),
        "lead_change": lead_change(records),
        "drama_mean": drama_values[0] if drama_values else None,
        "drama_max": drama_values[1] if drama_values else None,
    }
