"""What players report choosing for a match by themselves (the ``X-GGP-Configuration`` header of their ``ready``
to START, issue 41) lands in the manager's match record, per role, bounded and cleaned; a player that reports
nothing records nothing, and a garbage report never breaks a match."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from aiohttp import web

from ggp.errors import InputError
from ggp.gdl.parser import parse_kif
from ggp.manager.records import MatchRecord, from_dict, to_dict
from ggp.manager.runner import RANDOM_SEAT, HttpTransport, MatchConfig, PlayerReply, Seat, run_match
from ggp.manager.store import Store
from ggp.player import MAX_CONFIGURATION_CHARS
from ggp.protocol.messages import CONFIGURATION_HEADER
from tests.helpers.fake_players import FAST, FakePlayer, ServerFactory, constant, seat_for
from tests.helpers.manager_machines import COUNTER_KIF, CounterMachine

CHOICE = "decisive=2, no NMCS (not a puzzle): a move wins at once in 28% of 174 sampled decisions"


def config(seats: tuple[Seat, ...], match_id: str = "m1") -> MatchConfig:
    return MatchConfig(match_id=match_id, game_key="counter", description=parse_kif(COUNTER_KIF), seats=seats,
                       start_clock=1, play_clock=1, seed=7, deadlines=FAST)


async def test_a_reported_choice_is_recorded_per_role_and_kept_by_the_store(
    aiohttp_server: ServerFactory, transport: HttpTransport, tmp_path: Path
) -> None:
    chooser = FakePlayer(constant("(step 1)"), start_headers={CONFIGURATION_HEADER: CHOICE})
    seats = (await seat_for(aiohttp_server, chooser, "chooser"), RANDOM_SEAT)
    store = Store(tmp_path / "m.db")
    try:
        record = await run_match(CounterMachine(length=2), config(seats), transport, store)
    finally:
        store.close()
    assert record.is_completed and record.configurations == (CHOICE, "")
    assert to_dict(record)["x-configurations"] == [CHOICE, ""]
    reopened = Store(tmp_path / "m.db")
    try:
        stored = reopened.match("m1")
    finally:
        reopened.close()
    assert stored is not None and stored.configurations == (CHOICE, "")


async def test_a_player_that_reports_nothing_records_nothing(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    seats = (await seat_for(aiohttp_server, FakePlayer(constant("(step 1)")), "plain"),
             await seat_for(aiohttp_server, FakePlayer(constant("(step 2)")), "other"))
    record = await run_match(CounterMachine(length=2), config(seats), transport)
    assert record.is_completed and {code for row in record.errors for code in row} == {""}
    assert record.configurations == () and "x-configurations" not in to_dict(record)


async def test_a_garbage_report_is_cut_and_cleaned_and_the_match_goes_on(
    aiohttp_server: ServerFactory, transport: HttpTransport
) -> None:
    garbage = "decisive=\u00e9\t" + "<script>" * 2000
    seats = (await seat_for(aiohttp_server, FakePlayer(constant("(step 1)"), start_headers={CONFIGURATION_HEADER: garbage}),
                            "noisy"), RANDOM_SEAT)
    record = await run_match(CounterMachine(length=2), config(seats), transport)
    assert record.is_completed and {code for row in record.errors for code in row} == {""}
    line = record.configurations[0]
    assert len(line) == MAX_CONFIGURATION_CHARS and line.startswith("decisive=") and line.endswith("...")
    assert all(" " <= c <= "~" for c in line) and "\t" not in line


async def test_a_refusal_records_no_choice(aiohttp_server: ServerFactory, transport: HttpTransport) -> None:
    class Refusing(FakePlayer):
        async def handle(self, request: web.Request) -> web.StreamResponse:
            if (await request.text()).startswith("(START"):
                return web.Response(text="error: no thanks", headers={CONFIGURATION_HEADER: CHOICE})
            return await super().handle(request)

    seats = (await seat_for(aiohttp_server, Refusing(constant("(step 1)")), "refuser"), RANDOM_SEAT)
    record = await run_match(CounterMachine(length=2), config(seats), transport)
    assert record.configurations == ()


def test_the_store_keeps_the_choice_from_the_start_on(tmp_path: Path) -> None:
    # Written when START is answered, so a manager stopped mid-match still has it in the match's row.
    record = MatchRecord(match_id="m2", start_time_ms=0, random_token="t", start_clock=1, play_clock=1,
                         game_meta_url="", roles=("p1", "p2"), player_names=("a", "b"), player_types=("remote",) * 2,
                         seed=0, game_key="counter", states=("( )",), state_times=(0,))
    store = Store(tmp_path / "m.db")
    try:
        store.match_event(record, "created")
        store.match_event(replace(record, errors=(("", ""),), configurations=(CHOICE, "")), "start")
    finally:
        store.close()
    reopened = Store(tmp_path / "m.db")  # the running match is marked aborted: the manager stopped
    try:
        stored = reopened.match("m2")
    finally:
        reopened.close()
    assert stored is not None and stored.is_aborted and stored.configurations == (CHOICE, "")


def test_a_reply_is_its_text_with_the_cleaned_report() -> None:
    reply = PlayerReply("ready", "one\r\ntwo")
    assert reply == "ready" and reply.configuration == "one two"
    assert PlayerReply("ready").configuration == ""


def test_records_from_elsewhere_are_bounded_and_checked() -> None:
    base = {"matchId": "m", "startTime": 0, "randomToken": "t", "startClock": 1, "playClock": 1, "states": [],
            "moves": [], "stateTimes": [], "gameMetaURL": "", "playerNamesFromHost": ["a", "b"]}
    record = from_dict({**base, "x-configurations": ["x" * 5000, ""]})
    assert len(record.configurations[0]) == MAX_CONFIGURATION_CHARS and record.configurations[1] == ""
    assert from_dict(base).configurations == ()
    with pytest.raises(InputError, match="x-configurations"):
        from_dict({**base, "x-configurations": ["only one"]})
    with pytest.raises(InputError, match="x-configurations"):
        from_dict({**base, "x-configurations": "not a list"})
