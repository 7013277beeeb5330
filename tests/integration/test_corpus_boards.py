"""Every ggp.org corpus game's first state through the board recogniser (ggp/manager/boards.py): how
many get a board. The count may grow but never drop below :data:`BOARD_FLOOR`; docs/ui.md lists the
games shown as fluent lists.

Each game's possible fluents come from the reasoner (``base``, else the relaxed domain) in a child
process limited to :data:`DOMAIN_SECONDS`; a game over that limit is recognised from its initial state
and its declared axes, as the manager does.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ggp.errors import ReasonerError
from ggp.gdl.terms import Func, Term
from ggp.manager.boards import BoardGeometry, recognise_board
from ggp.reasoner.domains import initial_fluents, isolated_possible_fluents
from tests.conftest import corpus_games
from tests.helpers.gdl_corpus import parsed

BOARD_FLOOR = 192
"""Corpus games drawn as a board when this test was written (of 235); docs/ui.md lists the others."""
DOMAIN_SECONDS = 5.0

pytestmark = pytest.mark.timeout(1200)


def first_state_board(path: Path) -> tuple[str, BoardGeometry | None, frozenset[Term]]:
    description = parsed(path)
    try:
        possible = isolated_possible_fluents(description, seconds=DOMAIN_SECONDS)
    except ReasonerError:
        possible = frozenset()
    initial = initial_fluents(description)
    return path.stem, recognise_board(description, possible, initial), initial


def test_most_corpus_games_get_a_board_that_holds_their_first_state(shared_dir: Path) -> None:
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(first_state_board, corpus_games()))
    boards = {key: board for key, board, _ in results if board is not None}
    without = sorted(key for key, board, _ in results if board is None)
    print(f"\n{len(boards)} of {len(results)} corpus games get a board; fluent lists: {', '.join(without)}")
    assert len(boards) >= BOARD_FLOOR, f"only {len(boards)} boards (floor {BOARD_FLOOR}); without: {without}"
    for key, board, initial in results:
        if board is None:
            continue
        main = board.layers[0]
        squares = {(x, y) for x in board.xs for y in (board.ys or (None,))}
        on_board = [fluent for fluent in initial
                    if isinstance(fluent, Func) and (fluent.name, len(fluent.args)) == (main.relation, main.arity)]
        for fluent in on_board:  # every cell fluent of the first state lands on a square of the board
            x = str(fluent.args[main.x])
            y = None if main.y is None else str(fluent.args[main.y])
            assert (x, y) in squares, f"{key}: {fluent} is off its {len(board.xs)}x{len(board.ys)} board"
    for key, size in (("ticTacToe", (3, 3)), ("connectFour", (8, 6)), ("chess", (8, 8)), ("breakthrough", (8, 8)),
                      ("chess_200", (8, 8))):
        assert (len(boards[key].xs), len(boards[key].ys)) == size, key
    assert boards["chess"].xs == tuple("abcdefgh") and boards["chess"].ys == tuple("87654321")
