"""Board geometry read from the rules (ggp/manager/boards.py): the shapes ggp.org games use."""

from __future__ import annotations

import pytest

from ggp.gdl.parser import parse_kif, parse_term
from ggp.gdl.terms import Description, Term
from ggp.manager.boards import BoardGeometry, Layer, recognise_board


def board_of(kif: str, possible: str = "") -> BoardGeometry | None:
    """The board of a game given as KIF, with the initial state from its ``init`` facts and the extra
    possible fluents written as KIF terms."""
    description = parse_kif(kif)
    initial = initial_state(description)
    return recognise_board(description, {parse_term(text) for text in possible.split(";") if text.strip()}, initial)


def initial_state(description: Description) -> set[Term]:
    return {rule.head.args[0] for rule in description.rules if rule.head.name == "init"}  # type: ignore[union-attr]


def grid_kif(cells: str, extra: str = "(role x) (role o) (init (control x))") -> str:
    return extra + " " + " ".join(f"(init {cell})" for cell in cells.split(";"))


def test_a_sparse_board_has_its_full_size_from_the_possible_fluents() -> None:
    # Connect Four keeps only filled cells: the initial state has none, base has all 7x6 squares.
    possible = ";".join(f"(cell {x} {y} {p})" for x in range(1, 8) for y in range(1, 7) for p in ("red", "black"))
    board = board_of("(role red) (role black) (init (control red))", possible)
    assert board is not None
    assert board.xs == ("1", "2", "3", "4", "5", "6", "7") and board.ys == ("6", "5", "4", "3", "2", "1")
    assert board.layers == (Layer("cell", 3, 0, 1, None, 2),)


def test_sbg_cells_name_owner_and_type() -> None:
    kif = ("(role white) (role black) (init (cell 0 0 white r)) (init (cell 1 0 white k))"
           " (init (cell 0 1 black r)) (init (cell 1 1 black k)) (init (control white))")
    board = board_of(kif)
    assert board is not None and board.layers[0] == Layer("cell", 4, 0, 1, owner=2, piece=3)
    assert board.to_json() == {"xs": ["0", "1"], "ys": ["1", "0"], "layers": [
        {"relation": "cell", "arity": 4, "x": 0, "y": 1, "owner": 2, "piece": 3}]}


def test_the_translated_sbg_board_is_recognised_from_the_initial_state_alone() -> None:
    translators = pytest.importorskip("ggp.translators.sbg.to_gdl")
    from ggp.translators.sbg.parser import parse_sbg

    game = parse_sbg("<<T>> <BOARD> 3 4 |k.r| |...| |...| |R.K| <PIECES> K (0,1,e) & R (0,1,e) & <GOALS> 5 & #k 0 & #K 0 &")
    description = translators.translate(game)
    board = recognise_board(description, set(), initial_state(description))
    assert board is not None and (board.xs, board.ys) == (("0", "1", "2"), ("3", "2", "1", "0"))
    assert board.layers[0] == Layer("cell", 4, 0, 1, owner=2, piece=3)


def test_letter_columns_go_alphabetically_and_numbered_rows_bottom_up() -> None:
    cells = ";".join(f"(cell {x} {y} b)" for x in "hgfedcba" for y in range(1, 9))
    board = board_of(grid_kif(cells))
    assert board is not None and board.xs == tuple("abcdefgh") and board.ys == tuple(str(y) for y in range(8, 0, -1))


def test_symbols_a_successor_chain_orders_keep_its_order() -> None:
    chain = "(nextcol one two) (nextcol two three) (nextcol three four)"
    cells = ";".join(f"(cell {x} {y} b)" for x in ("three", "one", "four", "two") for y in ("top", "bottom"))
    board = board_of(grid_kif(cells, "(role x) " + chain + " (rowafter top bottom)"))
    assert board is not None and board.xs == ("one", "two", "three", "four") and board.ys == ("top", "bottom")


def test_numbers_sort_numerically_and_numbered_axes_have_no_gaps() -> None:
    cells = ";".join(f"(cell {x} 1 b);(cell {x} 2 b)" for x in (10, 2, 1, 3, 4, 5, 6, 7))
    board = board_of(grid_kif(cells))
    assert board is not None and board.xs == tuple(str(x) for x in range(1, 11))
    padded = board_of(grid_kif(";".join(f"(cell {x} 1 b);(cell {x} 2 b)" for x in ("01", "02", "10"))))
    assert padded is not None and padded.xs == ("01", "02", "10")


def test_plain_squares_with_piece_fluents_of_their_own_are_layers_on_one_board() -> None:
    cells = ";".join(f"(cell {x} {y})" for x in range(1, 4) for y in range(1, 4))
    board = board_of(grid_kif(cells + ";(wall 2 2);(at robot 1 3)", "(role r)"))
    assert board is not None and board.layers[0] == Layer("cell", 2, 0, 1)
    assert set(board.layers[1:]) == {Layer("wall", 2, 0, 1), Layer("at", 3, 1, 2)}


def test_a_one_dimensional_board() -> None:
    board = board_of(grid_kif(";".join(f"(pos {i} b)" for i in range(1, 8))))
    assert board is not None and board.xs == tuple(str(i) for i in range(1, 8)) and board.ys == ()
    assert board.layers == (Layer("pos", 2, 0, None, None, 1),)


def test_counters_scores_and_plain_games_have_no_board_and_heaps_are_a_row() -> None:
    assert board_of("(role a) (role b) (init (pile 7)) (init (control a))") is None
    # one value per role or per heap at a time: counters, not squares
    assert board_of("(role a) (role b) (init (score a 0)) (init (score b 0))",
                    ";".join(f"(score {r} {n})" for r in "ab" for n in range(0, 101, 10))) is None
    # heaps as a 2-D board of heap x size would be wrong: they are a row of heaps showing their sizes
    heaps = board_of("(role p) (init (heap a 3)) (init (heap b 5)) (init (heap c 7))",
                     ";".join(f"(heap {h} {n})" for h in "abc" for n in range(8)))
    assert heaps is not None and heaps.xs == ("a", "b", "c") and heaps.layers == (Layer("heap", 2, 0, None, None, 1),)
    assert board_of("(role p) (init (step 1))", ";".join(f"(step {n})" for n in range(1, 30))) is None


def test_a_relation_reaching_few_of_its_squares_is_no_board() -> None:
    # (location x y) of one token over a 20x20 range: 3 squares out of 400
    assert board_of("(role p) (init (location 1 1))", "(location 20 20);(location 5 7)") is None
