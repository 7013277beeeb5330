"""MctsPlayer on a circuit machine: the search runs in C through the machine's ``mcts_tree`` hook, and it
behaves as the Python search does (same moves found, legal moves only, budgets and clocks obeyed)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from ggp.gdl.parser import parse_term
from ggp.native import find_compiler
from ggp.player import Budget
from ggp.players.base import BasePlayer
from ggp.players.determinized_mcts import _FlatRootMcts
from ggp.players.mcts import MctsPlayer, _Node
from ggp.players.random_player import RandomPlayer
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.evaluator import EvaluatorKind
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import Move, State
from ggp.reasoner.playouts import mcts_tree_hook
from ggp.reasoner.upgrade import UpgradingMachine
from tests.conftest import KIF_DIR
from tests.helpers.cancel import cancel_a_running_search
from tests.helpers.chain_game import chain_game
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine

pytestmark = needs(find_compiler() is not None, "no c compiler (cc)")


class PythonMcts(MctsPlayer):
    """The same player with the native search switched off: the reference for the C search."""

    def _native_tree(self, state: State) -> None:
        return None


def machine_of(game: str, evaluator: EvaluatorKind = "c") -> CircuitStateMachine:
    return circuit_machine(KIF_DIR / game / f"{game}.kif", evaluator)


def play(machine: CircuitStateMachine, *moves: str) -> State:
    """The state after the given joint moves (each one move per role, KIF text separated by ``|``)."""
    state = machine.initial_state()
    for joint in moves:
        state = machine.next_state(state, tuple(parse_term(text) for text in joint.split("|")))
    return state


@pytest.mark.parametrize("kind", [MctsPlayer, PythonMcts])
def test_both_searches_find_the_winning_and_the_blocking_tic_tac_toe_move(kind: type[MctsPlayer]) -> None:
    machine = machine_of("ticTacToe")
    x_wins = play(machine, "(mark 1 1)|noop", "noop|(mark 2 1)", "(mark 1 2)|noop", "noop|(mark 2 2)")
    o_blocks = play(machine, "(mark 1 1)|noop", "noop|(mark 3 3)", "(mark 1 2)|noop")
    for role, state in ((0, x_wins), (1, o_blocks)):
        player = kind(seed=2, budget=Budget(iterations=2000))
        player.start(machine, machine.roles[role], Budget())
        assert player.choose(state, Budget()) == parse_term("(mark 1 3)")
        assert (player._native is not None) == (kind is MctsPlayer)


@pytest.mark.parametrize("playouts", [1, 4])
@pytest.mark.parametrize("game", ["ticTacToe", "rockPaperScissors", "threePlayerTicTacToe", "connectFour"])
def test_native_mcts_plays_whole_matches_with_legal_moves_and_counts_its_iterations(game: str, playouts: int) -> None:
    machine = machine_of(game)
    mcts = MctsPlayer(seed=1, budget=Budget(iterations=150), playouts_per_leaf=playouts)
    players: list[BasePlayer] = [mcts, *[RandomPlayer(seed=2 + i) for i in range(len(machine.roles) - 1)]]
    for role, player in zip(machine.roles, players):
        player.start(machine, role, Budget())
    state = machine.initial_state()
    searched = 0
    while not machine.is_terminal(state):
        joint = tuple(player.choose(state, Budget()) for player in players)
        if len(machine.legal_moves(state, machine.roles[0])) > 1:
            searched += 1
            assert mcts._native is not None
            proven = mcts._native.root_statistics(0).proven
            # a root proven by MCTS-Solver ends the search early; else every iteration of the budget runs
            assert mcts.last_iterations == 150 or (mcts.last_iterations < 150 and any(v is not None for v in proven))
            assert sum(count for _, count, _ in mcts.move_statistics()) >= mcts.last_iterations
        state = machine.next_state(state, joint)  # IllegalMoveError for an illegal move
    assert searched > 0 and mcts._native is not None


def test_native_mcts_repeats_a_match_with_the_same_seed() -> None:
    machine = machine_of("connectFour")

    def match() -> list[Move]:
        players = [MctsPlayer(seed=4, budget=Budget(iterations=200)), MctsPlayer(seed=5, budget=Budget(iterations=200))]
        for role, player in zip(machine.roles, players):
            player.start(machine, role, Budget())
        state, moves = machine.initial_state(), list[Move]()
        for _ in range(8):
            joint = tuple(player.choose(state, Budget()) for player in players)
            moves += joint
            state = machine.next_state(state, joint)
        return moves

    assert match() == match()


def test_native_mcts_reuses_its_tree_on_the_next_turn() -> None:
    machine = machine_of("ticTacToe")
    player = MctsPlayer(seed=0, budget=Budget(iterations=300))
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    move = player.choose(state, Budget())
    visits = dict((m, count) for m, count, _ in player.move_statistics())[move]
    after = machine.next_state(state, (move, parse_term("noop")))
    # The forced noop under a clock ponders on the kept child: its visits carry over (all but the
    # iteration that expanded it, which ended there).
    player.choose(after, Budget(cancel=threading.Event(), iterations=100))
    assert sum(count for _, count, _ in player.move_statistics()) == visits - 1 + 100


def test_a_cancel_event_stops_the_native_search_and_best_move_is_available() -> None:
    player = cancel_a_running_search(machine_of("connectFour"), join_seconds=10)
    assert player.last_iterations > 0


def test_a_deadline_ends_the_native_search() -> None:
    machine = machine_of("connectFour")
    player = MctsPlayer(seed=0)
    player.start(machine, machine.roles[0], Budget())
    began = time.monotonic()
    player.choose(machine.initial_state(), Budget.for_seconds(0.1))
    assert time.monotonic() - began < 30 and player.last_iterations > 0


def test_the_python_search_stays_where_the_machine_or_the_subclass_has_no_native_search() -> None:
    numpy = machine_of("ticTacToe", "numpy")
    player = MctsPlayer(seed=0, budget=Budget(iterations=50))
    player.start(numpy, numpy.roles[0], Budget())
    player.choose(numpy.initial_state(), Budget())
    assert player._native is None and isinstance(player._root, _Node)
    machine = machine_of("ticTacToe")
    flat = _FlatRootMcts(seed=0, budget=Budget(iterations=50))  # dmcts's own selection rule at the root
    flat.start(machine, machine.roles[0], Budget())
    flat.choose(machine.initial_state(), Budget())
    assert flat._native is None and isinstance(flat._root, _Node)


def test_the_hook_is_found_through_an_upgrading_machine_once_it_switched() -> None:
    path = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
    circuit = circuit_machine(path, "c")
    machine = UpgradingMachine(ClingoStateMachine(circuit.description, LOCAL), lambda: circuit, "circuit")
    assert machine.wait(60) and machine.upgraded
    assert mcts_tree_hook(machine) is not None
    player = MctsPlayer(seed=0, budget=Budget(iterations=100))
    player.start(machine, machine.roles[0], Budget())
    player.choose(machine.initial_state(), Budget())
    assert player._native is not None and player.last_iterations == 100


def test_the_mast_option_reaches_the_native_search_and_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "chain.kif"
    path.write_text(chain_game(40))
    machine = circuit_machine(path, "c")
    means = {}
    for mast in (0.0, 0.9):
        player = MctsPlayer(seed=5, budget=Budget(iterations=2000), mast=mast)
        player.start(machine, machine.roles[0], Budget())
        assert player.choose(machine.initial_state(), Budget()) == parse_term("good")
        (good,) = [(visits, mean) for move, visits, mean in player.move_statistics() if move == parse_term("good")]
        means[mast] = good[1]
    # 40 choices: the tree holds only the first few moves of 2,000 iterations, the rest is playouts (see
    # chain_game: random ones score half the remaining points, MAST's nearly all).
    assert means[0.0] < 0.7 < 0.8 < means[0.9]
    with pytest.raises(ValueError, match="mast is the share of MAST moves"):
        MctsPlayer(mast=1.5)


def test_the_solver_ends_a_proven_search_early_and_never_plays_a_refuted_move() -> None:
    machine = machine_of("ticTacToe")
    # o to move must block at (mark 1 3); every other move loses at once (proven 0), and x's fork after the
    # block is proven too: with the solver, a search of any size never plays a losing move.
    must_block = play(machine, "(mark 1 1)|noop", "noop|(mark 3 3)", "(mark 1 2)|noop")
    for solver in (True, False):
        player = MctsPlayer(seed=3, budget=Budget(iterations=50_000), solver=solver)
        player.start(machine, machine.roles[1], Budget())
        assert player.choose(must_block, Budget()) == parse_term("(mark 1 3)")
        assert (player.last_iterations < 50_000) == solver
    for iterations in (20, 60, 200):
        player = MctsPlayer(seed=4, budget=Budget(iterations=iterations))
        player.start(machine, machine.roles[1], Budget())
        move = player.choose(must_block, Budget())
        assert player._native is not None
        stats = player._native.root_statistics(1)
        refuted = {m for m, v in zip(stats.moves, stats.proven) if v == 0.0}
        assert move not in refuted


def test_the_rave_option_reaches_the_native_search_and_is_checked() -> None:
    machine = machine_of("ticTacToe")
    o_blocks = play(machine, "(mark 1 1)|noop", "noop|(mark 3 3)", "(mark 1 2)|noop")
    visits = {}
    for rave in (0.0, 500.0):
        player = MctsPlayer(seed=2, budget=Budget(iterations=300), rave=rave, solver=False)
        player.start(machine, machine.roles[1], Budget())
        assert player.choose(o_blocks, Budget()) == parse_term("(mark 1 3)")
        visits[rave] = [count for _, count, _ in player.move_statistics()]
    assert visits[0.0] != visits[500.0]  # the same seed searches differently once AMAF means count
    with pytest.raises(ValueError, match="rave is RAVE's equivalence parameter"):
        MctsPlayer(rave=-1.0)


def test_in_a_one_role_game_the_player_follows_its_best_line_to_at_least_its_goal(tmp_path: Path) -> None:
    from tests.unit.reasoner.test_circuit_mcts import pick_machine

    machine = pick_machine(tmp_path, "c")
    kept = []
    for seed in range(8):
        player = MctsPlayer(seed=seed, budget=Budget(iterations=40), solver=False)
        player.start(machine, machine.roles[0], Budget())
        state = machine.initial_state()
        move = player.choose(state, Budget())
        assert player._native is not None
        first = player._native.root_statistics(0).line
        assert first is not None  # 40 iterations always end some line
        assert move == first[0]
        while True:
            state = machine.next_state(state, (move,))
            if machine.is_terminal(state):
                break
            move = player.choose(state, Budget())
        kept.append(machine.goals(state)[0] >= round(100 * first[1]))
    assert all(kept)  # following the line guarantees its goal, whatever later searches saw


def play_alone(machine: CircuitStateMachine, player: MctsPlayer, start: Budget | None = None) -> int:
    """One match of a one-role game: the player's goal."""
    player.start(machine, machine.roles[0], start or Budget())
    state = machine.initial_state()
    while not machine.is_terminal(state):
        state = machine.next_state(state, (player.choose(state, Budget()),))
    return machine.goals(state)[0]


def test_with_nested_search_up_to_level_4_the_player_completes_the_knights_tour(shared_dir: Path) -> None:
    machine = circuit_machine(shared_dir / "gdl-corpus" / "knightsTour.kif", "c")
    goals = []
    for seed in range(2):
        player = MctsPlayer(seed=seed, budget=Budget(iterations=200), nested=4)
        goals.append(play_alone(machine, player))
    # level-bounded, not clocked: levels 1 to 4 each decision (0.8 s of one core from the start), then 200
    # iterations; 10 games of 10 at 2,000 iterations when measured (docs/players.md), 93.4 mean without
    assert goals == [100, 100]


def test_by_default_nested_search_runs_under_a_clock_only_and_a_perfect_line_ends_the_decision(tmp_path: Path) -> None:
    from tests.unit.reasoner.test_circuit_mcts import pick_machine

    machine = pick_machine(tmp_path, "c", 8)
    state = machine.initial_state()
    player = MctsPlayer(seed=0, budget=Budget(iterations=20), solver=False)
    player.start(machine, machine.roles[0], Budget())
    player.choose(state, Budget())
    assert player.last_nested == 0 and player.last_iterations == 20  # no clock: NMCS would be unbounded
    player = MctsPlayer(seed=0, solver=False)
    player.start(machine, machine.roles[0], Budget())
    move = player.choose(state, Budget(deadline=time.monotonic() + 60.0))
    assert player._native is not None
    line = player._native.root_statistics(0).line
    # levels 1, 2 (level 2 wins for certain) until the line is worth 100: then nothing can do better
    assert line is not None and line == (move, 1.0)
    assert 1 <= player.last_nested <= 2 and player.last_iterations == 0


def test_a_clocked_start_is_spent_on_nested_search_and_nested_0_turns_it_off(tmp_path: Path) -> None:
    from tests.unit.reasoner.test_circuit_mcts import pick_machine

    machine = pick_machine(tmp_path, "c", 8)
    player = MctsPlayer(seed=1, budget=Budget(iterations=50))
    player.start(machine, machine.roles[0], Budget(deadline=time.monotonic() + 60.0))
    assert player._native is not None and 1 <= player.last_nested <= 2
    line = player._native.root_statistics(0).line
    assert line is not None and line[1] == 1.0  # found during the start clock: the match is won from move one
    assert play_alone(machine, player, Budget(deadline=time.monotonic() + 60.0)) == 100
    off = MctsPlayer(seed=1, budget=Budget(iterations=50), nested=0)
    off.start(machine, machine.roles[0], Budget(deadline=time.monotonic() + 60.0))
    assert off._native is None and off.last_nested == 0
    with pytest.raises(ValueError, match="nested is the highest level"):
        MctsPlayer(nested=-1)
