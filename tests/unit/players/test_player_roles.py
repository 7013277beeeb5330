"""Players on games with one and three roles, chance, batched flat Monte Carlo and alpha-beta internals.

Complements test_players.py: MCTS must work for 1..n roles, alpha-beta must hand every game it
cannot search (n != 2 roles, a chance role) to MCTS and say so in its log, and its transposition
table and generic evaluation must do what the docs claim.
"""

from __future__ import annotations

import itertools
import logging

import pytest

from ggp.gdl.terms import Const, Func
from ggp.player import Budget
from ggp.players.alphabeta import HEURISTIC_LIMIT, AlphaBetaPlayer
from ggp.players.mcts import MctsPlayer
from ggp.players.monte_carlo import MonteCarloPlayer
from ggp.players.registry import make_player
from ggp.reasoner.machine import JointMove, Move, Role, State, StateMachine
from ggp.testing import check_state_machine
from tests.helpers.nim_machine import BatchingNim, ChanceMachine, MatrixMachine, NimMachine, _Base

SECRET = ("b", "c", "a")


class SoloMachine(_Base):
    """One role presses three buttons in turn (``a``, ``b`` or ``c``); only the sequence b c a scores 100."""

    def __init__(self) -> None:
        self._roles = (Const("solo"),)

    def initial_state(self) -> State:
        return State(frozenset({Func("pressed", ())}))

    @staticmethod
    def pressed(state: State) -> tuple[str, ...]:
        fact = next(iter(state.facts))
        assert isinstance(fact, Func)
        return tuple(str(arg) for arg in fact.args)

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        return () if self.is_terminal(state) else (Const("a"), Const("b"), Const("c"))

    def next_state(self, state: State, joint_move: JointMove) -> State:
        self._check(state, joint_move)
        return State(frozenset({Func("pressed", (*(Const(p) for p in self.pressed(state)), joint_move[0]))}))

    def is_terminal(self, state: State) -> bool:
        return len(self.pressed(state)) == len(SECRET)

    def goals(self, state: State) -> tuple[int, ...]:
        return (100,) if self.pressed(state) == SECRET else (0,)


def three_way_machine() -> MatrixMachine:
    """Three roles move at once, ``hi`` or ``lo``; ``hi`` adds 40 to one's own goal whatever the others do.

    Each role also gets 10 for every other role that played ``lo``, so the others' choices matter.
    """
    payoffs = {
        moves: tuple(
            (40 if own == "hi" else 0) + 10 * sum(1 for j, other in enumerate(moves) if j != i and other == "lo")
            for i, own in enumerate(moves)
        )
        for moves in itertools.product(("hi", "lo"), repeat=3)
    }
    return MatrixMachine(payoffs, roles=("red", "green", "blue"))


@pytest.mark.parametrize("machine", [SoloMachine(), three_way_machine()], ids=["solo", "three"])
def test_the_new_test_games_keep_the_state_machine_contract(machine: StateMachine) -> None:
    assert check_state_machine(machine, playouts=3, seed=0) > 0


@pytest.mark.parametrize("seed", range(3))
def test_mcts_solves_a_single_player_puzzle_by_search(seed: int) -> None:
    machine = SoloMachine()
    player = MctsPlayer(seed, Budget(iterations=300))
    player.start(machine, Const("solo"), Budget())
    state = machine.initial_state()
    while not machine.is_terminal(state):
        state = machine.next_state(state, (player.choose(state, Budget()),))
    assert machine.goals(state) == (100,)


@pytest.mark.parametrize("kind", ["mcts", "monte_carlo", "alphabeta"])
@pytest.mark.parametrize("seed", range(2))
def test_every_role_of_a_three_role_simultaneous_game_finds_its_dominant_move(kind: str, seed: int) -> None:
    machine = three_way_machine()
    state = machine.initial_state()
    moves = []
    for index, role in enumerate(machine.roles):
        player = make_player(f"{kind}:iterations=300", seed=seed + 10 * index)
        player.start(machine, role, Budget())
        moves.append(player.choose(state, Budget()))
    assert moves == [Const("hi")] * 3


@pytest.mark.parametrize(
    ("machine", "role", "reason"),
    [
        (three_way_machine(), Const("red"), "the game has 3 roles, not 2"),
        (SoloMachine(), Const("solo"), "the game has 1 roles, not 2"),
        (ChanceMachine(), Const("player"), "the game has a chance role 'random'"),
    ],
    ids=["three", "solo", "chance"],
)
def test_alphabeta_hands_games_it_cannot_search_to_mcts_and_logs_why(
    machine: StateMachine, role: Role, reason: str, caplog: pytest.LogCaptureFixture,
) -> None:
    player = AlphaBetaPlayer(seed=0, budget=Budget(iterations=600))
    with caplog.at_level(logging.INFO, logger="ggp.players.alphabeta"):
        player.start(machine, role, Budget())
    assert f"{reason}; falling back to MCTS" in caplog.text
    assert player.choose(machine.initial_state(), Budget()) in machine.legal_moves(machine.initial_state(), role)


@pytest.mark.parametrize("kind", ["mcts", "dmcts", "monte_carlo", "alphabeta"])
def test_every_searching_player_averages_over_the_random_role_instead_of_fearing_its_worst_move(kind: str) -> None:
    machine = ChanceMachine()  # gamble: 67 on average but 0 against an adversarial coin; safe: 50
    player = make_player(f"{kind}:iterations=600", seed=0)
    player.start(machine, Const("player"), Budget())
    assert player.choose(machine.initial_state(), Budget()) == Const("gamble")




def test_flat_monte_carlo_runs_its_playouts_in_batches_within_the_iteration_budget() -> None:
    machine = BatchingNim()
    player = MonteCarloPlayer(seed=0, budget=Budget(iterations=50), playouts_per_visit=8)
    player.start(machine, machine.roles[0], Budget())
    assert player.choose(machine.initial_state(), Budget()) in machine.legal_moves(machine.initial_state(), machine.roles[0])
    assert sum(machine.calls) == 50  # the budget counts playouts, the last batch is cut to fit
    assert machine.calls[:-1] and set(machine.calls[:-1]) == {8}


def test_a_solved_position_is_answered_from_the_transposition_table() -> None:
    machine = NimMachine((2, 3, 4))
    player = AlphaBetaPlayer(seed=0, budget=Budget(iterations=50_000))
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    first = player.choose(state, Budget())
    searched = player._nodes
    assert searched > 100 and player.last_value == 100
    again = player.choose(state, Budget())
    assert again == first and player._nodes == 1  # the root's exact, solved entry answers at once


def test_iterative_deepening_plays_the_move_the_table_stored_at_the_last_finished_depth() -> None:
    machine = NimMachine((3, 4, 5))
    player = AlphaBetaPlayer(seed=0, budget=Budget(depth=3))
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    move = player.choose(state, Budget())
    entry = player._table[state]
    assert player.last_depth == 3 and not entry.solved
    assert machine.legal_moves(state, machine.roles[0])[entry.best[0]] == move


class LeaningNim(NimMachine):
    """Nim whose rules already give the first role 70 and the second 30 before the end."""

    def goals(self, state: State) -> tuple[int, ...]:
        return super().goals(state) if self.is_terminal(state) else (70, 30)


def test_the_generic_evaluation_reads_goals_and_mobility_and_stays_below_a_proven_win() -> None:
    machine = LeaningNim((3, 4))
    player = AlphaBetaPlayer()
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    assert player._evaluate(state, 3, 3) > 0  # only the goal feature: 70 - 30 in our favour
    assert player._evaluate(state, 9, 1) > player._evaluate(state, 3, 3) > player._evaluate(state, 1, 9)
    as_second = AlphaBetaPlayer()
    as_second.start(machine, machine.roles[1], Budget())
    assert as_second._evaluate(state, 3, 3) < 0
    assert -HEURISTIC_LIMIT <= as_second._evaluate(state, 1, 99) < 0 < player._evaluate(state, 99, 1) <= HEURISTIC_LIMIT
