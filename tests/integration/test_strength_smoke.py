"""A small, seeded version of the strength benchmark (benchmarks/strength.py): MCTS beats Random at tic-tac-toe.

Iteration budgets and seeds make the games replay exactly, so the assertion is about play, not timing.
"""

from __future__ import annotations

from functools import partial

import pytest

from ggp.arena import run_arena, standings
from ggp.files import load_kif
from ggp.players.registry import make_player
from ggp.reasoner.engines import make_machine
from tests.conftest import ROOT


@pytest.mark.timeout(120)
def test_mcts_beats_random_at_tic_tac_toe_with_seats_swapped() -> None:
    machine = make_machine(load_kif(ROOT / "kif" / "ticTacToe" / "ticTacToe.kif"), "clingo")
    specs = ["mcts:iterations=20", "random"]
    results = run_arena(machine, [partial(make_player, spec) for spec in specs], games=10, seed=0)
    mcts, random_player = standings(results, specs)
    assert {game.seats for game in results} == {(0, 1), (1, 0)}  # each plays both roles
    assert mcts.losses == 0
    assert mcts.wins >= 6
    assert mcts.score >= 0.8 > random_player.score
    assert all(game.end_reason == "terminal" and game.errors == 0 for game in results)
