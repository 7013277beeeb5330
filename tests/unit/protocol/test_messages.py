"""Protocol messages: parsing as ggp-base and Dresden send them, formatting, and replies."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.errors import ProtocolError
from ggp.gdl.parser import parse_kif, parse_term
from ggp.gdl.terms import Const, Func
from ggp.protocol.messages import (
    Abort,
    Info,
    InfoReply,
    Message,
    Play,
    Preview,
    Start,
    Stop,
    format_message,
    info_reply,
    is_simple_reply,
    message_type,
    parse_info_reply,
    parse_message,
    parse_reply_move,
)

RULES = "(role xplayer) (role oplayer) (init (cell 1 1 b)) (<= (legal ?r noop) (role ?r))"


def test_info_parses_in_any_case_and_spacing() -> None:
    assert parse_message("( INFO )") == Info()
    assert parse_message("\r\n(info)\n") == Info()
    assert parse_message("(Info)") == Info()


def test_start_as_ggp_base_sends_it_parses_into_typed_fields() -> None:
    text = f"( START match.123 xplayer ( {RULES} ) 30 15 )"
    message = parse_message(text)
    assert isinstance(message, Start)
    assert message.match_id == "match.123"
    assert message.role == Const("xplayer")
    assert message.description == parse_kif(RULES)
    assert message.description.roles == (Const("xplayer"), Const("oplayer"))
    assert (message.start_clock, message.play_clock) == (30, 15)


def test_start_upper_cased_by_dresden_reads_the_same_rules_and_role() -> None:
    message = parse_message(f"(START M1 XPLAYER ({RULES.upper()}) 10 5)")
    assert isinstance(message, Start)
    assert message.role == Const("xplayer")
    assert message.description == parse_kif(RULES)


def test_start_ignores_extra_arguments_like_ggp_base() -> None:
    message = parse_message(f"(start m xplayer ({RULES}) 10 5 extra (stuff))")
    assert isinstance(message, Start) and message.play_clock == 5


def test_play_with_nil_has_no_moves() -> None:
    assert parse_message("( PLAY m1 NIL )") == Play("m1", None)
    assert parse_message("(play m1 nil)") == Play("m1", None)


def test_play_reads_the_joint_move_in_order_lower_cased() -> None:
    message = parse_message("( PLAY m1 ( ( MARK 1 1 ) NOOP ) )")
    assert message == Play("m1", (Func("mark", (Const("1"), Const("1"))), Const("noop")))


def test_stop_and_abort_parse() -> None:
    assert parse_message("(STOP m1 (noop (mark 3 3)))") == Stop("m1", (Const("noop"), parse_term("(mark 3 3)")))
    assert parse_message("(stop m1 nil)") == Stop("m1", None)
    assert parse_message("(ABORT m1)") == Abort("m1")


def test_preview_parses_rules_and_clock() -> None:
    message = parse_message(f"(PREVIEW ({RULES}) 20)")
    assert message == Preview(parse_kif(RULES), 20)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "found 0 items"),
        ("(info) (info)", "found 2 items"),
        ("info", "expected a message in brackets"),
        ("()", "must start with its type"),
        ("((play) m nil)", "must start with its type"),
        ("(hello m)", "unknown message type 'hello'"),
        ("(info x)", "info takes 0 arguments, found 1"),
        ("(play m)", "play takes 2 arguments, found 1"),
        ("(play m nil nil)", "play takes 2 arguments, found 3"),
        ("(stop m)", "stop takes 2 arguments"),
        ("(abort)", "abort takes 1 arguments"),
        ("(start m x (role x) 10)", "start takes at least 5 arguments, found 4"),
        ("(start m x (role x) ten 10)", "the start clock must be a whole number"),
        ("(start m x (role x) 10 -1)", "the play clock must be a whole number"),
        ("(start m x role 10 10)", "the rules must be one list"),
        ("(start m (x) ((role x)) 10 10)", "the role must be a single word"),
        ("(start m ?x ((role x)) 10 10)", "the role must be a single word"),
        ("(start m x ((?r a)) 10 10)", "bad rules"),
        ("(play (m) nil)", "a match id must be a single word"),
        ("(play m noop)", "expected NIL or a list of moves"),
        ("(play m ())", "the move list is empty"),
        ("(play m ((mark ?x 1)))", "cannot contain a variable"),
        ("(play m (noop)", "never closed"),
        ("(play m nil))", "no '(' to close"),
        ("(play m (caf\u00e9))", "non-ASCII"),
    ],
)
def test_malformed_messages_raise_a_one_line_protocol_error(text: str, reason: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_message(text)
    assert reason in str(caught.value)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_errors_carry_a_position_in_the_message() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_message("(play m\n   noop)")
    assert caught.value.pos is not None
    assert (caught.value.pos.file, caught.value.pos.line, caught.value.pos.column) == ("<message>", 2, 4)


def test_format_then_parse_round_trips_every_message_type() -> None:
    description = parse_kif(RULES + " (<= terminal (true (cell 1 1 x)) (not (true (cell 2 2 b))))")
    messages: list[Message] = [
        Info(),
        Preview(description, 5),
        Start("m.7", Const("xplayer"), description, 30, 15),
        Play("m.7", None),
        Play("m.7", (parse_term("(mark 1 2)"), Const("noop"))),
        Stop("m.7", (Const("noop"), Const("noop"))),
        Stop("m.7", None),
        Abort("m.7"),
    ]
    for message in messages:
        text = format_message(message)
        assert "\n" not in text
        assert parse_message(text) == message


def test_format_uses_ggp_base_keywords() -> None:
    assert format_message(Play("m", None)) == "(PLAY m NIL)"
    assert format_message(Abort("m")) == "(ABORT m)"
    assert format_message(Start("m", Const("x"), parse_kif("(role x)"), 10, 5)) == "(START m x ((role x)) 10 5)"


def test_format_refuses_what_could_not_be_parsed_back() -> None:
    with pytest.raises(ProtocolError, match="match id"):
        format_message(Abort("two words"))
    with pytest.raises(ProtocolError, match="empty"):
        format_message(Play("m", ()))
    with pytest.raises(ProtocolError, match="clock"):
        format_message(Start("m", Const("x"), parse_kif("(role x)"), -1, 5))


def test_message_type_names_the_message() -> None:
    assert message_type(Play("m", None)) == "play"
    assert message_type(Info()) == "info"


def test_reply_move_is_one_ground_term_lower_cased() -> None:
    assert parse_reply_move("( MARK 1 1 )\r\n") == parse_term("(mark 1 1)")
    assert parse_reply_move("NOOP") == Const("noop")


@pytest.mark.parametrize("text", ["", "noop noop", "(mark 1", "(mark ?x 1)", "(caf\u00e9)", "()"])
def test_bad_reply_moves_raise_protocol_error(text: str) -> None:
    with pytest.raises(ProtocolError):
        parse_reply_move(text)


def test_info_reply_round_trips_and_old_bare_forms_are_accepted() -> None:
    text = info_reply("MyPlayer", "mcts")
    assert text == "((name MyPlayer) (status available) (species mcts))"
    assert parse_info_reply(text) == InfoReply("available", "MyPlayer", "mcts")
    assert parse_info_reply(info_reply("p", busy=True)).status == "busy"
    assert parse_info_reply("available").available
    assert parse_info_reply("( ( STATUS Busy ) )") == InfoReply("busy")
    with pytest.raises(ProtocolError, match="status"):
        parse_info_reply("((name p))")
    with pytest.raises(ProtocolError, match="available"):
        parse_info_reply("ready")
    with pytest.raises(ProtocolError, match="player name"):
        info_reply("two words")


def test_simple_replies_compare_case_insensitively() -> None:
    assert is_simple_reply(" READY\n", "ready")
    assert not is_simple_reply("busy", "ready")


_symbols = st.builds(str.__add__, st.sampled_from("abmxyz"), st.text("abmxyz019_.-", max_size=5))
_terms = st.recursive(
    _symbols.map(Const),
    lambda inner: st.builds(Func, _symbols, st.lists(inner, min_size=1, max_size=3).map(tuple)),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_terms, min_size=1, max_size=4).map(tuple), _symbols)
def test_any_joint_move_survives_format_and_parse(moves: tuple[Const | Func, ...], match_id: str) -> None:
    assert parse_message(format_message(Play(match_id, moves))) == Play(match_id, moves)
    assert parse_message(format_message(Stop(match_id, moves)).upper()) == Stop(match_id.upper(), moves)


def test_messages_to_players_use_the_rules_spelling() -> None:
    """ggp-base's players compare names case-sensitively: START's rules and role, and the moves of PLAY
    and STOP, must be written as the rules write them (a lower-cased `(stay)` is no move of theirs)."""
    rules = parse_kif("(role Robot) (init (Cell 1)) (<= (legal Robot (moveUp)) (true (Cell ?x)) (not (Done ?x)))"
                      " (<= (legal Robot Stay) (or (true (Cell 1)) (distinct Robot Other)))")
    start = format_message(Start("m1", Const("robot"), rules, 10, 5))
    assert start.startswith("(START m1 Robot ((role Robot) (init (Cell 1)) (<= (legal Robot (moveUp)) (true (Cell ?x))")
    assert "(not (Done ?x))" in start and "(or (true (Cell 1)) (distinct Robot Other))" in start
    assert parse_message(start) == Start("m1", Const("robot"), rules, 10, 5)  # still one game to us
    moves = (Func("moveup", ()), Const("stay"))
    assert format_message(Play("m1", moves), dict(rules.spellings)) == "(PLAY m1 ((moveUp) Stay))"
    assert format_message(Stop("m1", moves), dict(rules.spellings)) == "(STOP m1 ((moveUp) Stay))"
    assert format_message(Play("m1", moves)) == "(PLAY m1 ((moveup) stay))"  # no spellings: lower case
