"""Reference engine: the spec's worked example (sbg.md §10) and hand-checked positions."""

from __future__ import annotations

import random

import pytest

from ggp.errors import IllegalMoveError
from ggp.translators.sbg.automaton import compile_regex, destinations
from ggp.translators.sbg.engine import SbgEngine, SbgState
from ggp.translators.sbg.model import Alt, Cat, Letter, Rep, Sym
from ggp.translators.sbg.parser import parse_sbg, parse_sbg_syntax
from tests.conftest import GAMES_DIR

SIX_DEMO = GAMES_DIR / "six_demo.sbg"


@pytest.fixture(scope="module")
def six() -> SbgEngine:
    return SbgEngine(parse_sbg(SIX_DEMO.read_text(), SIX_DEMO.name))


def test_six_demo_white_has_exactly_the_eleven_listed_moves(six: SbgEngine) -> None:
    expected = {
        (0, 1, 0, 2), (1, 1, 1, 2), (2, 1, 2, 2), (3, 1, 3, 2), (4, 1, 4, 2), (5, 1, 5, 2),
        (1, 0, 0, 2), (1, 0, 2, 2), (4, 0, 3, 2), (4, 0, 5, 2), (3, 0, 2, 0),
    }
    moves = six.legal_moves(six.initial_state())
    assert len(moves) == 11 and set(moves) == expected
    assert list(moves) == sorted(moves)


def test_six_demo_black_mirrors_dy(six: SbgEngine) -> None:
    moves = six.legal_moves(six.initial_state(), "black")
    assert len(moves) == 11
    assert {(0, 4, 0, 3), (1, 5, 0, 3), (3, 5, 2, 5)} <= set(moves)


def test_six_demo_rook_ride_stops_before_an_own_piece(six: SbgEngine) -> None:
    state = six.apply(six.initial_state(), (0, 1, 0, 2))
    state = six.apply(state, (5, 4, 5, 3))
    rook = [m for m in six.legal_moves(state) if m[:2] == (0, 0)]
    assert rook == [(0, 0, 0, 1)]


def test_six_demo_after_two_pawn_moves_white_has_thirteen(six: SbgEngine) -> None:
    state = six.apply(six.apply(six.initial_state(), (3, 1, 3, 2)), (2, 4, 2, 3))
    moves = set(six.legal_moves(state))
    assert len(moves) == 13
    assert (3, 2, 2, 3) in moves and (3, 0, 3, 1) in moves and (4, 0, 3, 2) not in moves


def test_six_demo_a_pawn_on_the_last_row_wins_at_once(six: SbgEngine) -> None:
    board = list(six.initial_state().board)
    board[4 * 6 + 0] = "P"  # white pawn on (0, 4) replaces black's; (1, 5) holds black's knight
    state = SbgState("".join(board), "white", 10)
    after = six.apply(state, (0, 4, 1, 5))
    assert six.outcome(after) == "white" and six.scores(after) == (100, 0)
    with pytest.raises(IllegalMoveError):
        six.apply(after, (0, 5, 0, 4))


def test_six_demo_draws_when_the_last_ply_is_played_without_a_win(six: SbgEngine) -> None:
    state = SbgState(six.initial_state().board, "white", 119)
    after = six.apply(state, (0, 1, 0, 2))
    assert six.outcome(after) == "draw" and six.scores(after) == (50, 50)
    assert six.outcome(SbgState(after.board, "white", 118)) is None


TINY = """<<Tiny>> <BOARD> 3 3 |b..| |...| |KA.|
<PIECES> K (0,1,e) + (1,0,w) & A (-1,0,w)(1,0,w) &
<GOALS> 20 & #A 0 & #K 0 &"""


def test_capturing_an_own_piece_hands_the_win_to_the_opponent() -> None:
    engine = SbgEngine(parse_sbg(TINY))
    state = engine.initial_state()
    assert engine.legal_moves(state) == ((0, 0, 0, 1), (0, 0, 1, 0), (1, 0, 1, 0))
    after = engine.apply(state, (0, 0, 1, 0))
    assert after.board[:3] == ".K." and engine.outcome(after) == "black"
    assert engine.scores(after) == (0, 100)


def test_a_word_ending_on_its_start_square_passes_and_a_blocked_side_loses() -> None:
    game = parse_sbg(TINY)
    assert [w.message for w in game.warnings] == ["piece type 'B' is on the board but has no rule: it never moves"]
    engine = SbgEngine(game)
    after = engine.apply(engine.initial_state(), (1, 0, 1, 0))
    assert after.board == engine.initial_state().board and after.to_move == "black"
    assert engine.legal_moves(after) == () and engine.outcome(after) == "white"


def test_the_mover_s_goal_is_tested_before_the_opponent_s() -> None:
    text = TINY.replace("#A 0 & #K 0 &", "#A 0 & #b 0 &").replace("(1,0,w) &", "(1,0,w) + (0,2,p) &")
    engine = SbgEngine(parse_sbg(text))
    state = SbgState("KA." + "..." + "b..", "white", 0)
    assert engine.outcome(engine.apply(state, (0, 0, 0, 2))) == "white"


def test_nfa_search_mirrors_dy_and_terminates_on_star_loops() -> None:
    up_e, up_p = Sym(Letter(0, 1, "e")), Sym(Letter(0, 1, "p"))
    nfa = compile_regex(Alt((Cat((Rep(up_e, None), up_e)), Cat((Rep(up_e, None), up_p)))))
    board = {(0, 3): "p"}

    def holds(x: int, y: int, on: str) -> bool:
        content = board.get((x, y))
        return (on == "e") == (content is None) and (content is None or on == "p")

    assert destinations(nfa, (0, 0), 1, 5, holds) == {(0, 1), (0, 2), (0, 3)}
    assert destinations(nfa, (0, 4), -1, 5, holds) == {(0, 3)}
    assert destinations(nfa, (0, 2), -1, 5, holds) == {(0, 1), (0, 0)}
    loop = compile_regex(Rep(Alt((Sym(Letter(1, 0, "e")), Sym(Letter(-1, 0, "e")))), None))
    assert destinations(loop, (1, 0), 1, (3, 1), lambda x, y, on: True) == {(0, 0), (1, 0), (2, 0)}


def test_random_playouts_end_with_consistent_scores() -> None:
    engine = SbgEngine(parse_sbg((GAMES_DIR / "gardner.sbg").read_text()))
    rng = random.Random(3)
    for _ in range(5):
        state = engine.initial_state()
        while not engine.is_terminal(state):
            state = engine.apply(state, rng.choice(engine.legal_moves(state)))
        assert state.ply <= engine.game.turn_limit
        assert sum(engine.scores(state)) == 100


def test_parse_only_keeps_a_game_that_the_checks_would_reject() -> None:
    game = parse_sbg_syntax(TINY.replace("#A 0", "#A 1"))
    assert SbgEngine(game).goal_holds(SbgEngine(game).initial_state().board, "black")
