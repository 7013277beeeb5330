"""Attack 2 of issue 31: big messages parsed on the event loop, big replies parsed and stored whole.

Before, a 1 MB ``(a a a ...)`` body kept a player deaf for 21 s (bodies up to 32 MB were accepted), and a
remote player's 65 KB replies were parsed on the manager's loop and stored whole in the record.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from ggp.manager.match_requests import MatchRequest
from ggp.manager.service import Manager
from ggp.protocol.limits import MAX_MESSAGE_CHARS, MAX_REPLY_CHARS, MAX_RULES_CHARS, MAX_RULES_TOKENS
from ggp.protocol.messages import Message, parse_message
from ggp.protocol.parsing import ParseLane
from ggp.protocol.server import app as server_app
from tests.helpers.fake_players import FakePlayer, constant
from tests.helpers.manager_machines import NIM_KIF

RULES = "((role first) (role second))"


async def post(port: int, text: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.post(
            f"http://127.0.0.1:{port}/", data=io.BytesIO(text.encode()), timeout=aiohttp.ClientTimeout(total=60)) as response:
        return response.status, await response.text()


async def test_messages_over_their_kinds_size_are_refused_unparsed(player_app: tuple[web.Application, int]) -> None:
    _, port = player_app
    words = " ".join(["a"] * (MAX_MESSAGE_CHARS // 2))
    status, reason = await post(port, f"(PLAY m1 ({words}))")
    assert status == 413 and str(MAX_MESSAGE_CHARS) in reason
    status, _ = await post(port, f"(START m1 first ({'(role first) ' * (MAX_RULES_CHARS // 13)}) 10 5)")
    assert status == 413
    # Under the character limit but 500,000 tokens: parsed, its terms held 560 MB (hostile.py, quiet machine).
    status, reason = await post(port, "(START big r (" + " ".join(["a"] * (MAX_RULES_CHARS // 2 - 40)) + ") 10 5)")
    assert status == 413 and f"at most {MAX_RULES_TOKENS} tokens" in reason
    assert (await post(port, "(INFO)"))[0] == 200


async def test_a_large_message_is_parsed_off_the_event_loop(player_app: tuple[web.Application, int],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _, port = player_app
    threads: list[str] = []

    def recording(text: str) -> Message:
        threads.append(threading.current_thread().name)
        return parse_message(text)

    monkeypatch.setattr(server_app, "parse_message", recording)
    padding = " ".join(f"(init (pad {i}))" for i in range(300))
    assert await post(port, f"(START m1 first ((role first) (role second) {padding}) 10 5)") == (200, "ready")
    assert await post(port, "(INFO)") == (200, "((name legal) (status busy) (species legal))")
    assert threads[0].startswith("ggp-parse") and threads[1] == threading.main_thread().name


async def test_the_parse_lane_bounds_each_parse_and_runs_one_at_a_time() -> None:
    release = threading.Event()
    running: list[int] = []

    def stuck(text: str) -> str:
        running.append(len(text))
        release.wait(30)
        return text

    lane = ParseLane(inline_chars=10, timeout_s=0.3)
    try:
        with pytest.raises(ValueError, match=r"could not be parsed within 0\.3 s"):
            await lane.parse("x" * 100, stuck)
        # The first parse's thread still runs: the next large one waits for it, within its own bound.
        with pytest.raises(ValueError, match=r"could not be parsed within 0\.3 s"):
            await lane.parse("y" * 100, stuck)
        assert running == [100]
        # A daemon thread: a process stopping (SIGTERM) does not wait for a parse still running.
        assert all(thread.daemon for thread in threading.enumerate() if thread.name.startswith("ggp-parse"))
        assert await lane.parse("small", str.upper) == "SMALL"  # inline, never waits
    finally:
        release.set()
        await asyncio.sleep(0.1)
        lane.close()


async def test_a_players_huge_replies_are_neither_parsed_nor_stored_whole(
        manager: Manager, aiohttp_server: object) -> None:
    big = "(" + " ".join(["a"] * 40_000) + ")"
    long_illegal = "(" + " ".join(["b"] * (MAX_REPLY_CHARS // 2 - 10)) + ")"
    huge = FakePlayer(constant(big))
    long = FakePlayer(constant(long_illegal))
    serve = aiohttp_server  # pytest-aiohttp's factory
    servers: list[TestServer] = [await serve(huge.app()), await serve(long.app())]  # type: ignore[operator]
    await manager.add_game("nim", NIM_KIF)
    urls = [str(s.make_url("/")) for s in servers]
    match_id = await manager.start_match(MatchRequest("nim", tuple(urls), 1, 1, seed=1))
    record = await manager.wait(match_id)
    assert record is not None and record.step >= 1
    errors = [code for step in record.errors for code in step]
    assert "IL null" in errors  # 80 KB: read no further than MAX_REPLY_CHARS, not a move
    assert any(code.startswith("IL (b b") and len(code) <= 203 for code in errors)  # illegal, stored cut short
    assert len(json.dumps(errors)) < 1000 * (record.step + 1)
