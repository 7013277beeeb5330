"""The player server over real HTTP (aiohttp test client), driven with pure-Python games."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from urllib.parse import quote

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from ggp.errors import GdlValidationError
from ggp.gdl.terms import Const, Description
from ggp.player import Budget
from ggp.players.legal_player import LegalPlayer
from ggp.players.random_player import RandomPlayer
from ggp.protocol.messages import parse_info_reply, parse_message, parse_reply_move
from ggp.protocol.server import PLAYER_HOST, create_player_app
from ggp.reasoner.machine import Move, State, StateMachine
from tests.helpers.nim_machine import NimMachine

RULES = "((role first) (role second))"
Client = TestClient[web.Request, web.Application]


def nim_factory(description: Description) -> StateMachine:
    return NimMachine((1, 2))


async def post(client: Client, text: str) -> tuple[int, str]:
    response = await client.post("/", data=text, headers={"Content-Type": "text/acl"})
    return response.status, await response.text()


@pytest.fixture
def make_client(aiohttp_client: AiohttpClient) -> Callable[..., Awaitable[Client]]:
    async def make(player: Callable[[], object] = LegalPlayer, **kwargs: object) -> Client:
        kwargs.setdefault("machine_factory", nim_factory)
        app = create_player_app(player, "tester", **kwargs)  # type: ignore[arg-type]
        return await aiohttp_client(app)

    return make


async def test_info_reports_available_with_acl_content_type_and_cors(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    response = await client.post("/", data="( INFO )")
    assert response.status == 200
    assert response.headers["Content-Type"] == "text/acl"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "OPTIONS" in response.headers["Access-Control-Allow-Methods"]
    info = parse_info_reply(await response.text())
    assert (info.status, info.name, info.species) == ("available", "tester", "tester")


async def test_a_whole_match_start_play_stop(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    assert await post(client, f"(START m1 first {RULES} 10 5)") == (200, "ready")
    assert parse_info_reply((await post(client, "(INFO)"))[1]).status == "busy"
    manager = NimMachine((1, 2))
    state = manager.initial_state()
    last: tuple[Move, ...] | None = None
    while not manager.is_terminal(state):
        moves = "NIL" if last is None else "(" + " ".join(map(str, last)) + ")"
        status, text = await post(client, f"(PLAY m1 {moves})")
        assert status == 200
        ours = parse_reply_move(text)
        assert ours in manager.legal_moves(state, manager.roles[0])
        # The opponent (the test) plays its first legal move too.
        theirs = manager.legal_moves(state, manager.roles[1])[0]
        last = (ours, theirs)
        state = manager.next_state(state, last)
    assert last is not None
    assert await post(client, f"(STOP m1 ({' '.join(map(str, last))}))") == (200, "done")
    assert parse_info_reply((await post(client, "(INFO)"))[1]).status == "available"
    assert client.app[PLAYER_HOST].match_id is None


async def test_messages_for_another_match_get_busy(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    assert (await post(client, f"(START m1 first {RULES} 10 5)"))[1] == "ready"
    assert (await post(client, f"(START m2 second {RULES} 10 5)"))[1] == "busy"
    assert (await post(client, "(PLAY m2 NIL)"))[1] == "busy"
    assert (await post(client, "(STOP m2 NIL)"))[1] == "busy"
    assert (await post(client, f"(START M1 first {RULES} 10 5)"))[1] == "ready"  # a repeat, any case
    assert (await post(client, "(ABORT m1)"))[1] == "aborted"
    assert (await post(client, f"(START m2 second {RULES} 10 5)"))[1] == "ready"


async def test_garbage_gets_400_with_a_reason_and_the_server_keeps_serving(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    client = await make_client()
    for garbage, reason in [("(PLAY m1", "never closed"), ("hello", "in brackets"), ("(PLAY m1)", "play takes 2"),
                            ("(caf\u00e9)", "non-ASCII")]:
        status, text = await post(client, garbage)
        assert status == 400 and reason in text and "\n" not in text
    response = await client.post("/", data=b"(INFO \xff)")
    assert response.status == 400
    assert (await post(client, "(INFO)"))[0] == 200


async def test_get_with_an_url_encoded_message_and_options_preflight(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    response = await client.get("/" + quote("( INFO )"))
    assert response.status == 200 and parse_info_reply(await response.text()).available
    response = await client.get("/" + quote(f"(START g1 first {RULES} 10 5)"))
    assert await response.text() == "ready"
    response = await client.options("/")
    assert response.status == 200 and await response.text() == ""
    assert response.headers["Access-Control-Allow-Headers"] == "Content-Type"
    assert (await client.get("/")).status == 400


async def test_http_1_0_clients_get_one_reply_and_a_closed_connection(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    reader, writer = await asyncio.open_connection(client.host, client.port)
    body = b"( INFO )"
    writer.write(
        b"POST / HTTP/1.0\r\nAccept: text/delim\r\nSender: GAMESERVER\r\nReceiver: tester\r\n"
        b"Content-Type: text/acl\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), timeout=5)  # read to EOF: the server closes
    writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200")
    assert b"content-type: text/acl" in head.lower()
    assert parse_info_reply(payload.decode()).available


class SlowPlayer(LegalPlayer):
    """Thinks until cancelled, with a best move ready (the last legal move)."""

    name = "slow"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        self._best = legal[-1]
        while not budget.out_of_time():
            time.sleep(0.01)
        time.sleep(0.5)  # overrun its own budget: the server must not wait for it
        return legal[0]


async def test_an_overrunning_search_is_answered_with_the_best_move_before_the_deadline(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    client = await make_client(SlowPlayer)
    await post(client, f"(START s1 first {RULES} 10 1)")
    began = time.monotonic()
    status, text = await post(client, "(PLAY s1 NIL)")
    elapsed = time.monotonic() - began
    assert status == 200 and elapsed < 1.0  # within the play clock
    machine = NimMachine((1, 2))
    assert parse_reply_move(text) == machine.legal_moves(machine.initial_state(), machine.roles[0])[-1]


class SlowHandbackPlayer(LegalPlayer):
    """Its best move so far takes a while to hand back (a worker descheduled on a loaded machine)."""

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        self._best = legal[-1]
        while not budget.out_of_time():
            time.sleep(0.01)
        time.sleep(1.0)
        return legal[0]

    def best_move(self) -> Move | None:
        time.sleep(0.3)  # past the host's reply deadline
        return self._best


async def test_a_best_move_handed_back_late_is_still_answered_within_the_grace(
    make_client: Callable[..., Awaitable[Client]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before the grace the host answered the first legal move, which can throw a game."""
    from ggp.protocol.server import host

    monkeypatch.setattr(host, "LATE_GRACE", 5.0)  # far more than the hand-back's 0.3 s, however loaded
    client = await make_client(SlowHandbackPlayer)
    await post(client, f"(START g1 first {RULES} 10 1)")
    status, text = await post(client, "(PLAY g1 NIL)")
    machine = NimMachine((1, 2))
    assert status == 200
    assert parse_reply_move(text) == machine.legal_moves(machine.initial_state(), machine.roles[0])[-1]


class BrokenPlayer(LegalPlayer):
    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        raise RuntimeError("bug in the player")


async def test_a_failing_player_still_answers_a_legal_move(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client(BrokenPlayer)
    await post(client, f"(START b1 first {RULES} 10 5)")
    status, text = await post(client, "(PLAY b1 NIL)")
    machine = NimMachine((1, 2))
    assert status == 200 and parse_reply_move(text) == machine.legal_moves(machine.initial_state(), machine.roles[0])[0]


async def test_a_match_of_failed_searches_logs_one_warning_at_its_end_not_one_per_move(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(BrokenPlayer)
    with caplog.at_level(logging.INFO, logger="ggp.protocol.server"):
        await post(client, f"(START b2 first {RULES} 10 5)")
        assert (await post(client, "(PLAY b2 NIL)"))[0] == 200
        assert caplog.text.count("the player failed (bug in the player); answering") == 1
        assert not [r for r in caplog.records if r.levelname == "WARNING"]
        await post(client, "(STOP b2 ((take 2 2) noop))")
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and warnings[0].startswith(
        "match b2: 1 move: 1 x the player failed (bug in the player) not the player's own choice"), warnings


def invalid_rules(description: Description) -> StateMachine:
    raise GdlValidationError("the game has no rule or fact for 'goal'")


async def test_invalid_gdl_in_start_gets_an_error_reply_and_nil_moves(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(machine_factory=invalid_rules)
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        status, text = await post(client, f"(START bad first {RULES} 10 5)")
    assert status == 200 and text.startswith("error:") and "goal" in text
    assert "cannot play these rules" in caplog.text
    assert (await post(client, "(PLAY bad NIL)"))[1] == "nil"
    assert parse_info_reply((await post(client, "(INFO)"))[1]).available
    # A failed match does not block the next one.
    client.app[PLAYER_HOST]._machine_factory = nim_factory
    assert (await post(client, f"(START good first {RULES} 10 5)"))[1] == "ready"


async def test_a_role_the_game_lacks_gets_an_error_reply(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    status, text = await post(client, f"(START r1 nobody {RULES} 10 5)")
    assert status == 200 and "'nobody' is not a role" in text


async def test_an_illegal_joint_move_is_logged_and_the_player_resynchronises(
    make_client: Callable[..., Awaitable[Client]], caplog: pytest.LogCaptureFixture,
) -> None:
    client = await make_client(RandomPlayer)
    await post(client, f"(START x1 second {RULES} 10 5)")
    assert (await post(client, "(PLAY x1 NIL)"))[1] == "noop"
    # first takes heap 2 entirely: heaps (1, 0), second to move.
    status, text = await post(client, "(PLAY x1 ((take 2 2) noop))")
    assert parse_reply_move(text) == parse_reply_move("(take 1 1)")
    # The same PLAY again (a retransmission): illegal now, but legal one step back.
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        status, text = await post(client, "(PLAY x1 ((take 2 2) noop))")
    assert "resynchronised 1 step(s) back" in caplog.text
    assert parse_reply_move(text) == parse_reply_move("(take 1 1)")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ggp.protocol.server"):
        status, text = await post(client, "(PLAY x1 ((take 9 9) noop))")
    assert status == 200 and "cannot resynchronise" in caplog.text
    assert parse_reply_move(text) == parse_reply_move("(take 1 1)")


async def test_setup_slower_than_the_start_clock_still_answers_ready_in_time(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    def slow_factory(description: Description) -> StateMachine:
        time.sleep(1.2)
        return NimMachine((1, 2))

    client = await make_client(machine_factory=slow_factory)
    began = time.monotonic()
    assert (await post(client, f"(START w1 first {RULES} 1 5)"))[1] == "ready"
    assert time.monotonic() - began < 1.0  # within the start clock, though setup takes longer
    status, text = await post(client, "(PLAY w1 NIL)")  # waits for the setup to finish
    assert status == 200 and parse_reply_move(text) in NimMachine((1, 2)).legal_moves(
        NimMachine((1, 2)).initial_state(), Const("first")
    )


def test_a_name_that_is_not_one_word_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="player name"):
        create_player_app(LegalPlayer, "two words", machine_factory=nim_factory)




async def test_preview_is_answered_ready(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    assert await post(client, f"(PREVIEW {RULES} 10)") == (200, "ready")


async def test_a_silent_match_is_dropped_for_a_new_start(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client()
    host = client.app[PLAYER_HOST]
    await post(client, f"(START old first {RULES} 1 1)")
    later = time.monotonic() + 12  # more than startclock + 10 * playclock of silence
    assert parse_info_reply(await host.reply(parse_message("(INFO)"), later)).available
    assert await host.reply(parse_message(f"(START new first {RULES} 10 5)"), later) == "ready"
    assert host.match_id == "new"


async def test_abort_cancels_a_running_search(make_client: Callable[..., Awaitable[Client]]) -> None:
    client = await make_client(SlowPlayer)
    await post(client, f"(START a1 first {RULES} 10 10)")
    began = time.monotonic()
    play = asyncio.create_task(post(client, "(PLAY a1 NIL)"))
    await asyncio.sleep(0.3)
    assert (await post(client, "(ABORT a1)"))[1] == "aborted"
    status, _ = await play
    assert status == 200 and time.monotonic() - began < 3


async def test_plays_that_arrive_before_the_setup_finishes_keep_their_updates(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    # ggp-base's checkers at start clock 10 with a 22 s grounding: PLAYs came while the setup ran, got
    # nil, and their joint moves were lost; the player stayed at the initial state all match.
    released = threading.Event()

    def slow_factory(description: Description) -> StateMachine:
        released.wait(30)
        return NimMachine((3, 3))

    client = await make_client(machine_factory=slow_factory)
    assert (await post(client, f"(START s1 first {RULES} 1 1)"))[1] == "ready"
    reference = NimMachine((3, 3))
    state = reference.initial_state()
    joints = []
    for _ in range(2):
        joint = (reference.legal_moves(state, reference.roles[0])[0], reference.legal_moves(state, reference.roles[1])[0])
        joints.append(joint)
        state = reference.next_state(state, joint)
    # Both PLAYs come while the setup still runs: no move can be chosen, but the updates are kept.
    assert (await post(client, "(PLAY s1 NIL)"))[1].strip().lower() == "nil"
    assert (await post(client, f"(PLAY s1 ({' '.join(map(str, joints[0]))}))"))[1].strip().lower() == "nil"
    released.set()
    status, text = await post(client, f"(PLAY s1 ({' '.join(map(str, joints[1]))}))")
    assert status == 200
    assert parse_reply_move(text) in reference.legal_moves(state, reference.roles[0])
    host = client.app[PLAYER_HOST]
    seat = host._match.seat if host._match is not None else None
    assert seat is not None and seat.state == state and seat.steps == 2


async def test_a_start_with_an_absurd_clock_is_refused_and_leaves_the_player_available(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    client = await make_client()
    status, text = await post(client, f"(START c1 first {RULES} {'9' * 4000} 5)")
    assert status == 400 and "is more than 604800 seconds" in text and len(text) < 200
    assert parse_info_reply((await post(client, "(INFO)"))[1]).status == "available"
    assert (await post(client, f"(START c2 first {RULES} 10 5)"))[1] == "ready"


async def test_a_cross_site_get_cannot_start_a_match_but_a_post_can(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    client = await make_client()
    start = quote(f"(START x1 first {RULES} 10 5)")
    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "http://attacker.example"}):
        response = await client.get("/" + start, headers=headers)
        assert response.status == 403, headers
    assert parse_info_reply((await post(client, "(INFO)"))[1]).status == "available"
    info = await client.get("/" + quote("(INFO)"), headers={"Sec-Fetch-Site": "cross-site"})
    assert info.status == 200  # reading the status stays open to browser-hosted managers
    assert (await client.get("/" + start)).status == 200  # a non-browser GET (no Origin) still works
    assert parse_info_reply((await post(client, "(INFO)"))[1]).status == "busy"


async def test_moves_are_answered_in_the_rules_own_spelling(make_client: Callable[..., Awaitable[Client]]) -> None:
    # ggp-base compares move names case-sensitively: snake2p's (moveUp) answered as (moveup) was IL.
    client = await make_client()
    rules = "((role first) (role second) (init (Take 1 1)) (<= (legal first (Take ?x ?y)) (true (Take ?x ?y))))"
    assert (await post(client, f"(START cap first {rules} 10 5)"))[1] == "ready"
    status, text = await post(client, "(PLAY cap NIL)")
    # Names are compared case-insensitively (the machine's move is lower-case), and the reply uses the rules' spelling.
    assert status == 200 and text == "(Take 1 1)"


def test_the_first_spelling_of_a_name_and_its_parentheses_are_kept() -> None:
    from ggp.gdl.parser import parse_kif

    game = parse_kif("(role White) (init (cell a)) (<= (legal White (moveUp)) (true (cell a))) "
                     "(<= (next (cell a)) (does white MOVEUP))", case_sensitive=False)  # GDL's reading: folded
    # (moveUp) has no arguments: ggp-base keeps it a function, so it is answered with its parentheses.
    assert dict(game.spellings) == {"white": "White", "moveup": "(moveUp)"}
    assert game.spelled(parse_kif("(moveup white)").rules[0].head) == "(moveUp White)"


async def test_idle_connections_are_closed_and_do_not_make_the_player_deaf(monkeypatch: pytest.MonkeyPatch) -> None:
    import aiohttp

    from ggp.manager.launcher import AppLauncher
    from ggp.protocol import server

    monkeypatch.setattr(server, "IDLE_TIMEOUT_S", 1.0)
    launcher = AppLauncher({"legal": lambda: create_player_app(LegalPlayer, "legal", machine_factory=nim_factory)})
    launched = await launcher.launch("legal")
    host, port = launched.url.removeprefix("http://").rstrip("/").split(":")
    streams = [await asyncio.open_connection(host, int(port)) for _ in range(200)]  # connect, never send
    slow_reader, slow_writer = await asyncio.open_connection(host, int(port))
    slow_writer.write(b"POST / HTTP/1.1\r\nHost: x\r\n")  # headers that never end
    await slow_writer.drain()
    try:
        async with aiohttp.ClientSession() as session, session.post(launched.url, data="(INFO)") as response:
            assert response.status == 200 and "available" in (await response.text()).lower()
        # Past the idle timeout the server has closed every idle or slow connection (EOF on each).
        readers = [reader for reader, _ in streams] + [slow_reader]
        ends = await asyncio.wait_for(asyncio.gather(*(reader.read() for reader in readers)), timeout=10)
        assert all(end == b"" for end in ends)
    finally:
        for _, writer in [*streams, (slow_reader, slow_writer)]:
            writer.close()
        await launched.close()


async def test_a_game_read_case_sensitively_takes_its_role_and_moves_from_the_wire(
    make_client: Callable[..., Awaitable[Client]],
) -> None:
    # 'Big' and 'big' would merge if folded, so the rules are read as written (as ggp-base reads them): the
    # game never ends on (kind big). PLAY's moves arrive lower-cased and must still be applied.
    from ggp.reasoner.engines import make_machine

    client = await make_client(machine_factory=lambda description: make_machine(description, "per-state"))
    rules = ("((role Soldier) (role other) (kind Big) (init (at 0)) (<= (legal Soldier Step) (true (at 0)))"
             " (<= (legal Soldier wait) (true (at 1))) (legal other noop) (<= (next (at 1)) (does Soldier Step))"
             " (<= (next (at 1)) (true (at 1))) (<= terminal (kind big)) (goal Soldier 100) (goal other 0))")
    assert (await post(client, f"(START cs Soldier {rules} 10 5)"))[1] == "ready"
    assert await post(client, "(PLAY cs NIL)") == (200, "Step")
    assert await post(client, "(PLAY cs (Step noop))") == (200, "wait")  # read as (step noop)
