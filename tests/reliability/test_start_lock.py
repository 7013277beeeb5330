"""Attack 3 of issue 31: one START must not lock a player, and a player answers consistently.

Before, ``(START lk1 xplayer <rules> 604799 1)`` was accepted and every other START got ``busy`` for up
to a week; a cross-site ``text/plain`` POST was accepted; a START refused with ``error:`` and sent again
got ``ready``; a play clock of 0 was accepted; a PLAY for an unknown match got ``busy``.
"""

from __future__ import annotations

import aiohttp
from aiohttp import web

from ggp.protocol.limits import MAX_PLAY_CLOCK_S, MAX_START_CLOCK_S

RULES = "((role first) (role second))"


async def post(port: int, text: str, **headers: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.post(
            f"http://127.0.0.1:{port}/", data=text, headers=headers,
            timeout=aiohttp.ClientTimeout(total=30)) as response:
        return response.status, await response.text()


async def test_a_start_with_a_week_long_clock_is_refused_naming_the_bound(
        player_app: tuple[web.Application, int]) -> None:
    _, port = player_app
    status, reply = await post(port, f"(START lk1 first {RULES} 604799 1)")
    assert status == 200 and reply == f"error: the start clock 604799 s is outside 1..{MAX_START_CLOCK_S} s"
    assert await post(port, f"(START lk1 first {RULES} 604799 1)") == (200, reply)  # refused again, not ready
    assert "available" in (await post(port, "(INFO)"))[1]
    assert await post(port, f"(START m2 first {RULES} 10 5)") == (200, "ready")  # nobody is locked out


async def test_play_clocks_of_zero_or_over_the_bound_are_refused(player_app: tuple[web.Application, int]) -> None:
    _, port = player_app
    for clock in (0, MAX_PLAY_CLOCK_S + 1):
        status, reply = await post(port, f"(START m1 first {RULES} 10 {clock})")
        assert status == 200 and reply == f"error: the play clock {clock} s is outside 1..{MAX_PLAY_CLOCK_S} s"
    assert "available" in (await post(port, "(INFO)"))[1]


async def test_a_cross_site_text_plain_post_cannot_start_a_match(player_app: tuple[web.Application, int]) -> None:
    _, port = player_app
    form = {"Content-Type": "text/plain", "Origin": "http://evil.example"}
    status, _ = await post(port, f"(START m1 first {RULES} 10 5)", **form)
    assert status == 403
    assert (await post(port, "(START m1 first " + RULES + " 10 5)", **{"Sec-Fetch-Site": "cross-site"}))[0] == 403
    assert (await post(port, "(INFO)", **form))[0] == 200  # INFO stays open to any page (CORS)
    assert "available" in (await post(port, "(INFO)"))[1]


async def test_a_refused_start_stays_refused(player_app: tuple[web.Application, int]) -> None:
    _, port = player_app
    status, reply = await post(port, f"(START m1 nobody {RULES} 10 5)")  # a role the game does not have
    assert status == 200 and reply.startswith("error:")
    assert await post(port, f"(START m1 nobody {RULES} 10 5)") == (200, reply)


async def test_a_play_for_an_unknown_match_gets_a_clear_error(player_app: tuple[web.Application, int]) -> None:
    _, port = player_app
    assert await post(port, "(PLAY nosuch NIL)") == (200, "error: unknown match nosuch")
    assert await post(port, f"(START m1 first {RULES} 10 5)") == (200, "ready")
    assert await post(port, "(PLAY other NIL)") == (200, "busy")  # while a match is played: as before
