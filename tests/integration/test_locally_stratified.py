"""Locally stratified corpus games: the validator warns (an error with strict) and every engine replays
their reference traces.

futoshiki, majorities, nineBoardTicTacToe and hex define the loser's goal from the negation of the
winner's (``(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))``): 'goal' depends on its own negation at
the relation level, no ground atom does. The circuit is run by its interpreter here (the same
compiled circuit without a per-game C build, which takes seconds); hex, slow to ground, carries the
``slow`` mark.
"""

from __future__ import annotations

import pytest

from ggp.files import load_kif
from ggp.gdl.validator import validate
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import GroundingLimits
from ggp.reasoner.traces import load_trace, replay_trace
from tests.conftest import CORPUS, TRACES
from tests.prerequisites import needs

LOCAL = GroundingLimits(isolate=False)
ENGINES = ("clingo", "per-state", "circuit:interpreter", "auto")
GAMES = ("futoshiki", "majorities", "nineBoardTicTacToe", pytest.param("hex", marks=pytest.mark.slow))


@pytest.mark.parametrize("key", GAMES)
@needs(CORPUS.is_dir(), "../shared is not present")
def test_a_locally_stratified_corpus_game_is_a_warning_and_an_error_when_strict(key: str) -> None:
    description = load_kif(CORPUS / f"{key}.kif")
    findings = validate(description)
    assert [f for f in findings if f.severity == "error"] == []
    assert any(f.check == "stratification" and "locally stratified" in f.message for f in findings)
    strict = validate(description, strict=True)
    assert {f.check for f in strict if f.severity == "error"} == {"stratification"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key", GAMES)
@needs(CORPUS.is_dir(), "../shared is not present")
def test_every_engine_replays_a_locally_stratified_corpus_game(key: str, engine: str) -> None:
    machine = make_machine(load_kif(CORPUS / f"{key}.kif"), engine, LOCAL)
    result = replay_trace(machine, load_trace(TRACES / f"{key}.json"), max_playouts=1)
    assert result.ok, result.summary()
