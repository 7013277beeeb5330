"""Round-robin schedules with seat rotation, tournament files, and Elo."""

from __future__ import annotations

from collections import Counter

import pytest

from ggp.errors import InputError
from ggp.manager.ratings import INITIAL, expected_score, update_elo
from ggp.manager.tournament import MAX_MATCHES, round_robin, spec_from_yaml


def test_every_pair_meets_n_times_and_seats_rotate() -> None:
    schedule = round_robin(["a", "b", "c", "d"], roles=2, per_pairing=4)
    assert len(schedule) == 6 * 4
    assert Counter(frozenset(s) for s in schedule) == {frozenset(p): 4 for p in
                                                       [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]}
    first_seat = Counter(s[0] for s in schedule)
    assert set(first_seat.values()) == {6}


def test_three_role_games_rotate_every_player_through_every_seat() -> None:
    schedule = round_robin(["a", "b", "c"], roles=3, per_pairing=3)
    assert sorted(schedule) == sorted([("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")])
    assert round_robin(["a", "b"], roles=1, per_pairing=2) == [("a",), ("a",), ("b",), ("b",)]
    with pytest.raises(InputError, match="only 1 distinct"):
        round_robin(["a", "a"], roles=2, per_pairing=1)


def test_a_schedule_over_max_matches_is_refused_before_it_is_built() -> None:
    assert len(round_robin([f"p{i}" for i in range(5)], roles=2, per_pairing=MAX_MATCHES // 10)) == MAX_MATCHES
    with pytest.raises(InputError, match=f"{MAX_MATCHES + 10} matches, over the limit of {MAX_MATCHES}"):
        round_robin([f"p{i}" for i in range(5)], roles=2, per_pairing=MAX_MATCHES // 10 + 1)
    with pytest.raises(InputError, match="125580 matches"):
        round_robin([f"p{i}" for i in range(92)], roles=3, per_pairing=1)  # C(92, 3)


def test_tournament_yaml_is_checked_field_by_field() -> None:
    spec = spec_from_yaml("game: nim\nplayers: [x, y]\nplayclock: 2\n")
    assert (spec.game, spec.players, spec.play_clock, spec.per_pairing) == ("nim", ("x", "y"), 2, 2)
    for text, message in [("game: [", "t.yaml:1"), ("- 1", "mapping"), ("game: nim\nplayers: []", "players"),
                          ("game: nim\nplayers: [x]\nplayclock: 0", "playclock"),
                          ("game: nim\nplayers: [x]\ncolour: red", "unknown")]:
        with pytest.raises(InputError, match=message):
            spec_from_yaml(text, "t.yaml")


def test_elo_moves_points_from_loser_to_winner_and_draws_between_equals_change_nothing() -> None:
    win = update_elo({}, ["a", "b"], [100, 0])
    assert win["a"][0] > INITIAL > win["b"][0]
    assert win["a"][0] + win["b"][0] == pytest.approx(2 * INITIAL)
    draw = update_elo({}, ["a", "b"], [50, 50])
    assert draw["a"][0] == pytest.approx(INITIAL) and draw["b"][1] == 1
    upset = update_elo({"a": (1200.0, 5), "b": (1800.0, 5)}, ["a", "b"], [100, 0])
    assert upset["a"][0] - 1200 > win["a"][0] - INITIAL  # beating a stronger player earns more
    assert expected_score(1500, 1500) == 0.5


def test_elo_for_many_roles_and_self_play() -> None:
    three = update_elo({}, ["a", "b", "c"], [100, 50, 0])
    assert three["a"][0] > three["b"][0] > three["c"][0]
    assert sum(r for r, _ in three.values()) == pytest.approx(3 * INITIAL)
    assert update_elo({}, ["a", "a"], [100, 0]) == {}
    with pytest.raises(ValueError):
        update_elo({}, ["a", "b"], [1])
