"""Reading and writing Sokoban level text: shapes, aliases, several levels per file, every error kind."""

from __future__ import annotations

import pytest

from ggp.errors import SokobanError
from ggp.translators.sokoban.level import Level, level_to_text, levels_to_text, parse_level, parse_levels
from tests.unit.sokoban.levels import KNOWN, L2, Known


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: k.name)
def test_known_levels_have_the_text_bounding_box_and_round_trip(known: Known) -> None:
    level = parse_level(known.text)
    assert (level.width, level.height) == (known.width, known.height)
    assert level_to_text(level) == known.text
    assert parse_level(level_to_text(level)) == level


def test_l2_cells_are_read_with_x_as_column_and_y_as_row() -> None:
    level = parse_level(L2.text)
    assert level.player == (3, 4)
    assert level.boxes == {(2, 2), (3, 2)}
    assert level.goals == {(2, 3), (3, 3)}
    assert len(level.floor) == 16 and len(level.walls) == 20
    assert not level.outside


def test_floor_aliases_read_as_floor_and_are_written_as_spaces() -> None:
    level = parse_level("#####\n#@-_#\n#$_.#\n#####\n")
    assert len(level.floor) == 6
    assert level_to_text(level) == "#####\n#@  #\n#$ .#\n#####\n"


def test_cells_outside_the_walls_are_outside_not_floor() -> None:
    text = "  ####\n###  #\n#@$ .#\n######\n"
    level = parse_level(text)
    assert (0, 0) in level.outside and (1, 0) in level.outside
    assert (0, 0) not in level.floor
    assert level_to_text(level) == text


def test_a_file_holds_several_levels_with_titles_and_comments() -> None:
    text = (
        "; a collection\n\n; first\n#####\n#@$.#\n#####\n\n"
        "Level 2\n######\n#@$ .#\n######\n"
        "; third\n; its real title\n#######\n#@ $ .#\n#######\n"
    )
    levels = parse_levels(text, "set.txt")
    assert [lv.title for lv in levels] == ["first", "Level 2", "its real title"]
    assert [lv.pos.line for lv in levels if lv.pos] == [4, 9, 14]
    assert parse_level(text, "set.txt", 2).width == 6


def test_writing_several_levels_reads_back_the_same_levels_and_titles() -> None:
    levels = [parse_level(k.text) for k in KNOWN]
    titled = [Level(lv.width, lv.height, lv.walls, lv.floor, lv.goals, lv.boxes, lv.player, f"n{i}")
              for i, lv in enumerate(levels)]
    again = parse_levels(levels_to_text(titled, ["extra comment", ""]))
    assert list(again) == levels
    assert [lv.title for lv in again] == [f"n{i}" for i in range(len(levels))]


ERRORS = [
    ("unknown character", "######\n#@$x.#\n######\n", 2, 4, "unknown character 'x'"),
    ("text inside a level", "#####\n#@$.#\nhello\n#####\n", 3, 1, "unknown character 'h'"),
    ("no player", "; t\n#####\n# $.#\n#####\n", 2, 1, "no player"),
    ("several players", "######\n#@$.@#\n######\n", 2, 5, "several players"),
    ("boxes and goals differ", "\n######\n#@$$.#\n######\n", 2, 1, "2 box(es) but 1 goal(s)"),
    ("no box", "#####\n#@ .#\n#####\n", 1, 1, "no box"),
    ("open border", "#####\n#@$. \n#####\n", 2, 5, "open level"),
    ("short row leaks", "#####\n#@$.#\n###\n", 3, 4, "open level"),
    ("box outside", "#######\n#@ .#$#\n#######\n", 2, 6, "box outside"),
    ("goal outside", "#######\n#@$ #.#\n#######\n", 2, 6, "goal outside"),
    ("more goals than boxes", "#####\n#@*.#\n#   #\n#####\n", 1, 1, "1 box(es) but 2 goal(s)"),
    ("all boxes on goals", "#####\n#@* #\n#####\n", 1, 1, "already on a goal"),
    ("no legal move", "#####\n#$@$#\n#.#.#\n#####\n", 2, 3, "no legal move"),
    ("empty file", "\n; nothing here\n", 1, 1, "no level found"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_bad_levels_raise_a_positioned_sokoban_error(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(SokobanError) as info:
        parse_level(text, "bad.txt")
    assert info.value.pos is not None
    assert (info.value.pos.file, info.value.pos.line, info.value.pos.column) == ("bad.txt", line, column)
    assert message in info.value.message
    assert str(info.value).startswith(f"bad.txt:{line}:{column}: ")
    assert isinstance(info.value, ValueError)


def test_asking_for_a_missing_level_number_is_an_error() -> None:
    with pytest.raises(SokobanError, match="level 3 requested but the file holds 1"):
        parse_level(L2.text, "one.txt", 3)


def test_a_level_wider_or_higher_than_the_limit_is_refused_with_its_position() -> None:
    from ggp.translators.sokoban.level import MAX_SIDE

    with pytest.raises(SokobanError, match=rf"wide\.txt:2:{MAX_SIDE + 1}: line is 200,000 characters long"):
        parse_levels("#####\n" + "#" * 200_000 + "\n", "wide.txt")
    with pytest.raises(SokobanError, match=rf"high\.txt:{MAX_SIDE + 1}:1: level has {MAX_SIDE + 44} rows"):
        parse_levels("#@$.#\n" * (MAX_SIDE + 44), "high.txt")
