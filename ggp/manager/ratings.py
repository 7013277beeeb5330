"""Elo ratings from goal values, for games with any number of roles.

Each match counts as one game between every pair of seats held by different players: the higher
goal value wins the pair, equal values draw. A player's change is K/(n-1) times the sum over its
pairs of (score - expected), so a two-player match is the classic Elo update.

>>> new = update_elo({}, ["alice", "bob"], [100, 0])
>>> round(new["alice"][0]), round(new["bob"][0]), new["alice"][1]
(1516, 1484, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

INITIAL = 1500.0
K_FACTOR = 32.0

Ratings = Mapping[str, tuple[float, int]]
"""Player name -> (rating, number of rated matches)."""


def expected_score(rating: float, opponent: float) -> float:
    """The Elo expectation of beating ``opponent``: 0.5 for equal ratings."""
    return float(1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0)))


def update_elo(ratings: Ratings, players: Sequence[str], goals: Sequence[int],
               k: float = K_FACTOR) -> dict[str, tuple[float, int]]:
    """The new (rating, count) of every player in a completed match; others are left out.

    ``players`` and ``goals`` are in role order. A player holding several seats is compared only
    against other players. Raises ``ValueError`` when the lengths differ.
    """
    if len(players) != len(goals):
        raise ValueError(f"{len(players)} players but {len(goals)} goal values")
    names = sorted(set(players))
    if len(names) < 2:
        return {}
    old = {name: ratings.get(name, (INITIAL, 0)) for name in names}
    best = {name: max(g for p, g in zip(players, goals) if p == name) for name in names}
    delta = {name: 0.0 for name in names}
    for name in names:
        for other in names:
            if other == name:
                continue
            score = 1.0 if best[name] > best[other] else 0.5 if best[name] == best[other] else 0.0
            delta[name] += score - expected_score(old[name][0], old[other][0])
    scale = k / (len(names) - 1)
    return {name: (old[name][0] + scale * delta[name], old[name][1] + 1) for name in names}
