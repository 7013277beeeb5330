"""Rating a completed match in every rating system the manager keeps: Elo and Agon.

The manager calls :func:`finish_and_rate` when a match ends (the end of the match and its ratings in
one transaction, so a manager killed in between keeps both or neither, and the ratings apply in the
order the matches finished) and ``ggp archive import`` calls :func:`rate_match` when it stores an
imported one, so a match counts the same way wherever it came from. Aborted matches are not rated; the
chance role ``random`` takes no part (it scores what the rules give it).
"""

from __future__ import annotations

from ggp.manager.agon import AgonTable
from ggp.manager.ratings import update_elo
from ggp.manager.records import MatchRecord
from ggp.manager.store import OVERALL, Store, transaction
from ggp.match.rules import CHANCE_ROLE


def rate_match(store: Store, agon: AgonTable, record: MatchRecord) -> bool:
    """Apply a completed match to the Elo ratings (its game's and overall) and to Agon; returns whether
    it was rated (False for an aborted match or one without goal values)."""
    if not record.is_completed or record.goal_values is None or len(record.goal_values) != len(record.roles):
        return False
    names = list(record.player_names)
    if len(names) != len(record.roles):
        return False
    rated = [i for i, role in enumerate(record.roles) if role != CHANCE_ROLE]
    rated_names, rated_goals = [names[i] for i in rated], [record.goal_values[i] for i in rated]
    for key in (record.game_key, OVERALL):
        store.set_ratings(key, update_elo(store.ratings(key), rated_names, rated_goals))
    agon.add_match(record.game_key, record.roles, names, record.goal_values)
    return True


def finish_and_rate(store: Store, agon: AgonTable, record: MatchRecord) -> None:
    """Store a match's end (the ``end`` event) and rate it, in one transaction."""
    with transaction(store.db):
        store.match_event(record, "end")
        rate_match(store, agon, record)
