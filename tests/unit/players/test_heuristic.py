"""Heuristics validated in the start clock (issue 41, item 3): the validation is a pure function of the
playouts' samples, keeps a feature only where it correlates with the outcome (synthetic data; real games of
known structure: material in breakthrough and checkersTiny, none in ticTacToe and connectFour, a puzzle off),
and the C search's cut playout returns the evaluation's value in the state where it is cut."""

from __future__ import annotations

import logging
import math
import random
from pathlib import Path

import pytest

from ggp.gdl.parser import parse_kif
from ggp.native import find_compiler
from ggp.player import Budget
from ggp.players.heuristic import (
    FEATURES,
    MIN_CORRELATION,
    MIN_PLAYOUTS,
    Sample,
    choose_cutoff,
    correlation,
    cutoff_of,
    fit_logistic,
    validate,
)
from ggp.players.mcts import MctsPlayer
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.playouts import PlayoutCutoff, safe_goals
from tests.conftest import CORPUS, KIF_DIR
from tests.helpers.search_replay import PICK_GAME
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine

needs_cc = needs(find_compiler() is not None, "no c compiler (cc)")


def machine_of(game: str) -> CircuitStateMachine:
    return circuit_machine(KIF_DIR / game / f"{game}.kif", "c")


def synthetic(n: int, signal: float, seed: int = 0) -> list[Sample]:
    """Two roles, zero-sum: role 0's outcome is drawn from logistic(signal * material); goal values are noise."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        material, noise = rng.uniform(-3, 3), rng.uniform(-1, 1)
        win = 1.0 if rng.random() < 1.0 / (1.0 + math.exp(-signal * material)) else 0.0
        out.append(Sample(0, (material, noise), win))
        out.append(Sample(1, (-material, -noise), 1.0 - win))
    return out


def test_a_correlated_feature_is_kept_and_fitted_noise_is_not() -> None:
    validation = validate(synthetic(2000, 1.0), playouts=100)
    assert validation.kept == ("material",)
    material_r, noise_r = validation.correlations
    assert material_r is not None and material_r > 0.5
    assert noise_r is not None and abs(noise_r) < MIN_CORRELATION
    assert validation.weights[0] == pytest.approx(1.0, abs=0.15)  # the slope the outcomes were drawn with
    assert validate(synthetic(2000, 1.0), playouts=100) == validation  # pure


def test_of_two_collinear_features_fitted_with_opposite_signs_only_the_stronger_is_kept() -> None:
    # checkers' goal values count its pieces: material and goal move together, and a joint fit may give one
    # of them a weight against its own correlation. Here goal = material + e and the outcome follows
    # 2 material - goal = material - e: both correlate with it, and the joint fit weighs goal -1.
    rng = random.Random(4)
    samples = []
    for _ in range(3000):
        material, e = rng.uniform(-3, 3), rng.gauss(0.0, 1.0)
        win = 1.0 if rng.random() < 1.0 / (1.0 + math.exp(-(material - e))) else 0.0
        samples += [Sample(0, (material, material + e), win), Sample(1, (-material, -material - e), 1.0 - win)]
    joint = fit_logistic([s.features for s in samples], [s.outcome for s in samples])
    assert joint[0] > 0 > joint[1]
    validation = validate(samples, playouts=100)
    assert validation.kept == ("material",) and validation.weights[0] > 0
    assert all(r is not None and r > MIN_CORRELATION for r in validation.correlations)  # both had correlated


def test_the_fit_is_mapped_onto_the_range_of_goals_the_roles_got() -> None:
    # checkersTorus: the loser still gets 72 of 100; a cut playout scored 0..1 would make ending the game
    # at once (a loss at 72) look better than any cut line, and the first version lost 39 of 40 so.
    samples = [Sample(s.role, s.features, 0.7 + 0.3 * s.outcome) for s in synthetic(2000, 1.0)]
    validation = validate(samples, playouts=100)
    assert validation.low == (0.7, 0.7) and validation.high == (1.0, 1.0)
    assert validation.weights[0] == pytest.approx(1.0, abs=0.15)  # the same fit as on 0..1
    cutoff = cutoff_of(validation, {}, 2, 8)
    assert cutoff is not None and cutoff.value(set(), [0.0, 0.0]) == (0.85, 0.85)


def test_too_few_playouts_or_no_signal_keep_nothing() -> None:
    assert validate(synthetic(2000, 1.0), playouts=MIN_PLAYOUTS - 1).kept == ()
    assert validate(synthetic(2000, 0.0), playouts=100).kept == ()
    constant = [Sample(r, (1.0, 0.0), float(r)) for r in (0, 1) for _ in range(50)]
    assert validate(constant, playouts=100).correlations == (None, None)


def test_a_feature_that_only_tells_the_roles_apart_is_not_kept() -> None:
    # ticTacToe's shape: the first role always has as many marks as the second or one more, and wins more
    # often; within a role the marks say nothing about the outcome.
    rng = random.Random(3)
    samples = []
    for _ in range(500):
        first_wins = 1.0 if rng.random() < 0.6 else 0.0
        lead = float(rng.randrange(2))
        samples += [Sample(0, (lead, 0.0), first_wins), Sample(1, (-lead, 0.0), 1.0 - first_wins)]
    pooled = correlation([s.features[0] for s in samples], [s.outcome for s in samples])
    assert pooled is not None and pooled > MIN_CORRELATION  # what a pooled correlation would have kept
    assert validate(samples, playouts=500).kept == ()


def test_fit_logistic_recovers_two_slopes() -> None:
    rng = random.Random(1)
    rows, targets = [], []
    for _ in range(4000):
        a, b = rng.uniform(-2, 2), rng.uniform(-2, 2)
        rows.append((a, b))
        targets.append(1.0 / (1.0 + math.exp(-(0.8 * a - 1.5 * b))))  # soft targets: exact expectations
    w = fit_logistic(rows, targets)
    assert w[0] == pytest.approx(0.8, abs=0.02) and w[1] == pytest.approx(-1.5, abs=0.02)


@needs_cc
@pytest.mark.parametrize(("game", "kept"), [("breakthrough", ("material",)), ("ticTacToe", ()), ("connectFour", ())])
def test_material_is_kept_where_pieces_are_taken_and_nowhere_else(game: str, kept: tuple[str, ...]) -> None:
    choice = choose_cutoff(machine_of(game), seed=1, depth=4)
    assert (choice.cutoff is not None) == bool(kept)
    assert all(name in choice.reason for name in FEATURES)
    assert ("nothing kept" in choice.reason) == (not kept)
    if choice.cutoff is not None:
        assert choice.cutoff.depth == 4 and choice.cutoff.goal_weight == 0.0
        assert choice.cutoff.weights and all(max(row) > 0 for row in choice.cutoff.weights.values())
    assert choose_cutoff(machine_of(game), seed=1, depth=4) == choice  # a function of the rules and the seed


@needs_cc
@pytest.mark.skipif(not (CORPUS / "checkersTiny.kif").is_file(), reason="no gdl-corpus")
def test_checkers_keeps_both_material_and_its_goal_values() -> None:
    # checkersTiny's goal relation counts pieces in every state: both candidates correlate.
    choice = choose_cutoff(circuit_machine(CORPUS / "checkersTiny.kif", "c"), seed=1, depth=4)
    assert choice.cutoff is not None and choice.cutoff.goal_weight > 0
    assert "material + " in choice.reason


@needs_cc
def test_a_puzzle_gets_no_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "pick.kif"
    path.write_text(PICK_GAME)
    machine = CircuitStateMachine(parse_kif(PICK_GAME, str(path)), LOCAL, evaluator="c")
    assert choose_cutoff(machine, seed=1, depth=4).cutoff is None


def random_cutoff(machine: CircuitStateMachine, depth: int, seed: int) -> PlayoutCutoff:
    rng = random.Random(seed)
    weights = {fact: tuple(rng.uniform(-1, 1) for _ in machine.roles) for fact in machine.circuit.fluents}
    return PlayoutCutoff(depth, weights, 0.7, 0.9, (0.2, 0.1), (0.9, 1.0))  # scores mapped onto 0.2..0.9, 0.1..1


@needs_cc
def test_a_playout_cut_at_the_leaf_scores_the_leaf_as_the_python_evaluation_does() -> None:
    machine = machine_of("breakthrough")
    root = machine.initial_state()
    cutoff = random_cutoff(machine, 0, seed=2)
    moves = machine.legal_moves(root, machine.roles[0])
    reply = machine.legal_moves(root, machine.roles[1])[0]  # black's noop
    tree = machine.mcts_tree(root, exploration=0.4, playouts_per_leaf=1, chance=[False, False], seed=5,
                             max_nodes=10_000, cutoff=cutoff)
    assert tree is not None and tree.search(len(moves), math.inf) == len(moves)
    stats = tree.root_statistics(0)
    assert stats.visits == (1,) * len(moves)  # unvisited moves first: each child scored once, by the cut
    for move, total in zip(stats.moves, stats.totals):
        after = machine.next_state(root, (move, reply))
        expected = cutoff.value(after.facts, [g / 100.0 for g in safe_goals(machine, after)])[0]
        assert total == pytest.approx(expected, abs=1e-9)
    assert len({round(t, 9) for t in stats.totals}) > 1  # the weights tell the children apart


@needs_cc
def test_a_cut_deeper_than_any_playout_changes_nothing_and_a_shallow_one_scores_between_the_goals() -> None:
    machine = machine_of("ticTacToe")
    root = machine.initial_state()

    def totals(cutoff: PlayoutCutoff | None) -> tuple[float, ...]:
        tree = machine.mcts_tree(root, exploration=0.4, playouts_per_leaf=1, chance=[False, False], seed=7,
                                 max_nodes=10_000, cutoff=cutoff)
        assert tree is not None
        tree.search(200, math.inf)
        return tree.root_statistics(0).totals

    assert totals(random_cutoff(machine, 10_000, seed=1)) == totals(None)
    shallow = totals(random_cutoff(machine, 1, seed=1))
    assert shallow != totals(None) and any(abs(t - round(t)) > 1e-6 for t in shallow)


@needs_cc
def test_the_player_validates_in_the_start_clock_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ggp.players.mcts")
    for game, cut in (("breakthrough", True), ("ticTacToe", False)):
        machine = machine_of(game)
        player = MctsPlayer(seed=2, decisive=0, cutoff=4)
        player.start(machine, machine.roles[0], Budget.for_seconds(10))
        assert player.heuristic is not None and (player.heuristic.cutoff is not None) == cut
        assert player.choose(machine.initial_state(), Budget(iterations=50)) in machine.legal_moves(
            machine.initial_state(), machine.roles[0])
    lines = [r.getMessage() for r in caplog.records if r.name == "ggp.players.mcts"]
    assert len(lines) == 2 and "playouts cut 4 moves past the leaf" in lines[0] and "no playout cut-off" in lines[1]
    configured = MctsPlayer(seed=2, cutoff=4)  # self-configuration's one line says it too
    caplog.clear()
    configured.start(machine_of("breakthrough"), machine_of("breakthrough").roles[0], Budget.for_seconds(10))
    assert configured.configuration is not None and "playouts cut 4" in configured.configuration.describe()
    assert len([r for r in caplog.records if r.name == "ggp.players.mcts"]) == 1
    assert MctsPlayer(seed=2).cutoff == -1  # off by default: the duels in docs/players.md
    off = MctsPlayer(seed=2, decisive=0)
    off.start(machine_of("breakthrough"), machine_of("breakthrough").roles[0], Budget.for_seconds(10))
    assert off.heuristic is None
