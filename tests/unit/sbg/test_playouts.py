"""Random playouts on the SBG engine: the compiled ones play legal moves to the outcome the Python engine
gives, and the machine offers them to MCTS as its batched leaf evaluation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings

from ggp.player import Budget
from ggp.players.mcts import MctsPlayer
from ggp.reasoner.playouts import batch_hook
from ggp.translators.sbg.engine import SbgEngine, SbgState
from ggp.translators.sbg.machine import SbgStateMachine
from ggp.translators.sbg.minimax import SbgMinimax
from ggp.translators.sbg.model import SbgGame
from ggp.translators.sbg.native import NativeSearch, native_search
from ggp.translators.sbg.parser import parse_sbg
from tests.conftest import GAMES_DIR
from tests.prerequisites import missing
from tests.unit.sbg.sbg_strategies import sbg_games

GAME_FILES = sorted(GAMES_DIR.glob("*.sbg"))


def _native(game: SbgGame) -> tuple[SbgEngine, NativeSearch]:
    reference = SbgMinimax(SbgEngine(game))
    search = native_search(reference)
    if search is None:
        missing("a C compiler (cc, gcc or clang) for the compiled SBG playouts")
    return reference.engine, search


def _assert_replays(engine: SbgEngine, native: NativeSearch, start: SbgState, seed: int) -> None:
    """The compiled playout's moves are legal on the Python engine, which ends the game where it does."""
    winners, moves = native.playouts_traced(start, 1, seed)
    state = start
    for move in moves:
        assert not engine.is_terminal(state) or state.ply == 0
        assert move in engine.legal_moves(state), (move, state)
        state = engine.apply(state, move)
    outcome = engine.outcome(state)
    assert outcome is not None and outcome == winners[0], (outcome, winners, len(moves))


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_compiled_playouts_replay_on_the_engine(path: Path) -> None:
    engine, native = _native(parse_sbg(path.read_text(encoding="utf-8"), str(path)))
    start = engine.initial_state()
    for seed in range(4):
        _assert_replays(engine, native, start, seed)
    midgame = engine.apply(start, engine.legal_moves(start)[0])
    _assert_replays(engine, native, midgame, 99)


@settings(max_examples=30, deadline=None)
@given(sbg_games())
def test_compiled_playouts_replay_on_generated_games(game: SbgGame) -> None:
    engine, native = _native(game)
    start = engine.initial_state()
    if not engine.legal_moves(start):
        return  # stuck at ply 0: no playout to compare
    _assert_replays(engine, native, start, 7)


def test_compiled_and_python_playouts_agree_on_average() -> None:
    path = GAMES_DIR / "breakthrough_6x6.sbg"
    machine = SbgStateMachine(parse_sbg(path.read_text(encoding="utf-8"), str(path)))
    state = machine.initial_state()
    compiled = machine.playout_goals(state, 600, random.Random(1))
    machine._native = None  # the Python fallback, as without a C compiler (the built tables stay)
    python = machine.playout_goals(state, 600, random.Random(1))
    assert len(compiled) == len(python) == 600
    mean_compiled = sum(g[0] for g in compiled) / len(compiled)
    mean_python = sum(g[0] for g in python) / len(python)
    assert abs(mean_compiled - mean_python) < 10, (mean_compiled, mean_python)  # white's mean score, in 0..100


def test_mcts_uses_the_batched_playouts_on_chess() -> None:
    path = GAMES_DIR / "chess.sbg"
    machine = SbgStateMachine(parse_sbg(path.read_text(encoding="utf-8"), str(path)))
    assert batch_hook(machine) is not None
    player = MctsPlayer(seed=0, playouts_per_leaf=4)
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    move = player.choose(state, Budget(iterations=40))
    assert move in machine.legal_moves(state, machine.roles[0]) and player.last_iterations == 40
