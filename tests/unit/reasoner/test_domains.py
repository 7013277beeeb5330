"""The fluents a game can hold (ggp/reasoner/domains.py), which the manager draws boards from."""

from __future__ import annotations

import pytest

from ggp.errors import ReasonerError
from ggp.gdl.parser import parse_kif
from ggp.reasoner.domains import isolated_possible_fluents, possible_fluents
from tests.conftest import KIF_DIR

SPARSE = """
(role a) (index 1) (index 2) (index 3)
(init (control a))
(<= (legal a (put ?x)) (index ?x) (not (true (cell ?x))))
(<= (next (cell ?x)) (does a (put ?x)))
(<= (next (cell ?x)) (true (cell ?x)))
(<= (next (control a)) (true (control a)))
(<= terminal (true (cell 3)))
(goal a 100)
"""


def texts(fluents: frozenset[object]) -> list[str]:
    return sorted(str(fluent) for fluent in fluents)


def test_base_gives_every_square_of_an_empty_connect_four_board() -> None:
    description = parse_kif((KIF_DIR / "connectFour" / "connectFour.kif").read_text(), "connectFour.kif")
    cells = [fluent for fluent in texts(possible_fluents(description)) if fluent.startswith("(cell ")]
    assert len(cells) == 7 * 6 * 2 and "(cell 7 6 black)" in cells


def test_without_base_the_relaxed_domain_reaches_the_fluents_moves_can_make() -> None:
    assert texts(possible_fluents(parse_kif(SPARSE))) == ["(cell 1)", "(cell 2)", "(cell 3)", "(control a)"]


def test_a_grounding_over_the_limit_is_a_reasoner_error_in_process_and_isolated() -> None:
    description = parse_kif(SPARSE, "sparse.kif")
    with pytest.raises(ReasonerError, match=r"sparse\.kif: grounding phase .domain. made"):
        possible_fluents(description, max_atoms=3)
    with pytest.raises(ReasonerError, match=r"sparse\.kif"):
        isolated_possible_fluents(description, max_atoms=3)
    assert texts(isolated_possible_fluents(description)) == ["(cell 1)", "(cell 2)", "(cell 3)", "(control a)"]
