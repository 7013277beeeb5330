"""The circuit engine replays the ggp-base reference traces of ../shared/traces.

Building a machine (grounding plus circuit construction) dominates the time: the whole corpus takes
tens of minutes. The default run therefore replays :data:`DEFAULT_GAMES` (small, varied games: several
roles, simultaneous moves, puzzles) with the interpreted evaluator and the three benchmark games with
the compiled one. ``GGP_CIRCUIT_ALL_TRACES=1`` replays every playout of every trace, skipping only
games over the budget of :data:`AGREEMENT` (those fall back to ``auto`` in ``make_fast_machine``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ggp.errors import ReasonerError
from ggp.files import load_kif
from ggp.native import find_compiler
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.budget import CompileBudget
from ggp.reasoner.circuit.errors import CompileBudgetError
from ggp.reasoner.circuit.evaluator import EvaluatorKind
from ggp.reasoner.circuit.machine import DEFAULT_MAX_NODES
from ggp.reasoner.traces import load_trace, replay_trace
from tests.conftest import CORPUS, TRACES, known_unsupported, needs_shared
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import LOCAL

DEFAULT_GAMES = (
    "3pConnectFour", "asteroids", "beatMania", "blocker", "blocks2player", "bunk_t", "buttons",
    "chickentictactoe", "chomp", "circlesolitaire", "coins", "coins_atomic", "conn4", "connectFour_9x6",
    "connectFourSimultaneous", "copolymer_4", "tictactoe_3d_small_2player",
)

FULL = os.environ.get("GGP_CIRCUIT_ALL_TRACES") == "1"

COMPILED = ("ticTacToe", "connectFour", "breakthrough")

SPLIT = (
    "blobwars", "blockerParallel", "brawl", "checkers-suicide-cylinder-mustjump", "chineseCheckers3",
    "chineseCheckers4", "chineseCheckers6", "crisscross", "crissrace", "cylinder-checkers", "endgame",
    "gt_attrition", "gt_two_thirds_4p", "hex", "knightazons", "skirmish", "skirmishFinal1", "skirmishFinal2",
    "skirmishFinal3", "skirmishHoles", "strangeSkirmish", "sudoku",
)
"""Games over the node limit before issue 42 that compile now: with their rule bodies split and constant
calls specialised (ggp.reasoner.circuit.extract.split_rules), or because facts no longer count. The
interpreter replays each trace (about 4 minutes for the 22 under load: building dominates)."""


AGREEMENT = CompileBudget(cpu_seconds=300, memory_mb=8192)
"""These tests check agreement, not the budget: gt_two_thirds_4p (13.6 s) is over the compiler's default."""


def _traces() -> list[Path]:
    if not TRACES.is_dir():
        return []
    games = [t for t in sorted(TRACES.glob("*.json")) if (CORPUS / f"{t.stem}.kif").is_file()]
    return games if FULL else [t for t in games if t.stem in DEFAULT_GAMES]


def _replay(trace_path: Path, evaluator: EvaluatorKind, max_nodes: int) -> None:
    reason = known_unsupported().get(trace_path.stem)
    if reason is not None:
        pytest.skip(f"known unsupported: {reason}")
    try:
        description = load_kif(CORPUS / f"{trace_path.stem}.kif")
        machine = CircuitStateMachine(description, LOCAL, evaluator=evaluator, max_nodes=max_nodes, budget=AGREEMENT)
    except CompileBudgetError as exc:
        pytest.skip(f"over the budget of the agreement tests: {exc}")
    except ReasonerError as exc:
        pytest.skip(f"the game cannot be grounded: {exc}")  # the clingo engine refuses it too
    trace = load_trace(trace_path)
    result = replay_trace(machine, trace)
    assert result.ok, f"{trace_path.name}: {result.summary()}"
    assert result.total > 0


@pytest.mark.parametrize("trace_path", needs_shared(_traces()), ids=lambda p: getattr(p, "stem", "none"))
def test_the_interpreted_circuit_replays_the_reference_trace(trace_path: Path) -> None:
    _replay(trace_path, "interpreter", DEFAULT_MAX_NODES)


@needs(find_compiler() is not None, "no c compiler (cc)")
@pytest.mark.parametrize(
    "trace_path", needs_shared([TRACES / f"{key}.json" for key in COMPILED if (TRACES / f"{key}.json").is_file()]),
    ids=lambda p: getattr(p, "stem", "none"),
)
def test_the_compiled_circuit_replays_the_reference_trace(trace_path: Path) -> None:
    _replay(trace_path, "c", DEFAULT_MAX_NODES)


@pytest.mark.parametrize(
    "trace_path", needs_shared([TRACES / f"{key}.json" for key in SPLIT if (TRACES / f"{key}.json").is_file()]),
    ids=lambda p: getattr(p, "stem", "none"),
)
def test_a_game_compiled_with_split_rule_bodies_replays_the_reference_trace(trace_path: Path) -> None:
    _replay(trace_path, "interpreter", DEFAULT_MAX_NODES)
