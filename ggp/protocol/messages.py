"""GGP protocol messages (Stanford / ggp.org dialect) as typed values, and their wire text.

The player side calls :func:`parse_message` on each request body and answers with one of the reply
helpers; the manager side builds messages, prints them with :func:`format_message` and reads the
players' answers with :func:`parse_reply_move` and :func:`parse_info_reply`. Nothing here does I/O.

Keywords and symbols are case-insensitive (the Dresden controller upper-cases whole messages), any
whitespace layout is accepted, and argument counts are checked as strictly as ggp-base does:
INFO 0, PREVIEW 2, START at least 5 (extra ones ignored), PLAY 2, STOP 2, ABORT 1. Anything else
raises :class:`~ggp.errors.ProtocolError` with a one-line reason.

GDL-II (protocol.md §8): PLAY and STOP with 4 arguments, ``(PLAY id turn lastmove percepts)``, are
:class:`PlayII` and :class:`StopII`; the argument count alone tells the two forms apart.

>>> play = parse_message("(PLAY m 2 (ASK 4) ((ANSWER 4 YES)))")
>>> play.match_id, play.turn, play.last_move
('m', 2, (ask 4))
>>> play.percepts
((answer 4 yes),)
>>> format_message(PlayII("m", 0, None, ()))
'(PLAY m 0 NIL NIL)'

>>> message = parse_message("( PLAY Match.1 ( ( MARK 1 1 ) NOOP ) )")
>>> message.match_id, [str(move) for move in message.moves]
('Match.1', ['(mark 1 1)', 'noop'])
>>> format_message(message)
'(PLAY Match.1 ((mark 1 1) noop))'
>>> str(parse_reply_move("( Mark 2 3 )"))
'(mark 2 3)'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ggp.errors import GdlSyntaxError, ProtocolError, SourcePos
from ggp.gdl.parser import SExpr, SList, Word, description_from_sexprs, quick_term, read_sexprs, sexpr_to_term
from ggp.gdl.terms import Const, Description, Term, spelled, spelled_rule, variables

MESSAGE_FILE = "<message>"
"""The file name used in positions of errors found in a message body."""

REPLY_FILE = "<reply>"
"""The file name used in positions of errors found in a player's reply."""

READY = "ready"
DONE = "done"
ABORTED = "aborted"
BUSY = "busy"
AVAILABLE = "available"
NIL = "nil"

CONFIGURATION_HEADER = "X-GGP-Configuration"
"""An HTTP header of our player server's ``ready`` reply to START: what the player chose for the match by
itself (one line, :func:`~ggp.player.clean_configuration`; absent when it chose nothing). An extension
other managers ignore, as they ignore any header; the manager records it per seat (``x-configurations``)."""

_WORD = re.compile(r"[^\s();?][^\s();]*")


@dataclass(frozen=True, slots=True)
class Info:
    """``(INFO)``: a liveness ping; the player answers with :func:`info_reply`."""


@dataclass(frozen=True, slots=True)
class Preview:
    """``(PREVIEW (rules) previewclock)``: optional ggp-base extension; the player answers ``ready``."""

    description: Description
    preview_clock: int


@dataclass(frozen=True, slots=True)
class Start:
    """``(START id role (rules) startclock playclock)``; clocks are whole seconds."""

    match_id: str
    role: Term
    description: Description
    start_clock: int
    play_clock: int


@dataclass(frozen=True, slots=True)
class Play:
    """``(PLAY id moves)``: ``moves`` is the previous joint move in role order, ``None`` for NIL."""

    match_id: str
    moves: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class Stop:
    """``(STOP id moves)``: the last joint move (``None`` for NIL); the player answers ``done``."""

    match_id: str
    moves: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class PlayII:
    """GDL-II ``(PLAY id turn lastmove percepts)``: what this player alone learns after a step.

    ``turn`` is 0 at the first PLAY and counts steps; ``last_move`` is the move the manager executed
    for this player in the previous step (``None`` for NIL, the first PLAY); ``percepts`` are the
    terms ``p`` with ``(sees role p)`` after that step (empty for NIL).
    """

    match_id: str
    turn: int
    last_move: Term | None
    percepts: tuple[Term, ...]


@dataclass(frozen=True, slots=True)
class StopII:
    """GDL-II ``(STOP id turn lastmove percepts)``: the game is over; the player answers ``done``."""

    match_id: str
    turn: int
    last_move: Term | None
    percepts: tuple[Term, ...]


@dataclass(frozen=True, slots=True)
class Abort:
    """``(ABORT id)``: the match is cancelled; the player answers ``aborted``."""

    match_id: str


Message = Info | Preview | Start | Play | Stop | Abort | PlayII | StopII
MessageType = Literal["info", "preview", "start", "play", "stop", "abort"]


@dataclass(frozen=True, slots=True)
class InfoReply:
    """A player's answer to INFO; ``name`` and ``species`` are ``None`` for the bare old form."""

    status: str
    name: str | None = None
    species: str | None = None

    @property
    def available(self) -> bool:
        return self.status == AVAILABLE


# --- parsing messages --------------------------------------------------------------------------


def _read(text: str, file: str) -> list[SExpr]:
    """S-expressions of a message or reply; non-ASCII and KIF syntax errors become ProtocolError."""
    for offset, char in enumerate(text):
        if not char.isascii():
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            raise ProtocolError(f"non-ASCII character {char!r}", SourcePos(file, line, column))
    try:
        return read_sexprs(text, file)
    except GdlSyntaxError as exc:
        raise ProtocolError(exc.message, exc.pos) from None


def _start_pos(file: str) -> SourcePos:
    return SourcePos(file, 1, 1)


def parse_message(text: str) -> Message:
    """Parse one request body into a typed message.

    Raises :class:`ProtocolError` (a ``ValueError``) with a one-line reason and, where known, a
    ``<message>:line:column`` position: bad KIF, not exactly one list, an unknown message type, a
    wrong number of arguments, a bad match id, clock or move list, or rules that are not GDL.
    """
    items = _read(text, MESSAGE_FILE)
    if len(items) != 1:
        raise ProtocolError(f"expected one message in brackets, found {len(items)} items", _start_pos(MESSAGE_FILE))
    message = items[0]
    if not isinstance(message, SList):
        raise ProtocolError(f"expected a message in brackets, found {message.text!r}", message.pos)
    if not message.items or not isinstance(message.items[0], Word):
        raise ProtocolError("a message must start with its type, e.g. 'play'", message.pos)
    kind = message.items[0].text.lower()
    args = message.items[1:]
    parser = _PARSERS.get(kind)
    if parser is None:
        raise ProtocolError(
            f"unknown message type {message.items[0].text!r}; expected one of {', '.join(_PARSERS)}",
            message.items[0].pos,
        )
    return parser(args, message.pos)


def _arity(kind: str, args: tuple[SExpr, ...], pos: SourcePos, count: int, at_least: bool = False) -> None:
    if len(args) < count or (len(args) > count and not at_least):
        expected = f"at least {count}" if at_least else str(count)
        raise ProtocolError(f"{kind} takes {expected} arguments, found {len(args)}", pos)


def _match_id(item: SExpr) -> str:
    if not isinstance(item, Word) or item.is_var:
        raise ProtocolError("a match id must be a single word", item.pos)
    return item.text


MAX_CLOCK = 7 * 24 * 3600
"""Largest clock accepted, in seconds (a week): a clock with thousands of digits is not a clock."""


def _clock(item: SExpr, what: str) -> int:
    if not isinstance(item, Word) or not item.text.isdigit() or not item.text.isascii():
        shown = item.text if isinstance(item, Word) else "(...)"
        raise ProtocolError(f"{what} must be a whole number of seconds, found {shown!r}", item.pos)
    if len(item.text) > len(str(MAX_CLOCK)) or int(item.text) > MAX_CLOCK:
        shown = item.text if len(item.text) <= 20 else item.text[:20] + "..."
        raise ProtocolError(f"{what} {shown} is more than {MAX_CLOCK} seconds (a week)", item.pos)
    return int(item.text)


def _rules(item: SExpr) -> Description:
    if not isinstance(item, SList):
        raise ProtocolError(f"the rules must be one list, found {item.text!r}", item.pos)
    try:
        return description_from_sexprs(list(item.items), MESSAGE_FILE)
    except GdlSyntaxError as exc:
        raise ProtocolError(f"bad rules: {exc.message}", exc.pos) from None


def _term(item: SExpr, what: str) -> Term:
    try:
        term = sexpr_to_term(item)
    except GdlSyntaxError as exc:
        raise ProtocolError(f"bad {what}: {exc.message}", exc.pos) from None
    if next(variables(term), None) is not None:
        raise ProtocolError(f"a {what} cannot contain a variable, found {str(term)!r}", item.pos)
    return term


def _moves(item: SExpr) -> tuple[Term, ...] | None:
    if isinstance(item, Word):
        if item.text.lower() == NIL:
            return None
        raise ProtocolError(f"expected NIL or a list of moves, found {item.text!r}", item.pos)
    if not item.items:
        raise ProtocolError("the move list is empty; expected NIL or one move per role", item.pos)
    return tuple(_term(move, "move") for move in item.items)


def _parse_info(args: tuple[SExpr, ...], pos: SourcePos) -> Message:
    _arity("info", args, pos, 0)
    return Info()


def _parse_preview(args: tuple[SExpr, ...], pos: SourcePos) -> Message:
    _arity("preview", args, pos, 2)
    return Preview(_rules(args[0]), _clock(args[1], "the preview clock"))


def _parse_start(args: tuple[SExpr, ...], pos: SourcePos) -> Message:
    _arity("start", args, pos, 5, at_least=True)
    role = args[1]
    if not isinstance(role, Word) or role.is_var:
        raise ProtocolError("the role must be a single word", role.pos)
    rules = _rules(args[2])
    return Start(
        _match_id(args[0]),
        Const(role.text if rules.case_sensitive else role.text.lower()),  # as the rules hold their names
        rules,
        _clock(args[3], "the start clock"),
        _clock(args[4], "the play clock"),
    )


def _gdl2_arity(kind: str, args: tuple[SExpr, ...], pos: SourcePos) -> bool:
    """True for the GDL-II form (4 arguments), False for GDL (2); anything else is an error."""
    if len(args) not in (2, 4):
        raise ProtocolError(f"{kind} takes 2 arguments, found {len(args)} (GDL-II: 4)", pos)
    return len(args) == 4


def _turn(item: SExpr) -> int:
    if not isinstance(item, Word) or not item.text.isdigit() or not item.text.isascii():
        shown = item.text if isinstance(item, Word) else "(...)"
        raise ProtocolError(f"the turn must be a whole number >= 0, found {shown!r}", item.pos)
    return int(item.text)


def _last_move(item: SExpr) -> Term | None:
    if isinstance(item, Word) and item.text.lower() == NIL:
        return None
    return _term(item, "move")


def _percepts(item: SExpr) -> tuple[Term, ...]:
    if isinstance(item, Word):
        if item.text.lower() == NIL:
            return ()
        raise ProtocolError(f"expected NIL or a list of percepts, found {item.text!r}", item.pos)
    return tuple(_term(percept, "percept") for percept in item.items)


def _gdl2_fields(args: tuple[SExpr, ...]) -> tuple[str, int, Term | None, tuple[Term, ...]]:
    return _match_id(args[0]), _turn(args[1]), _last_move(args[2]), _percepts(args[3])


def _parse_play(args: tuple[SExpr, ...], pos: SourcePos) -> Message:
    if _gdl2_arity("play", args, pos):
        return PlayII(*_gdl2_fields(args))
    return Play(_match_id(args[0]), _moves(args[1]))


def _parse_stop(args: tuple[SExpr, ...], pos: SourcePos) -> Message:
    if _gdl2_arity("stop", args, pos):
        return StopII(*_gdl2_fields(args))
    return Stop(_match_id(args[0]), _moves(args[1]))


def _parse_abort(args: tuple[SExpr, ...], pos: SourcePos) -> Message:
    _arity("abort", args, pos, 1)
    return Abort(_match_id(args[0]))


_PARSERS = {
    "info": _parse_info,
    "preview": _parse_preview,
    "start": _parse_start,
    "play": _parse_play,
    "stop": _parse_stop,
    "abort": _parse_abort,
}


def message_type(message: Message) -> MessageType:
    """The lower-case type word of a message, e.g. ``"play"`` (for logs and dispatch)."""
    name = type(message).__name__.lower().removesuffix("ii")
    assert name in _PARSERS
    return name  # type: ignore[return-value]


# --- formatting messages (manager side) --------------------------------------------------------


def _check_word(text: str, what: str) -> str:
    if not _WORD.fullmatch(text) or not text.isascii():
        raise ProtocolError(f"{what} must be one ASCII word without spaces or brackets, found {text!r}")
    return text


def _format_rules(description: Description) -> str:
    spellings = dict(description.spellings)
    return "(" + " ".join(spelled_rule(rule, spellings) for rule in description.rules) + ")"


def _format_moves(moves: tuple[Term, ...] | None, spellings: dict[str, str]) -> str:
    if moves is None:
        return "NIL"
    if not moves:
        raise ProtocolError("a move list cannot be empty; use None for NIL")
    return "(" + " ".join(spelled(move, spellings) for move in moves) + ")"


def format_message(message: Message, spellings: Mapping[str, str] | None = None) -> str:
    """The wire text of a message: upper-case type and NIL as ggp-base sends them, terms in KIF.

    Rules go on one line. Every name is written in the rules' own spelling (START and PREVIEW take
    it from their description; PLAY and STOP from ``spellings``, :attr:`Description.spellings`),
    because ggp-base's players compare names case-sensitively. Raises :class:`ProtocolError` for a
    match id or role that is not one word, a negative clock or an empty move list (none of which
    could be parsed back).
    """
    names = dict(spellings or {})
    if isinstance(message, Info):
        return "(INFO)"
    if isinstance(message, Preview):
        return f"(PREVIEW {_format_rules(message.description)} {_check_clock(message.preview_clock)})"
    if isinstance(message, Start):
        role = spelled(message.role, dict(message.description.spellings))
        return (
            f"(START {_check_word(message.match_id, 'a match id')} {_check_word(role, 'a role')} "
            f"{_format_rules(message.description)} {_check_clock(message.start_clock)} "
            f"{_check_clock(message.play_clock)})"
        )
    if isinstance(message, Play):
        return f"(PLAY {_check_word(message.match_id, 'a match id')} {_format_moves(message.moves, names)})"
    if isinstance(message, Stop):
        return f"(STOP {_check_word(message.match_id, 'a match id')} {_format_moves(message.moves, names)})"
    if isinstance(message, (PlayII, StopII)):
        kind = "PLAY" if isinstance(message, PlayII) else "STOP"
        return (
            f"({kind} {_check_word(message.match_id, 'a match id')} {_check_clock(message.turn, 'a turn')} "
            f"{'NIL' if message.last_move is None else spelled(message.last_move, names)} "
            f"{_format_percepts(message.percepts, names)})"
        )
    return f"(ABORT {_check_word(message.match_id, 'a match id')})"


def _check_clock(seconds: int, what: str = "a clock") -> int:
    if seconds < 0:
        raise ProtocolError(f"{what} must be a whole number >= 0, found {seconds}")
    return seconds


def _format_percepts(percepts: tuple[Term, ...], spellings: dict[str, str]) -> str:
    """NIL for no percepts (an empty list ``()`` is not valid KIF for other readers)."""
    return "(" + " ".join(spelled(percept, spellings) for percept in percepts) + ")" if percepts else "NIL"


def uses_sees(description: Description) -> bool:
    """True when a game defines ``sees`` (GDL-II): it is then played with GDL-II PLAY/STOP messages.

    >>> from ggp.gdl.parser import parse_kif
    >>> uses_sees(parse_kif("(role a) (<= (sees a x) (does a go))"))
    True
    """
    return any(rule.head.name == "sees" for rule in description.rules)


# --- replies ----------------------------------------------------------------------------------


def info_reply(name: str, species: str = "alien", *, busy: bool = False) -> str:
    """The INFO reply ``((name N) (status available) (species S))``; ``busy`` while in a match.

    >>> info_reply("mcts", "mcts")
    '((name mcts) (status available) (species mcts))'
    """
    status = BUSY if busy else AVAILABLE
    return f"((name {_check_word(name, 'a player name')}) (status {status}) (species {_check_word(species, 'a species')}))"


def format_move(move: Term, spellings: Mapping[str, str] | None = None) -> str:
    """A move as a reply body: KIF with single spaces, each name in the rules' own spelling when
    ``spellings`` (:attr:`Description.spellings`) is given, else lower-case.

    >>> from ggp.gdl.terms import Const, Func
    >>> format_move(Func("move", (Const("up"),)), {"move": "Move", "up": "UP"})
    '(Move UP)'
    """
    return spelled(move, dict(spellings)) if spellings else str(move)


def parse_reply_move(text: str) -> Term:
    """Parse a player's reply to PLAY as one ground move term (lower-cased).

    Raises :class:`ProtocolError` for anything else: empty text, several terms, bad KIF, a
    variable, non-ASCII text. A plain short move is read by :func:`~ggp.gdl.parser.quick_term` (the
    manager reads one per player and step; lark took 0.55 ms of its event loop for each), anything
    else by the KIF reader, which gives the errors.
    """
    term = quick_term(text)
    if term is not None:
        return term
    return _read_reply_move(text)


def _read_reply_move(text: str) -> Term:
    """:func:`parse_reply_move` through the KIF reader alone (its errors and their positions)."""
    items = _read(text, REPLY_FILE)
    if len(items) != 1:
        raise ProtocolError(f"expected exactly one move, found {len(items)} items", _start_pos(REPLY_FILE))
    return _term(items[0], "move")


def parse_info_reply(text: str) -> InfoReply:
    """Parse a reply to INFO: the list form (keys in any order, extra keys ignored) or bare ``available``/``busy``.

    Raises :class:`ProtocolError` when the text is neither form or has no status.

    >>> parse_info_reply("BUSY")
    InfoReply(status='busy', name=None, species=None)
    """
    word = quick_term(text)  # the bare form without lark: the manager pings every idle player each round
    if isinstance(word, Const) and word.name in (AVAILABLE, BUSY):
        return InfoReply(word.name)
    return _read_info_reply(text)


def _read_info_reply(text: str) -> InfoReply:
    """:func:`parse_info_reply` through the KIF reader alone (its errors and their positions)."""
    items = _read(text, REPLY_FILE)
    if len(items) != 1:
        raise ProtocolError(f"expected one INFO reply, found {len(items)} items", _start_pos(REPLY_FILE))
    reply = items[0]
    if isinstance(reply, Word):
        status = reply.text.lower()
        if status not in (AVAILABLE, BUSY):
            raise ProtocolError(f"expected 'available' or 'busy', found {reply.text!r}", reply.pos)
        return InfoReply(status)
    fields: dict[str, str] = {}
    for entry in reply.items:
        if (
            isinstance(entry, SList)
            and len(entry.items) == 2
            and all(isinstance(part, Word) for part in entry.items)
        ):
            key, value = (part.text for part in entry.items if isinstance(part, Word))
            fields.setdefault(key.lower(), value)
    status = fields.get("status", "").lower()
    if status not in (AVAILABLE, BUSY):
        raise ProtocolError("the INFO reply has no (status available) or (status busy) entry", reply.pos)
    return InfoReply(status, fields.get("name"), fields.get("species"))


def is_simple_reply(text: str, expected: str) -> bool:
    """True when a reply is the word ``expected`` (``ready``, ``done``, ...) in any case and spacing."""
    return text.strip().lower() == expected


__all__ = [
    "ABORTED", "AVAILABLE", "BUSY", "DONE", "NIL", "READY",
    "Abort", "Info", "InfoReply", "Message", "MessageType", "Play", "PlayII", "Preview", "Start", "Stop", "StopII",
    "format_message", "format_move", "info_reply", "is_simple_reply", "message_type", "parse_info_reply",
    "parse_message", "parse_reply_move", "uses_sees",
]
