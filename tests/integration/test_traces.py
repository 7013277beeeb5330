"""The reasoner against recorded traces: the conformance oracle.

- Every trace in ../shared/traces (recorded with ggp-base's prover) must replay with full agreement.
  By default only the first playout of each game is replayed and the games in :data:`SLOW_GAMES`
  (several seconds of grounding or solving each) are skipped, to keep the suite fast; set
  ``GGP_FULL_TRACES=1`` to replay every playout of every game (tens of minutes of CPU). Games listed
  in tests/known_unsupported.txt (``key: reason``) are skipped with their reason. Each game is replayed
  with the engine ``auto`` ends up with for it: clingo, per-state (:data:`PER_STATE_GAMES`) or the prover
  (:data:`PROVER_GAMES`).
- Every trace in tests/data/traces (recorded with ``ggp trace`` on the games in kif/) must replay too:
  a regression oracle for changes to the reasoner or the games.
- Every kif/ game passes the StateMachine contract (ggp.testing.check_state_machine) on clingo.

All machines are built in this process (``isolate=False``) to avoid a child process per game.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ggp.files import load_kif
from ggp.reasoner.auto import choose_machine
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import GroundingLimits, StateMachine
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.prover import ProverMachine
from ggp.reasoner.traces import load_trace, replay_trace
from ggp.testing import check_state_machine
from tests.conftest import CORPUS, ROOT, TRACES, kif_games, known_unsupported, needs_shared, valid_corpus_keys

LOCAL = GroundingLimits(isolate=False)
KIF_TRACES = ROOT / "tests" / "data" / "traces"
FULL = os.environ.get("GGP_FULL_TRACES", "") not in ("", "0")

SLOW_GAMES: frozenset[str] = frozenset({
    "ad_game_2x2", "amazonsSuicide_10x10", "amazonsTorus_10x10", "amazons_10x10", "blobwars",
    "blockerParallel", "brawl", "checkers", "checkers-mustjump", "checkers-mustjump-torus",
    "checkers-newgoals", "checkers-suicide-cylinder-mustjump", "checkersTiny", "chineseCheckers2",
    "chineseCheckers3", "chineseCheckers4", "chineseCheckers6", "crisscross", "crissrace",
    "cylinder-checkers", "endgame", "god", "gt_attrition", "hex", "kalaha_2009", "knightazons",
    "pancakes88", "racer", "ruleDepthExponential", "skirmish", "skirmishFinal1",
    "skirmishFinal2", "skirmishFinal3", "skirmishHoles", "skirmishNew", "skirmishZeroSum",
    "strangeSkirmish", "sudoku",
})
"""Games whose first-playout replay took more than ~2.5 s on the shared 2-core machine (grounding dominates;
some take minutes); replayed only with GGP_FULL_TRACES=1."""


PER_STATE_GAMES: frozenset[str] = frozenset({"racer4"})
"""Games whose ground-once domain takes minutes to ground; the ``auto`` engine falls back to the
per-state reasoner for them, so that is the engine replayed here (in well under a second)."""


PROVER_GAMES: frozenset[str] = frozenset({"gt_two_thirds_4p", "laikLee_hex", "merrills", "mummymaze1p"})
"""Games that neither grounding once nor the per-state reasoner can play (a static relation too large or
infinite, a relation that explodes bottom-up); the ``auto`` engine falls back to the top-down prover for
them (after about 20 s of failed attempts), so that is the engine replayed here (in about a second each);
test_auto_falls_back_to_the_prover_on_the_games_only_it_plays checks the fallback with GGP_FULL_TRACES=1."""


def shared_trace_keys() -> list[str]:
    return [key for key in valid_corpus_keys() if (TRACES / f"{key}.json").is_file()]


@pytest.mark.parametrize("key", needs_shared(shared_trace_keys()))  # type: ignore[arg-type]
def test_the_reasoner_agrees_with_the_reference_trace(key: str) -> None:
    reason = known_unsupported().get(key)
    if reason is not None:
        pytest.skip(f"known unsupported: {reason}")
    if key in SLOW_GAMES and not FULL:
        pytest.skip("slow to ground or replay: run with GGP_FULL_TRACES=1")
    description = load_kif(CORPUS / f"{key}.kif")
    machine: StateMachine
    if key in PER_STATE_GAMES:
        machine = PerStateMachine(description)
    elif key in PROVER_GAMES:
        machine = ProverMachine(description)
    else:
        machine = ClingoStateMachine(description, LOCAL)
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
