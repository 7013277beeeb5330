"""The MCTS tree searched by the circuit's C runtime (``ggp_mcts_*``, ``CircuitStateMachine.mcts_tree``)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from ggp.gdl.parser import parse_term
from ggp.native import find_compiler
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.circuit_tree import CircuitMctsTree
from ggp.reasoner.circuit.evaluator import EvaluatorKind
from ggp.reasoner.circuit.native_evaluator import CEvaluator
from ggp.reasoner.machine import Move, State
from tests.conftest import KIF_DIR
from tests.helpers.chain_game import chain_game
from tests.helpers.pick_game import pick_two_game
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import circuit_machine

pytestmark = needs(find_compiler() is not None, "no c compiler (cc)")

GAMES = ["ticTacToe", "rockPaperScissors", "kuhnPoker", "threePlayerTicTacToe", "connectFour"]
"""Turn-taking, simultaneous, with a chance role, three players, and a bigger board."""

NATIVE: list[EvaluatorKind] = ["c", "interpreter"]


def machine_of(game: str, evaluator: EvaluatorKind = "c") -> CircuitStateMachine:
    return circuit_machine(KIF_DIR / game / f"{game}.kif", evaluator)


def tree_of(
    machine: CircuitStateMachine, state: State | None = None, *, seed: int = 1, playouts: int = 1, max_nodes: int = 100_000
) -> CircuitMctsTree:
    tree = machine.mcts_tree(
        machine.initial_state() if state is None else state, exploration=1.0, playouts_per_leaf=playouts,
        chance=[str(role) == "random" for role in machine.roles], seed=seed, max_nodes=max_nodes,
    )
    assert tree is not None
    return tree


def play(machine: CircuitStateMachine, *moves: str) -> State:
    """The state after the given joint moves (each one move per role, KIF text separated by ``|``)."""
    state = machine.initial_state()
    for joint in moves:
        state = machine.next_state(state, tuple(parse_term(text) for text in joint.split("|")))
    return state


@pytest.mark.parametrize("playouts", [1, 3])
@pytest.mark.parametrize("game", GAMES)
def test_every_role_s_root_visits_sum_to_the_iterations_and_its_moves_are_the_legal_ones(game: str, playouts: int) -> None:
    machine = machine_of(game)
    tree = tree_of(machine, playouts=playouts)
    assert tree.search(500, math.inf) == 500
    state = machine.initial_state()
    for index, role in enumerate(machine.roles):
        stats = tree.root_statistics(index)
        assert not stats.terminal
        assert stats.moves == machine.legal_moves(state, role)
        assert sum(stats.visits) == 500 and len(stats.totals) == len(stats.moves)
        assert all(0.0 <= total <= count for total, count in zip(stats.totals, stats.visits))
        assert stats.branching == tuple(len(machine.legal_moves(state, r)) for r in machine.roles)
    assert tree.info()["visits"] == 500


@pytest.mark.parametrize("game", GAMES)
def test_the_compiled_and_the_interpreted_circuit_grow_the_same_tree_from_the_same_seed(game: str) -> None:
    # Also checks the compiled game's unrolled lane-0 readers against the interpreter's table loops.
    results = []
    for evaluator in NATIVE:
        for playouts in (1, 4):
            tree = tree_of(machine_of(game, evaluator), seed=7, playouts=playouts)
            tree.search(400, math.inf)
            results.append((tree.root_statistics(0), tree.info()))
    assert results[0] == results[2] and results[1] == results[3]


def test_the_same_seed_repeats_a_search_and_another_seed_differs() -> None:
    machine = machine_of("connectFour")
    runs = []
    for seed in (3, 3, 4):
        tree = tree_of(machine, seed=seed)
        tree.search(300, math.inf)
        runs.append(tree.root_statistics(0))
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_the_tree_stops_growing_at_the_node_cap_and_keeps_searching() -> None:
    machine = machine_of("connectFour")
    tree = tree_of(machine, max_nodes=40)
    assert tree.search(1000, math.inf) == 1000
    info = tree.info()
    assert info["nodes"] == 40 and info["full"] == 1
    assert sum(tree.root_statistics(0).visits) == 1000
    lone = tree_of(machine, max_nodes=1)  # the root alone: every iteration scores a child without storing it
    assert lone.search(50, math.inf) == 50 and lone.info()["nodes"] == 1


def test_a_deadline_in_the_past_runs_no_iteration_and_a_near_one_ends_a_huge_budget() -> None:
    tree = tree_of(machine_of("connectFour"))
    assert tree.search(1000, time.monotonic() - 1.0) == 0
    assert tree.info()["visits"] == 0
    began = time.monotonic()
    done = tree.search(10**15, began + 0.05)
    assert 0 < done < 10**15
    assert time.monotonic() - began < 30  # stopped by the clock, not by the budget


def test_a_terminal_root_runs_nothing() -> None:
    machine = machine_of("ticTacToe")
    won = play(machine, "(mark 1 1)|noop", "noop|(mark 2 1)", "(mark 1 2)|noop", "noop|(mark 2 2)", "(mark 1 3)|noop")
    assert machine.is_terminal(won)
    tree = tree_of(machine, won)
    assert tree.search(10, math.inf) == 0
    stats = tree.root_statistics(0)
    assert stats.terminal and stats.moves == () and stats.branching == (0, 0)


def test_the_search_finds_the_winning_and_the_blocking_tic_tac_toe_move() -> None:
    machine = machine_of("ticTacToe")
    x_wins = play(machine, "(mark 1 1)|noop", "noop|(mark 2 1)", "(mark 1 2)|noop", "noop|(mark 2 2)")
    tree = tree_of(machine, x_wins)
    tree.search(2000, math.inf)
    stats = tree.root_statistics(0)
    best = max(range(len(stats.moves)), key=lambda i: stats.visits[i])
    assert stats.moves[best] == parse_term("(mark 1 3)") and stats.totals[best] == stats.visits[best]
    o_blocks = play(machine, "(mark 1 1)|noop", "noop|(mark 3 3)", "(mark 1 2)|noop")
    tree = tree_of(machine, o_blocks)
    tree.search(3000, math.inf)
    stats = tree.root_statistics(1)
    assert stats.moves[max(range(len(stats.moves)), key=lambda i: stats.visits[i])] == parse_term("(mark 1 3)")


def test_reroot_keeps_the_subtree_of_a_child_or_grandchild_and_starts_afresh_elsewhere() -> None:
    machine = machine_of("ticTacToe")
    noop = parse_term("noop")

    def searched() -> CircuitMctsTree:
        tree = tree_of(machine, seed=5)
        tree.search(3000, math.inf)
        return tree

    def most_visited(tree: CircuitMctsTree, role: int) -> tuple[Move, int]:
        stats = tree.root_statistics(role)
        best = max(range(len(stats.moves)), key=lambda i: stats.visits[i])
        return stats.moves[best], stats.visits[best]

    tree = searched()
    x_move, x_visits = most_visited(tree, 0)
    child = machine.next_state(machine.initial_state(), (x_move, noop))
    assert tree.reroot(child)
    # Every iteration through that move expanded the child or went through it: one count each.
    assert tree.info()["visits"] == x_visits and 1 < tree.info()["nodes"] < 3000
    o_move, o_visits = most_visited(tree, 1)
    grandchild = machine.next_state(child, (noop, o_move))
    again = searched()  # the same seed grows the same tree
    assert again.reroot(grandchild) and again.info()["visits"] == o_visits
    assert again.reroot(machine.initial_state()) is False
    assert again.info()["nodes"] == 1 and again.info()["visits"] == 0
    assert again.reroot(machine.initial_state()) is True  # the root itself


def test_a_chance_role_is_drawn_uniformly_at_the_root() -> None:
    machine = machine_of("kuhnPoker")
    tree = tree_of(machine)
    tree.search(3000, math.inf)
    random_role = [str(role) for role in machine.roles].index("random")
    visits = tree.root_statistics(random_role).visits
    assert len(visits) > 1 and sum(visits) == 3000
    assert min(visits) > 3000 / len(visits) / 2  # uniform draws, not UCB1 piling onto one deal


def test_mcts_tree_checks_the_chance_flags_and_numpy_has_no_tree() -> None:
    machine = machine_of("ticTacToe")
    with pytest.raises(ValueError, match="one chance flag per role"):
        machine.mcts_tree(machine.initial_state(), exploration=1.0, playouts_per_leaf=1, chance=[False], seed=0,
                          max_nodes=10)
    numpy = machine_of("ticTacToe", "numpy")
    assert numpy.mcts_tree(numpy.initial_state(), exploration=1.0, playouts_per_leaf=1, chance=[False, False], seed=0,
                           max_nodes=10) is None


def test_the_byte_cap_stops_the_growth_and_a_kept_subtree_fits_again() -> None:
    machine = machine_of("connectFour")
    evaluator = machine.evaluator
    assert isinstance(evaluator, CEvaluator)
    tree = evaluator.mcts(machine.state_key(machine.initial_state()), 1.0, 1, [False, False], 3, 10**6, 40_000, 1000)
    assert tree.search(2000, math.inf) == 2000
    info = tree.info()
    assert info["full"] == 1 and info["bytes"] <= 40_000 and 1 < info["nodes"] < 2000
    root = tree.root(0)
    best = max(range(len(root.moves)), key=lambda i: root.visits[i])
    child = machine.state_key(machine.next_state(machine.initial_state(), (
        machine.moves[root.moves[best]][1], parse_term("noop"))))
    assert tree.reroot(child) and tree.info()["full"] == 0
    assert tree.search(500, math.inf) == 500 and tree.info()["bytes"] <= 40_000


@pytest.mark.parametrize("evaluator", NATIVE)
def test_mast_playouts_play_the_move_with_the_better_mean_more_often(evaluator: EvaluatorKind, tmp_path: Path) -> None:
    path = tmp_path / "chain.kif"
    path.write_text(chain_game())
    machine = circuit_machine(path, evaluator)
    means = {}
    for mast in (0.0, 0.9):
        tree = machine.mcts_tree(machine.initial_state(), exploration=1.0, playouts_per_leaf=1, chance=[False],
                                 seed=3, max_nodes=4, mast=mast)
        assert tree is not None and tree.search(1000, math.inf) == 1000
        stats = tree.root_statistics(0)
        (good,) = [i for i, move in enumerate(stats.moves) if str(move) == "good"]
        means[mast] = stats.totals[good] / stats.visits[good]
    # The tree holds 4 nodes, so nearly every value is a playout's: after `good` a random playout scores
    # about 5 + 95/2 = 52.5; MAST soon finds `good` the better move and plays it 95% of the time (9 in 10
    # greedy, half of the rest), about 5 + 0.95 * 95 = 95.
    assert means[0.0] < 0.6
    assert means[0.9] > 0.85


def test_mast_must_be_a_share() -> None:
    machine = machine_of("ticTacToe")
    with pytest.raises(ValueError, match="mast must be a share between 0 and 1"):
        machine.mcts_tree(machine.initial_state(), exploration=1.0, playouts_per_leaf=1, chance=[False, False], seed=0,
                          max_nodes=10, mast=1.5)


def solver_tree(machine: CircuitStateMachine, state: State, seed: int = 1) -> CircuitMctsTree:
    tree = machine.mcts_tree(state, exploration=0.4, playouts_per_leaf=1, chance=[False] * len(machine.roles),
                             seed=seed, max_nodes=100_000, solver=True)
    assert tree is not None
    return tree


def exact_value(machine: CircuitStateMachine, state: State, role: int) -> float:
    """The role's goal (0..1) under perfect play by brute force, for a turn-taking game: the role that
    has a choice takes the child best for itself (what MCTS-Solver proves)."""
    if machine.is_terminal(state):
        return machine.goals(state)[role] / 100.0
    legal = [machine.legal_moves(state, r) for r in machine.roles]
    (mover,) = [r for r, moves in enumerate(legal) if len(moves) > 1] or [0]
    children = []
    for move in legal[mover]:
        joint = tuple(move if r == mover else moves[0] for r, moves in enumerate(legal))
        children.append(machine.next_state(state, joint))
    best = max(children, key=lambda child: exact_value(machine, child, mover))
    return exact_value(machine, best, role)


@pytest.mark.parametrize("opening", [
    ("(mark 1 1)|noop", "noop|(mark 2 1)", "(mark 1 2)|noop", "noop|(mark 2 2)"),  # x wins at once
    ("(mark 2 2)|noop", "noop|(mark 1 2)", "(mark 1 1)|noop", "noop|(mark 3 3)"),  # x forks: a win in 3
    ("(mark 1 1)|noop", "noop|(mark 2 2)", "(mark 3 3)|noop"),  # o to move: a draw with care
    ("(mark 1 1)|noop", "noop|(mark 1 2)", "(mark 2 2)|noop"),  # o must block, then x forks: o loses
])
def test_the_solver_proves_the_root_and_every_proof_is_the_exact_value(opening: tuple[str, ...]) -> None:
    machine = machine_of("ticTacToe")
    state = play(machine, *opening)
    mover = len(opening) % 2
    tree = solver_tree(machine, state)
    ran = tree.search(200_000, math.inf)
    assert 0 < ran < 200_000  # the proven root ended the search
    assert tree.search(10, math.inf) == 0
    stats = tree.root_statistics(mover)
    assert None not in stats.proven or max(v for v in stats.proven if v is not None) == 1.0
    for move, value in zip(stats.moves, stats.proven):
        if value is not None:
            joint = tuple(move if r == mover else parse_term("noop") for r in range(2))
            assert value == exact_value(machine, machine.next_state(state, joint), mover)
    best = max(v for v in stats.proven if v is not None)
    assert best == exact_value(machine, state, mover)
    assert stats.proof is not None and stats.proven[stats.moves.index(stats.proof)] == best  # the proof's move
    if opening[-1] == "noop|(mark 2 2)":
        assert stats.proof == parse_term("(mark 1 3)")  # of several wins, the quickest
    other = tree.root_statistics(1 - mover)
    assert other.proven == (1.0 - best,)  # the role with one move (noop) reads the root's proof


def test_without_the_solver_nothing_is_proven_and_the_budget_runs_out() -> None:
    machine = machine_of("ticTacToe")
    state = play(machine, "(mark 1 1)|noop", "noop|(mark 2 1)", "(mark 1 2)|noop", "noop|(mark 2 2)")
    tree = tree_of(machine, state)
    assert tree.search(3000, math.inf) == 3000
    assert set(tree.root_statistics(0).proven) == {None}


def test_a_root_where_both_roles_choose_proves_no_move() -> None:
    machine = machine_of("rockPaperScissors")
    tree = solver_tree(machine, machine.initial_state())
    assert tree.search(2000, math.inf) == 2000
    assert set(tree.root_statistics(0).proven) == {None}


def pick_machine(tmp_path: Path, evaluator: EvaluatorKind, items: int = 16) -> CircuitStateMachine:
    """The circuit machine of :func:`pick_two_game` (written under ``tmp_path``)."""
    path = tmp_path / "pick.kif"
    path.write_text(pick_two_game(items))
    return circuit_machine(path, evaluator)


def test_rave_finds_a_good_first_move_in_fewer_iterations_where_move_order_does_not_matter(tmp_path: Path) -> None:
    machine = pick_machine(tmp_path, "c")
    good = {parse_term("(take 3)"), parse_term("(take 7)")}
    found = {}
    for rave in (0.0, 500.0):
        hits = 0
        for seed in range(30):
            tree = machine.mcts_tree(machine.initial_state(), exploration=0.4, playouts_per_leaf=1, chance=[False],
                                     seed=seed, max_nodes=10_000, rave=rave)
            assert tree is not None and tree.search(80, math.inf) == 80
            stats = tree.root_statistics(0)
            best = max(range(len(stats.moves)), key=lambda i: stats.visits[i])
            hits += stats.moves[best] in good
        found[rave] = hits
    # 80 iterations over 16 first moves: a plain mean sees each move's few playouts; an AMAF mean
    # counts every iteration that took the move at any step (seeded: 19 and 25 of 30 when written)
    assert found[500.0] >= found[0.0] + 3


@pytest.mark.parametrize("solver", [False, True])
def test_a_one_role_games_best_line_is_kept_along_its_moves_and_gives_its_goal(tmp_path: Path, solver: bool) -> None:
    machine = pick_machine(tmp_path, "c")
    state = machine.initial_state()
    tree = machine.mcts_tree(state, exploration=0.4, playouts_per_leaf=1, chance=[False], seed=3, max_nodes=10_000,
                             solver=solver)
    assert tree is not None and tree.root_statistics(0).line is None  # nothing played yet
    tree.search(300, math.inf)
    line = tree.root_statistics(0).line
    assert line is not None and line[1] == 1.0  # 300 iterations find one of the 6 winning orders of 3 picks
    while not machine.is_terminal(state):  # no more search: the kept line alone leads to its goal
        first = tree.root_statistics(0).line
        assert first is not None and first[1] == 1.0
        state = machine.next_state(state, (first[0],))
        tree.reroot(state)
    assert machine.goals(state)[0] == 100
    assert tree.root_statistics(0).line is None  # at the end there is no move left to follow


def test_leaving_the_best_line_drops_it_and_two_role_games_have_none(tmp_path: Path) -> None:
    machine = pick_machine(tmp_path, "c")
    state = machine.initial_state()
    tree = machine.mcts_tree(state, exploration=0.4, playouts_per_leaf=1, chance=[False], seed=3, max_nodes=10_000)
    assert tree is not None
    tree.search(300, math.inf)
    line = tree.root_statistics(0).line
    assert line is not None
    other = next(move for move in machine.legal_moves(state, machine.roles[0]) if move != line[0])
    tree.reroot(machine.next_state(state, (other,)))
    assert tree.root_statistics(0).line is None
    two = tree_of(machine_of("ticTacToe"))
    two.search(200, math.inf)
    assert two.root_statistics(0).line is None and two.root_statistics(1).line is None


def replay_line(machine: CircuitStateMachine, tree: CircuitMctsTree, state: State) -> tuple[float, int]:
    """Follow the tree's best line from ``state`` (its root) to the end with no more search: the goal (0..1) the
    line promised at the start and the goal reached."""
    first = tree.root_statistics(0).line
    assert first is not None
    while not machine.is_terminal(state):
        line = tree.root_statistics(0).line
        assert line is not None and line[0] in machine.legal_moves(state, machine.roles[0])
        state = machine.next_state(state, (line[0],))
        tree.reroot(state)
    return first[1], machine.goals(state)[0]


def pick_tree(machine: CircuitStateMachine, seed: int) -> CircuitMctsTree:
    tree = machine.mcts_tree(machine.initial_state(), exploration=0.4, playouts_per_leaf=1, chance=[False], seed=seed,
                             max_nodes=10_000)
    assert tree is not None
    return tree


@pytest.mark.parametrize("evaluator", NATIVE)
def test_nested_search_of_level_2_finds_the_winning_line_and_the_line_replays_to_its_goal(
    tmp_path: Path, evaluator: EvaluatorKind
) -> None:
    machine = pick_machine(tmp_path, evaluator, 8)
    for seed in range(5):
        tree = pick_tree(machine, seed)
        assert tree.nested(2, math.inf)
        # level 2 tries every first move with a level-1 search below it, which after (take 3) or (take 7) tries
        # the other one: the win is certain, not drawn
        assert replay_line(machine, tree, machine.initial_state()) == (1.0, 100)


@pytest.mark.parametrize("evaluator", NATIVE)
def test_nested_search_of_level_1_run_again_from_its_own_line_finds_the_winning_line(
    tmp_path: Path, evaluator: EvaluatorKind
) -> None:
    machine = pick_machine(tmp_path, evaluator, 8)
    calls = []
    for seed in range(5):
        tree = pick_tree(machine, seed)
        line = None
        calls.append(0)
        while calls[-1] < 10 and (line is None or line[1] < 1.0):  # each call starts from the best line so far
            assert tree.nested(1, math.inf)
            line = tree.root_statistics(0).line
            calls[-1] += 1
        assert replay_line(machine, tree, machine.initial_state()) == (1.0, 100)
    assert max(calls) < 10  # seeded: one call each when written


def test_both_evaluators_run_the_same_nested_search_from_the_same_seed(tmp_path: Path) -> None:
    path = tmp_path / "chain.kif"
    path.write_text(chain_game(12))
    lines = []
    for evaluator in NATIVE:
        machine = circuit_machine(path, evaluator)
        tree = pick_tree(machine, 5)
        assert tree.nested(1, math.inf)
        lines.append(tree.root_statistics(0).line)
    assert lines[0] is not None and lines[0] == lines[1]


@pytest.mark.parametrize("evaluator", NATIVE)
def test_nested_search_past_its_deadline_stops_at_once_and_keeps_the_line_it_had(
    tmp_path: Path, evaluator: EvaluatorKind
) -> None:
    machine = pick_machine(tmp_path, evaluator, 8)
    tree = pick_tree(machine, 3)
    assert not tree.nested(30, 0.0)  # level 30 would never end: the clock is read before the first playout
    assert tree.root_statistics(0).line is None
    tree.search(5, math.inf)
    kept = tree.root_statistics(0).line
    assert kept is not None
    assert not tree.nested(30, time.monotonic() - 1.0)
    assert tree.root_statistics(0).line == kept
    promised, reached = replay_line(machine, tree, machine.initial_state())
    assert reached >= round(100 * promised)


def test_nested_search_needs_one_role_without_chance_and_does_nothing_at_the_end(tmp_path: Path) -> None:
    two = tree_of(machine_of("ticTacToe"))
    with pytest.raises(ValueError, match="one role and no chance"):
        two.nested(1, math.inf)
    machine = pick_machine(tmp_path, "c", 8)
    state = machine.initial_state()
    for move in ("(take 0)", "(take 1)", "(take 2)"):
        state = machine.next_state(state, (parse_term(move),))
    tree = machine.mcts_tree(state, exploration=0.4, playouts_per_leaf=1, chance=[False], seed=0, max_nodes=100)
    assert tree is not None and machine.is_terminal(state)
    assert tree.nested(3, math.inf) and tree.root_statistics(0).line is None


RACE = """
(role a) (role b) (init (control a)) (init (step 0))
(num 1) (num 2) (num 3) (num 4) (num 5) (num 6) (num 7) (num 8)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9) (succ 9 10)
(<= (legal ?r (pick ?n)) (true (control ?r)) (num ?n))
(<= (legal a noop) (true (control b)))
(<= (legal b noop) (true (control a)))
(<= (next (won ?r)) (does ?r (pick 8)))
(<= (next (control a)) (true (control b)))
(<= (next (control b)) (true (control a)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (won ?r)))
(<= terminal (true (step 10)))
(<= (goal ?r 100) (true (won ?r)))
(<= (goal a 0) (true (won b)))
(<= (goal b 0) (true (won a)))
(<= (goal ?r 50) (role ?r) (not (true (won a))) (not (true (won b))))
"""
"""Whoever picks 8 wins at once; ten picks without one draw."""


def first_move_totals(kif: str, path: Path, evaluator: EvaluatorKind, decisive: int) -> dict[str, float]:
    """The first role's goal total per root move after one iteration per move, each scored by one playout
    (or by its terminal state) with the ``decisive`` lookahead."""
    path.write_text(kif)
    machine = circuit_machine(path, evaluator)
    moves = len(machine.legal_moves(machine.initial_state(), machine.roles[0]))
    tree = machine.mcts_tree(machine.initial_state(), exploration=1.0, playouts_per_leaf=1, chance=[False, False],
                             seed=5, max_nodes=100, decisive=decisive)
    assert tree is not None and tree.search(moves, math.inf) == moves
    stats = tree.root_statistics(0)
    assert stats.visits == (1,) * moves  # unvisited moves first
    return {str(move): total for move, total in zip(stats.moves, stats.totals)}


@pytest.mark.parametrize("evaluator", NATIVE)
def test_decisive_playouts_take_the_opponents_winning_move_where_random_ones_miss_it(
    evaluator: EvaluatorKind, tmp_path: Path,
) -> None:
    # Pick 8 wins at once; after any other pick the one playout starts with b to move, and a decisive b picks 8.
    totals = {level: first_move_totals(RACE, tmp_path / "race.kif", evaluator, level) for level in (0, 1)}
    assert totals[1] == {f"(pick {n})": 1.0 if n == 8 else 0.0 for n in range(1, 9)}
    assert totals[0]["(pick 8)"] == 1.0
    assert sum(totals[0].values()) > 1.0, "random playouts after a's other picks never reached a draw or a win"


GUARD = """
(role a) (role b) (init (control a)) (init (step 0))
(door 1) (door 2) (door 3) (door 4)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9) (succ 9 10)
(<= (legal a (pick ?n)) (true (control a)) (door ?n))
(<= (legal a noop) (true (control b)))
(<= (legal b noop) (true (control a)))
(<= (legal b grab) (true (control b)) (true open))
(<= (legal b pass) (true (control b)))
(<= (legal b wait) (true (control b)))
(<= (next open) (does a (pick ?n)) (distinct ?n 1))
(<= (next (won b)) (does b grab))
(<= (next (control a)) (true (control b)))
(<= (next (control b)) (true (control a)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (won b)))
(<= terminal (true (step 10)))
(<= (goal b 100) (true (won b)))
(<= (goal a 0) (true (won b)))
(<= (goal ?r 50) (role ?r) (not (true (won b))))
"""
"""Any door but the first lets b grab the win on its next move; ten moves without a grab draw."""


@pytest.mark.parametrize("evaluator", NATIVE)
def test_anti_decisive_playouts_avoid_the_move_that_lets_the_opponent_win_at_once(
    evaluator: EvaluatorKind, tmp_path: Path,
) -> None:
    # Each door's playout starts with b's move. Decisive playouts make b grab whenever it can; anti-decisive
    # ones also make a pick door 1 at each of its moves, so the game after door 1 is drawn.
    totals = {level: first_move_totals(GUARD, tmp_path / "guard.kif", evaluator, level) for level in (1, 2)}
    assert totals[2] == {"(pick 1)": 0.5, "(pick 2)": 0.0, "(pick 3)": 0.0, "(pick 4)": 0.0}
    assert totals[1]["(pick 1)"] == 0.0, "a random a picked door 1 four times running"


def test_the_playouts_lookahead_is_0_1_or_2() -> None:
    machine = machine_of("ticTacToe")
    with pytest.raises(ValueError, match="decisive is the playouts' lookahead"):
        machine.mcts_tree(machine.initial_state(), exploration=1.0, playouts_per_leaf=1, chance=[False, False], seed=0,
                          max_nodes=10, decisive=3)


@pytest.mark.parametrize("level", [1, 2])
def test_decisive_playouts_grow_the_same_tree_on_both_evaluators_and_differ_from_random_ones(level: int) -> None:
    results = []
    for evaluator in NATIVE:
        for decisive in (0, level):
            tree = machine_of("connectFour", evaluator).mcts_tree(
                play(machine_of("connectFour", evaluator)), exploration=0.4, playouts_per_leaf=1,
                chance=[False, False], seed=11, max_nodes=100_000, mast=0.3, decisive=decisive)
            assert tree is not None and tree.search(300, math.inf) == 300
            results.append(tree.root_statistics(0))
    assert results[0] == results[2] and results[1] == results[3]
    assert results[0] != results[1]
