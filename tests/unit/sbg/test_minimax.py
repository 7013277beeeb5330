"""RAPP's heuristic min-max on SBG boards: the compiled search agrees with the Python reference, and
the evaluation terms mean what docs/rapp.md says."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings

from ggp.reasoner.heuristics import HEURISTIC_NAMES, Heuristic
from ggp.translators.sbg.engine import SbgEngine, SbgState
from ggp.translators.sbg.minimax import TIE, WIN, SbgMinimax, reach
from ggp.translators.sbg.model import SbgGame
from ggp.translators.sbg.native import NativeSearch, native_search
from ggp.translators.sbg.parser import parse_sbg
from tests.conftest import GAMES_DIR
from tests.prerequisites import missing
from tests.unit.sbg.sbg_strategies import sbg_games

GAME_FILES = sorted(GAMES_DIR.glob("*.sbg"))


def _native(reference: SbgMinimax) -> NativeSearch:
    search = native_search(reference)
    if search is None:
        missing("a C compiler (cc, gcc or clang) for the compiled SBG min-max")
    return search


def _best(values: list[tuple[tuple[int, int, int, int], float]]) -> tuple[float, list[tuple[int, int, int, int]]]:
    top = max(value for _, value in values)
    return top, [move for move, value in values if value > top - TIE]


def _positions(engine: SbgEngine, seed: int, count: int) -> list[SbgState]:
    """The initial position and positions along random playouts."""
    rng = random.Random(seed)
    found: list[SbgState] = []
    state = engine.initial_state()
    while len(found) < count:
        found.append(state)
        moves = engine.legal_moves(state)
        if engine.is_terminal(state) or not moves:
            state = engine.initial_state()
            continue
        state = engine.apply_unchecked(state, rng.choice(moves))
    return found


def _assert_agree(game: SbgGame, positions: int, seed: int, depths: tuple[int, ...], names: tuple[str, ...]) -> None:
    reference = SbgMinimax(SbgEngine(game))
    native = _native(reference)
    for state in _positions(reference.engine, seed, positions):
        if reference.engine.is_terminal(state) or not reference.engine.legal_moves(state):
            continue
        for side in ("white", "black"):
            expected = reference.side_terms(state.board, side)
            found = native.side_terms(state.board, side)
            assert found == pytest.approx(tuple(expected.values()), abs=1e-9), (state, side)
        for depth in depths:
            for name in names:
                heuristic = Heuristic.parse(name)
                python_best = _best(reference.root_values(state, heuristic, depth))
                c_best = _best(native.root_values(state, heuristic, depth))
                assert c_best[0] == pytest.approx(python_best[0], abs=1e-6), (state, name, depth)
                assert c_best[1] == python_best[1], (state, name, depth)


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_compiled_search_agrees_with_the_reference_on_every_game(path: Path) -> None:
    game = parse_sbg(path.read_text(), str(path))
    _assert_agree(game, positions=6, seed=len(path.stem), depths=(1, 2), names=HEURISTIC_NAMES)


@settings(max_examples=40, deadline=None)
@given(sbg_games(max_side=5))
def test_compiled_search_agrees_on_random_games(game: SbgGame) -> None:
    # Riders, hoppers, own-piece captures, placement and capture goals of any count, odd boards.
    _assert_agree(game, positions=4, seed=1, depths=(1, 3), names=("C", "WGCM", "CGC", "WM"))


CHESS = parse_sbg((GAMES_DIR / "chess.sbg").read_text())


def test_weighted_values_follow_the_pieces_reach_on_an_empty_board() -> None:
    search = SbgMinimax(SbgEngine(CHESS))
    # Reach of chess pieces on an empty 8x8 board: knight 5.25, bishop 8.75, rook 14, queen 22.75.
    assert reach(search.engine, "N") == pytest.approx(5.25)
    assert reach(search.engine, "R") == pytest.approx(14.0)
    assert reach(search.engine, "Q") == pytest.approx(22.75)
    values = search.values
    assert values["P"] < values["N"] < values["B"] < values["R"] < values["Q"]
    assert values["q"] == values["Q"]
    board = search.engine.initial_state().board
    assert sum(values[ch] for ch in board if ch != ".") == pytest.approx(32.0)  # mean piece worth 1


def _search_of(text: str) -> tuple[SbgMinimax, str]:
    """The reference search of a game written in SBG, and its initial board."""
    search = SbgMinimax(SbgEngine(parse_sbg(text)))
    return search, search.engine.initial_state().board


def test_each_term_moves_when_its_feature_changes() -> None:
    search, board = _search_of(
        "<<T>> <BOARD> 4 4 |k...| |....| |....| |K..R| <PIECES> K (0,1,e)+(0,1,p)+(1,0,e)+(1,0,p)+(-1,0,e)+(0,-1,e) & "
        "R (0,1,e)^*(0,1,e)+(0,1,e)^*(0,1,p)+(1,0,e)^*(1,0,p)+(-1,0,e)^*(-1,0,e) & <GOALS> 40 & #k 0 & #K 0 &"
    )
    white = search.side_terms(board, "white")
    black = search.side_terms(board, "black")
    assert (white["pieces"], black["pieces"]) == (2.0, 1.0)
    assert white["mobility"] > black["mobility"] > 0
    assert white["goal"] == -10.0 and black["goal"] == -10.0  # one king each to capture, no threats yet
    # Move the rook to the black king's file: the king is threatened, the goal term rises by 0.5.
    cells = list(board)
    cells[3], cells[4] = ".", "R"  # the rook from d1 to a2, on the king's file (k on a4)
    assert search.side_terms("".join(cells), "white")["goal"] == pytest.approx(-9.5)
    assert search.evaluate(board, "white", Heuristic.parse("C")) == 1.0
    assert search.evaluate(board, "black", Heuristic.parse("C")) == -1.0


def test_placement_goals_count_king_steps_to_the_goal_row() -> None:
    search, board = _search_of(
        "<<T>> <BOARD> 3 5 |..k| |...| |...| |P..| |..K| <PIECES> P (0,1,e) & K (1,0,e)+(-1,0,e) & "
        "<GOALS> 30 & @P 0 4, 1 4, 2 4 & #k 0 & #K 0 &"
    )
    assert search.side_terms(board, "white")["goal"] == pytest.approx(-10 - 0.5 * 3)


def test_a_win_in_one_is_found_and_preferred_to_material() -> None:
    game = parse_sbg(
        "<<T>> <BOARD> 3 3 |k.q| |...| |K..| <PIECES> K (0,1,e)^*(0,1,p)+(1,0,e)^*(1,0,p) & Q (0,-1,e) & "
        "<GOALS> 9 & #k 0 & #K 0 &"
    )
    search = SbgMinimax(SbgEngine(game))
    for depth in (1, 2, 3):
        top, best = _best(search.root_values(search.engine.initial_state(), Heuristic.parse("W"), depth))
        assert best == [(0, 0, 0, 2)] and top == WIN - 1


def test_a_bad_depth_is_a_clear_error() -> None:
    search = SbgMinimax(SbgEngine(CHESS))
    with pytest.raises(ValueError, match="depth must be at least 1"):
        search.root_values(search.engine.initial_state(), Heuristic.parse("C"), 0)
