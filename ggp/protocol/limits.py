"""The sizes and clocks a GGP message may have, shared by the player server and the manager.

A message is parsed by a pure-Python KIF reader at roughly 10 µs a character (a 1 MB ``(a a a ...)``
took 10-21 s), so its size is its parsing time: each kind gets the size it needs, no more. A START or
PREVIEW carries the rules: the largest games of the GDL corpus are under 50 KB (stateSpaceLarge 46 KB,
chess 38 KB), so :data:`MAX_RULES_CHARS` leaves twenty times that; and since memory and parsing time follow the number of
tokens more than the characters, :data:`MAX_RULES_TOKENS` bounds those too (1 MiB of ``a a a`` is 500,000
tokens: parsed, its terms held 560 MB in the player server). Every other message (PLAY, STOP,
ABORT, INFO) carries at most a joint move, and a player's reply at most one move or an INFO list, so
:data:`MAX_MESSAGE_CHARS` and :data:`MAX_REPLY_CHARS` are small. Clocks are whole seconds between the
bounds below: a START outside them is refused with ``error:`` naming the bound, because a player
accepting ``(START m r (...) 604799 1)`` would be busy for a week unless someone aborts it.

>>> message_kind("  ( start m1 white ((role white)) 10 5)")
'start'
>>> size_limit("(PLAY m1 NIL)") == MAX_MESSAGE_CHARS, size_limit("(START m1 r (...) 10 5)") == MAX_RULES_CHARS
(True, True)
>>> clock_problem(0, 5), clock_problem(10, 5)
('the start clock 0 s is outside 1..3600 s', None)
"""

from __future__ import annotations

import re

MAX_RULES_CHARS = 1024 * 1024
"""Largest START or PREVIEW (the rules travel in it): 1 MiB, twenty times the largest corpus game."""

MAX_RULES_TOKENS = 150_000
"""Most tokens (names, variables, parentheses) a START or PREVIEW may have: ten times the largest corpus
game (stateSpaceLarge, 13,716)."""

MAX_MESSAGE_CHARS = 16 * 1024
"""Largest PLAY, STOP, ABORT or INFO: a joint move of many roles fits many times over."""

MAX_REPLY_CHARS = 2048
"""Longest reply to PLAY or INFO the manager reads (one move, or an INFO list; real ones are under 200
characters); a longer one is no move, and is neither parsed nor stored."""

PARSE_INLINE_CHARS = 2048
"""Messages up to this size are parsed on the event loop (well under a millisecond for real ones);
larger ones in a parsing thread, one at a time, bounded by :data:`PARSE_TIMEOUT_S`."""

PARSE_LARGE_CHARS = 128 * 1024
"""Messages over this size (more than twice the largest corpus game) are parsed in a thread of their own."""

PARSE_TIMEOUT_S = 15.0
"""A message whose parsing takes longer is answered 400 (its thread finishes alone, bounded by the size)."""

MIN_CLOCK_S = 1
"""Smallest start or play clock: a clock of 0 leaves no time to answer at all."""

MAX_START_CLOCK_S = 3600
"""Largest start clock (an hour; competitions use minutes)."""

MAX_PLAY_CLOCK_S = 600
"""Largest play clock (ten minutes; competitions use 10-60 s). With :data:`MAX_START_CLOCK_S` it bounds
how long an abandoned match keeps a player busy: start clock + 10 play clocks, under three hours."""

_KIND = re.compile(r"\s*\(\s*([A-Za-z]+)")


def message_kind(text: str) -> str:
    """The lower-cased first word of a message (``start``, ``play``...), read without parsing; ``""`` if none."""
    found = _KIND.match(text[:256])
    return found.group(1).lower() if found else ""


def size_limit(text: str) -> int:
    """The largest size a message of this kind may have (:data:`MAX_RULES_CHARS` for START and PREVIEW)."""
    return MAX_RULES_CHARS if message_kind(text) in ("start", "preview") else MAX_MESSAGE_CHARS


def size_problem(text: str) -> str | None:
    """Why a message is too large to parse (one line naming the bound), or ``None``: over its kind's
    :func:`size_limit` in characters, or a START or PREVIEW over :data:`MAX_RULES_TOKENS` tokens (counted
    at C speed, without parsing, only for texts too large for a real game to need it).

    >>> size_problem("(START m r (" + "a " * 200_000 + ") 10 5)")
    'a START may have at most 150000 tokens (this one has about 200010)'
    >>> size_problem("(START m r ((role r)) 10 5)") is None
    True
    """
    limit = size_limit(text)
    if len(text) > limit:
        return f"a message of this kind may have at most {limit} characters"
    if limit == MAX_RULES_CHARS and len(text) > MAX_RULES_TOKENS:  # fewer characters cannot hold more tokens
        tokens = len(text.split()) + text.count("(") + text.count(")")
        if tokens > MAX_RULES_TOKENS:
            return f"a {message_kind(text).upper()} may have at most {MAX_RULES_TOKENS} tokens (this one has about {tokens})"
    return None


def clock_problem(start_clock: int, play_clock: int) -> str | None:
    """Why these clocks are not accepted (naming the bound), or ``None`` when they are."""
    if not MIN_CLOCK_S <= start_clock <= MAX_START_CLOCK_S:
        return f"the start clock {start_clock} s is outside {MIN_CLOCK_S}..{MAX_START_CLOCK_S} s"
    if not MIN_CLOCK_S <= play_clock <= MAX_PLAY_CLOCK_S:
        return f"the play clock {play_clock} s is outside {MIN_CLOCK_S}..{MAX_PLAY_CLOCK_S} s"
    return None
