"""The match runner against fault-injecting fake players over real loopback HTTP."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from ggp.errors import InputError
from ggp.gdl.parser import parse_kif
from ggp.gdl.terms import Func
from ggp.manager.records import MatchRecord, to_dict
from ggp.manager.runner import (
    RANDOM_SEAT,
    STEP_CAP_DRAW_GOAL,
    Deadlines,
    Event,
    HttpTransport,
    MatchConfig,
    Seat,
    run_match,
)
from ggp.reasoner.machine import Move, Role, State
from tests.helpers.fake_players import FAST, FakePlayer, ServerFactory, constant, dropping, late, seat_for
from tests.helpers.manager_machines import COUNTER_KIF, NIM_KIF, CounterMachine, NimMachine


def config(seats: tuple[Seat, ...], kif: str = COUNTER_KIF, **extra: object) -> MatchConfig:
    return MatchConfig(match_id="m1", game_key="counter", description=parse_kif(kif), seats=seats, start_clock=1,
                       play_clock=1, seed=7, deadlines=FAST, **extra)  # type: ignore[arg-type]


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[Event, MatchRecord]] = []

    def match_event(self, record: MatchRecord, event: Event) -> None:
        self.events.append((event, record))


def assert_complete(record: MatchRecord) -> None:
    assert len(record.errors) == len(record.states) == len(record.moves) + 1 == len(record.state_times)


async def test_good_players_finish_with_no_errors_and_see_every_message(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    one, two = FakePlayer(constant("( STEP 1 )")), FakePlayer(constant("(step 2)"))
    seats = (await seat_for(aiohttp_server, one, "one"), await seat_for(aiohttp_server, two, "two"))
    recorder = Recorder()
    record = await run_match(CounterMachine(length=3), config(seats), transport, recorder)
    assert record.is_completed and not record.is_aborted and record.end_reason == "terminal"
    assert record.goal_values == (0, 100)
    assert record.moves == (("(step 1)", "(step 2)"),) * 3
    assert {code for row in record.errors for code in row} == {""}
    assert_complete(record)
    assert one.kinds() == ["START", "PLAY", "PLAY", "PLAY", "STOP"]
    assert one.messages[1] == "(PLAY m1 NIL)"
    assert one.messages[2] == "(PLAY m1 ((step 1) (step 2)))"
    assert one.messages[-1] == "(STOP m1 ((step 1) (step 2)))"
    assert one.messages[0].startswith("(START m1 p1 (") and one.messages[0].endswith(") 1 1)")
    assert [event for event, _ in recorder.events] == ["created", "start", "step", "step", "step", "end"]


async def test_late_garbage_illegal_and_dropped_replies_get_their_codes_and_fallbacks(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    machine = CounterMachine(length=2, roles=4)
    players = [FakePlayer(late("(step 1)", 1.0)), FakePlayer(constant("((garbage")),
               FakePlayer(constant("(step 9)")), FakePlayer(dropping("(step 1)"))]
    seats = tuple([await seat_for(aiohttp_server, p, f"p{i}") for i, p in enumerate(players)])
    record = await run_match(machine, config(seats), transport)
    assert record.is_completed
    assert_complete(record)
    assert record.errors[0] == ("", "", "", "")
    for row in record.errors[1:]:
        assert row == ("TO", "IL null", "IL (step 9)", "CE")
    legal = {"(step 1)", "(step 2)"}
    assert all(move in legal for joint in record.moves for move in joint)


async def test_fallbacks_are_fixed_by_the_seed(aiohttp_server: ServerFactory, transport: HttpTransport) -> None:
    seats = (await seat_for(aiohttp_server, FakePlayer(constant("junk junk")), "a"), RANDOM_SEAT)
    first = await run_match(CounterMachine(length=6), config(seats), transport)
    again = await run_match(CounterMachine(length=6), config(seats), transport)
    assert first.moves == again.moves
    assert {row[0] for row in first.errors[1:]} == {"IL null"}


async def test_a_player_that_crashes_mid_match_gets_connection_errors_until_the_end(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    crashing = FakePlayer(constant("(step 1)"))
    server = await aiohttp_server(crashing.app())
    seat = Seat("crashy", str(server.make_url("/")), "remote")

    class CloseAfterTwo(Recorder):
        def match_event(self, record: MatchRecord, event: Event) -> None:
            super().match_event(record, event)
            if event == "step" and record.step == 2:
                asyncio.get_running_loop().create_task(server.close())

    record = await run_match(CounterMachine(length=5), config((seat, RANDOM_SEAT)), transport, CloseAfterTwo())
    assert record.is_completed
    assert_complete(record)
    codes = [row[0] for row in record.errors]
    assert codes[:3] == ["", "", ""] and set(codes[4:]) == {"CE"}


async def test_unreachable_player_gets_ce_at_start_and_every_step(transport: HttpTransport) -> None:
    seat = Seat("nobody", "http://127.0.0.1:9/", "remote")
    record = await run_match(NimMachine(3), config((seat, RANDOM_SEAT), NIM_KIF), transport)
    assert record.is_completed and all(row[0] == "CE" for row in record.errors)
    assert all(row[1] == "" for row in record.errors)


async def test_start_timeout_is_recorded_and_the_match_goes_on(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    seat = await seat_for(aiohttp_server, FakePlayer(constant("(step 2)"), start_delay_s=2.0), "slow")
    record = await run_match(CounterMachine(length=1), config((seat, RANDOM_SEAT)), transport)
    assert record.errors[0] == ("TO", "") and record.errors[1] == ("", "")
    assert record.moves[0][0] == "(step 2)"


async def test_step_cap_aborts_the_match_and_sends_abort(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    player = FakePlayer(constant("(step 1)"))
    seats = (await seat_for(aiohttp_server, player, "a"), RANDOM_SEAT)
    record = await run_match(CounterMachine(length=50), config(seats, step_cap=3, step_cap_outcome="abort"), transport)
    assert record.is_aborted and not record.is_completed and record.end_reason == "step_cap"
    assert record.goal_values is None and record.step == 3
    assert_complete(record)
    assert player.kinds()[-1] == "ABORT"


async def test_by_default_the_step_cap_is_a_draw_and_players_get_abort(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    player = FakePlayer(constant("(step 1)"))
    seats = (await seat_for(aiohttp_server, player, "a"), RANDOM_SEAT)
    recorder = Recorder()
    record = await run_match(CounterMachine(length=50), config(seats, step_cap=4), transport, recorder)
    assert record.is_completed and not record.is_aborted and record.end_reason == "step_cap"
    assert record.goal_values == (STEP_CAP_DRAW_GOAL, STEP_CAP_DRAW_GOAL) and record.step == 4
    assert to_dict(record)["x-endReason"] == "step_cap" and "x-abortDetail" not in to_dict(record)
    assert_complete(record)
    assert player.kinds()[-1] == "ABORT" and "STOP" not in player.kinds()
    assert [event for event, _ in recorder.events][-1] == "end"


async def test_a_game_ending_exactly_at_the_cap_is_scored_by_its_rules(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    seats = (await seat_for(aiohttp_server, FakePlayer(constant("(step 1)")), "a"), RANDOM_SEAT)
    record = await run_match(CounterMachine(length=3), config(seats, step_cap=3), transport)
    assert record.end_reason == "terminal" and record.goal_values != (STEP_CAP_DRAW_GOAL,) * 2


async def test_cancelling_a_match_sends_abort_and_reports_an_aborted_record(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    player = FakePlayer(late("(step 1)", 0.05))
    seats = (await seat_for(aiohttp_server, player, "a"), RANDOM_SEAT)
    recorder = Recorder()
    task = asyncio.create_task(run_match(CounterMachine(length=1000), config(seats), transport, recorder))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    event, record = recorder.events[-1]
    assert event == "end" and record.is_aborted and record.abort_detail == "cancelled"
    assert_complete(record)
    assert player.kinds()[-1] == "ABORT"


async def test_random_seats_are_never_contacted_and_wrong_seat_counts_are_refused(
    transport: HttpTransport,
) -> None:
    record = await run_match(NimMachine(5), config((RANDOM_SEAT, RANDOM_SEAT), NIM_KIF), transport)
    assert record.is_completed and sorted(record.goal_values or ()) == [0, 100]
    with pytest.raises(InputError, match="2 roles"):
        await run_match(NimMachine(5), config((RANDOM_SEAT,), NIM_KIF), transport)


async def test_a_match_in_which_a_step_outlasts_the_wedge_limit_is_aborted(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    player = FakePlayer(late("(step 1)", 0.15))
    seats = (await seat_for(aiohttp_server, player, "a"), RANDOM_SEAT)
    record = await run_match(CounterMachine(length=5), config(seats, wedge_s=0.1), transport)
    assert record.is_aborted and record.end_reason == "aborted" and record.abort_detail.startswith("wedged")
    assert record.step == 1 and record.errors[1] == ("", "")
    assert player.kinds()[-1] == "ABORT"


class NoMovesForB(NimMachine):
    """Nim in which role b has no legal move once the pile is below 5: a broken game."""

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        moves = super().legal_moves(state, role)
        pile = next(f for f in state.facts if isinstance(f, Func) and f.name == "pile")
        return () if str(role) == "b" and str(pile.args[0]) < "5" else moves


async def test_a_broken_game_aborts_the_match_with_the_reason(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    player = FakePlayer(constant("noop"))
    seats = (RANDOM_SEAT, await seat_for(aiohttp_server, player, "b"))
    record = await run_match(NoMovesForB(7), config(seats, NIM_KIF), transport)
    assert record.is_aborted and "no legal move" in record.abort_detail
    assert_complete(record)
    assert player.kinds()[-1] == "ABORT"


async def test_a_huge_reply_is_read_no_further_and_counts_as_illegal(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    seat = await seat_for(aiohttp_server, FakePlayer(constant("(step " + "1" * 200_000 + ")")), "big")
    record = await run_match(CounterMachine(length=1), config((seat, RANDOM_SEAT)), transport)
    assert record.errors[1] == ("IL null", "")


def test_deadlines_come_from_the_clocks() -> None:
    deadlines = Deadlines.from_clocks(10, 5)
    assert (deadlines.start_s, deadlines.play_s, deadlines.stop_s) == (10.0, 6.0, 5.0)
    plain = MatchConfig(match_id="m", game_key="counter", description=parse_kif(COUNTER_KIF),
                        seats=(RANDOM_SEAT, RANDOM_SEAT), start_clock=3, play_clock=2)
    assert plain.effective_deadlines() == Deadlines(3.0, 3.0, 2.0)
    assert plain.effective_wedge_s() == 3 + 10 * 2


async def test_start_goes_to_all_players_in_parallel(aiohttp_server: ServerFactory, transport: HttpTransport) -> None:
    # Four players each take 0.4 s to answer START: one after the other would take 1.6 s, in parallel ~0.4 s.
    players = [FakePlayer(constant("(step 1)"), start_delay_s=0.4) for _ in range(4)]
    seats = tuple([await seat_for(aiohttp_server, p, f"p{i}") for i, p in enumerate(players)])
    times: dict[str, float] = {}

    class Clock(Recorder):
        def match_event(self, record: MatchRecord, event: Event) -> None:
            times.setdefault(event, asyncio.get_running_loop().time())

    record = await run_match(CounterMachine(length=1, roles=4), config(seats), transport, Clock())
    assert record.is_completed and record.errors[0] == ("", "", "", "")
    assert 0.35 <= times["start"] - times["created"] < 1.2


class Refusing(FakePlayer):
    """Answers START with ``error: <reason>``, as the player server does for rules its player cannot play."""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        text = await request.text()
        if text.strip("( ").split()[0].upper() == "START":
            self.messages.append(text)
            return web.Response(text="error: min-max WGCM needs a board game", content_type="text/acl")
        return await super().handle(request)


async def test_a_player_refusing_a_plain_gdl_game_stops_the_match_with_its_reason_before_any_move(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    refusing, other = Refusing(constant("(step 1)")), FakePlayer(constant("(step 2)"))
    seats = (await seat_for(aiohttp_server, refusing, "wgcm"), await seat_for(aiohttp_server, other, "two"))
    record = await run_match(CounterMachine(length=3), config(seats), transport)
    assert record.is_aborted and record.moves == ()
    assert "'wgcm'" in record.abort_detail and "refused the game: min-max WGCM needs a board game" in record.abort_detail
    assert "PLAY" not in refusing.kinds() and "PLAY" not in other.kinds()
