"""A match's end and its ratings are stored in one transaction (found by the soak, ``benchmarks/soak.py``).

The manager stored a match's end, awaited, and only then rated it: a SIGKILL in between left a completed
match that no rating counted, and two matches ending together could be rated in the other order than
they finished, so the ratings differed from their recomputation from the archive.
"""

from __future__ import annotations

import dataclasses

import pytest

from ggp.manager.agon import AgonTable
from ggp.manager.rating_log import finish_and_rate
from ggp.manager.records import MatchRecord
from ggp.manager.store import OVERALL, Store, transaction


def running(match_id: str, players: tuple[str, str] = ("a", "b")) -> MatchRecord:
    return MatchRecord(match_id, 0, "", 1, 1, "http://h/games/g/v1/", ("white", "black"), players,
                       ("remote", "remote"), 0, "g", states=("( )",), state_times=(0,), errors=(("", ""),))


def test_the_end_and_the_ratings_are_kept_together() -> None:
    store = Store(":memory:")
    agon = AgonTable(store.db)
    store.match_event(running("m1"), "created")
    done = dataclasses.replace(running("m1"), is_completed=True, goal_values=(100, 0))
    finish_and_rate(store, agon, done)
    assert store.matches(status="completed")[0].match_id == "m1"
    assert store.ratings(OVERALL)["a"][0] > 1500 > store.ratings(OVERALL)["b"][0]
    assert agon.ratings(OVERALL).skills["a"][1] == 1


def test_a_rating_that_fails_takes_the_end_with_it() -> None:
    """Neither or both: a crash while rating leaves the match running (a restart marks it aborted, unrated)."""
    store = Store(":memory:")
    agon = AgonTable(store.db)
    store.match_event(running("m1"), "created")

    def broken(*_: object) -> None:
        raise RuntimeError("killed while rating")

    agon.add_match = broken  # type: ignore[method-assign,assignment]
    with pytest.raises(RuntimeError):
        finish_and_rate(store, agon, dataclasses.replace(running("m1"), is_completed=True, goal_values=(100, 0)))
    assert [m.status for m in store.matches()] == ["running"]
    assert store.ratings(OVERALL) == {}


def test_a_transaction_inside_another_is_part_of_it() -> None:
    store = Store(":memory:")
    with pytest.raises(RuntimeError), transaction(store.db):
        store.set_ratings("g", {"a": (1600.0, 1)})  # its own transaction, nested: not committed on its own
        raise RuntimeError
    assert store.ratings("g") == {}
