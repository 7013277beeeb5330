"""The manager's side of the wire, over :mod:`ggp.protocol.messages`.

Builds the request texts the manager sends (START, PLAY, STOP, ABORT) and reads a PLAY reply,
mapping a protocol error to ``None`` because the runner records it (``IL null``) instead of raising.

>>> from ggp.gdl.terms import Const, Func
>>> play_text("m1", None)
'(PLAY m1 NIL)'
>>> play_text("m1", (Const("noop"), Func("mark", (Const("1"), Const("1")))))
'(PLAY m1 (noop (mark 1 1)))'
>>> str(parse_reply_move(" ( MARK 1  1 ) "))
'(mark 1 1)'
>>> parse_reply_move("((") is None
True
"""

from __future__ import annotations

from ggp.errors import GgpError
from ggp.gdl.terms import Const, Description, Term
from ggp.protocol import limits
from ggp.protocol.messages import (
    Abort,
    Info,
    InfoReply,
    Play,
    PlayII,
    Start,
    Stop,
    StopII,
    format_message,
    parse_info_reply,
)
from ggp.protocol.messages import parse_reply_move as _parse_reply_move

Spellings = tuple[tuple[str, str], ...]
"""(name, spelling) pairs, as :attr:`Description.spellings`."""

MAX_REPLY_CHARS = limits.MAX_REPLY_CHARS
"""Replies longer than this are not moves: the runner reads no further and nothing of them is parsed or
stored (a 65 KB reply once took the manager's event loop 0.6 s to parse and went whole into the record)."""


def start_text(match_id: str, role: str, description: Description, start_clock: int, play_clock: int) -> str:
    """``(START id role (rules) startclock playclock)`` with the rules on one line."""
    return format_message(Start(match_id, Const(role), description, start_clock, play_clock))


def play_text(match_id: str, moves: tuple[Term, ...] | None, spellings: Spellings = ()) -> str:
    """``(PLAY id NIL)`` for the first step, else the previous joint move in role order, in the
    rules' spelling (``spellings``: :attr:`Description.spellings`)."""
    return format_message(Play(match_id, moves), dict(spellings))


def stop_text(match_id: str, moves: tuple[Term, ...] | None, spellings: Spellings = ()) -> str:
    """``(STOP id (last joint move))``, ``NIL`` if the game ended before any move."""
    return format_message(Stop(match_id, moves), dict(spellings))


def play2_text(match_id: str, turn: int, last_move: Term | None, percepts: tuple[Term, ...],
               spellings: Spellings = ()) -> str:
    """GDL-II ``(PLAY id turn lastmove percepts)``: one role's own last move and percepts.

    >>> play2_text("m1", 0, None, ())
    '(PLAY m1 0 NIL NIL)'
    """
    return format_message(PlayII(match_id, turn, last_move, percepts), dict(spellings))


def stop2_text(match_id: str, turn: int, last_move: Term | None, percepts: tuple[Term, ...],
               spellings: Spellings = ()) -> str:
    """GDL-II ``(STOP id turn lastmove percepts)`` after the terminal state."""
    return format_message(StopII(match_id, turn, last_move, percepts), dict(spellings))


def abort_text(match_id: str) -> str:
    return format_message(Abort(match_id))


def info_text() -> str:
    """``(INFO)``, the liveness ping."""
    return format_message(Info())


def parse_info(text: str) -> InfoReply | None:
    """A player's INFO reply (list or bare form), or ``None`` when it is neither (or too long to be one)."""
    if len(text) > MAX_REPLY_CHARS:
        return None
    try:
        return parse_info_reply(text)
    except (GgpError, ValueError):
        return None


def parse_reply_move(text: str) -> Term | None:
    """The move in a PLAY reply (lower-cased), or ``None`` when it is not exactly one ground ASCII term."""
    if len(text) > MAX_REPLY_CHARS:
        return None
    try:
        return _parse_reply_move(text)
    except (GgpError, ValueError):
        return None
