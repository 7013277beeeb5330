"""Parsing a request body without making the server deaf: small messages on the event loop, large ones in
a parsing thread, one at a time, each within a time bound.

The KIF reader is pure Python (about 10 µs a character here), so a 1 MB body parsed on the event loop
kept a player from answering anything for 10-21 s. :class:`ParseLane` parses a text over
:data:`~ggp.protocol.limits.PARSE_INLINE_CHARS` in its own thread: the event loop keeps running (the
thread yields the interpreter every few milliseconds). Only one such parse runs at a time in a lane, and
the lane counts as taken until that thread has really finished, so repeated large bodies cannot pile up
threads; a body that finds its lane taken waits for it within the same time bound. Bodies over
:data:`~ggp.protocol.limits.PARSE_LARGE_CHARS` (no real game is that big) have a lane of their own.

>>> import asyncio
>>> from ggp.protocol.messages import parse_message
>>> asyncio.run(ParseLane().parse("(INFO)", parse_message))
Info()
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ggp.errors import ProtocolError, SourcePos
from ggp.protocol.limits import PARSE_INLINE_CHARS, PARSE_LARGE_CHARS, PARSE_TIMEOUT_S

_T = TypeVar("_T")


class _Lane:
    """One parse at a time, each in a daemon thread (a process exits without waiting for a parse: SIGTERM
    stops a player at once); taken until the parse running in it has really finished."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.free = asyncio.Event()
        self.free.set()
        self.closed = False

    def start(self, parser: Callable[[str], _T], text: str) -> asyncio.Future[_T]:
        """Run ``parser(text)`` in a new daemon thread; the future of its result (in this event loop)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()

        def settle(result: _T | None, error: BaseException | None) -> None:
            if not future.done():
                if error is not None:
                    future.set_exception(error)
                else:
                    future.set_result(result)  # type: ignore[arg-type]

        def work() -> None:
            try:
                result = parser(text)
            except BaseException as exc:  # handed to the waiting request
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (shutdown)
                    loop.call_soon_threadsafe(settle, None, exc)
                return
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle, result, None)

        threading.Thread(target=work, name=self.name, daemon=True).start()
        return future


class ParseLane:
    """Runs a parser on texts: inline up to ``inline_chars``, else in a parsing thread within ``timeout_s``.

    Texts over ``large_chars`` have a thread of their own, so a stream of huge bodies (which no real game
    needs) never delays the parsing of an ordinary START.
    """

    def __init__(self, inline_chars: int = PARSE_INLINE_CHARS, timeout_s: float = PARSE_TIMEOUT_S,
                 large_chars: int = PARSE_LARGE_CHARS) -> None:
        self.inline_chars = inline_chars
        self.timeout_s = timeout_s
        self.large_chars = large_chars
        self._lanes = (_Lane("ggp-parse"), _Lane("ggp-parse-large"))

    async def parse(self, text: str, parser: Callable[[str], _T]) -> _T:
        """``parser(text)``; raises what it raises, or :class:`ProtocolError` when the bound is over."""
        if len(text) <= self.inline_chars:
            return parser(text)
        lane = self._lanes[len(text) > self.large_chars]
        deadline = time.monotonic() + self.timeout_s
        while not lane.free.is_set():  # another body is being parsed in this lane: wait for its thread to end
            try:
                await asyncio.wait_for(lane.free.wait(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                raise self._too_slow(len(text)) from None
        if lane.closed:
            raise ProtocolError("the server is shutting down", SourcePos("<message>", 1, 1))
        lane.free.clear()
        future = lane.start(parser, text)
        future.add_done_callback(lambda _: lane.free.set())  # free only once the thread is really done
        try:
            return await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            future.add_done_callback(_discard)
            raise self._too_slow(len(text)) from None

    def _too_slow(self, size: int) -> ProtocolError:
        return ProtocolError(f"a message of {size} characters could not be parsed within {self.timeout_s:g} s",
                             SourcePos("<message>", 1, 1))

    def close(self) -> None:
        """Start no more parses (one in progress finishes alone; nobody waits for it)."""
        for lane in self._lanes:
            lane.closed = True


def _discard(future: asyncio.Future[Any]) -> None:
    """Done-callback for a parse nobody waits for any more: retrieve its outcome so nothing is logged."""
    if not future.cancelled():
        future.exception()
