"""Agon ratings (ggp.manager.agon): known answers on hand-made match sets, the table, the API."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from ggp.manager.agon import INITIAL, OVERALL, AgonRatings, AgonTable, update_agon
from ggp.manager.app import create_app
from ggp.manager.match_requests import MatchRequest
from ggp.manager.service import Manager
from ggp.manager.store import Store
from tests.helpers.manager_machines import NIM_KIF

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]

Match = tuple[str, tuple[str, ...], tuple[str, ...], tuple[int, ...]]


def alternating(game: str, roles: tuple[str, str], goals: Callable[[int], tuple[int, int]], n: int) -> list[Match]:
    """``n`` matches of strong against weak, seats swapped every match; ``goals(i)`` in role order."""
    return [(game, roles, ("strong", "weak") if i % 2 == 0 else ("weak", "strong"), goals(i)) for i in range(n)]


def rate(matches: list[Match], start: AgonRatings | None = None) -> AgonRatings:
    ratings = start or AgonRatings()
    for game, roles, players, goals in matches:
        ratings = update_agon(ratings, game, roles, players, goals)
    return ratings


LOPSIDED = alternating("lopsided", ("first", "second"), lambda i: (100, 0), 40)
"""The second role always loses, whoever plays it."""
FAIR = alternating("fair", ("x", "o"), lambda i: (100, 0) if i % 2 == 0 else (0, 100), 40)
"""The strong player wins from either seat."""


def test_a_role_that_always_loses_is_rated_hard_and_costs_its_players_no_skill() -> None:
    ratings = rate(LOPSIDED)
    assert ratings.skills["strong"][0] == pytest.approx(INITIAL) == ratings.skills["weak"][0]
    first, second = ratings.difficulties["lopsided/first"][0], ratings.difficulties["lopsided/second"][0]
    assert second == pytest.approx(1830.9, abs=0.05) and first == pytest.approx(1169.1, abs=0.05)
    assert first + second == pytest.approx(2 * INITIAL)
    assert ratings.skills["strong"][1] == 40 and ratings.difficulties["lopsided/second"][1] == 40


def test_a_strong_player_is_told_apart_from_an_easy_role() -> None:
    ratings = rate(FAIR, rate(LOPSIDED))
    assert ratings.skills["strong"][0] == pytest.approx(1830.9, abs=0.05)
    assert ratings.skills["weak"][0] == pytest.approx(1169.1, abs=0.05)
    assert ratings.difficulties["fair/x"][0] == pytest.approx(INITIAL) == ratings.difficulties["fair/o"][0]
    # the lopsided game's difficulties are what its own matches made them
    assert ratings.difficulties["lopsided/second"][0] == pytest.approx(1830.9, abs=0.05)
    total = sum(r for r, _ in ratings.skills.values()) + sum(r for r, _ in ratings.difficulties.values())
    assert total == pytest.approx(INITIAL * 6)  # every change moves a skill and a difficulty by the same amount


def test_one_player_games_rate_the_player_against_the_puzzle() -> None:
    matches: list[Match] = [("puzzle", ("solver",), ("good",), (100,)), ("puzzle", ("solver",), ("bad",), (0,)),
                            ("puzzle", ("solver",), ("half",), (50,))]
    ratings = rate(matches)
    assert ratings.skills["good"][0] == pytest.approx(1516.0)
    assert ratings.skills["bad"][0] < INITIAL < ratings.skills["good"][0]
    assert ratings.skills["half"][0] > INITIAL  # 50 scored against a role that has shown itself harder than 1500
    assert ratings.difficulties["puzzle/solver"][1] == 3


def test_many_player_games_rate_each_seat_and_skip_the_chance_role() -> None:
    players = ("p", "q", "r")
    matches: list[Match] = []
    for i in range(30):  # rotating seats in a symmetric three-player game: p always 100, q 50, r 0
        seating = players[i % 3:] + players[:i % 3]
        goals = tuple({"p": 100, "q": 50, "r": 0}[name] for name in seating)
        matches.append(("ffa", ("red", "green", "blue"), seating, goals))
    ratings = rate(matches)
    assert ratings.skills["p"][0] > ratings.skills["q"][0] > ratings.skills["r"][0]
    assert ratings.skills["q"][0] == pytest.approx(INITIAL, abs=20)
    chance = update_agon(AgonRatings(), "poker", ("first", "random"), ("me", "random"), (100, 0))
    assert set(chance.skills) == {"me"} and set(chance.difficulties) == {"poker/first"}


def test_a_player_holding_two_seats_gets_both_changes() -> None:
    ratings = update_agon(AgonRatings(), "g", ("a", "b"), ("solo", "solo"), (100, 100))
    skill, seats = ratings.skills["solo"]
    assert skill == pytest.approx(INITIAL + 32.0) and seats == 1


def test_the_table_rates_incrementally_exactly_as_the_arithmetic() -> None:
    store = Store(":memory:")
    table = AgonTable(store.db)
    for game, roles, players, goals in LOPSIDED + FAIR:
        table.add_match(game, roles, players, goals)
    whole = rate(LOPSIDED + FAIR)
    assert table.ratings(OVERALL) == whole
    assert table.ratings("fair") == rate(FAIR)  # a game's own scope counts only its matches
    assert table.scopes() == [OVERALL, "fair", "lopsided"]
    store.close()


async def test_the_manager_rates_its_matches_with_agon_and_serves_them(
        aiohttp_client: ClientFactory, manager: Manager) -> None:
    await manager.add_game("nim", NIM_KIF)
    match_id = await manager.start_match(MatchRequest("nim", ("random", "random"), seed=3))
    record = await manager.wait(match_id)
    assert record is not None and record.goal_values is not None
    client = await aiohttp_client(create_app(manager))
    data = await (await client.get("/api/ratings?system=agon&game=nim")).json()
    assert data["system"] == "agon" and data["games"] == ["nim"]
    assert data["ratings"] == [{"player": "random", "skill": 1500.0, "matches": 1}]  # one player in both seats
    assert {(r["game"], r["role"]) for r in data["roles"]} == {("nim", "a"), ("nim", "b")}
    winner = "a" if record.goal_values[0] == 100 else "b"
    assert data["roles"][-1]["role"] == winner  # the role that won is rated the easier one
    assert (await client.get("/api/ratings?system=glicko")).status == 400
