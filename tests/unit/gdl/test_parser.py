"""The KIF reader and writer: exact round trips (generated and corpus games) and positioned errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.errors import GdlError, GdlSyntaxError, SourcePos
from ggp.gdl.parser import parse_kif, parse_literal, parse_term
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description, Literal, Term
from ggp.gdl.validator import validate
from tests.conftest import corpus_games, needs_shared
from tests.helpers.gdl_corpus import parsed
from tests.strategies import descriptions, literals, terms, well_formed_games


@settings(max_examples=60, deadline=None)
@given(terms())
def test_printing_then_parsing_returns_the_same_term(term: Term) -> None:
    assert parse_term(str(term)) == term


@settings(max_examples=60, deadline=None)
@given(literals())
def test_printing_then_parsing_returns_the_same_literal(literal: Literal) -> None:
    assert parse_literal(str(literal)) == literal


@settings(max_examples=40, deadline=None)
@given(descriptions())
def test_printing_then_parsing_returns_the_same_description(description: Description) -> None:
    text = to_kif(description)
    again = parse_kif(text)
    assert again == description
    assert to_kif(again) == text


@settings(max_examples=20, deadline=None)
@given(well_formed_games())
def test_well_formed_games_round_trip(game: Description) -> None:
    assert parse_kif(to_kif(game)) == game


@pytest.mark.parametrize("path", needs_shared(corpus_games()), ids=lambda p: p.stem if p else "none")
def test_every_corpus_game_round_trips_exactly(path: Path) -> None:
    description = parsed(path)
    text = to_kif(description)
    again = parse_kif(text, path.name)
    assert again == description
    assert to_kif(again) == text


def test_positions_survive_comments_and_line_breaks() -> None:
    description = parse_kif("; a comment (with brackets\n(role x)\n\n   (<= terminal\n (true (done)))", "g.kif")
    assert [rule.pos for rule in description.rules] == [SourcePos("g.kif", 2, 1), SourcePos("g.kif", 4, 4)]


def test_names_are_lower_cased_and_mixed_spellings_noted() -> None:
    description = parse_kif("(ROLE Xplayer)\n(role xplayer)", case_sensitive=False)
    assert str(description.rules[0]) == "(role xplayer)"
    assert [note.check for note in description.notes] == ["capitalisation", "capitalisation"]


ERRORS = [
    ("(role x", (1, 1), "unbalanced '('"),
    ("(role x)\n(<= terminal\n  (true (done))", (2, 1), "unbalanced '('"),
    ("(role x))", (1, 9), "no '(' to close"),
    ("(role x)\n  )", (2, 3), "no '(' to close"),
    ("", (1, 1), "empty description"),
    ("; only a comment\n", (1, 1), "empty description"),
    ("(role x) ()", (1, 10), "empty list"),
    ("((p) q)", (1, 2), "a list cannot name a relation"),
    ("(<= (?x a) b)", (1, 6), "variable '?x' used as a relation"),
    ("(role x)\n?x", (2, 1), "variable '?x' cannot stand as a sentence"),
    ("(<=)", (1, 1), "'<=' rule without a head"),
    ("(p (<= a))", (1, 5), "rules cannot be nested"),
    ("(p ?)", (1, 4), "'?' must be followed by a variable name"),
    ("(p\x00)", (1, 3), "binary data"),
    ("(" * 300 + ")" * 300, (1, 100), "nested deeper than the limit"),
]


@pytest.mark.parametrize(("text", "where", "message"), ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_syntax_errors_carry_a_position(text: str, where: tuple[int, int], message: str) -> None:
    with pytest.raises(GdlSyntaxError) as caught:
        parse_kif(text, "bad.kif")
    assert caught.value.pos == SourcePos("bad.kif", *where)
    assert message in caught.value.message
    assert str(caught.value).startswith(f"bad.kif:{where[0]}:{where[1]}: ")


def test_ten_thousand_levels_of_nesting_are_rejected_without_recursion_errors() -> None:
    with pytest.raises(GdlSyntaxError, match="nested deeper"):
        parse_kif("(p " * 10_000 + ")" * 10_000)


_TOKENS = ["(", ")", "(", ")", " ", "\n", "<=", "not", "or", "distinct", "?x", "?", "p", "role", "legal",
           "goal", "1", "200", ";c\n", "()", "\t", "x.y", "\x00", "É"]


def _parse_and_validate(text: str) -> None:
    try:
        validate(parse_kif(text, "fuzz.kif"))
    except GdlError as exc:
        assert exc.pos is None or exc.pos.file == "fuzz.kif"
        assert "\n" not in str(exc)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_random_text_only_ever_raises_gdl_errors(text: str) -> None:
    _parse_and_validate(text)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_only_ever_raise_gdl_errors(data: bytes) -> None:
    _parse_and_validate(data.decode("utf-8", errors="replace"))
    _parse_and_validate(data.decode("latin-1"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=60).map(" ".join))
def test_random_token_soup_only_ever_raises_gdl_errors(text: str) -> None:
    _parse_and_validate(text)


def test_parsed_values_are_frozen_and_hashable() -> None:
    import dataclasses

    first = parse_kif("(role x)\n(<= (legal x (mark ?c)) (true (cell ?c)) (not (true done)))", "a.kif")
    second = parse_kif("(ROLE X) (<= (LEGAL x (mark ?C)) (true (cell ?c)) (not (true done)))", "b.kif",
                       case_sensitive=False)
    assert first == second and hash(first) == hash(second)
    assert len({*first.rules, *second.rules}) == 2  # positions and file names take no part in equality
    assert {parse_term("(f a ?x)"): 1}[parse_term("(F A ?X)")] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.rules[0].head = parse_term("y")  # type: ignore[misc, assignment]
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.rules = ()  # type: ignore[misc]


def test_case_sensitive_reading_keeps_names_and_variables_as_written_but_not_keywords() -> None:
    text = "(ROLE x) (<= (LEGAL x (Mark ?C)) (TRUE (cell ?C)) (NOT (Cell ?c)) (Distinct ?C ?c))"
    folded = parse_kif(text, case_sensitive=False)
    assert [str(rule) for rule in folded.rules] == [
        "(role x)", "(<= (legal x (mark ?c)) (true (cell ?c)) (not (cell ?c)) (distinct ?c ?c))"
    ]
    assert folded.spellings  # the source's spellings, for replies to hosts
    kept = parse_kif(text, case_sensitive=True)
    assert [str(rule) for rule in kept.rules] == [
        "(role x)", "(<= (legal x (Mark ?C)) (true (cell ?C)) (not (Cell ?c)) (distinct ?C ?c))"
    ]
    assert kept.spellings == ()  # names are held as written
    assert parse_kif(text, case_sensitive=True).rules != folded.rules


def test_a_text_whose_names_folding_would_merge_is_read_case_sensitively_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # wargame03 in small: (type t2 VerticalTerrorist) is tested as verticalTerrorist. Folded, that is a
    # vertical terrorist; for ggp-base, the reference, it is none: two different games.
    text = "(role a) (type t2 VerticalTerrorist) (<= (moves ?t) (type ?t verticalTerrorist))"
    read = parse_kif(text, "war.kif")
    assert read.case_sensitive and read == parse_kif(text, case_sensitive=True)
    assert [str(rule) for rule in read.rules][1] == "(type t2 VerticalTerrorist)"
    assert not parse_kif(text, case_sensitive=False).case_sensitive
    parse_kif(text, "war.kif")  # read again: the warning is not repeated
    from ggp.gdl.terms import Const
    from ggp.protocol.messages import Start, format_message, parse_message

    assert parse_message(format_message(Start("m", Const("a"), read, 10, 5))) == Start("m", Const("a"), read, 10, 5)
    warnings = [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]
    assert warnings == ["war.kif: names read case-sensitively, as ggp-base reads them: folding case would merge "
                        "'VerticalTerrorist' and 'verticalTerrorist' (--fold-case, or case_sensitive=False, reads "
                        "them as one, as GDL says)"]


@pytest.mark.parametrize("text", [
    "(role a) (Cell 1) (<= p (cell 1))",
    "(role a) (<= (P ?X) (q ?x)) (<= (p ?y) (q ?y))",  # a name merge also keeps ?X and ?x apart, as ggp-base
])
def test_every_merge_of_names_counts(text: str) -> None:
    assert parse_kif(text).case_sensitive


@pytest.mark.parametrize("text", [
    "(ROLE a) (Role b) (<= TERMINAL (TRUE (Done)))",  # keywords fold in every reading
    "(role a) (<= (p ?X) (q ?X)) (<= (r ?x) (q ?x))",  # ?X and ?x in different rules never meet
    "(role a) (<= (p ?X) (q ?x))",  # variables are no symbols: one variable in GDL (a typo, as in the seed game)
    "(role a) (Cell 1) (<= p (Cell 1))",  # one spelling each
])
def test_a_plain_text_keeps_folding_case_without_a_warning(text: str, caplog: pytest.LogCaptureFixture) -> None:
    read = parse_kif(text)
    assert not read.case_sensitive and str(read.rules[-1]) == str(parse_kif(text.lower()).rules[-1])
    assert not caplog.records


def test_a_start_message_reads_its_rules_and_role_as_the_loader_reads_the_file() -> None:
    from ggp.gdl.terms import Const
    from ggp.protocol.messages import Start, format_message, parse_message

    rules = parse_kif("(role Soldier) (type t2 Vertical) (<= (legal Soldier go) (type t2 vertical)) (goal Soldier 0)")
    assert rules.case_sensitive and rules.roles == (Const("Soldier"),)
    message = parse_message(format_message(Start("m1", Const("Soldier"), rules, 10, 5)))
    assert isinstance(message, Start) and message.description.case_sensitive
    assert message.description == rules and message.role == Const("Soldier")
