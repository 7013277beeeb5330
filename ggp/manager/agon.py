"""Agon ratings: a player's skill and each role's difficulty, from goal values, for any number of roles.

Elo compares the players of a match with each other, so it cannot tell a strong player from an easy
role, and it has nothing to say about one-player games. Agon (as ggp.org's statistics described it)
instead rates every seat as a contest between the player and the role it played: the player's
*skill* against the role's *difficulty*, both on the Elo scale. A seat's score is its goal value over
100; the Elo expectation of the player beating the role is ``1 / (1 + 10 ** ((difficulty - skill) / 400))``
and both move by ``K * (score - expected)``, the player up and the role down. So

- a role every player loses (the second role of a lopsided game) gains difficulty, and the players who
  lose it lose little skill once its difficulty is known;
- a player who scores more than its roles' difficulties predict gains skill, whoever the opponents are;
- one-player games (puzzles) rate like any other: the player against the puzzle's only role;
- many-player games rate each seat on its own; the chance role ``random`` is not rated.

This module is the arithmetic and its table in the manager's database; every seat of a match is updated
from the ratings before the match (a player holding two seats gets both changes). Ratings are kept per
game (skills from that game's matches only) and overall (one skill per player over all games; role
difficulties keyed ``game/role``).

>>> new = update_agon(AgonRatings(), "lopsided", ["first", "second"], ["strong", "weak"], [100, 0])
>>> round(new.skills["strong"][0]), round(new.skills["weak"][0])
(1516, 1484)
>>> round(new.difficulties["lopsided/first"][0]), round(new.difficulties["lopsided/second"][0])
(1484, 1516)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ggp.manager.ratings import expected_score
from ggp.manager.store import transaction
from ggp.match.rules import CHANCE_ROLE

INITIAL = 1500.0
K_FACTOR = 32.0
OVERALL = "*"
"""The scope of overall ratings (the store's overall key for Elo too)."""

Rated = Mapping[str, tuple[float, int]]
"""Name -> (rating, number of rated seats)."""


@dataclass(frozen=True, slots=True)
class AgonRatings:
    """One scope's ratings: player skills by name and role difficulties by ``game/role``."""

    skills: Mapping[str, tuple[float, int]] = field(default_factory=dict)
    difficulties: Mapping[str, tuple[float, int]] = field(default_factory=dict)


def role_key(game: str, role: str) -> str:
    """How a role is named among the difficulties: ``game/role``."""
    return f"{game}/{role}"


def update_agon(ratings: AgonRatings, game: str, roles: Sequence[str], players: Sequence[str],
                goals: Sequence[int], k: float = K_FACTOR) -> AgonRatings:
    """The ratings after one completed match (``roles``, ``players`` and ``goals`` in role order).

    Only the match's players and roles change. Goal values are clamped to 0-100. Raises ``ValueError``
    when the lengths differ.
    """
    if not len(roles) == len(players) == len(goals):
        raise ValueError(f"{len(roles)} roles, {len(players)} players and {len(goals)} goal values")
    skills = dict(ratings.skills)
    difficulties = dict(ratings.difficulties)
    skill_delta: dict[str, float] = {}
    role_delta: dict[str, float] = {}
    for role, player, goal in zip(roles, players, goals):
        if role == CHANCE_ROLE:
            continue
        key = role_key(game, role)
        skill = ratings.skills.get(player, (INITIAL, 0))[0]
        difficulty = ratings.difficulties.get(key, (INITIAL, 0))[0]
        change = k * (min(max(goal, 0), 100) / 100.0 - expected_score(skill, difficulty))
        skill_delta[player] = skill_delta.get(player, 0.0) + change
        role_delta[key] = role_delta.get(key, 0.0) - change
    for player, change in skill_delta.items():
        rating, count = ratings.skills.get(player, (INITIAL, 0))
        skills[player] = (rating + change, count + 1)
    for key, change in role_delta.items():
        rating, count = ratings.difficulties.get(key, (INITIAL, 0))
        difficulties[key] = (rating + change, count + 1)
    return AgonRatings(skills, difficulties)


class AgonTable:
    """Agon ratings kept in the manager's database (table ``agon``), updated one match at a time.

    Uses the connection it is given (the :class:`~ggp.manager.store.Store`'s, whose schema has the table),
    from the same thread.
    """

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def ratings(self, scope: str = OVERALL) -> AgonRatings:
        """The ratings of one game (its key) or overall (:data:`OVERALL`)."""
        rows = self._db.execute("SELECT kind, name, rating, matches FROM agon WHERE scope = ?", (scope,)).fetchall()
        skills = {name: (rating, count) for kind, name, rating, count in rows if kind == "skill"}
        difficulties = {name: (rating, count) for kind, name, rating, count in rows if kind == "difficulty"}
        return AgonRatings(skills, difficulties)

    def scopes(self) -> list[str]:
        """The games with Agon ratings (and :data:`OVERALL` once any match was rated)."""
        return [row[0] for row in self._db.execute("SELECT DISTINCT scope FROM agon ORDER BY scope")]

    def add_match(self, game: str, roles: Sequence[str], players: Sequence[str], goals: Sequence[int]) -> None:
        """Rate one completed match, in its game's scope and overall, in one transaction."""
        with transaction(self._db):
            for scope in (game, OVERALL):
                new = update_agon(self.ratings(scope), game, roles, players, goals)
                changed = {*players, *(role_key(game, role) for role in roles)}
                for kind, table in (("skill", new.skills), ("difficulty", new.difficulties)):
                    for name, (rating, count) in table.items():
                        if name in changed:
                            self._db.execute(
                                "INSERT OR REPLACE INTO agon (scope, kind, name, rating, matches) VALUES (?, ?, ?, ?, ?)",
                                (scope, kind, name, rating, count))
