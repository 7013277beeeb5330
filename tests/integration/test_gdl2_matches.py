"""GDL-II matches end to end: the manager's runner against real player servers over loopback HTTP (clingo)."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.errors import InputError
from ggp.files import load_kif
from ggp.gdl.parser import parse_kif, parse_term
from ggp.gdl.terms import Description
from ggp.manager.match_requests import MatchRequest
from ggp.manager.records import from_json, to_json
from ggp.manager.runner import RANDOM_SEAT, HttpTransport, MatchConfig, Seat, check_roles, run_match
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.tournament import TournamentSpec
from ggp.player import NO_GDL2
from ggp.players.registry import make_player
from ggp.protocol.messages import Play, PlayII, Start, StopII, parse_message
from ggp.protocol.server import PlayerLimits, create_player_app
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import StateMachine
from tests.conftest import KIF_DIR
from tests.prerequisites import missing


def clingo_machine(rules: Description) -> StateMachine:
    return make_machine(rules, "clingo")

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]

GUESS = KIF_DIR / "guessNumber" / "guessNumber.kif"
KUHN = KIF_DIR / "kuhnPoker" / "kuhnPoker.kif"


def game(path: Path) -> Description:
    if not path.is_file():
        missing(f"{path.name} is not present")
    return load_kif(path)


def machine_for(description: Description) -> StateMachine:
    return make_machine(description, "clingo")


@pytest.fixture
async def transport() -> AsyncIterator[HttpTransport]:
    async with HttpTransport() as http:
        yield http


async def player_seat(aiohttp_server: ServerFactory, spec: str, seed: int, inbox: list[str],
                      limits: PlayerLimits | None = None) -> Seat:
    """A real player server for ``spec`` that also records every message body it receives (with ``limits``,
    its reasoning runs in a worker process)."""
    app = create_player_app(partial(make_player, spec, seed), spec.split(":")[0], clingo_machine, limits=limits)

    @web.middleware
    async def record(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                     ) -> web.StreamResponse:
        inbox.append(await request.text())
        return await handler(request)

    app.middlewares.append(record)
    server = await aiohttp_server(app)
    return Seat(spec, str(server.make_url("/")), "remote")


def config(match_id: str, description: Description, seats: tuple[Seat, ...], seed: int = 3) -> MatchConfig:
    return MatchConfig(match_id=match_id, game_key=match_id, description=description, seats=seats,
                       start_clock=30, play_clock=10, seed=seed)


def assert_own_view_only(inbox: list[str], record_moves: tuple[tuple[str, ...], ...],
                         percepts: tuple[tuple[tuple[str, ...], ...], ...], index: int) -> None:
    """The player got START, GDL-II PLAYs with turns 0..n-1 and its own move and percepts only, then STOP."""
    messages = [parse_message(text) for text in inbox]
    assert isinstance(messages[0], Start)
    plays = messages[1:-1]
    assert all(isinstance(m, PlayII) for m in plays)
    assert [m.turn for m in plays if isinstance(m, PlayII)] == list(range(len(record_moves)))
    stop = messages[-1]
    assert isinstance(stop, StopII) and stop.turn == len(record_moves)
    for message in [*plays[1:], stop]:
        assert isinstance(message, (PlayII, StopII))
        step = message.turn - 1
        assert str(message.last_move) == record_moves[step][index]
        assert sorted(map(str, message.percepts)) == list(percepts[step][index])


@pytest.mark.parametrize("limits", [None, PlayerLimits()], ids=["in-thread", "in-worker"])
async def test_dmcts_plays_guess_the_number_over_http_and_the_record_keeps_its_percepts(
    aiohttp_server: ServerFactory, transport: HttpTransport, limits: PlayerLimits | None,
) -> None:
    description = game(GUESS)
    inbox: list[str] = []
    seats = (await player_seat(aiohttp_server, "dmcts:iterations=200,samples=4", 1, inbox, limits), RANDOM_SEAT)
    record = await run_match(machine_for(description), config("guess1", description, seats), transport)
    assert record.is_completed and record.end_reason == "terminal" and record.gdl2
    assert len(record.percepts) == len(record.moves) >= 2
    assert {code for row in record.errors for code in row} == {""}
    found = re.search(r"\(secret (\d)\)", record.states[1])
    assert found is not None
    secret = int(found.group(1))
    for joint, seen in zip(record.moves, record.percepts):
        guesser_move, _ = joint
        assert seen[1] == ()  # chance sees nothing in this game
        if guesser_move.startswith("(ask"):
            k = int(guesser_move[5:-1])
            assert seen[0] == (f"(answer {k} {'yes' if secret < k else 'no'})",)
        else:
            assert seen[0] == ()
    assert_own_view_only(inbox, record.moves, record.percepts, 0)
    again = from_json(to_json(record))
    assert again.gdl2 and again.percepts == record.percepts


async def test_kuhn_poker_over_http_each_player_sees_only_its_own_card(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    description = game(KUHN)
    inboxes: list[list[str]] = [[], []]
    seats = (await player_seat(aiohttp_server, "dmcts:iterations=60,samples=3", 2, inboxes[0]),
             await player_seat(aiohttp_server, "random", 5, inboxes[1]), RANDOM_SEAT)
    record = await run_match(machine_for(description), config("kuhn1", description, seats, seed=11), transport)
    assert record.is_completed and record.gdl2 and record.goal_values is not None
    assert sorted(record.goal_values[:2]) in ([0, 100], [25, 75])
    deal = parse_term(record.moves[0][2])
    assert str(deal).startswith("(deal")
    first_card, second_card = (str(card) for card in deal.args)  # type: ignore[union-attr]
    assert record.percepts[0] == ((f"(yourcard {first_card})",), (f"(yourcard {second_card})",), ())
    assert record.player_types[2] == "random" and all(row[2] == "" for row in record.errors)
    for index in (0, 1):
        assert_own_view_only(inboxes[index], record.moves, record.percepts, index)


async def test_a_player_without_gdl2_support_refuses_and_the_match_ends_with_an_error(
    aiohttp_server: ServerFactory, transport: HttpTransport, caplog: pytest.LogCaptureFixture
) -> None:
    description = game(GUESS)
    inbox: list[str] = []
    seats = (await player_seat(aiohttp_server, "mcts:iterations=10", 1, inbox), RANDOM_SEAT)
    with caplog.at_level(logging.WARNING):
        record = await run_match(machine_for(description), config("refused", description, seats), transport)
    assert record.is_aborted and record.end_reason == "error" and record.step == 0
    assert NO_GDL2 in record.abort_detail and "'mcts:iterations=10' (role guesser)" in record.abort_detail
    assert "refused a GDL-II game" in caplog.text


def test_the_random_role_is_never_a_remote_seat() -> None:
    machine = machine_for(parse_kif(GDL1_CHANCE))
    seat = Seat("p", "http://127.0.0.1:1/", "remote")
    with pytest.raises(InputError, match="role 'random' is chance"):
        check_roles(machine.roles, (seat, seat))
    check_roles(machine.roles, (seat, RANDOM_SEAT))


GDL1_CHANCE = """
(role p) (role random)
(coin heads) (coin tails)
(init (step 0))
(<= (legal random (flip ?c)) (true (step 0)) (coin ?c))
(<= (legal random noop) (true (step 1)))
(<= (legal p wait) (true (step 0)))
(<= (legal p (call ?c)) (true (step 1)) (coin ?c))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= (next (landed ?c)) (does random (flip ?c)))
(<= (next (landed ?c)) (true (landed ?c)))
(<= (next (called ?c)) (does p (call ?c)))
(<= terminal (true (step 2)))
(<= (goal p 100) won)
(<= (goal p 0) (not won))
(<= won (true (landed ?c)) (true (called ?c)))
(goal random 0)
"""
"""A GDL game (no ``sees``) with a chance role: its players get the whole joint move."""


async def test_a_random_role_in_a_gdl_game_is_played_by_the_manager_with_gdl_messages(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    description = parse_kif(GDL1_CHANCE)
    inbox: list[str] = []
    seats = (await player_seat(aiohttp_server, "mcts:iterations=30", 1, inbox), RANDOM_SEAT)
    record = await run_match(machine_for(description), config("chance1", description, seats), transport)
    assert record.is_completed and not record.gdl2 and record.percepts == ()
    assert record.goal_values == (100, 0)  # mcts knows the coin: it saw the joint move
    plays = [parse_message(text) for text in inbox[1:-1]]
    assert all(isinstance(m, Play) for m in plays)
    assert isinstance(plays[1], Play) and plays[1].moves is not None and str(plays[1].moves[1]).startswith("(flip")


BROKEN = """
(role p) (role random)
(init (step 0))
(<= (legal p go) (true (step ?n)))
(<= (legal random flip) (true (step 0)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= (sees p (step ?n)) (true (step ?n)))
(<= terminal (true (step 2)))
(goal p 100) (goal random 0)
"""
"""A GDL-II game in which chance has no legal move at step 1."""

NO_GOAL = BROKEN.replace("(<= (legal random flip) (true (step 0)))", "(legal random flip)").replace(
    "(goal p 100)", "(<= (goal p 100) (true (step 0)))")
"""The same game made playable, but p has no goal value in the terminal state."""


@pytest.mark.parametrize(("kif", "expected"), [(BROKEN, "no legal move"), (NO_GOAL, "no goal values")],
                         ids=["chance-without-moves", "role-without-goal"])
async def test_a_broken_gdl2_game_ends_with_a_recorded_error_and_the_state_in_the_log(
    aiohttp_server: ServerFactory, transport: HttpTransport, caplog: pytest.LogCaptureFixture, kif: str, expected: str
) -> None:
    description = parse_kif(kif)
    machine = make_machine(description, "clingo", validate=False)
    inbox: list[str] = []
    seats = (await player_seat(aiohttp_server, "legal", 1, inbox), RANDOM_SEAT)
    with caplog.at_level(logging.ERROR, logger="ggp.manager.runner"):
        record = await run_match(machine, config("broken", description, seats), transport)
    assert record.is_aborted and record.end_reason == "error" and expected in record.abort_detail
    assert "game error" in caplog.text and "(step " in caplog.text
    assert len(record.percepts) == len(record.moves) and record.percepts[0][0] == ("(step 0)",)
    assert parse_message(inbox[-1]).__class__.__name__ == "Abort"


async def test_the_manager_seats_chance_itself_and_stores_the_percepts(aiohttp_server: ServerFactory) -> None:
    game(GUESS)
    inbox: list[str] = []
    seat = await player_seat(aiohttp_server, "random", 4, inbox)
    store = Store(":memory:")
    manager = Manager(store, machine_for)
    try:
        await manager.add_game("guess", GUESS.read_text())
        assert seat.url is not None
        match_id = await manager.start_match(MatchRequest("guess", (seat.url,), 30, 10, seed=5))
        record = await manager.wait(match_id)
    finally:
        await manager.close()
        store.close()
    assert record is not None and record.is_completed and record.gdl2
    assert record.player_types == ("remote", "random")
    assert len(record.percepts) == len(record.moves)
    assert_own_view_only(inbox, record.moves, record.percepts, 0)


async def test_a_kuhn_poker_tournament_seats_only_the_players_and_chance_plays_every_match(
    aiohttp_server: ServerFactory,
) -> None:
    game(KUHN)
    urls = []
    for seed in (1, 2):
        seat = await player_seat(aiohttp_server, "random", seed, [])
        assert seat.url is not None
        urls.append(seat.url)
    store = Store(":memory:")
    manager = Manager(store, machine_for)
    try:
        await manager.add_game("kuhn", KUHN.read_text())
        tournament = await manager.start_tournament(
            TournamentSpec("t", "kuhn", tuple(urls), per_pairing=2, start_clock=30, play_clock=10, parallel=1))
        await manager.wait_tournament(tournament)
        matches = store.matches(tournament_id=tournament, status="completed")
        rated = set(store.ratings("kuhn"))
    finally:
        await manager.close()
        store.close()
    assert len(matches) == 2
    assert sorted(m.players for m in matches) == sorted([(urls[0], urls[1], "random"), (urls[1], urls[0], "random")])
    assert rated == set(urls)  # chance is not rated
