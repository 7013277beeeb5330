"""f_NLD reproduces the published piece and game values of metrics.md §4.3."""

from __future__ import annotations

import pytest

from ggp.generation.nld import (
    game_nld,
    generic_cost,
    nld_value,
    operator_sets,
    piece_score,
    vector_cost,
)
from ggp.translators.sbg.model import Letter
from ggp.translators.sbg.parser import parse_sbg, parse_sbg_syntax
from tests.conftest import GAMES_DIR

ORTH, DIAG, KNIGHT = [(1, 0), (0, 1)], [(1, 1)], [(1, 2), (2, 1)]


def leap(vectors: list[tuple[int, int]], ons: str = "ep") -> str:
    return " + ".join(f"({x},{y},{on})" for a, b in vectors for x in sorted({a, -a}) for y in sorted({b, -b})
                      for on in ons)


def ride(vectors: list[tuple[int, int]], most: int | None = None) -> str:
    words = []
    for a, b in vectors:
        for x in sorted({a, -a}):
            for y in sorted({b, -b}):
                final = f"(({x},{y},e) + ({x},{y},p))"
                if most is None:
                    words.append(f"({x},{y},e)^*{final}")
                else:
                    words += [f"({x},{y},e)^{n}{final}" for n in range(1, most)] + [final]
    return " + ".join(words)


PAWN = "(0,1,e) + (-1,1,p) + (1,1,p)"
PIECES = {
    "king": (leap(ORTH + DIAG), 6), "queen": (ride(ORTH + DIAG), 6), "rook": (ride(ORTH), 4),
    "bishop": (ride(DIAG), 2), "knight": (leap(KNIGHT), 8), "simplified pawn": (PAWN, 16),
    "ferz": (leap(DIAG), 2), "alfil": (leap([(2, 2)]), 3), "dabbaba": (leap([(2, 0), (0, 2)]), 6),
    "short rook": (ride(ORTH, most=4), 12), "lance": ("(0,1,e)^*((0,1,e) + (0,1,p))", 4),
    "centaur": (leap(ORTH + DIAG + KNIGHT), 14),
    "buffalo": (leap([(3, 2), (2, 3), (3, 1), (1, 3), (1, 2), (2, 1)]), 28),
    "bede": (ride(DIAG) + " + " + leap([(2, 0), (0, 2)]), 8),
    "waffle": (leap(ORTH + [(2, 2)]), 7),
    "fad": (leap(DIAG + [(2, 2), (2, 0), (0, 2)]), 11),
    "cardinal": (ride(DIAG) + " + " + leap(KNIGHT), 10),
    "half duck": (leap(DIAG + [(2, 0), (0, 2), (3, 0), (0, 3)]), 16),
    "woody rook": (leap(ORTH + [(2, 0), (0, 2)]), 10),
    "chancellor": (ride(ORTH) + " + " + leap(KNIGHT), 12),
}


def _score(rule: str, width: int = 8, height: int = 8) -> int:
    game = parse_sbg_syntax(f"<<A>> <BOARD> 1 2 |k| |K| <PIECES> K {rule} & <GOALS> 9 & #k 0 &")
    return piece_score("K", game.rules[0].regex, width, height).value


@pytest.mark.parametrize("name", sorted(PIECES))
def test_published_piece_values(name: str) -> None:
    rule, value = PIECES[name]
    assert _score(rule) == value


def test_vector_costs_match_the_spec() -> None:
    assert [vector_cost(*v) for v in [(1, 0), (1, 1), (2, 0), (2, 2), (1, 2), (3, 0), (1, 3), (2, 3)]] == \
        [2, 2, 3, 3, 4, 4, 5, 5]
    assert vector_cost(-2, 1) == vector_cost(1, 2)


def test_generic_fallback_example() -> None:
    word = (Letter(0, -1, "e"), Letter(0, 3, "e"), Letter(0, 1, "e"))
    assert generic_cost(word) == 24


def test_a_hopper_is_scored_by_the_fallback() -> None:
    # Jump over an adjacent opponent piece to the empty square behind it, vertically forward only.
    assert _score("(0,1,p)(0,1,e)") == generic_cost((Letter(0, 1, "p"), Letter(0, 1, "e"))) == 3 * 2


def test_the_short_rook_is_a_plain_rook_on_a_five_square_board() -> None:
    assert _score(ride(ORTH, most=4), 5, 5) == 4


def test_operator_sets_are_ordered_by_cost_and_have_no_contradictions() -> None:
    sets = operator_sets()
    assert sets[0] == () and sets[1] == ("forwards",)
    assert all(not {"forwards", "backwards"} <= set(s) for s in sets)
    assert all(len(s) <= 4 for s in sets)


def _chess_like(name: str, rules: dict[str, str], back: str = "RNBQKBNR") -> str:
    pieces = "\n".join(f"{letter} {rule} &" for letter, rule in rules.items())
    return (f"<<{name}>> <BOARD> 8 8 |{back.lower()}| |pppppppp| " + "|........| " * 4
            + f"|PPPPPPPP| |{back}| <PIECES> {pieces} <GOALS> 200 & #K 0 & #k 0 &")


def test_chess_with_the_simplified_pawn_scores_168() -> None:
    text = _chess_like("Chess", {"P": PAWN, "N": leap(KNIGHT), "B": ride(DIAG), "R": ride(ORTH),
                                 "Q": ride(ORTH + DIAG), "K": leap(ORTH + DIAG)})
    score = game_nld(parse_sbg(text))
    assert score.value == 168 and score.raw == pytest.approx(168)


def test_shatranj_and_the_six_demo_from_the_games_folder() -> None:
    assert game_nld(parse_sbg((GAMES_DIR / "shatranj.sbg").read_text())).value == 166
    six = game_nld(parse_sbg((GAMES_DIR / "six_demo.sbg").read_text()))
    assert six.value == 160 and six.raw == pytest.approx(160.36, abs=0.01)


def test_cwda_armies() -> None:
    clobberers = {"P": PAWN, "N": PIECES["waffle"][0], "B": PIECES["fad"][0], "R": PIECES["bede"][0],
                  "Q": PIECES["cardinal"][0], "K": leap(ORTH + DIAG)}
    rookies = {"P": PAWN, "N": PIECES["woody rook"][0], "B": PIECES["half duck"][0],
               "R": PIECES["short rook"][0], "Q": PIECES["chancellor"][0], "K": leap(ORTH + DIAG)}
    assert game_nld(parse_sbg(_chess_like("Colorbound Clobberers", clobberers))).value == 196
    assert game_nld(parse_sbg(_chess_like("Remarkable Rookies", rookies))).value == 222


def test_game_formula_with_the_published_counts_of_weather_chess_and_legacy_of_ibis() -> None:
    assert nld_value([(7, 16), (2, 18), (2, 12), (1, 8), (2, 16), (1, 10)]) == 236
    assert nld_value([(2, 8), (6, 16), (1, 26), (1, 30), (3, 56)]) == 387


def test_an_immobile_type_scores_zero_but_counts() -> None:
    text = _chess_like("Still", {"P": PAWN, "N": leap(KNIGHT), "B": ride(DIAG), "R": ride(ORTH),
                                 "K": leap(ORTH + DIAG)})
    score = game_nld(parse_sbg(text))
    queen = next(p for p in score.pieces if p.letter == "Q")
    assert queen.value == 0 and queen.text() == "Never moves."
    assert score.value == int((128 + 16 + 4 + 8 + 0 + 6) / 16 * 16)


def test_english_descriptions() -> None:
    def text(rule: str) -> str:
        game = parse_sbg_syntax(f"<<A>> <BOARD> 1 2 |k| |K| <PIECES> K {rule} & <GOALS> 9 & #k 0 &")
        return piece_score("K", game.rules[0].regex, 8, 8).text()

    assert text(leap(KNIGHT)) == "Moves like a knight."
    assert text(PIECES["centaur"][0]) == "Moves like a king and a knight."
    assert text("(1,1,e)^*(1,1,p) + (-1,1,e)^*(-1,1,p) + (1,-1,e)^*(1,-1,p) + (-1,-1,e)^*(-1,-1,p)") == \
        "Captures any number of squares diagonally."
    assert text(PAWN) == "Captures one square diagonally, forwards. Moves one square vertically, forwards."
    assert "up to 4 steps horizontally" in text(PIECES["short rook"][0])
