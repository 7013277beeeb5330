"""The fluents a game can hold (ggp/reasoner/domains.py), which the manager draws boards from."""

from __future__ import annotations

import json
from pathlib import Path

import clingo
import pytest

from ggp.errors import ReasonerError
from ggp.gdl.parser import parse_kif
from ggp.gdl.terms import Description
from ggp.reasoner.asp import encode_name
from ggp.reasoner.clingo_machine import compute_domain, domain_program
from ggp.reasoner.domains import isolated_possible_fluents, possible_fluents
from tests.conftest import CORPUS, KIF_DIR, kif_games, needs_shared
from tests.helpers.gdl_corpus import parsed

ROOT = Path(__file__).resolve().parents[3]
DOMAIN_SPLIT = ROOT / "benchmarks" / "data" / "domain_split_2026-11-28.jsonl"

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


# A frame rule that joins the move with every cell on variables the head does not keep (chess's shape):
# the domain program splits it, and the domains stay those of the rules as written.
FRAME_JOIN = """
(role a) (index 1) (index 2) (index 3)
(<= (init (cell ?x ?y b)) (index ?x) (index ?y))
(init (cell 1 1 p))
(<= (legal a (move ?x1 ?y1 ?x2 ?y2)) (true (cell ?x1 ?y1 p)) (true (cell ?x2 ?y2 b)))
(<= (next (cell ?x2 ?y2 p)) (does a (move ?x1 ?y1 ?x2 ?y2)))
(<= (next (cell ?x1 ?y1 b)) (does a (move ?x1 ?y1 ?x2 ?y2)))
(<= (next (cell ?x ?y ?c)) (does a (move ?x1 ?y1 ?x2 ?y2)) (true (cell ?x ?y ?c))
    (apart ?x ?y ?x1 ?y1) (apart ?x ?y ?x2 ?y2))
(<= (apart ?x ?y ?u ?v) (index ?x) (index ?y) (index ?u) (index ?v) (distinct ?x ?u))
(<= (apart ?x ?y ?u ?v) (index ?x) (index ?y) (index ?u) (index ?v) (distinct ?y ?v))
(<= terminal (true (cell 3 3 p)))
(goal a 100)
"""


def _domains_as_written(description: Description) -> tuple[set[str], set[str]]:
    """The oracle: the relaxed rules as written (``split=False``), grounded by clingo."""
    control = clingo.Control(["--warn=none"])
    control.add("base", [], domain_program(description, split=False))
    control.ground([("base", [])])
    rtrue, rdoes = encode_name("ggp_rtrue"), encode_name("ggp_rdoes")
    fluents = {str(atom.symbol.arguments[0]) for atom in control.symbolic_atoms.by_signature(rtrue, 1)}
    moves = {f"{atom.symbol.arguments[0]},{atom.symbol.arguments[1]}"
             for atom in control.symbolic_atoms.by_signature(rdoes, 2)}
    assert fluents, "the oracle found no fluent: the relaxed names changed?"
    return fluents, moves


def _domains(description: Description) -> tuple[set[str], set[str]]:
    fluents, moves = compute_domain(description, 10**7)
    return ({fact[fact.index("(") + 1:fact.rindex(")")] for fact in fluents},
            {fact[fact.index("(") + 1:fact.rindex(")")] for fact in moves})


def test_the_domain_program_splits_a_join_over_variables_the_head_drops() -> None:
    program = domain_program(parse_kif(FRAME_JOIN, "frame.kif"))
    assert encode_name("next~1") in program  # the move-and-cells join became a rule of its own


@pytest.mark.parametrize("source", [FRAME_JOIN, SPARSE, *(path.read_text() for path in kif_games())])
def test_the_split_domain_program_reaches_exactly_the_fluents_and_moves_of_the_rules_as_written(source: str) -> None:
    description = parse_kif(source)
    fluents, moves = _domains(description)
    assert (fluents, moves) == _domains_as_written(description)
    assert fluents and moves


# Corpus games whose domain programs the split reshapes most (the relaxed atoms change 3x to 80x either way).
RESHAPED = ("blobwars", "brawl", "god", "knightazons", "chineseCheckers4", "crisscross")


@pytest.mark.parametrize("path", needs_shared([CORPUS / f"{key}.kif" for key in RESHAPED if CORPUS.is_dir()]))
def test_corpus_games_keep_their_domains_under_the_split(path: Path) -> None:
    description = parsed(path)
    assert _domains(description) == _domains_as_written(description)


def test_the_domain_split_figures_in_the_docs_are_the_committed_runs() -> None:
    """docs/fastpath.md quotes benchmarks/data/domain_split_2026-11-28.jsonl (the split changed no domain)."""
    rows = {row["game"]: row for row in map(json.loads, DOMAIN_SPLIT.read_text().splitlines())}
    both = [row for row in rows.values() if "same" in row]
    assert len(rows) == 218 and len(both) == 214 and all(row["same"] for row in both)
    docs = " ".join((ROOT / "docs" / "fastpath.md").read_text(encoding="utf-8").split())
    assert "of 218, 214 ground both ways, all 214 to the same fluent and move domains" in docs
    chess, attrition = rows["chess"], rows["gt_attrition"]
    assert f"chess's domain takes {chess['split']['seconds']:.1f} s instead of {chess['written']['seconds']:.1f} s" in docs
    assert (f"gt_attrition's {attrition['split']['seconds']:.2f} s instead of "
            f"{attrition['written']['seconds']:.1f} s") in docs
    for game in ("racer", "racer4"):
        assert "did not finish" in rows[game]["written"] and f"{rows[game]['split']['seconds']:.2f} s" in docs
