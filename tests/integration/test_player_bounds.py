"""Reliability: a heavy game cannot make a player server deaf or kill it (issue 20).

With :class:`PlayerLimits` a match's reasoning runs in a worker process bounded in memory and, relative
to the match's clocks, in time; the event loop stays free. Loopback only; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from ggp.gdl.parser import parse_kif
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description
from ggp.player import Budget
from ggp.players.legal_player import LegalPlayer
from ggp.players.random_player import RandomPlayer
from ggp.players.registry import make_player
from ggp.protocol.messages import parse_info_reply, parse_reply_move
from ggp.protocol.server import PLAYER_HOST, PlayerLimits, create_player_app
from ggp.reasoner.machine import Move, State, StateMachine
from ggp.reasoner.upgrade import playing_machine
from tests.conftest import ROOT
from tests.helpers.manager_machines import (
    COUNTER_KIF,
    MEMORY_HOG_KIF,
    WEDGE_KIF,
    CounterMachine,
    five_ary_kif,
    machine_for_description,
)
from tests.helpers.network import free_port, wait_listening
from tests.helpers.nim_machine import NimMachine

Client = TestClient[web.Request, web.Application]
LIMITS = PlayerLimits(memory_mb=512, max_call_s=60.0)


def rules(kif: str) -> str:
    """A game as the rules of a START message."""
    return "(" + to_kif(parse_kif(kif)) + ")"


async def post(client: Client, text: str) -> tuple[str, float]:
    """The reply to a message and the seconds it took."""
    began = time.monotonic()
    response = await client.post("/", data=text, headers={"Content-Type": "text/acl"})
    assert response.status == 200, await response.text()
    return await response.text(), time.monotonic() - began


async def status(client: Client) -> tuple[str, float]:
    text, took = await post(client, "(INFO)")
    return parse_info_reply(text).status, took


@pytest.fixture
def make_client(aiohttp_client: AiohttpClient) -> Callable[..., Awaitable[Client]]:
    async def make(player: Callable[[], object] = LegalPlayer,
                   machines: Callable[[Description], StateMachine] = machine_for_description) -> Client:
        return await aiohttp_client(create_player_app(player, "bounded", machines, limits=LIMITS))  # type: ignore[arg-type]

    return make


async def play_counter_match(client: Client, match_id: str) -> None:
    """A whole match of the counter game (roles p1, p2, ten steps): every reply is a legal move."""
    assert (await post(client, f"(START {match_id} p1 {rules(COUNTER_KIF)} 10 5)"))[0] == "ready"
    reference = CounterMachine()
    state, last = reference.initial_state(), "NIL"
    while not reference.is_terminal(state):
        move = parse_reply_move((await post(client, f"(PLAY {match_id} {last})"))[0])
        assert move in reference.legal_moves(state, reference.roles[0])
        joint = (move, reference.legal_moves(state, reference.roles[1])[0])
        state, last = reference.next_state(state, joint), f"({joint[0]} {joint[1]})"
    assert (await post(client, f"(STOP {match_id} {last})"))[0] == "done"
    assert (await status(client))[0] == "available"


async def test_a_wedged_reasoner_leaves_info_answered_and_legal_moves_in_time_then_the_match_goes_on(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client()
    host = client.app[PLAYER_HOST]
    assert (await post(client, f"(START w1 h1 {rules(WEDGE_KIF)} 5 1)"))[0] == "ready"
    first, _ = await post(client, "(PLAY w1 NIL)")
    assert str(parse_reply_move(first)) == "(step 1)"
    worker = host.worker_pid
    # From the second step on the game's legal-moves call sleeps an hour in the worker.
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        play = asyncio.create_task(post(client, "(PLAY w1 ((step 1) (step 1)))"))
        infos = []
        while not play.done():
            infos.append(await status(client))
            await asyncio.sleep(0.05)
        reply, took = await play
        # The player's seat knows nothing by the deadline: the standby seat's legal move goes, in time.
        assert str(parse_reply_move(reply)) == "(step 1)" and took < 1.0
        assert len(infos) >= 3 and all(state == "busy" and took < 0.5 for state, took in infos)
        # Past two play clocks (min 2 s) the worker is killed and replaced; the player starts again in the
        # fresh worker (on the recovery engine), replays the match and plays on.
        async with asyncio.timeout(30):
            while host.replaced == 0:
                await asyncio.sleep(0.05)
        for _ in range(3):
            reply, took = await post(client, "(PLAY w1 ((step 1) (step 1)))")
            assert str(parse_reply_move(reply)) == "(step 1)" and took < 1.0
        assert (await status(client))[0] == "busy"
    lines = [r.getMessage() for r in caplog.records if "replaced" in r.getMessage()]
    assert lines == [f"match w1: applying the moves exceeded the time limit of 2 s; worker {worker} replaced"]
    assert "the player starts again on the recovery engine (restart 1, 2 step(s) to replay)" in caplog.text
    assert host.replaced == 1 and host.worker_pid != worker
    assert (await post(client, "(STOP w1 ((step 1) (step 1)))"))[0] == "done"
    await play_counter_match(client, "next1")


class StubbornPlayer(LegalPlayer):
    """Has a best move ready (its last legal move), then ignores its budget and the cancel event."""

    name = "stubborn"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        self._best = legal[-1]
        while True:
            time.sleep(0.01)


async def test_a_search_that_never_returns_is_answered_with_its_best_move_then_legal_moves_and_its_worker_replaced(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    client = await make_client(StubbornPlayer)
    host = client.app[PLAYER_HOST]
    assert (await post(client, f"(START s1 p1 {rules(COUNTER_KIF)} 5 1)"))[0] == "ready"
    reply, took = await post(client, "(PLAY s1 NIL)")
    assert str(parse_reply_move(reply)) == "(step 2)" and took < 1.0  # the best move so far, in time
    # The next step waits for the search it never gets back: the standby seat answers a legal move, that
    # call is over its bound, so the worker is replaced and the player started again; INFO is answered
    # all along.
    reply, took = await post(client, "(PLAY s1 ((step 2) (step 1)))")
    assert str(parse_reply_move(reply)) in ("(step 1)", "(step 2)") and took < 1.0
    async with asyncio.timeout(30):
        while host.replaced == 0:
            assert (await status(client))[1] < 0.5
            await asyncio.sleep(0.05)
    reply, took = await post(client, "(PLAY s1 ((step 2) (step 1)))")
    assert str(parse_reply_move(reply)) in ("(step 1)", "(step 2)") and took < 1.0
    assert (await status(client))[0] == "busy"


async def test_a_worker_killed_by_the_memory_limit_is_replaced_and_the_next_match_plays_normally(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client()
    host = client.app[PLAYER_HOST]
    assert (await post(client, f"(START m1 h1 {rules(MEMORY_HOG_KIF)} 5 2)"))[0] == "ready"
    assert str(parse_reply_move((await post(client, "(PLAY m1 NIL)"))[0])) == "(step 1)"
    assert str(parse_reply_move((await post(client, "(PLAY m1 ((step 1) (step 1)))"))[0])) == "(step 1)"
    worker = host.worker_pid
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        # The second step's next-state call allocates 8 GiB: the worker hits its 512 MB address space.
        reply, took = await post(client, "(PLAY m1 ((step 1) (step 1)))")
    assert str(parse_reply_move(reply)) == "(step 1)" and took < 2.0  # the standby seat's
    assert (f"match m1: applying the moves exceeded the memory limit of 512 MB; worker {worker} replaced"
            in caplog.text)
    assert host.replaced == 1
    # The player starts again on the recovery engine (the real rules: no 8 GiB there) and plays on.
    assert str(parse_reply_move((await post(client, "(PLAY m1 ((step 1) (step 1)))"))[0])) == "(step 1)"
    assert (await post(client, "(ABORT m1)"))[0] == "aborted"
    await play_counter_match(client, "after")


def five_ary_auto(description: Description) -> StateMachine:
    """The ``ggp player`` default engine."""
    return playing_machine(description, "auto")


async def test_the_five_ary_game_is_answered_ready_then_nil_while_info_stays_answered(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    # Its legal rule joins a 5-ary relation over 100 objects: grounding it wedges clingo.
    client = await make_client(partial(make_player, "random", 1), five_ary_auto)
    host = client.app[PLAYER_HOST]
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        reply, took = await post(client, f"(START f1 a {rules(five_ary_kif(100))} 2 1)")
        assert reply == "ready" and took < 2.0
        assert (await status(client))[0] == "busy"
        reply, took = await post(client, "(PLAY f1 NIL)")
        assert reply == "nil" and took < 1.0
        async with asyncio.timeout(60):  # the setup's bound: start clock + 3 play clocks
            while host.replaced == 0:
                assert (await status(client))[1] < 0.5
                await asyncio.sleep(0.1)
    assert "match f1: setup exceeded the " in caplog.text
    assert (await post(client, "(ABORT f1)"))[0] == "aborted"
    light = rules(five_ary_kif(2))
    assert (await post(client, f"(START f2 a {light} 10 5)"))[0] == "ready"
    assert str(parse_reply_move((await post(client, "(PLAY f2 NIL)"))[0])).startswith("(m o")


async def test_abort_during_a_wedged_setup_frees_the_player_at_once(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(partial(make_player, "random", 1), five_ary_auto)
    host = client.app[PLAYER_HOST]
    with caplog.at_level(logging.INFO, logger="ggp.protocol.server"):
        assert (await post(client, f"(START g1 a {rules(five_ary_kif(100))} 1 30)"))[0] == "ready"
        worker = host.worker_pid
        assert (await post(client, "(ABORT g1)"))[0] == "aborted"
        assert host.replaced == 1 and (await status(client))[0] == "available"
        assert worker is not None and _gone(worker)
        await play_counter_match(client, "c1")
    assert f"match g1: aborted; its worker {worker} was busy and is replaced" in caplog.text
    assert "died" not in caplog.text  # killed on purpose: no warning about it


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pid: int) -> bool:
    """Whether ``pid`` ends within 5 seconds (a killed process takes a moment)."""
    for _ in range(50):
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs (Linux ``/proc``)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as children:
            found = [int(child) for child in children.read().split()]
    except OSError:
        return []
    return found + [grandchild for child in found for grandchild in _descendants(child)]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_ggp_player_stops_within_seconds_while_grounding_and_leaves_no_process_behind(
    tmp_path: Path, stop: signal.Signals,
) -> None:
    import urllib.request

    port = free_port()
    log = tmp_path / "player.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "ggp", "player", "random", "--port", str(port), "--max-memory-mb", "512"],
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    try:
        wait_listening(port, process, log)
        start = f"(START t1 a {rules(five_ary_kif(100))} 30 30)".encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=start, method="POST")

        def send() -> bytes:
            with urllib.request.urlopen(request, timeout=30) as response:
                return bytes(response.read())

        pool = concurrent.futures.ThreadPoolExecutor(1)
        reply = pool.submit(send)  # answered by the 30 s start clock, or when the server stops
        # The worker, and the grounding probe it started for the heavy game.
        spawned: list[int] = []
        for _ in range(100):
            if len(spawned := _descendants(process.pid)) >= 2:
                break
            time.sleep(0.1)
        assert len(spawned) >= 2, spawned
        began = time.monotonic()
        process.send_signal(stop)
        process.wait(timeout=15)
        stopped = time.monotonic() - began
        assert stopped < 10, log.read_text()
        if stop == signal.SIGTERM:
            assert process.returncode == 0, log.read_text()
            # The START waiting for the setup was answered, not dropped at the shutdown timeout.
            assert reply.result(timeout=10) == b"ready"
        assert all(_gone(pid) for pid in spawned)  # nothing left grounding for nobody
        pool.shutdown(wait=False, cancel_futures=True)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

def nim_machine(description: Description) -> StateMachine:
    return NimMachine((1, 2))


async def test_the_workers_log_lines_reach_the_servers_log(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(RandomPlayer, nim_machine)
    assert (await post(client, "(START x1 second ((role first) (role second)) 10 5)"))[0] == "ready"
    assert (await post(client, "(PLAY x1 NIL)"))[0] == "noop"
    assert (await post(client, "(PLAY x1 ((take 2 2) noop))"))[0] == "(take 1 1)"
    with caplog.at_level(logging.WARNING):
        # A retransmission: illegal now, legal one step back; the seat in the worker logs the resync.
        assert (await post(client, "(PLAY x1 ((take 2 2) noop))"))[0] == "(take 1 1)"
    assert [(r.name, r.getMessage()) for r in caplog.records if "resynchronised" in r.getMessage()] == [
        ("ggp.protocol.seat", "match x1: resynchronised 1 step(s) back")]


async def test_the_built_in_players_of_a_long_running_manager_reason_in_a_bounded_worker() -> None:
    """``ggp serve``'s launcher: each built-in seat is a player app under limits, whose worker plays."""
    import aiohttp

    from ggp.commands._manager_glue import builtin_launcher

    async def post_text(url: str, text: str) -> str:
        async with aiohttp.ClientSession() as session, session.post(
                url, data=text, headers={"Content-Type": "text/acl"}, timeout=aiohttp.ClientTimeout(total=60)) as reply:
            assert reply.status == 200
            return await reply.text()

    launcher = builtin_launcher(seed=3, engine="clingo", limits=LIMITS)
    assert launcher is not None
    started = await launcher.launch("mcts")
    try:
        host = started.runner.app[PLAYER_HOST]
        assert host.limits == LIMITS
        kif = (ROOT / "kif" / "ticTacToe" / "ticTacToe.kif").read_text()
        assert await post_text(started.url, f"(START s1 xplayer {rules(kif)} 30 2)") == "ready"
        move = parse_reply_move(await post_text(started.url, "(PLAY s1 NIL)"))
        assert str(move).startswith("(mark ")
        assert host.worker_pid is not None and host.worker_pid != os.getpid()
        assert await post_text(started.url, "(STOP s1 ((mark 1 1) noop))") == "done"
    finally:
        await started.close()
