"""The manager core: built-in players launched per seat on loopback, and stopped after the match."""

from __future__ import annotations

from typing import Any, ClassVar

import aiohttp
import pytest

from ggp.manager.launcher import AppLauncher, LaunchedPlayer
from ggp.manager.match_requests import MatchRequest, failed_match
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.fake_players import FakePlayer, constant
from tests.helpers.manager_machines import COUNTER_KIF, machine_for_description
from tests.unit.manager.conftest import FAST


async def test_built_in_players_get_their_own_loopback_server_per_seat_and_are_stopped() -> None:
    made: list[FakePlayer] = []

    def factory() -> aiohttp.web.Application:
        made.append(FakePlayer(constant("(step 2)")))
        return made[-1].app()

    class Recording(AppLauncher):
        urls: ClassVar[list[str]] = []

        async def launch(self, kind: str) -> LaunchedPlayer:
            launched = await super().launch(kind)
            self.urls.append(launched.url)
            return launched

    store = Store(":memory:")
    launcher = Recording({"fake": factory})
    manager = Manager(store, machine_for_description, launcher, ManagerSettings(deadlines=FAST))
    try:
        assert manager.builtin_kinds() == ("fake",) and (store.player("fake") or None) is not None
        await manager.add_game("counter", COUNTER_KIF)
        match_id = await manager.start_match(MatchRequest("counter", ("fake", "fake"), 1, 1, seed=1))
        record = await manager.wait(match_id)
    finally:
        await manager.close()
    assert record is not None and record.is_completed and record.player_types == ("builtin:fake", "builtin:fake")
    assert record.moves[0] == ("(step 2)", "(step 2)")
    assert len(made) == 2 and all(p.kinds()[0] == "START" and p.kinds()[-1] == "STOP" for p in made)
    assert manager.running_ids() == [] and len(set(launcher.urls)) == 2
    async with aiohttp.ClientSession() as session:
        for url in launcher.urls:
            with pytest.raises(aiohttp.ClientConnectionError):
                await session.post(url, data="(INFO)")
    store.close()


def test_a_match_is_failed_when_half_the_requests_of_a_player_went_wrong() -> None:
    from tests.unit.manager.test_records import RECORD

    assert failed_match(RECORD, [0])  # one of its two rows is TO
    assert not failed_match(RECORD, [1])


async def test_standings_count_each_players_fallback_moves(aiohttp_server: Any) -> None:
    # A player whose move the manager replaced (here an illegal reply) is ranked partly on a move it did
    # not choose: the standings say how many, and the tables mark its row.
    async def once_illegal(count: int) -> str:
        return "(nonsense)" if count == 1 else "(step 2)"

    good, sloppy = FakePlayer(constant("( STEP 1 )")), FakePlayer(once_illegal)
    urls = [str((await aiohttp_server(player.app())).make_url("/")) for player in (good, sloppy)]
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=FAST))
    try:
        await manager.add_game("counter", COUNTER_KIF)
        manager.register_player("good", url=urls[0])
        manager.register_player("sloppy", url=urls[1])
        tournament = store.add_tournament("t", "counter", {})
        match_id = await manager.start_match(MatchRequest("counter", ("good", "sloppy"), 1, 1, seed=1), tournament)
        record = await manager.wait(match_id)
        table = {row["player"]: row for row in manager.standings(tournament)}
    finally:
        await manager.close()
    assert record is not None and record.is_completed
    assert [row[1] for row in record.errors if row[1]] == ["IL (nonsense)"]
    assert store.fallbacks(tournament) == {match_id: (0, 1)}
    assert table["sloppy"]["fallbacks"] == 1 and table["good"]["fallbacks"] == 0
    store.close()


async def test_a_match_aborted_before_its_task_began_is_stored_aborted_and_frees_its_seats(manager: Manager) -> None:
    await manager.add_game("counter", COUNTER_KIF)
    match_id = await manager.start_match(MatchRequest("counter", ("random", "random"), seed=1))
    assert await manager.abort(match_id)  # at once: its task has not run a step yet
    assert manager.running_ids() == []
    record = manager.store.match(match_id)
    assert record is not None and record.is_aborted
    assert [m.status for m in manager.store.matches()] == ["aborted"]
