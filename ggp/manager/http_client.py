"""One HTTP POST on a fresh HTTP/1.0 connection, on asyncio streams: how the manager sends each message.

The GGP protocol needs a small part of HTTP: POST a short text to ``http(s)://host[:port][/path]`` on a
new connection (players often expect one per message), read the status and at most a bounded reply,
close. aiohttp's client, which did this before, spent 0.75 ms of the manager's CPU per message against
0.34 ms here (loopback, an instant player; the manager sends about three messages per joint move and
pings every idle player each schedule round), in its session, connector, URL, header and payload
layers. Never follows a redirect: the caller sees the 3xx status.

Raises ``TimeoutError`` when ``timeout_s`` passes (or ``connect_s`` while connecting) and
``ConnectionError`` for everything else that goes wrong: no connection, a reply that is not HTTP, a
connection closed before the announced length.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

MAX_HEAD_BYTES = 65536
"""Longest status line plus headers read; a longer head is no player's reply."""

_STATUS = re.compile(rb"HTTP/1\.[01] ([0-9]{3})(?: [^\r\n]*)?\r?\n")


MAX_KEPT_HEADER_CHARS = 1000
"""Longest value kept of a reply header the caller asked for (:func:`exchange`'s ``keep``); the rest is cut."""


@dataclass(frozen=True, slots=True)
class Reply:
    """A player's HTTP reply: its status, its body (cut to the caller's bound) and the reply headers the
    caller asked to keep, by lower-case name (the first of each, its value cut to
    :data:`MAX_KEPT_HEADER_CHARS` bytes and decoded as ASCII, other bytes replaced)."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)


async def post(url: str, body: bytes, headers: Mapping[str, str], timeout_s: float, connect_s: float,
               max_body: int) -> tuple[int, bytes]:
    """(status, reply body) of POSTing ``body`` to ``url``; the body is read to at most ``max_body``
    bytes (more is neither read nor kept). ``headers`` go as given, with ``Host`` and ``Content-Length``.
    """
    reply = await exchange(url, body, headers, timeout_s, connect_s, max_body)
    return reply.status, reply.body


async def exchange(url: str, body: bytes, headers: Mapping[str, str], timeout_s: float, connect_s: float,
                   max_body: int, keep: Collection[str] = ()) -> Reply:
    """:func:`post`, keeping also the reply headers named in ``keep`` (lower-case names): the manager reads
    our players' ``X-GGP-Configuration`` this way. Raises as :func:`post` does."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConnectionError(f"bad URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConnectionError("a player URL is http:// or https:// with a host")
    tls = parts.scheme == "https"
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"POST {target} HTTP/1.0", f"Host: {parts.netloc.rpartition('@')[2]}",
             *(f"{name}: {value}" for name, value in headers.items()), f"Content-Length: {len(body)}", "", ""]
    request = "\r\n".join(lines).encode("ascii", "replace") + body
    async with asyncio.timeout(timeout_s):
        try:
            async with asyncio.timeout(connect_s):
                reader, writer = await asyncio.open_connection(parts.hostname, port or (443 if tls else 80),
                                                               ssl=tls or None)
        except TimeoutError:
            raise
        except OSError as exc:
            raise ConnectionError(f"cannot connect to {parts.hostname}: {exc}") from exc
        try:
            writer.write(request)
            return await _response(reader, max_body, frozenset(keep))
        except TimeoutError:
            raise
        except (OSError, EOFError, ValueError) as exc:  # EOFError: asyncio.IncompleteReadError
            raise ConnectionError(str(exc) or type(exc).__name__) from exc
        finally:
            writer.close()


async def _response(reader: asyncio.StreamReader, max_body: int, keep: frozenset[str]) -> Reply:
    status = _STATUS.fullmatch(await reader.readline())
    if status is None:
        raise ConnectionError("the reply is not HTTP/1.0 or HTTP/1.1")
    length: int | None = None
    chunked = False
    kept: dict[str, str] = {}
    head = 0
    while True:
        line = await reader.readline()
        head += len(line)
        if head > MAX_HEAD_BYTES:
            raise ConnectionError(f"reply headers over {MAX_HEAD_BYTES} bytes")
        if line in (b"\r\n", b"\n"):
            break
        if not line.endswith(b"\n"):
            raise ConnectionError("the connection closed in the reply headers")
        name, colon, value = line.partition(b":")
        if not colon:
            raise ConnectionError("a reply header without ':'")
        name = name.strip().lower()
        if name == b"content-length":
            if not value.strip().isdigit():
                raise ConnectionError(f"bad Content-Length {value.strip()[:20]!r}")
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
        text = name.decode("ascii", "replace")
        if text in keep and text not in kept:
            kept[text] = value.strip()[:MAX_KEPT_HEADER_CHARS].decode("ascii", "replace")
    code = int(status.group(1))
    if chunked:
        return Reply(code, await _chunks(reader, max_body), kept)
    if length is not None:
        return Reply(code, await reader.readexactly(min(length, max_body)), kept)
    return Reply(code, await _up_to(reader, max_body), kept)


async def _up_to(reader: asyncio.StreamReader, size: int) -> bytes:
    """At most ``size`` bytes, up to the end of the stream."""
    data = bytearray()
    while len(data) < size:
        chunk = await reader.read(size - len(data))
        if not chunk:
            break
        data += chunk
    return bytes(data)


async def _chunks(reader: asyncio.StreamReader, size: int) -> bytes:
    """A chunked body (which an HTTP/1.1 server should not send to an HTTP/1.0 request), to ``size`` bytes."""
    data = bytearray()
    while len(data) < size:
        line = await reader.readline()
        try:
            chunk = int(line.split(b";")[0].strip(), 16)
        except ValueError:
            raise ConnectionError(f"bad chunk size {line[:20]!r}") from None
        if chunk == 0:
            break
        data += await reader.readexactly(min(chunk, size - len(data)))
        if len(data) < size:
            await reader.readexactly(2)  # the chunk's CRLF
    return bytes(data)
