"""GDL-II PLAY and STOP (protocol.md §8): parsing, formatting and telling them from the GDL forms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.errors import ProtocolError
from ggp.gdl.parser import parse_kif, parse_term
from ggp.gdl.terms import Const, Func
from ggp.protocol.messages import (
    Play,
    PlayII,
    Stop,
    StopII,
    format_message,
    message_type,
    parse_message,
    uses_sees,
)


def test_the_first_gdl2_play_has_turn_zero_and_nil_move_and_percepts() -> None:
    message = parse_message("( PLAY match.7 0 NIL NIL )")
    assert message == PlayII("match.7", 0, None, ())
    assert message_type(message) == "play"
    assert format_message(message) == "(PLAY match.7 0 NIL NIL)"


def test_a_later_gdl2_play_carries_the_own_move_and_the_percepts_lower_cased() -> None:
    message = parse_message("(PLAY m 3 (ASK 4) ((ANSWER 4 YES) (turn 3)))")
    assert message == PlayII("m", 3, parse_term("(ask 4)"), (parse_term("(answer 4 yes)"), parse_term("(turn 3)")))
    assert format_message(message) == "(PLAY m 3 (ask 4) ((answer 4 yes) (turn 3)))"


def test_gdl2_stop_parses_and_an_empty_percept_list_reads_as_none() -> None:
    message = parse_message("(STOP m 5 (guess 3) ())")
    assert message == StopII("m", 5, parse_term("(guess 3)"), ())
    assert message_type(message) == "stop"
    assert format_message(message) == "(STOP m 5 (guess 3) NIL)"


def test_the_argument_count_tells_gdl_from_gdl2() -> None:
    assert isinstance(parse_message("(PLAY m NIL)"), Play)
    assert isinstance(parse_message("(PLAY m 0 NIL NIL)"), PlayII)
    assert isinstance(parse_message("(STOP m (a b))"), Stop)
    assert isinstance(parse_message("(STOP m 2 a NIL)"), StopII)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(PLAY m 0 NIL)", "play takes 2 arguments, found 3 (GDL-II: 4)"),
        ("(STOP m 0 NIL NIL x)", "stop takes 2 arguments, found 5 (GDL-II: 4)"),
        ("(PLAY m -1 NIL NIL)", "the turn must be a whole number >= 0, found '-1'"),
        ("(PLAY m (1) NIL NIL)", "the turn must be a whole number >= 0"),
        ("(PLAY m 1 NIL seen)", "expected NIL or a list of percepts, found 'seen'"),
        ("(PLAY m 1 (ask ?k) NIL)", "a move cannot contain a variable"),
        ("(PLAY m 1 noop ((answer ?k yes)))", "a percept cannot contain a variable"),
        ("(PLAY (m) 1 noop NIL)", "a match id must be a single word"),
    ],
)
def test_malformed_gdl2_messages_raise_a_one_line_error_with_a_position(text: str, expected: str) -> None:
    with pytest.raises(ProtocolError, match=r"^<message>:1:\d+: ") as caught:
        parse_message(text)
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_formatting_refuses_a_negative_turn() -> None:
    with pytest.raises(ProtocolError, match="a turn must be a whole number >= 0"):
        format_message(PlayII("m", -1, None, ()))


_symbols = st.builds(str.__add__, st.sampled_from("abmxyz"), st.text("abmxyz019_.-", max_size=5))
_terms = st.recursive(
    _symbols.map(Const),
    lambda inner: st.builds(Func, _symbols, st.lists(inner, min_size=1, max_size=3).map(tuple)),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None)
@given(_symbols, st.integers(0, 10_000), st.none() | _terms, st.lists(_terms, max_size=4).map(tuple))
def test_any_gdl2_play_and_stop_survive_format_and_parse(
    match_id: str, turn: int, last_move: Const | Func | None, percepts: tuple[Const | Func, ...]
) -> None:
    assert parse_message(format_message(PlayII(match_id, turn, last_move, percepts))) == PlayII(
        match_id, turn, last_move, percepts)
    # The Dresden controller upper-cases whole messages: symbols come back lower-cased.
    stop = parse_message(format_message(StopII(match_id, turn, last_move, percepts)).upper())
    assert stop == StopII(match_id.upper(), turn, last_move, percepts)


def test_uses_sees_finds_sees_rules_only() -> None:
    assert uses_sees(parse_kif("(role a) (<= (sees a (saw ?x)) (does a ?x))"))
    assert not uses_sees(parse_kif("(role a) (role random) (init (p sees))"))
