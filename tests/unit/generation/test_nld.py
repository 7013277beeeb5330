"""f_NLD reproduces the thesis's printed piece and game values (metrics.md §4.3, docs/generation.md).

Thesis values that cannot be reproduced, and why (each is also a skipped test below):

- Weather Chess 236 and its piece values 16, 18, 12, 8, 16, 10: the thesis prints the values and
  counts but not the rules; only formula (3.7) on the printed values is checked.
- The generated example piece "captures own over (5,2)/(2,5) or rides over own pieces H/V", 136: the
  thesis prints its description and value, not its move expression or board.
- SIMB 30-P4 253 and Tamerlane chess 376: the rules of the thesis's SBG encodings are not available.

Legacy of Ibis's pieces are reconstructed from the descriptions the thesis prints for them (each
sentence names a leaper or rider, its operators and N), on its 7x7 board with the printed counts.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggp.generation.nld import game_nld, generic_cost, nld_value, piece_score
from ggp.generation.nld_descriptions import Description
from ggp.generation.nld_words import OPERATOR_COST, Part, Word, operator_sets, parts_of, vector_cost, words_of
from ggp.translators.sbg.model import Letter, Regex
from ggp.translators.sbg.parser import parse_sbg, parse_sbg_syntax
from tests.conftest import GAMES_DIR
from tests.unit.sbg.sbg_strategies import regexes

ORTH, DIAG, KNIGHT = [(1, 0), (0, 1)], [(1, 1)], [(1, 2), (2, 1)]
SIGNS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]


def leap(vectors: list[tuple[int, int]], ons: str = "ep") -> str:
    return " + ".join(f"({x},{y},{on})" for a, b in vectors for x in sorted({a, -a}) for y in sorted({b, -b})
                      for on in ons)


def steps(vectors: list[tuple[int, int]]) -> str:
    """Leaps to exactly these (signed) vectors, onto empty or opponent."""
    return " + ".join(f"({x},{y},{on})" for x, y in vectors for on in "ep")


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


def ep(x: int, y: int) -> str:
    return f"(({x},{y},e) + ({x},{y},p))"


PAWN = "(0,1,e) + (-1,1,p) + (1,1,p)"
# Bent pieces of §3.3, as fairy chess defines them: a first step (or slide) over empty squares, then
# a second part. The griffon may stop on its diagonal step (an empty square) as the SBG expression
# "(1,1,e)(1,0,e)^*" allows; the hippogriff needs at least three orthogonal steps; the duke
# (Greenwood's RennChess) slides diagonally, then steps one square orthogonally outwards.
BENT = {
    "ferz then wazir": (" + ".join(f"({a},{b},e){ep(x, y)}" for a, b in SIGNS
                                   for x, y in [(1, 0), (-1, 0), (0, 1), (0, -1)]), 12),
    "moa": (" + ".join(f"({a},{b},e){ep(x, y)}" for a, b in SIGNS for x, y in [(a, 0), (0, b)]), 36),
    "duke": (" + ".join(f"({a},{b},e)^*({a},{b},e){ep(x, y)}" for a, b in SIGNS for x, y in [(a, 0), (0, b)]), 60),
    "griffon": (" + ".join(f"({a},{b},e)({x},{y},e)^* + ({a},{b},e)({x},{y},e)^*({x},{y},p)"
                           for a, b in SIGNS for x, y in [(a, 0), (0, b)]), 78),
    "hippogriff": (" + ".join(f"({a},{b},e)({x},{y},e)^2({x},{y},e)^*{ep(x, y)}"
                              for a, b in SIGNS for x, y in [(a, 0), (0, b)]), 120),
}
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
    **BENT,
}
# Legacy of Ibis (7x7): per piece the thesis's description, our expression of it, its value.
IBIS = {
    "B": ("leaps 1 forward vertically or diagonally", steps([(0, 1), (1, 1), (-1, 1)]), 8, 2),
    "P": ("moves forward over vector (1,2)", "(1,2,e) + (-1,2,e)", 16, 6),
    "C": ("captures 1 forward diagonally; rides 2 times diagonally forward; leaps forward over vector (2,1)",
          "(1,1,p) + (-1,1,p) + " + steps([(2, 1), (-2, 1)]) + " + (1,1,e)" + ep(1, 1) + " + (-1,1,e)" + ep(-1, 1),
          26, 1),
    "K": ("leaps 1 forward vertically; moves forward over vector (3,1); captures 1 horizontally",
          "(1,0,p) + (-1,0,p) + (3,1,e) + (-3,1,e) + " + steps([(0, 1)]), 30, 1),
    "A": ("captures 1 forward diagonally; rides 2 times only over opponent pieces capturing or staying on "
          "empty diagonally forward; rides 2 times without capturing horizontally; rides 2 times without "
          "capturing diagonally forward",
          "(1,1,p) + (-1,1,p) + (1,1,e)(1,1,e) + (-1,1,e)(-1,1,e) + (1,1,p)(1,1,e) + (-1,1,p)(-1,1,e) + "
          "(1,0,e)(1,0,e) + (-1,0,e)(-1,0,e)", 56, 3),
}


def _regex(rule: str) -> Regex:
    return parse_sbg_syntax(f"<<A>> <BOARD> 1 2 |k| |K| <PIECES> K {rule} & <GOALS> 9 & #k 0 &").rules[0].regex


def _piece(rule: str, width: int = 8, height: int = 8) -> tuple[int, str]:
    score = piece_score("K", _regex(rule), width, height)
    return score.value, score.text()


@pytest.mark.parametrize("name", sorted(PIECES))
def test_the_thesis_example_pieces_get_their_printed_values(name: str) -> None:
    rule, value = PIECES[name]
    assert _piece(rule)[0] == value


@pytest.mark.parametrize("letter", sorted(IBIS))
def test_legacy_of_ibis_pieces_get_their_printed_values(letter: str) -> None:
    _, rule, value, _ = IBIS[letter]
    assert _piece(rule, 7, 7)[0] == value


def test_the_generated_example_piece_is_not_reproducible() -> None:
    pytest.skip("thesis §3.3 prints 136 for 'captures own over (5,2)/(2,5) or rides over own pieces H/V' "
                "but not the piece's move expression or board")


def test_weather_chess_pieces_are_not_reproducible() -> None:
    pytest.skip("Weather Chess 236 (pieces 16, 18, 12, 8, 16, 10): the thesis gives values and counts, not rules")


@pytest.mark.parametrize("game", ["SIMB 30-P4 (253)", "Tamerlane chess (376)"])
def test_games_without_available_rules_are_not_reproducible(game: str) -> None:
    pytest.skip(f"{game}: the rules of the thesis's SBG encoding are not available")


def test_the_bent_pieces_are_described_as_the_thesis_does() -> None:
    moa, ferz_wazir = _piece(BENT["moa"][0])[1], _piece(BENT["ferz then wazir"][0])[1]
    assert moa != ferz_wazir and "outwards" in moa and "outwards" not in ferz_wazir
    assert moa == "Moves one square diagonally, then leaps outwards one square horizontally or vertically."
    assert "at least 3 squares" in _piece(BENT["hippogriff"][0])[1]
    assert _piece(BENT["duke"][0])[1] == ("Moves up to 6 squares diagonally, then leaps outwards one square "
                                          "horizontally or vertically.")
    griffon = _piece(BENT["griffon"][0])[1]
    assert "then rides outwards any number of squares horizontally or vertically" in griffon


def test_vector_costs_match_the_spec() -> None:
    assert [vector_cost(*v) for v in [(1, 0), (1, 1), (2, 0), (2, 2), (1, 2), (3, 0), (1, 3), (2, 3)]] == \
        [2, 2, 3, 3, 4, 4, 5, 5]
    assert vector_cost(-2, 1) == vector_cost(1, 2)
    assert vector_cost(2, 4) == 6  # one king step from (2,4) reaches the diagonal (3,3)


def test_generic_fallback_example() -> None:
    word = (Letter(0, -1, "e"), Letter(0, 3, "e"), Letter(0, 1, "e"))
    assert generic_cost(word) == 24


def test_three_part_words_are_scored_by_the_fallback() -> None:
    word = (Letter(0, 1, "e"), Letter(1, 0, "e"), Letter(0, 1, "e"))
    assert _piece("(0,1,e)(1,0,e)(0,1,e)")[0] == generic_cost(word)


def test_the_short_rook_is_a_plain_rook_on_a_five_square_board() -> None:
    assert _piece(ride(ORTH, most=4), 5, 5)[0] == 4


def test_operator_sets_are_ordered_by_cost_and_have_no_contradictions() -> None:
    sets = operator_sets()
    assert sets[0] == () and sets[1] == ("forwards",)
    assert all(not {"forwards", "backwards"} <= set(s) for s in sets)
    assert all(len(s) <= 4 for s in sets)
    assert not any("outwards" in s for s in sets) and any("outwards" in s for s in operator_sets(True))
    costs = [sum(OPERATOR_COST[o] for o in s) for s in sets]
    assert costs == sorted(costs)


def _chess_like(name: str, rules: dict[str, str], back: str = "RNBQKBNR") -> str:
    pieces = "\n".join(f"{letter} {rule} &" for letter, rule in rules.items())
    return (f"<<{name}>> <BOARD> 8 8 |{back.lower()}| |pppppppp| " + "|........| " * 4
            + f"|PPPPPPPP| |{back}| <PIECES> {pieces} <GOALS> 200 & #K 0 & #k 0 &")


def _nld(path: str) -> int:
    return game_nld(parse_sbg((GAMES_DIR / path).read_text())).value


def test_table_3_2_shatranj_and_the_simplified_chess_from_the_games_folder() -> None:
    assert _nld("shatranj.sbg") == 166
    assert _nld("chess_simplified.sbg") == 168
    six = game_nld(parse_sbg((GAMES_DIR / "six_demo.sbg").read_text()))
    assert six.value == 160 and six.raw == pytest.approx(160.36, abs=0.01)


def test_table_3_2_cwda_armies() -> None:
    king = leap(ORTH + DIAG)
    clobberers = {"P": PAWN, "N": PIECES["waffle"][0], "B": PIECES["fad"][0], "R": PIECES["bede"][0],
                  "Q": PIECES["cardinal"][0], "K": king}
    rookies = {"P": PAWN, "N": PIECES["woody rook"][0], "B": PIECES["half duck"][0],
               "R": PIECES["short rook"][0], "Q": PIECES["chancellor"][0], "K": king}
    # Nutty Knights: charging rook (rook forwards and sideways, king backwards), fibnif (ferz, and the
    # knight's narrow leaps), charging knight (knight forwards, king sideways and backwards), colonel
    # (knight forwards, rook forwards and sideways, king).
    rook_fs = " + ".join(f"({x},{y},e)^*{ep(x, y)}" for x, y in [(1, 0), (-1, 0), (0, 1)])
    knight_f = steps([(1, 2), (-1, 2), (2, 1), (-2, 1)])
    nutty = {"P": PAWN, "R": rook_fs + " + " + steps([(-1, -1), (0, -1), (1, -1)]),
             "B": leap(DIAG) + " + " + steps([(1, 2), (-1, 2), (1, -2), (-1, -2)]),
             "N": knight_f + " + " + steps([(-1, 0), (1, 0), (-1, -1), (0, -1), (1, -1)]),
             "Q": " + ".join([knight_f, rook_fs, king]), "K": king}
    assert game_nld(parse_sbg(_chess_like("Colorbound Clobberers", clobberers))).value == 196
    assert game_nld(parse_sbg(_chess_like("Remarkable Rookies", rookies))).value == 222
    assert game_nld(parse_sbg(_chess_like("Nutty Knights", nutty))).value == 248


def test_table_3_2_legacy_of_ibis_from_the_reconstructed_pieces() -> None:
    # Counts per side as printed (A 3, B 2, C 1, K 1, P 6); the arrangement does not change f_NLD.
    back = "ABCABAK"
    pieces = "\n".join(f"{letter} {rule} &" for letter, (_, rule, _, _) in IBIS.items())
    text = (f"<<Legacy of Ibis>> <BOARD> 7 7 |{back.lower()}| |pp.pppp| " + "|.......| " * 3
            + f"|PP.PPPP| |{back}| <PIECES> {pieces} <GOALS> 160 & #K 0 & #k 0 &")
    score = game_nld(parse_sbg(text))
    assert {p.letter: c // 2 for p, c in zip(score.pieces, score.counts)} == {k: v[3] for k, v in IBIS.items()}
    assert score.value == 387 and score.raw == pytest.approx(387.69, abs=0.01)


def test_weather_chess_only_through_the_game_formula_on_the_printed_values() -> None:
    # Not a reproduction (no rules): checks formula (3.7) and its truncation, 236.8 -> 236.
    assert nld_value([(7, 16), (2, 18), (2, 12), (1, 8), (2, 16), (1, 10)]) == 236


def test_an_immobile_type_scores_zero_but_counts() -> None:
    text = _chess_like("Still", {"P": PAWN, "N": leap(KNIGHT), "B": ride(DIAG), "R": ride(ORTH),
                                 "K": leap(ORTH + DIAG)})
    score = game_nld(parse_sbg(text))
    queen = next(p for p in score.pieces if p.letter == "Q")
    assert queen.value == 0 and queen.text() == "Never moves."
    assert score.value == int((128 + 16 + 4 + 8 + 0 + 6) / 16 * 16)


def test_english_descriptions_merge_with_or() -> None:
    assert _piece(leap(KNIGHT))[1] == "Moves like a knight."
    assert _piece(PIECES["centaur"][0])[1] == "Moves like a king and a knight."
    assert _piece("(1,1,e)^*(1,1,p) + (-1,1,e)^*(-1,1,p) + (1,-1,e)^*(1,-1,p) + (-1,-1,e)^*(-1,-1,p)")[1] == \
        "Captures any number of squares diagonally."
    assert _piece(PAWN)[1] == "Captures one square diagonally, forwards. Moves one square vertically, forwards."
    assert _piece(PIECES["short rook"][0])[1] == "Rides up to 4 squares horizontally or vertically."
    assert _piece(steps([(0, 1), (1, 1), (-1, 1)]))[1] == "Leaps one square vertically or diagonally, forwards."
    assert _piece(PIECES["buffalo"][0])[1] == "Moves like a knight. Leaps over vector (1,3), (2,3), (3,1) or (3,2)."


# --- the descriptions are true ---------------------------------------------------------------------

ONS = ("e", "p", "w")


def _reference_allows(part: Part, word: Word, start: tuple[int, int]) -> bool:
    """The operator definitions read off a word directly (independent of the library's generator)."""
    ops, (a, b) = set(part.operators), part.key
    v = (word[0].dx, word[0].dy)
    keys = {(a, b), (b, a)} if part.kind == "leaper2" else {(a, b)}
    if any((letter.dx, letter.dy) != v for letter in word) or (abs(v[0]), abs(v[1])) not in keys:
        return False
    if part.kind != "rider" and len(word) != 1:
        return False
    n, length = part.n, len(word)
    checks = {
        "forwards": v[1] > 0, "backwards": v[1] < 0, "sideways": v[1] == 0, "not horizontal": v[1] != 0,
        "max N times": length <= n, "min N times": length >= n, "exactly N times": length == n,
        "only odd": length % 2 == 1, "only even": length % 2 == 0,
        "outwards": all(s == 0 or c == 0 or (s > 0) == (c > 0) for s, c in zip(start, v)),
        "horizontally outwards": start[0] == 0 or v[0] == 0 or (start[0] > 0) == (v[0] > 0),
        "vertically outwards": start[1] == 0 or v[1] == 0 or (start[1] > 0) == (v[1] > 0),
    }
    if not all(ok for op, ok in checks.items() if op in ops):
        return False
    middle = {x.on for x in word[:-1]}
    final = word[-1].on
    own_middle = "over own piece instead" in ops or "over own pieces, ending normally" in ops
    opp_middle = "over opponent pieces instead" in ops or "over opponent pieces, ending normally" in ops
    if middle - {"w" if own_middle else "p" if opp_middle else "e"}:
        return False
    # The square the move would land on before "over ... instead" and "captures own instead" change it.
    before = ["p"] if "only capture" in ops else ["e"] if "without capture" in ops else ["e", "p"]

    def landing(on: str) -> str:
        if "over own piece instead" in ops and on == "e":
            on = "w"
        if "over opponent pieces instead" in ops:
            on = "p"
        return "w" if "captures own instead" in ops and on == "p" else on

    return any(landing(on) == final for on in before)


def _all_words(part: Part, start: tuple[int, int], limit: int) -> set[Word]:
    a, b = part.key
    vectors = {(sx * x, sy * y) for x, y in {(a, b), (b, a)} for sx in (1, -1) for sy in (1, -1)}
    found: set[Word] = set()
    for vx, vy in vectors:
        for length in range(1, limit + 1):
            for code in range(3 ** length):
                ons = [ONS[code // 3 ** i % 3] for i in range(length)]
                found.add(tuple(Letter(vx, vy, on) for on in ons))  # type: ignore[arg-type]
    return found


def _check_truth(regex: Regex, width: int, height: int) -> None:
    words, truncated = words_of(regex, width, height)
    if truncated:
        return
    score = piece_score("X", regex, width, height)
    allowed: set[Word] = set()
    by_text: dict[str, frozenset[Word]] = {}
    for d in score.descriptions:
        moves = d.moves(width, height)
        assert moves <= words, d.text()  # the text never allows a move the piece lacks
        allowed |= moves
        assert by_text.setdefault(d.text(), moves) == moves  # one text, one meaning
        _check_interpreter(d, width, height)
    assert allowed == words  # every move of the piece is described
    assert score.value == sum(d.cost for d in score.descriptions)


def _check_interpreter(d: Description, width: int, height: int) -> None:
    """The words the text's parts generate are exactly the ones the operator definitions allow (≤ 3 steps)."""
    for index, part in enumerate(d.parts):
        starts: list[tuple[tuple[int, int], Word]]
        if index == 0:
            starts = [((0, 0), ())]
        else:
            starts = [((sum(x.dx for x in p), sum(x.dy for x in p)), p) for p in d.parts[0].words(width, height)]
        for (sx, sy), prefix in starts[:3]:
            end = _end_of(prefix)
            generated = {w for w in part.words(width, height, end) if len(w) <= 3}
            reference = {w for w in _all_words(part, (sx, sy), 3)
                         if _fits(prefix + w, width, height) and _reference_allows(part, w, (sx, sy))}
            assert generated == reference, (part, prefix)


def _end_of(prefix: Word) -> tuple[int, int, int, int, int, int]:
    x = y = lox = hix = loy = hiy = 0
    for letter in prefix:
        x, y = x + letter.dx, y + letter.dy
        lox, hix, loy, hiy = min(lox, x), max(hix, x), min(loy, y), max(hiy, y)
    return x, y, lox, hix, loy, hiy


def _fits(word: Word, width: int, height: int) -> bool:
    x = y = lox = hix = loy = hiy = 0
    for letter in word:
        x, y = x + letter.dx, y + letter.dy
        lox, hix, loy, hiy = min(lox, x), max(hix, x), min(loy, y), max(hiy, y)
    return hix - lox <= width - 1 and hiy - loy <= height - 1


@st.composite
def fairy_pieces(draw: st.DrawFn) -> str:
    """Random pieces in the shapes f_NLD names: leapers, riders (some bounded), and bent two-part moves."""
    options = []
    for _ in range(draw(st.integers(1, 3))):
        a, b = draw(st.sampled_from([(1, 0), (0, 1), (1, 1), (1, 2), (2, 1), (2, 0), (2, 2), (3, 1)]))
        # Mostly sign sets an operator can name (all, forwards, backwards), sometimes any subset.
        signs = draw(st.one_of(st.sampled_from([SIGNS, SIGNS, SIGNS[::2], SIGNS[1::2]]),
                               st.lists(st.sampled_from(SIGNS), min_size=1, max_size=4, unique=True)))
        middle = draw(st.sampled_from(["e", "e", "w", "p"]))
        finals = draw(st.sampled_from(["e", "p", "ep", "w", "pw"]))
        shape = draw(st.sampled_from(["leap", "ride", "bounded", "exact", "bent"]))
        for sx, sy in signs:
            x, y = sx * a, sy * b
            end = "(" + " + ".join(f"({x},{y},{on})" for on in finals) + ")"
            if shape == "leap":
                options.append(end)
            elif shape == "ride":
                options.append(f"({x},{y},{middle})^*{end}")
            elif shape == "bounded":
                options += [f"({x},{y},{middle})^{n}{end}" for n in range(1, draw(st.integers(1, 3)))] + [end]
            elif shape == "exact":
                options.append(f"({x},{y},{middle})^{draw(st.integers(1, 3))}{end}")
            else:
                turns = [(sx, 0), (0, sy)] if draw(st.booleans()) else [(1, 0), (-1, 0), (0, 1), (0, -1)]
                tail = draw(st.sampled_from(["", "^*"]))
                first = f"({x},{y},e)^*({x},{y},e)" if draw(st.booleans()) and (a, b) == (1, 1) else f"({x},{y},e)"
                options += [f"{first}({c},{d},e){tail}(({c},{d},e) + ({c},{d},p))" for c, d in turns]
    return " + ".join(options)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fairy_pieces(), st.integers(4, 8), st.integers(4, 8))
def test_the_text_allows_exactly_the_moves_of_a_random_fairy_piece(rule: str, width: int, height: int) -> None:
    _check_truth(_regex(rule), width, height)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(regexes, st.integers(3, 6), st.integers(3, 6))
def test_the_text_allows_exactly_the_moves_of_a_random_move_expression(regex: Regex, width: int, height: int) -> None:
    _check_truth(regex, width, height)


def test_parts_split_where_the_vector_changes() -> None:
    word = (Letter(1, 1, "e"), Letter(1, 1, "e"), Letter(1, 0, "p"))
    assert parts_of(word) == [word[:2], word[2:]]
