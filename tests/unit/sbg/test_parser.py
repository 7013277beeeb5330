"""SBG parser: every error kind with its position, warnings, and printing round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.errors import SbgError
from ggp.translators.sbg.model import Alt, Cat, Letter, Rep, Sym
from ggp.translators.sbg.parser import parse_sbg, parse_sbg_syntax
from ggp.translators.sbg.printer import to_sbg
from tests.conftest import GAMES_DIR
from tests.unit.sbg.sbg_strategies import sbg_games

GAME_FILES = sorted(GAMES_DIR.glob("*.sbg"))

VALID = """<<Tiny>>
<BOARD> 3 3
|.k.|
|...|
|.K.|
<PIECES>
K (0,1,e) + (0,1,p) + (1,0,e) &
<GOALS> 10 &
#k 0 &
#K 0 &
"""


def error_at(text: str) -> tuple[str, int, int]:
    with pytest.raises(SbgError) as info:
        parse_sbg(text, "t.sbg")
    assert info.value.pos is not None and info.value.pos.file == "t.sbg"
    return info.value.message, info.value.pos.line, info.value.pos.column


def test_a_valid_file_parses_into_coordinates_with_y_zero_on_the_last_row() -> None:
    game = parse_sbg(VALID)
    assert (game.name, game.width, game.height, game.turn_limit) == ("Tiny", 3, 3, 10)
    assert game.cell(1, 0) == "K" and game.cell(1, 2) == "k" and game.cell(0, 0) == "."
    assert game.rules[0].regex == Alt((Sym(Letter(0, 1, "e")), Sym(Letter(0, 1, "p")), Sym(Letter(1, 0, "e"))))
    assert game.warnings == ()


def test_precedence_is_power_then_concatenation_then_union() -> None:
    game = parse_sbg_syntax(VALID.replace("(0,1,e) + (0,1,p) + (1,0,e)", "(0,1,e)(1,0,e)^* + (0,1,p)"))
    a, b, c = Sym(Letter(0, 1, "e")), Sym(Letter(1, 0, "e")), Sym(Letter(0, 1, "p"))
    assert game.rules[0].regex == Alt((Cat((a, Rep(b, None))), c))


def test_comments_and_whitespace_between_cells_are_ignored() -> None:
    text = VALID.replace("|.K.|", "| . K . | // white king\n/* block\ncomment */")
    assert parse_sbg(text).rows == parse_sbg(VALID).rows


@pytest.mark.parametrize(
    ("old", "new", "message", "line", "column"),
    [
        ("<<Tiny>>", "<<Ti-ny>>", "game names hold letters, digits and spaces only, not '-'", 1, 3),
        ("<<Tiny>>", "<< >>", "the game name between '<<' and '>>' is empty", 1, 3),
        ("<BOARD> 3 3", "<BOARD> 3 4", "board has 3 rows but its height is 4", 2, 11),
        ("|...|", "|....|", "row 2 has 4 cells but the board width is 3", 4, 1),
        ("<BOARD> 3 3", "<BOARD> 0 3", "board width must be 1..64, not 0", 2, 9),
        ("|...|", "|.1.|", "unknown piece letter '1'", 4, 3),
        ("K (0,1,e) +", "k (0,1,e) +", "unknown piece letter 'k'", 7, 1),
        ("(1,0,e) &", "(1,0,q) &", "malformed move letter: expected 'e', 'p' or 'w'", 7, 28),
        ("(1,0,e) &", "(1,x,e) &", "malformed move letter: expected an integer dy", 7, 26),
        ("(1,0,e) &", "((1,0,e) &", "unbalanced brackets: '(' is never closed", 7, 23),
        ("(1,0,e) &", "(1,0,e)) &", "unbalanced brackets: ')' without a matching '('", 7, 30),
        ("(1,0,e) &", "(1,0,e)^0 &", "'^0' is not allowed", 7, 31),
        ("<GOALS>", "<GOLS>", "unexpected section keyword '<GOLS>'", 8, 1),
        ("<PIECES>\n", "", "missing section '<PIECES>'", 6, 1),
        ("#k 0 &", "#q 0 &", "goal names unknown piece 'q'", 9, 1),
        ("<GOALS> 10 &", "<GOALS> 10 &\n#K 1 &", "capture goal 'K' already holds", 9, 1),
        ("#k 0 &", "@K 1 1, 1 0 &", "placement goal 'K' already holds", 9, 1),
        ("<GOALS> 10 &", "<GOALS> 0 &", "turn limit must be at least 1, not 0", 8, 9),
        ("<GOALS> 10 &", "<GOALS> &", "expected the turn limit after '<GOALS>'", 8, 9),
        ("K (0,1,e) + (0,1,p) + (1,0,e) &", "K (0,1,e) &\nK (1,0,e) &", "two rules for piece 'K'", 8, 1),
        ("(0,1,e) + (0,1,p) + (1,0,e)", "(0,1,p) + (0,-1,e)", "white (upper case) has no legal move", 1, 1),
    ],
)
def test_each_error_kind_is_reported_at_its_line_and_column(
    old: str, new: str, message: str, line: int, column: int
) -> None:
    assert old in VALID
    found = error_at(VALID.replace(old, new, 1))
    assert found[0].startswith(message), found
    assert found[1:] == (line, column)


def test_deep_nesting_and_huge_powers_are_refused_cleanly() -> None:
    deep = VALID.replace("(1,0,e) &", "(" * 500 + "(1,0,e)" + ")" * 500 + " &")
    assert error_at(deep)[0] == "move expression nested deeper than 100 parentheses"
    huge = VALID.replace("(1,0,e) &", "((1,0,e)^999)^999 &")
    assert error_at(huge)[0] == "rule for 'K' has more than 5000 letters once unrolled"


def test_errors_print_as_file_line_column_message() -> None:
    with pytest.raises(SbgError, match=r"^t\.sbg:7:31: '\^0' is not allowed"):
        parse_sbg(VALID.replace("(1,0,e) &", "(1,0,e)^0 &"), "t.sbg")


def test_section_warnings_are_returned_not_raised() -> None:
    text = VALID.replace("|...|", "|.Q.|").replace("<GOALS>", "R (1,1,e) &\nN (0,0,w) + (9,0,e) &\n<GOALS>")
    text = text.replace("#K 0 &", "#K 0 &\n@K 7 7 &\n#x 0 &")
    game = parse_sbg(text.replace("<GOALS>", "X (1,0,e) &\n<GOALS>"))
    messages = [w.message for w in game.warnings]
    assert any("'Q' is on the board but has no rule" in m for m in messages)
    assert any("rule for 'R', a piece type that is not on the board" in m for m in messages)
    assert any("(0,0,.)" in m for m in messages)
    assert any("alternative 2 never fits on the 3x3 board" in m for m in messages)
    assert any("goal square (7 7) is off the board" in m for m in messages)
    assert any("goal for 'x', which is not on the board, is ignored" in m for m in messages)


def test_a_side_without_pieces_is_a_warning() -> None:
    game = parse_sbg(VALID.replace("|.k.|", "|...|").replace("#k 0 &\n", ""))
    assert [w.message for w in game.warnings] == ["black (lower case) has no pieces"]


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_every_library_game_parses_without_warnings_and_prints_back(path: Path) -> None:
    game = parse_sbg(path.read_text(), path.name)
    assert game.warnings == ()
    assert parse_sbg(to_sbg(game), path.name) == game


@settings(max_examples=60, deadline=None)
@given(sbg_games())
def test_random_valid_games_parse_and_print_back_unchanged(game: object) -> None:
    assert parse_sbg(to_sbg(game)) == game  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(VALID)), st.integers(0, 6), st.text(alphabet="()<>|.,+^*&@#-/ \n0123456789KkeRpwX", max_size=4))
def test_any_edit_of_a_valid_file_parses_or_fails_with_a_positioned_sbg_error(
    start: int, length: int, insert: str
) -> None:
    text = VALID[:start] + insert + VALID[start + length :]
    try:
        parse_sbg(text, "t.sbg")
    except SbgError as exc:
        assert exc.pos is not None and exc.pos.file == "t.sbg" and "\n" not in exc.message


@pytest.mark.parametrize("digit", ["⓹", "٣", "５", "²"])
def test_a_non_ascii_digit_is_a_positioned_error_not_a_crash(digit: str) -> None:
    text = (GAMES_DIR / "six_demo.sbg").read_text()
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("<BOARD> 6 6"))
    lines[row] = f"<BOARD> {digit} 6"  # int('⓹') crashed the reader before
    with pytest.raises(SbgError, match=rf"six_demo\.sbg:{row + 1}:9: unexpected character"):
        parse_sbg("\n".join(lines), "six_demo.sbg")
