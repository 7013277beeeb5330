"""The validator on the real ggp.org corpus: every game parses, every game in VALID.txt has no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.gdl.validator import validate
from tests.conftest import CORPUS, corpus_games, needs_shared, valid_corpus_keys
from tests.helpers.gdl_corpus import parsed

KNOWN_DEVIATIONS: dict[str, tuple[str, str]] = {
    # key: (the error check it breaks, why the game is still listed in VALID.txt)
    "futoshiki": ("stratification", ("(<= (goal robot 100) (not (goal robot 0))): 'goal' depends on its own "
                  "negation; ggp-base's top-down prover copes because the ground atoms are stratified")),
    "hex": ("stratification", "(<= (goal ?r 0) (role ?r) (not (goal ?r 100))): 'goal' negates itself"),
    "majorities": ("stratification", "(<= (goal ?r 0) (role ?r) (not (goal ?r 100))): 'goal' negates itself"),
    "nineBoardTicTacToe": ("stratification", ("(<= (goal ?r 0) ... (not (goal ?r 100)) (not (goal ?r 50))): "
                           "'goal' negates itself")),
}


def _valid_games() -> list[Path]:
    return [CORPUS / f"{key}.kif" for key in valid_corpus_keys()]


def test_the_corpus_is_complete(shared_dir: Path) -> None:
    games = corpus_games()
    assert len(games) == 235
    assert all(path.is_file() for path in _valid_games())
    assert set(KNOWN_DEVIATIONS) <= set(valid_corpus_keys())


@pytest.mark.parametrize("path", needs_shared(corpus_games()), ids=lambda p: p.stem if p else "none")
def test_every_corpus_game_parses_and_validates_without_crashing(path: Path) -> None:
    description = parsed(path)
    assert description.rules
    findings = validate(description)
    assert all(f.pos is None or f.pos.file == str(path) for f in findings)


@pytest.mark.parametrize("path", needs_shared(_valid_games()), ids=lambda p: p.stem if p else "none")
def test_games_the_reference_prover_plays_have_no_errors(path: Path) -> None:
    errors = [f for f in validate(parsed(path)) if f.severity == "error"]
    if path.stem in KNOWN_DEVIATIONS:
        check, reason = KNOWN_DEVIATIONS[path.stem]
        assert errors and {f.check for f in errors} == {check}, reason
    else:
        assert errors == [], "\n".join(map(str, errors))
