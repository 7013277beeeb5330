"""Each single metric on plays worked out by hand from Ludii's definition (tests/.../plays.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from ggp.evaluation.ludii import single as s
from ggp.evaluation.ludii.trace import Observations, PlayTrace

from .plays import DRAW, FORCED, SWING, TIMEOUT

OUTCOMES = [SWING, FORCED, DRAW, TIMEOUT]  # A wins, B wins, a natural draw, a timeout


def mean(function: Callable[[PlayTrace], float | None], plays: list[PlayTrace]) -> float:
    """The metric as the catalogue reports it: the mean of the plays that give a value."""
    kept = [v for p in plays if (v := function(p)) is not None]
    return sum(kept) / len(kept)


def test_outcome_metrics_count_wins_draws_and_timeouts() -> None:
    assert mean(s.completion, OUTCOMES) == 0.5  # two of four plays have a winner
    assert mean(s.drawishness, OUTCOMES) == 0.25  # the terminal draw only
    assert mean(s.timeouts, OUTCOMES) == 0.25
    assert mean(s.advantage_p1, OUTCOMES) == 0.5  # the first mover (role 0): a win, a loss, two draws at 1/2
    assert s.balance(OUTCOMES) == 1.0  # score rates 1/2 and 1/2
    # Utilities of A: 1, -1, 0, 0 (mean 0, variance 2/4); B the same: 1 - 0.5.
    assert s.outcome_uniformity(OUTCOMES) == 0.5


def test_balance_counts_a_draw_as_half_a_win() -> None:
    assert s.balance([SWING, SWING, SWING, DRAW]) == pytest.approx(0.25)  # score rates 7/8 and 1/8
    # Three roles: A and B share the top (3/4 each), then C wins (A and B 1/4 each): every rate is 1/2, so
    # the game is balanced; counting wins only (Ludii) would give rates 0, 0, 1/2 and Balance 1/2.
    shared = PlayTrace((50, 50, 0), observed=Observations(legal=((2, 1, 1),)))
    third = PlayTrace((0, 0, 100), observed=Observations(legal=((2, 1, 1),)))
    assert s.balance([shared, third]) == pytest.approx(1.0)


def test_duration_metrics() -> None:
    assert s.duration_moves(SWING) == 3
    assert s.duration_turns(SWING) == 3  # A, B, A
    assert s.duration_turns(FORCED) == 2  # A, (forced: still A's turn), B
    assert s.duration_actions(FORCED) == 3
    simultaneous = PlayTrace((50, 50), observed=Observations(legal=((2, 2), (3, 2))))
    assert s.duration_actions(simultaneous) == 4 and s.duration_turns(simultaneous) == 1
    assert s.duration_turns_not_timeouts(TIMEOUT) is None and s.duration_turns_not_timeouts(DRAW) == 2
    # Turns 3, 2, 2 and 1 (the timeout is five moves of A in a row: one turn): mean 2, variance 2/4.
    assert s.duration_turns(TIMEOUT) == 1
    assert s.duration_turns_std_dev(OUTCOMES) == pytest.approx(math.sqrt(0.5))


def test_a_forced_last_move_is_a_turn_of_its_own() -> None:
    # Tic-tac-toe filled to the last cell: X and O alternate, and X's ninth move is forced (one legal
    # move beside O's noop). Ludii counts 9 turns, as many as moves.
    ninth_forced = tuple((9 - t, 1) if t % 2 == 0 else (1, 9 - t) for t in range(8)) + ((1, 1),)
    board_full = PlayTrace((50, 50), observed=Observations(legal=ninth_forced))
    assert s.duration_moves(board_full) == 9 and s.duration_turns(board_full) == 9
    # Two forced moves at the end of an alternating play (connect four's last column): two more turns.
    last_column = PlayTrace((50, 50), observed=Observations(legal=((3, 1), (1, 2), (1, 1), (1, 1))))
    assert s.duration_turns(last_column) == 4
    # After a move-again (A chose twice in a row) a forced move continues A's turn: A, B.
    move_again = PlayTrace((100, 0), observed=Observations(legal=((2, 1), (2, 1), (1, 1), (1, 2))))
    assert s.duration_turns(move_again) == 2


def test_repetition_counts_states_seen_again() -> None:
    assert s.positional_repetition(SWING) == 0.25  # positions 0 1 2 1: 3 distinct of 4
    assert s.situational_repetition(SWING) == 0.0
    assert s.situational_repetition(TIMEOUT) == pytest.approx(1 - 2 / 6)
    assert s.positional_repetition(DRAW) is None  # no board


def test_complexity_metrics() -> None:
    assert s.decision_moves(SWING) == 1.0
    assert s.decision_moves(FORCED) == pytest.approx(2 / 3)
    assert s.game_tree_complexity(SWING) == pytest.approx(3 * math.log10(7 / 3))  # branching 3, 2, 2
    assert s.state_space_complexity([SWING]) == pytest.approx(4 * math.log10(3))  # 4 sites, 2 kinds + empty


def test_board_coverage() -> None:
    assert s.board_coverage_default(SWING) == 0.75 and s.board_coverage_full(SWING) == 0.75
    narrow = PlayTrace((100, 0), observed=Observations(sites=4, covered=(0,)))
    # Used sites: 0, 1, 3 (the union); coverage 3/3 and 1/3.
    assert s.board_coverage_used([SWING, narrow]) == pytest.approx((1 + 1 / 3) / 2)
    assert s.board_coverage_default(DRAW) is None


def test_state_evaluation_metrics_of_a_swinging_play() -> None:
    # Leaders: s0 {A, B} (a change from none), s1 {A}, s2 {B}: 3 changes in 3 moves.
    assert s.lead_change(SWING) == 1.0
    # v_A over s0..s2 = 0, 0.5, -0.5: variance 1/6; v_B the same.
    assert s.stability(SWING) == pytest.approx(1 / 3)
    assert s.decisiveness_threshold(SWING) == 0.5  # B's best
    assert s.decisiveness_moves(SWING) == 1.0  # v_A never exceeds 0.5 before the end


def test_state_evaluation_metrics_of_a_comeback() -> None:
    assert s.lead_change(FORCED) == pytest.approx(2 / 3)  # {A, B}, {A}, {A}
    assert s.decisiveness_threshold(FORCED) == pytest.approx(0.8)  # A (the loser) reached 0.8
    assert s.decisiveness_moves(FORCED) == 1.0
    early = PlayTrace((100, 0), observed=Observations(legal=((2, 1), (1, 2), (2, 1))),
                      evaluations=((0.5, 0.5), (0.9, 0.1), (0.6, 0.4), (1.0, 0.0)))
    # Threshold: B's best is 0 (s0); v_A first exceeds it in s1.
    assert s.decisiveness_moves(early) == pytest.approx(1 / 3)


def test_a_draw_has_every_role_on_top_so_the_threshold_is_minus_one() -> None:
    even = PlayTrace((50, 50), observed=Observations(legal=((2, 1),)), evaluations=((0.5, 0.5), (0.5, 0.5)))
    assert s.decisiveness_threshold(even) == -1.0
    assert s.decisiveness_moves(even) == 0.0


def test_clarity_is_the_mean_over_moves() -> None:
    assert s.clarity_narrowness(SWING) == pytest.approx(0.75 / 3)
    assert s.clarity_variance(SWING) == pytest.approx(1.0 / 3)
    assert s.clarity_narrowness(DRAW) is None
