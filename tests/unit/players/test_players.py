"""Players on tiny pure-Python games: legality, seeded reproducibility and basic strength."""

from __future__ import annotations

import logging
import random
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

import pytest

from ggp.gdl.terms import Const, Func
from ggp.player import AnytimePlayer, Budget, Player
from ggp.players.alphabeta import LEAF_PLAYOUTS, AlphaBetaPlayer, Weights
from ggp.players.base import DEFAULT_ITERATIONS, BasePlayer
from ggp.players.legal_player import LegalPlayer
from ggp.players.mcts import MctsPlayer
from ggp.players.minimax import MinimaxPlayer
from ggp.players.monte_carlo import MonteCarloPlayer
from ggp.players.random_player import RandomPlayer
from ggp.players.registry import PLAYER_TYPES, make_player, parse_spec
from ggp.reasoner.machine import Move, State, StateMachine
from ggp.reasoner.playouts import playout_goals
from ggp.testing import check_state_machine
from tests.conftest import ROOT
from tests.helpers.cancel import cancel_a_running_search
from tests.helpers.nim_machine import (
    DOMINANT,
    MATCHING_PENNIES,
    BatchingNim,
    ChanceMachine,
    MatrixMachine,
    NimMachine,
)

ALL_TYPES = sorted(set(PLAYER_TYPES) - {"minimax"})
"""Types that play any game; minimax needs pieces (tests/unit/players/test_minimax.py)."""


def play(machine: StateMachine, players: Sequence[BasePlayer], budget: Budget) -> tuple[list[State], tuple[int, ...]]:
    """Run a whole match in-process; returns the states and the final goals."""
    for role, player in zip(machine.roles, players):
        player.start(machine, role, Budget())
    state = machine.initial_state()
    states = [state]
    while not machine.is_terminal(state):
        joint = tuple(player.choose(state, budget) for player in players)
        state = machine.next_state(state, joint)
        states.append(state)
    for player in players:
        player.stop()
    return states, machine.goals(state)


@pytest.mark.parametrize("kind", ALL_TYPES)
def test_every_player_satisfies_the_protocols_and_plays_legal_moves(kind: str) -> None:
    player = make_player(f"{kind}:iterations=30", seed=1)
    assert isinstance(player, Player) and isinstance(player, AnytimePlayer)
    machine = NimMachine((2, 3))
    states, goals = play(machine, [player, make_player("random", seed=2)], Budget())
    assert sorted(goals) == [0, 100]
    assert len(states) >= 2


@pytest.mark.parametrize("kind", ALL_TYPES)
def test_same_seed_and_iteration_budget_give_the_same_moves(kind: str) -> None:
    machine = NimMachine((3, 4))
    runs = []
    for _ in range(2):
        players = [make_player(f"{kind}:iterations=40", seed=7), make_player("random", seed=8)]
        states, _ = play(machine, players, Budget())
        runs.append(states)
    assert runs[0] == runs[1]


def test_different_seeds_give_different_random_games() -> None:
    machine = NimMachine((3, 4, 5))
    games = {
        tuple(str(s) for s in play(machine, [RandomPlayer(seed), RandomPlayer(seed + 100)], Budget())[0])
        for seed in range(6)
    }
    assert len(games) > 1


def test_legal_player_always_plays_the_first_legal_move() -> None:
    machine = NimMachine((2, 2))
    player = LegalPlayer()
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    assert player.choose(state, Budget()) == machine.legal_moves(state, machine.roles[0])[0]


def test_choose_before_start_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="before start"):
        RandomPlayer().choose(NimMachine().initial_state(), Budget())


def test_a_role_without_legal_moves_is_a_value_error() -> None:
    machine = NimMachine((1,))
    player = RandomPlayer()
    player.start(machine, machine.roles[0], Budget())
    with pytest.raises(ValueError, match="no legal move"):
        player.choose(machine.state_of((0,)), Budget())


def test_start_refuses_a_role_the_game_does_not_have() -> None:
    with pytest.raises(ValueError, match="unknown role"):
        RandomPlayer().start(NimMachine(), Const("nobody"), Budget())


TAKE_ALL = Func("take", (Const("1"), Const("5")))


@pytest.mark.parametrize("kind", ["mcts", "monte_carlo", "alphabeta"])
def test_search_players_find_an_immediate_win(kind: str) -> None:
    machine = NimMachine((5,))
    player = make_player(f"{kind}:iterations=300", seed=3)
    player.start(machine, machine.roles[0], Budget())
    assert player.choose(machine.initial_state(), Budget()) == TAKE_ALL


def test_mcts_finds_the_winning_nim_move_that_zeroes_the_xor() -> None:
    machine = NimMachine((1, 2))
    player = MctsPlayer(seed=0, budget=Budget(iterations=400))
    player.start(machine, machine.roles[0], Budget())
    assert player.choose(machine.initial_state(), Budget()) == Func("take", (Const("2"), Const("1")))


def nim_xor(heaps: Sequence[int]) -> int:
    value = 0
    for heap in heaps:
        value ^= heap
    return value


@pytest.mark.parametrize("seed", range(4))
def test_alphabeta_wins_nim_from_a_winning_position_against_random(seed: int) -> None:
    machine = NimMachine((2, 3, 4))
    assert nim_xor((2, 3, 4)) != 0
    states, goals = play(machine, [AlphaBetaPlayer(seed, Budget(iterations=20_000)), RandomPlayer(seed)], Budget())
    assert goals == (100, 0)
    # Every position alpha-beta leaves to the opponent is a losing one (xor zero).
    assert all(nim_xor(NimMachine.heaps_of(s)) == 0 for s in states[1::2])


def test_alphabeta_as_second_player_punishes_a_mistake() -> None:
    machine = NimMachine((1, 3))
    player = AlphaBetaPlayer()
    player.start(machine, machine.roles[1], Budget())
    # The first player emptied heap 1, leaving (0, 3): second takes the whole heap and wins.
    state = machine.state_of((0, 3), control=1)
    assert player.choose(state, Budget()) == Func("take", (Const("2"), Const("3")))
    assert player.last_value == 100


class _OracleNim(BatchingNim):
    """Nim whose batched playouts always end as a win for the first role: an oracle at the horizon."""

    def playout_goals(self, state: State, n: int, rng: random.Random) -> list[tuple[int, ...]]:
        self.calls.append(n)
        return [(100, 0)] * n


def test_alphabeta_scores_its_horizon_by_batched_playouts_when_the_machine_runs_them() -> None:
    # Nim's goals, mobility and material say nothing before the end; with a batching machine the
    # depth-1 search's leaves are scored by LEAF_PLAYOUTS playouts (here all wins for the first role).
    machine = _OracleNim()
    player = AlphaBetaPlayer(budget=Budget(depth=1))
    player.start(machine, machine.roles[0], Budget())
    player.choose(machine.initial_state(), Budget())
    assert machine.calls and set(machine.calls) == {LEAF_PLAYOUTS}
    assert player.last_value > 0  # the playouts' verdict; mobility alone is never positive for every reply
    blind = AlphaBetaPlayer(budget=Budget(depth=1), weights=Weights(playouts=0.0))
    blind.start(_OracleNim(), machine.roles[0], Budget())
    blind.choose(machine.initial_state(), Budget())
    assert blind.last_value <= 0


def test_alphabeta_respects_a_depth_budget_and_still_returns_a_legal_move() -> None:
    machine = NimMachine((3, 4, 5))
    player = AlphaBetaPlayer(budget=Budget(depth=1))
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    assert player.choose(state, Budget()) in machine.legal_moves(state, machine.roles[0])
    assert player.last_depth == 1


def test_alphabeta_falls_back_to_mcts_for_simultaneous_games(caplog: pytest.LogCaptureFixture) -> None:
    machine = MatrixMachine(DOMINANT)
    player = AlphaBetaPlayer(seed=1, budget=Budget(iterations=300))
    with caplog.at_level(logging.INFO, logger="ggp.players.alphabeta"):
        player.start(machine, machine.roles[0], Budget())
    assert "falling back to MCTS" in caplog.text
    assert player.choose(machine.initial_state(), Budget()) == Const("b")


@pytest.mark.parametrize("seed", range(3))
def test_decoupled_uct_picks_dominant_moves_in_a_simultaneous_game(seed: int) -> None:
    machine = MatrixMachine(DOMINANT)
    row, col = MctsPlayer(seed, Budget(iterations=300)), MctsPlayer(seed + 10, Budget(iterations=300))
    row.start(machine, machine.roles[0], Budget())
    col.start(machine, machine.roles[1], Budget())
    state = machine.initial_state()
    assert (row.choose(state, Budget()), col.choose(state, Budget())) == (Const("b"), Const("x"))


def test_decoupled_uct_mixes_in_matching_pennies() -> None:
    machine = MatrixMachine(MATCHING_PENNIES)
    picks = set()
    for seed in range(12):
        player = MctsPlayer(seed, Budget(iterations=60))
        player.start(machine, machine.roles[0], Budget())
        picks.add(player.choose(machine.initial_state(), Budget()))
    assert picks == {Const("heads"), Const("tails")}


def test_mcts_treats_the_random_role_as_chance_and_gambles() -> None:
    machine = ChanceMachine()
    player = MctsPlayer(seed=0, budget=Budget(iterations=600))
    player.start(machine, Const("player"), Budget())
    assert player.choose(machine.initial_state(), Budget()) == Const("gamble")


def test_flat_monte_carlo_also_gambles_when_the_average_favours_it() -> None:
    machine = ChanceMachine()
    player = MonteCarloPlayer(seed=0, budget=Budget(iterations=600))
    player.start(machine, Const("player"), Budget())
    assert player.choose(machine.initial_state(), Budget()) == Const("gamble")


def test_mcts_reuses_its_tree_between_turns() -> None:
    machine = NimMachine((3, 4))
    player = MctsPlayer(seed=0, budget=Budget(iterations=200))
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    move = player.choose(state, Budget())
    after = machine.next_state(state, (move, Const("noop")))
    root = player._root
    assert root is not None
    reused = next(child for child in root.children.values() if child.state == after)
    visits_before = reused.count
    assert visits_before > 0
    # The forced noop turn under an iteration budget is no decision: answered at once, no search.
    assert player.choose(after, Budget()) == Const("noop") and reused.count == visits_before
    # Under a clock (the player server passes a cancel event and a deadline) it ponders, reusing the tree.
    player.choose(after, Budget(cancel=threading.Event()))
    assert player._root is reused and reused.count == visits_before + 200


def test_a_deadline_budget_ends_the_search_in_time() -> None:
    machine = NimMachine((6, 7, 8))
    player = MctsPlayer(seed=0)
    player.start(machine, machine.roles[0], Budget())
    began = time.monotonic()
    player.choose(machine.initial_state(), Budget.for_seconds(0.2))
    assert time.monotonic() - began < 1.0
    assert player.last_iterations > 1


def test_a_cancel_event_stops_a_search_and_best_move_is_available() -> None:
    cancel_a_running_search(NimMachine((6, 7, 8)), join_seconds=2)


class SteppingClock:
    """Stands in for the ``time`` module of ``ggp.player``: every reading of the monotonic clock advances
    it 10 ms, so time passes only as the player works and the test does not depend on machine speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += 0.01
        return self.now


def test_move_seconds_limits_a_player_made_from_a_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = SteppingClock()
    monkeypatch.setattr("ggp.player.time", clock)
    player = make_player("mcts:seconds=0.1", seed=0)
    assert isinstance(player, MctsPlayer)
    machine = NimMachine((6, 7, 8))
    player.start(machine, machine.roles[0], Budget())
    began = clock.now
    player.choose(machine.initial_state(), Budget())
    # The 0.1 s limit is ten clock readings: the search stops after at most ten iterations, well before
    # the default iteration limit, and on the player's own clock no more than the limit has passed.
    assert 0 < player.last_iterations <= 10 < DEFAULT_ITERATIONS
    assert clock.now - began <= 0.1 + 0.03


def test_player_specs_parse_and_reject_unknown_options() -> None:
    assert parse_spec("MCTS:iterations=5, exploration=0.3") == ("mcts", {"iterations": 5, "exploration": 0.3})
    with pytest.raises(ValueError, match="unknown player type"):
        parse_spec("negamax")
    with pytest.raises(ValueError, match="no option 'exploration'"):
        make_player("random:exploration=1")
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("mcts:iterations")
    with pytest.raises(ValueError, match="needs a number"):
        parse_spec("mcts:iterations=many")
    assert parse_spec("minimax:h=WGC,depth=3") == ("minimax", {"h": "WGC", "depth": 3})
    with pytest.raises(ValueError, match=r"heuristic .X. must start with C"):
        make_player("minimax:h=X")


def test_budget_combines_limits_and_rejects_nonsense() -> None:
    combined = Budget(deadline=10.0, iterations=50).tightest(Budget(deadline=5.0, depth=3))
    assert (combined.deadline, combined.iterations, combined.depth) == (5.0, 50, 3)
    assert Budget().or_default(9).iterations == 9
    assert Budget(depth=2).or_default(9).iterations is None
    with pytest.raises(ValueError):
        Budget(iterations=0)




def test_playouts_are_delegated_to_a_machine_with_a_batch_hook() -> None:
    machine = BatchingNim()
    goals = playout_goals(machine, machine.initial_state(), 5, random.Random(0))
    assert machine.calls == [5] and len(goals) == 5 and all(sorted(g) == [0, 100] for g in goals)
    player = MctsPlayer(seed=0, budget=Budget(iterations=20), playouts_per_leaf=4)
    player.start(machine, machine.roles[0], Budget())
    player.choose(machine.initial_state(), Budget())
    assert machine.calls[1:] and set(machine.calls[1:]) == {4}


class BoardMachine(NimMachine):
    """Nim whose states also carry board-like piece fluents, to exercise material detection."""

    def __init__(self, pieces: dict[str, int]) -> None:
        super().__init__((1, 2), roles=("white", "black"))
        self.pieces = pieces

    def initial_state(self) -> State:
        cells = [Func("cell", (Const(str(i)), Const("1"), Const(owner)))
                 for i, owner in enumerate(o for o, n in self.pieces.items() for _ in range(n))]
        return State(super().initial_state().facts | frozenset(cells))


def test_alphabeta_detects_material_by_role_names_but_not_blanks() -> None:
    player = AlphaBetaPlayer()
    machine = BoardMachine({"white": 3, "bp": 2, "b": 4})
    player.start(machine, Const("white"), Budget())
    assert player._material(machine.initial_state()) == (3, 2)
    blank_only = BoardMachine({"b": 4, "white": 2})
    player.start(blank_only, Const("white"), Budget())
    assert not player._owners  # black has no piece at the start: material stays off


def test_players_and_protocol_messages_load_neither_clingo_nor_aiohttp() -> None:
    code = (
        "import sys, ggp.players.registry, ggp.protocol.messages, ggp.player; "
        "print('clingo' in sys.modules, 'aiohttp' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    "machine",
    [NimMachine((2, 3)), MatrixMachine(MATCHING_PENNIES), MatrixMachine(DOMINANT), ChanceMachine()],
    ids=["nim", "pennies", "dominant", "chance"],
)
def test_the_test_games_keep_the_state_machine_contract(machine: StateMachine) -> None:
    assert check_state_machine(machine, playouts=3, seed=0) > 0


class _CancellingNim(NimMachine):
    """Nim that cancels the running search after ``after`` steps and counts the steps taken after that."""

    def __init__(self, heaps: tuple[int, ...], cancel: threading.Event, after: int) -> None:
        super().__init__(heaps)
        self.cancel, self.after, self.steps, self.late = cancel, after, 0, 0

    def next_state(self, state: State, joint_move: tuple[Move, ...]) -> State:
        self.steps += 1
        if self.cancel.is_set():
            self.late += 1
        elif self.steps >= self.after:
            self.cancel.set()
        return super().next_state(state, joint_move)


@pytest.mark.parametrize("kind", ["mcts", "monte_carlo", "dmcts"])
def test_a_clocked_search_stops_inside_a_long_playout(kind: str) -> None:
    # ggp-base hosts recorded IL when one playout outlasted the play clock and the worker was still busy
    # at the next PLAY: the clock must be checked inside playouts, not only between iterations. A
    # playout from the start of Nim (40, 40) takes dozens of steps; the search is cancelled in its first.
    cancel = threading.Event()
    machine = _CancellingNim((40, 40), cancel, after=3)
    player = make_player(kind, seed=1)
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    move = player.choose(state, Budget(cancel=cancel))
    assert machine.late <= 1  # at most the step that was under way
    assert move in machine.legal_moves(state, machine.roles[0])


def test_a_clocked_minimax_on_gdl_answers_a_move_rated_before_the_clock() -> None:
    cancel = threading.Event()
    machine = _CancellingNim((4, 4), cancel, after=30)
    player = make_player("minimax:h=CGM,depth=12", seed=1)  # the whole game tree: far more than the clock
    assert isinstance(player, MinimaxPlayer)
    player._has_pieces = lambda machine: True  # type: ignore[method-assign]  # Nim has no board; test the clock
    player.start(machine, machine.roles[0], Budget())
    move = player.choose(machine.initial_state(), Budget(cancel=cancel))
    assert machine.late <= 1
    assert move in machine.legal_moves(machine.initial_state(), machine.roles[0])
