"""Parsing a request body without making the server deaf: small messages on the event loop, large ones in
one parsing thread, one at a time, each within a time bound.

The KIF reader is pure Python (about 10 µs a character here), so a 1 MB body parsed on the event loop
kept a player from answering anything for 10-21 s. :class:`ParseLane` parses a text over
:data:`~ggp.protocol.limits.PARSE_INLINE_CHARS` in its own thread: the event loop keeps running (the
thread yields the interpreter every few milliseconds). Only one such parse runs at a time, and the lane
counts as taken until that thread has really finished, so repeated large bodies cannot pile up threads;
a large body that finds the lane taken waits for it within the same time bound.

>>> import asyncio
>>> from ggp.protocol.messages import parse_message
>>> asyncio.run(ParseLane().parse("(INFO)", parse_message))
Info()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ggp.errors import ProtocolError, SourcePos
from ggp.protocol.limits import PARSE_INLINE_CHARS, PARSE_TIMEOUT_S

_T = TypeVar("_T")


class ParseLane:
    """Runs a parser on texts: inline up to ``inline_chars``, else in the lane's thread within ``timeout_s``."""

    def __init__(self, inline_chars: int = PARSE_INLINE_CHARS, timeout_s: float = PARSE_TIMEOUT_S) -> None:
        self.inline_chars = inline_chars
        self.timeout_s = timeout_s
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-parse")
        self._free = asyncio.Event()
        self._free.set()

    async def parse(self, text: str, parser: Callable[[str], _T]) -> _T:
        """``parser(text)``; raises what it raises, or :class:`ProtocolError` when the bound is over."""
        if len(text) <= self.inline_chars:
            return parser(text)
        deadline = time.monotonic() + self.timeout_s
        while not self._free.is_set():  # another large body is being parsed: wait for its thread to end
            try:
                await asyncio.wait_for(self._free.wait(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                raise self._too_slow(len(text)) from None
        self._free.clear()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, parser, text)
        future.add_done_callback(lambda _: self._free.set())  # free only once the thread is really done
        try:
            return await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            future.add_done_callback(_discard)
            raise self._too_slow(len(text)) from None

    def _too_slow(self, size: int) -> ProtocolError:
        return ProtocolError(f"a message of {size} characters could not be parsed within {self.timeout_s:g} s",
                             SourcePos("<message>", 1, 1))

    def close(self) -> None:
        """Stop the parsing thread (a parse in progress finishes; nothing new starts)."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def _discard(future: asyncio.Future[Any]) -> None:
    """Done-callback for a parse nobody waits for any more: retrieve its outcome so nothing is logged."""
    if not future.cancelled():
        future.exception()
