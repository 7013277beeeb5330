"""quick_term, the reader of plain short moves without lark: where it answers, the KIF reader gives the same
term; where it does not, parse_reply_move (and parse_info_reply) give what the KIF reader alone gives,
errors and positions included (issue 33)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.errors import GdlSyntaxError, ProtocolError
from ggp.gdl.parser import QUICK_MAX_CHARS, parse_term, quick_term
from ggp.gdl.terms import Term, Var, variables
from ggp.protocol import messages
from tests.strategies import terms

_ODD = st.text(alphabet="()ab<=?;X1 \t\n\r\x0b\x0c\x1c\x00\xe9\"'.", max_size=24)
"""Short texts over the characters that matter to the reader: brackets, words, comments, variables,
whitespace lark ignores and whitespace it does not, NUL and non-ASCII."""


@st.composite
def written(draw: st.DrawFn) -> str:
    """A term as a player might write it: any case, any whitespace between tokens and around."""
    term = draw(terms(max_leaves=12))
    text = str(term).replace("(", " ( ").replace(")", " ) ")
    spaces = st.text(alphabet=" \t\r\n", min_size=1, max_size=3)
    parts = [part.upper() if draw(st.booleans()) else part for part in text.split()]
    return draw(spaces) + "".join(part + draw(spaces) for part in parts)


def outcome(read: object, text: str) -> object:
    """What reading ``text`` gives: the term, or the error's message and position."""
    assert callable(read)
    try:
        result: object = read(text)
    except (GdlSyntaxError, ProtocolError) as exc:
        return (type(exc).__name__, str(exc))
    return result


@settings(max_examples=200, deadline=None)
@given(st.one_of(_ODD, written()))
def test_quick_term_answers_only_with_the_kif_readers_term(text: str) -> None:
    term = quick_term(text)
    if term is not None:
        assert parse_term(text) == term
        assert next(variables(term), None) is None


@settings(max_examples=200, deadline=None)
@given(st.one_of(_ODD, written()))
def test_a_reply_move_reads_as_the_kif_reader_alone_reads_it(text: str) -> None:
    assert outcome(messages.parse_reply_move, text) == outcome(messages._read_reply_move, text)


@settings(max_examples=200, deadline=None)
@given(st.one_of(_ODD, st.sampled_from(["available", " BUSY\n", "Available ;x", "(available)", "((status busy))",
                                         "\x0bbusy", "busy busy", "ready"])))
def test_an_info_reply_reads_as_the_kif_reader_alone_reads_it(text: str) -> None:
    assert outcome(messages.parse_info_reply, text) == outcome(messages._read_info_reply, text)


@settings(max_examples=100, deadline=None)
@given(written())
def test_every_plain_ground_move_is_read_quickly(text: str) -> None:
    term: Term = parse_term(text)
    plain = len(text) <= QUICK_MAX_CHARS and next(variables(term), None) is None
    assert (quick_term(text) == term) if plain else (quick_term(text) is None)


@pytest.mark.parametrize("text", [
    "", "  ", "()", "(", ")", "(a))", "(a) b", "a b", "((a) b)", "(<= a b)", "<=", "(a ?x)", "?x", "(a ; c\n)",
    "(a\x0bb)", "(a\x1cb)", "a\x00", "(caf\xe9)", "(a (b) ())",
])
def test_what_quick_term_leaves_to_the_kif_reader(text: str) -> None:
    assert quick_term(text) is None
    assert outcome(messages.parse_reply_move, text) == outcome(messages._read_reply_move, text)


def test_a_move_longer_than_the_quick_limit_is_read_by_the_kif_reader() -> None:
    text = "(move " + " ".join(["x"] * 200) + ")"
    assert len(text) > QUICK_MAX_CHARS and quick_term(text) is None
    assert messages.parse_reply_move(text) == parse_term(text)
    assert quick_term("(noop)") == parse_term("(noop)") and not isinstance(quick_term("x1"), Var)
