"""The reasoner against recorded traces: the conformance oracle.

- Every trace in ../shared/traces (recorded with ggp-base's prover) must replay with full agreement on
  the ``auto`` engine, the default of every command (ground once with clingo when that fits its budget,
  else per-state evaluation). By default the first playout of each game is replayed; set
  ``GGP_FULL_TRACES=1`` to replay every playout (tens of minutes of CPU). The games of :data:`SLOW_GAMES`
  (several seconds each) carry the ``slow`` mark: they run by default, so CI runs them, and
  ``-m "not slow"`` leaves them out of a quick local run. Games listed in tests/known_unsupported.txt
  (``key: reason``) are skipped with their reason. Every game is read as every command reads it (no
  case option: wargame03, whose names folding case would merge, is then read case-sensitively, as the
  reference reads it). The games only the top-down prover can play
  (:data:`PROVER_GAMES`) replay on it directly; that ``auto`` falls back to it is checked with
  ``GGP_FULL_TRACES=1``.
- Every trace in tests/data/traces (recorded with ``ggp trace`` on the games in kif/) must replay too:
  a regression oracle for changes to the reasoner or the games.
- Every kif/ game passes the StateMachine contract (ggp.testing.check_state_machine) on clingo.

Machines of the quick games are built in this process (``isolate=False``: no child process per game).
The slow games and :data:`FALLBACK_GAMES` get the default isolated limits, as a user does: ``auto``
stops a ground-once attempt after its 10 s budget and falls back to the per-state engine or the prover (in this
process, without a time limit, racer alone grounds for minutes). Which engine then plays such a game
depends on the machine's speed, not the verdict: both engines agree on all of them (measured both ways).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ggp.files import load_kif
from ggp.reasoner.auto import choose_machine
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import GroundingLimits, StateMachine
from ggp.reasoner.prover import ProverMachine
from ggp.reasoner.traces import load_trace, replay_trace
from ggp.testing import check_state_machine
from tests.conftest import (
    CORPUS,
    ROOT,
    TRACES,
    kif_games,
    known_unsupported,
    needs_shared,
    valid_corpus_keys,
)

LOCAL = GroundingLimits(isolate=False)
KIF_TRACES = ROOT / "tests" / "data" / "traces"
FULL = os.environ.get("GGP_FULL_TRACES", "") not in ("", "0")

SLOW_GAMES: frozenset[str] = frozenset({
    "ad_game_2x2", "amazonsSuicide_10x10", "amazonsTorus_10x10", "amazons_10x10", "blobwars",
    "blockerParallel", "brawl", "checkers", "checkers-mustjump", "checkers-mustjump-torus",
    "checkers-newgoals", "checkers-suicide-cylinder-mustjump", "checkersBarrelNoKings", "checkersTiny", "chineseCheckers2",
    "chineseCheckers3", "chineseCheckers4", "chineseCheckers6", "crisscross", "crissrace",
    "cylinder-checkers", "endgame", "god", "gt_attrition", "hex", "kalaha_2009", "knightazons",
    "pancakes88", "racer", "racer4", "ruleDepthExponential", "skirmish", "skirmishFinal1",
    "skirmishFinal2", "skirmishFinal3", "skirmishHoles", "skirmishNew", "skirmishZeroSum",
    "strangeSkirmish", "sudoku",
})
"""Games whose first-playout replay on ``auto`` took more than ~5 s on the shared, loaded 2-core machine
(2026-11-25; marked ``slow``, CI runs them)."""

FALLBACK_GAMES: frozenset[str] = frozenset({"racer4", "ruleDepthExponential"})
"""Games whose ground-once domain takes minutes: ``auto`` gives up after its budget (in a child process)
and falls back to the per-state reasoner (racer4) or, when that cannot compile the rules either
(ruleDepthExponential's 20-deep rule), to the prover, so they get the default isolated limits."""



PROVER_GAMES: frozenset[str] = frozenset({"gt_two_thirds_4p", "laikLee_hex", "merrills", "mummymaze1p"})
"""Games that neither grounding once nor the per-state reasoner can play (a static relation too large or
infinite, a relation that explodes bottom-up); the ``auto`` engine falls back to the top-down prover for
them (after about 20 s of failed attempts), so that is the engine replayed here (in about a second each);
test_auto_falls_back_to_the_prover_on_the_games_only_it_plays checks the fallback with GGP_FULL_TRACES=1."""


def shared_trace_keys() -> list[str]:
    return [key for key in valid_corpus_keys() if (TRACES / f"{key}.json").is_file()]


def _trace_params() -> list[object]:
    return [pytest.param(key, marks=pytest.mark.slow) if key in SLOW_GAMES else key for key in shared_trace_keys()]


@pytest.mark.parametrize("key", needs_shared(_trace_params()))  # type: ignore[arg-type]
def test_the_auto_engine_agrees_with_the_reference_trace(key: str) -> None:
    reason = known_unsupported().get(key)
    if reason is not None:
        pytest.skip(f"known unsupported: {reason}")
    description = load_kif(CORPUS / f"{key}.kif")
    machine: StateMachine
    if key in PROVER_GAMES:
        machine = ProverMachine(description)
    else:
        machine = make_machine(description, "auto", GroundingLimits() if key in SLOW_GAMES | FALLBACK_GAMES else LOCAL)
    result = replay_trace(machine, load_trace(TRACES / f"{key}.json"), max_playouts=None if FULL else 1)
    assert result.ok, result.summary()


@pytest.mark.parametrize("key", sorted(PROVER_GAMES))
def test_auto_falls_back_to_the_prover_on_the_games_only_it_plays(key: str) -> None:
    if not FULL:
        pytest.skip("about 20 s of failed attempts per game: run with GGP_FULL_TRACES=1")
    if not (TRACES / f"{key}.json").is_file():
        pytest.skip("../shared is not present")
    machine = choose_machine(load_kif(CORPUS / f"{key}.kif"))
    assert isinstance(machine, ProverMachine)
    result = replay_trace(machine, load_trace(TRACES / f"{key}.json"))
    assert result.ok, result.summary()


@pytest.mark.parametrize("trace_path", sorted(KIF_TRACES.glob("*.json")), ids=lambda p: p.stem)
def test_the_reasoner_agrees_with_the_recorded_kif_trace(trace_path: Path) -> None:
    game = ROOT / "kif" / trace_path.stem / f"{trace_path.stem}.kif"
    assert game.is_file(), f"{trace_path.name} has no game {game}"
    result = replay_trace(ClingoStateMachine(load_kif(game), LOCAL), load_trace(trace_path))
    assert result.ok, result.summary()


def test_every_kif_game_has_a_recorded_trace() -> None:
    missing = [path.stem for path in kif_games() if not (KIF_TRACES / f"{path.stem}.json").is_file()]
    assert not missing, f"record them with: ggp trace kif/<key>/<key>.kif -o tests/data/traces/<key>.json: {missing}"


@pytest.mark.parametrize("game", kif_games(), ids=lambda p: p.stem)
def test_every_kif_game_passes_the_state_machine_contract_on_clingo(game: Path) -> None:
    assert check_state_machine(ClingoStateMachine(load_kif(game), LOCAL), playouts=3, seed=0) > 0
