"""The validator on the real ggp.org corpus: every game parses, every game in VALID.txt has no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.gdl.validator import validate
from tests.conftest import CORPUS, corpus_games, needs_shared, valid_corpus_keys
from tests.helpers.gdl_corpus import parsed

LOCALLY_STRATIFIED: dict[str, str] = {
    # key: the rule whose relation-level negative cycle has stratified ground instances (a warning)
    "futoshiki": "(<= (goal robot 100) (not (goal robot 0)))",
    "hex": "(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))",
    "majorities": "(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))",
    "nineBoardTicTacToe": "(<= (goal ?r 0) ... (not (goal ?r 100)) (not (goal ?r 50)))",
}
"""Games of VALID.txt that negate one instance of ``goal`` to define another: GDL's relation-level
stratification (spec 4.2) fails, the ground instances are stratified, the reference prover plays them."""


def _valid_games() -> list[Path]:
    return [CORPUS / f"{key}.kif" for key in valid_corpus_keys()]


def test_the_corpus_is_complete(shared_dir: Path) -> None:
    games = corpus_games()
    assert len(games) == 235
    assert all(path.is_file() for path in _valid_games())
    assert set(LOCALLY_STRATIFIED) <= set(valid_corpus_keys())


@pytest.mark.parametrize("path", needs_shared(corpus_games()), ids=lambda p: p.stem if p else "none")
def test_every_corpus_game_parses_and_validates_without_crashing(path: Path) -> None:
    description = parsed(path)
    assert description.rules
    findings = validate(description)
    assert all(f.pos is None or f.pos.file == str(path) for f in findings)


@pytest.mark.parametrize("path", needs_shared(_valid_games()), ids=lambda p: p.stem if p else "none")
def test_games_the_reference_prover_plays_have_no_errors(path: Path) -> None:
    findings = validate(parsed(path))
    errors = [f for f in findings if f.severity == "error"]
    assert errors == [], "\n".join(map(str, errors))
    warned = [f for f in findings if f.check == "stratification"]
    if path.stem in LOCALLY_STRATIFIED:
        assert warned and all("locally stratified" in f.message for f in warned), LOCALLY_STRATIFIED[path.stem]
        assert {f.check for f in validate(parsed(path), strict=True) if f.severity == "error"} == {"stratification"}
    else:
        assert warned == []
