"""Seeded native searches replayed move for move: the record that keeps the C search's behaviour fixed.

:func:`record` plays seeded self-play openings with :class:`~ggp.players.mcts.MctsPlayer` on the
compiled and the interpreted circuit under each of the search's options (MAST, RAVE, the solver,
decisive playouts, several playouts per leaf), and runs nested search on a one-player game. The moves
and root visit counts it returns were committed (``tests/data/search_replay.json``) before the C runtime
moved out of a Python string into C files; any change to what the C search does shows up as a
difference. Rewrite the file only for a change meant to alter the search, and say so in the commit:

    PYTHONPATH=. python -m tests.helpers.search_replay > tests/data/search_replay.json
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

from ggp.files import load_kif
from ggp.player import Budget
from ggp.players.mcts import MctsPlayer
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.evaluator import EvaluatorKind
from tests.conftest import KIF_DIR
from tests.helpers.pick_game import pick_two_game
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine

RECORD = Path(__file__).resolve().parents[1] / "data" / "search_replay.json"

OPTIONS: dict[str, dict[str, Any]] = {
    "default": {},
    "no-mast": {"mast": 0.0},
    "rave": {"rave": 200.0, "mast": 0.0},
    "no-solver": {"solver": False},
    "decisive-1": {"decisive": 1},
    "decisive-2": {"decisive": 2},
    "4-playouts": {"playouts_per_leaf": 4},
    "self-configured": {"decisive": None},
}
"""The player options each game is searched with; ``decisive`` is 0 (the default before self-configuration
chose it per game, issue 41) where not given."""

GAMES: dict[str, tuple[tuple[EvaluatorKind, ...], int, int]] = {
    "ticTacToe": (("c", "interpreter"), 9, 300),
    "connectFour": (("c", "interpreter"), 6, 300),
    "rockPaperScissors": (("c",), 3, 200),
    "kuhnPoker": (("c",), 4, 200),
    "threePlayerTicTacToe": (("c",), 5, 200),
    "breakthrough": (("c",), 4, 150),
}
"""Game: (evaluators, plies, iterations a move)."""

PICK_GAME = pick_two_game(10)
"""A one-player game for nested search: take 3 of 10 items, 100 when items 3 and 7 are among them."""


def self_play(machine: CircuitStateMachine, options: dict[str, Any], plies: int, iterations: int) -> dict[str, Any]:
    """Moves of ``plies`` joint moves of seeded MCTS self-play, and the first player's root visits."""
    options = {"decisive": 0, **options}
    players = [MctsPlayer(seed=11 + i, budget=Budget(iterations=iterations), **options) for i in range(len(machine.roles))]
    for role, player in zip(machine.roles, players):
        player.start(machine, role, Budget())
    state, moves, visits = machine.initial_state(), list[str](), list[list[int]]()
    for _ in range(plies):
        if machine.is_terminal(state):
            break
        joint = tuple(player.choose(state, Budget()) for player in players)
        moves.append(" | ".join(str(move) for move in joint))
        visits.append([count for _, count, _ in players[0].move_statistics()])
        state = machine.next_state(state, joint)
    return {"moves": moves, "visits": visits}


def nested_lines(evaluator: EvaluatorKind) -> list[list[Any]]:
    """(level, seed, first move of the best line, its goal) of nested search on :data:`PICK_GAME`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pick.kif"
        path.write_text(PICK_GAME)
        machine = CircuitStateMachine(load_kif(path), LOCAL, evaluator=evaluator)
        rows: list[list[Any]] = []
        for level in (1, 2):
            for seed in (1, 2, 3):
                tree = machine.mcts_tree(machine.initial_state(), exploration=0.4, playouts_per_leaf=1, chance=[False],
                                         seed=seed, max_nodes=10_000)
                assert tree is not None
                tree.nested(level, math.inf)
                line = tree.root_statistics(0).line
                rows.append([level, seed, None if line is None else str(line[0]), None if line is None else line[1]])
        return rows


def dumps(data: dict[str, Any]) -> str:
    """The record as JSON, one key a line (small diffs when a search changes)."""
    lines = [f" {json.dumps(key)}: {json.dumps(data[key])}" for key in sorted(data)]
    return "{\n" + ",\n".join(lines) + "\n}"


def record() -> dict[str, Any]:
    """Everything the replay test compares, keyed ``game/evaluator/option``."""
    out: dict[str, Any] = {}
    for game, (evaluators, plies, iterations) in GAMES.items():
        for evaluator in evaluators:
            machine = circuit_machine(KIF_DIR / game / f"{game}.kif", evaluator)
            for name, options in OPTIONS.items():
                out[f"{game}/{evaluator}/{name}"] = self_play(machine, options, plies, iterations)
    for evaluator in ("c", "interpreter"):
        out[f"pick/{evaluator}/nested"] = nested_lines(evaluator)
    return out


if __name__ == "__main__":
    print(dumps(record()))
