"""The manager's HTTP client: one POST per fresh connection, bounded replies, and every failure as
TimeoutError or ConnectionError (issue 33: it replaced aiohttp's client, half its CPU per message)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from ggp.manager import http_client
from ggp.manager.runner import HttpTransport

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
Serve = Callable[[Handler], Awaitable[str]]


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    """Start a raw TCP server on a free loopback port with a handler; its URL."""
    servers: list[asyncio.Server] = []

    async def start(handler: Handler) -> str:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await handler(reader, writer)
            finally:
                writer.close()

        server = await asyncio.start_server(run, "127.0.0.1", 0)
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/ggp?x=1"

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


def answering(reply: bytes, seen: list[bytes] | None = None) -> Handler:
    """A handler that reads the request (head and Content-Length body), keeps it, then sends ``reply``."""
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.startswith(b"Content-Length"))
        request = head + await reader.readexactly(length)
        if seen is not None:
            seen.append(request)
        writer.write(reply)
        await writer.drain()

    return handle


async def test_the_request_is_one_http_1_0_post_with_the_headers_and_body(serve: Serve) -> None:
    seen: list[bytes] = []
    url = await serve(answering(b"HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\n(step 1)", seen))
    status, body = await http_client.post(url, b"(PLAY m1 NIL)", {"Sender": "GAMESERVER"}, 5, 5, 100)
    assert (status, body) == (200, b"(step 1)")
    host = url.split("/")[2]
    assert seen == [f"POST /ggp?x=1 HTTP/1.0\r\nHost: {host}\r\nSender: GAMESERVER\r\nContent-Length: 13\r\n\r\n"
                    "(PLAY m1 NIL)".encode()]


@pytest.mark.parametrize("reply", [
    b"HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\n(step 1)",
    b"HTTP/1.0 200 OK\r\n\r\n(step 1)",  # no length: read to the end
    b"HTTP/1.0 200\nContent-Type: text/acl\n\n(step 1)",  # bare line feeds, no reason phrase
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n(step\r\n3\r\n 1)\r\n0\r\n\r\n",
])
async def test_replies_are_read_by_length_to_the_end_or_in_chunks(serve: Serve, reply: bytes) -> None:
    assert await http_client.post(await serve(answering(reply)), b"x", {}, 5, 5, 100) == (200, b"(step 1)")


@pytest.mark.parametrize("reply", [
    b"HTTP/1.0 200 OK\r\nContent-Length: 30\r\n\r\n" + b"x" * 30,
    b"HTTP/1.0 200 OK\r\n\r\n" + b"x" * 30,
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1e\r\n" + b"x" * 30 + b"\r\n0\r\n\r\n",
])
async def test_a_reply_is_read_no_further_than_the_bound(serve: Serve, reply: bytes) -> None:
    assert await http_client.post(await serve(answering(reply)), b"x", {}, 5, 5, 10) == (200, b"x" * 10)


async def test_only_the_headers_asked_for_are_kept_first_one_bounded(serve: Serve) -> None:
    reply = (b"HTTP/1.0 200 OK\r\nX-GGP-Configuration:  decisive=\xff\x01 " + b"y" * 5000 + b"  \r\n"
             b"X-GGP-Configuration: second\r\nX-Other: z\r\nContent-Length: 5\r\n\r\nready")
    got = await http_client.exchange(await serve(answering(reply)), b"x", {}, 5, 5, 100, ("x-ggp-configuration",))
    assert (got.status, got.body, set(got.headers)) == (200, b"ready", {"x-ggp-configuration"})
    kept = got.headers["x-ggp-configuration"]
    assert kept.startswith("decisive=\ufffd\x01 y") and len(kept) == http_client.MAX_KEPT_HEADER_CHARS
    plain = await http_client.exchange(await serve(answering(reply)), b"x", {}, 5, 5, 100)
    assert plain.headers == {}
    transport = HttpTransport()
    sent = await transport.send(await serve(answering(reply)), "(START ...)", 5, 5, "p")
    assert sent == "ready" and sent.configuration.startswith("decisive=?? yyy") and len(sent.configuration) == 200


async def test_a_redirect_is_returned_not_followed(serve: Serve) -> None:
    reply = b"HTTP/1.0 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/\r\nContent-Length: 0\r\n\r\n"
    assert await http_client.post(await serve(answering(reply)), b"x", {}, 5, 5, 10) == (307, b"")


@pytest.mark.parametrize(("reply", "message"), [
    (b"(step 1)", "not HTTP"),
    (b"HTTP/1.0 200 OK\r\nContent-Length: 30\r\n\r\n(step 1)", "bytes read"),
    (b"HTTP/1.0 200 OK\r\nContent-Length: many\r\n\r\n(step 1)", "bad Content-Length"),
    (b"HTTP/1.0 200 OK\r\nContent-Length", "closed in the reply headers"),
    (b"HTTP/1.0 200 OK\r\n" + b"X-Pad: " + b"p" * 70000 + b"\r\n\r\n", "Separator"),
])
async def test_a_broken_reply_is_a_connection_error(serve: Serve, reply: bytes, message: str) -> None:
    with pytest.raises(ConnectionError, match=message):
        await http_client.post(await serve(answering(reply)), b"x", {}, 5, 5, 100)


async def test_a_silent_player_times_out_and_a_closed_port_is_a_connection_error(serve: Serve) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(10)

    with pytest.raises(TimeoutError):
        await http_client.post(await serve(silent), b"x", {}, 0.2, 0.2, 100)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectionError, match="cannot connect"):
        await http_client.post(f"http://127.0.0.1:{port}/", b"x", {}, 5, 5, 100)
    with pytest.raises(ConnectionError, match="http"):
        await http_client.post("ftp://127.0.0.1/", b"x", {}, 5, 5, 100)


async def test_the_transport_answers_the_reply_text_and_refuses_other_statuses(serve: Serve) -> None:
    async with HttpTransport() as transport:
        ok = await serve(answering(b"HTTP/1.0 200 OK\r\n\r\n( STEP 1 )"))
        assert await transport.send(ok, "(PLAY m1 NIL)", 5, 5, "player") == "( STEP 1 )"
        missing = await serve(answering(b"HTTP/1.0 404 Not Found\r\n\r\nno"))
        with pytest.raises(ConnectionError, match="HTTP status 404"):
            await transport.send(missing, "(PLAY m1 NIL)", 5, 5, "player")
