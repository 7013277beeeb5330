"""Ludii's single metrics on recorded plays, one function each under the Ludii class's name.

Most of Ludii's single metrics are a mean over trials of a per-trial value; those are written here as
the per-play value (``None`` where a play does not count, e.g. a play of no moves), and
:mod:`~ggp.evaluation.ludii.catalogue` averages them (with an interval). The few that are not means
over plays (Balance, OutcomeUniformity, DurationTurnsStdDev, BoardCoverageUsed, StateSpaceComplexity)
take all plays. Where a Ludii source divides integers (PositionalRepetition, DecisivenessMoves,
ClarityNarrowness), the division here is a float division, as the metric's description intends.

State evaluations are on Ludii's scale [-1, 1] (:meth:`PlayTrace.value`), and, as in Ludii, are read
in the states before each move (s_0..s_{L-1}) unless said otherwise.

>>> from ggp.evaluation.ludii.trace import Observations
>>> win = PlayTrace((100, 0), observed=Observations(legal=((3, 1), (1, 2))))
>>> completion(win), advantage_p1(win), duration_moves(win), decision_moves(win)
(1.0, 1.0, 2.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from statistics import fmean, pstdev, pvariance

from ggp.evaluation.ludii.trace import PlayTrace
from ggp.evaluation.metrics import LUDI_PREFERRED_MOVES, TIMEOUT_REASONS, utilities, winner

# --- outcome ---------------------------------------------------------------------------------------


def is_timeout(play: PlayTrace) -> bool:
    """Ended by the game's own length limit or the manager's step cap."""
    return play.end_reason in TIMEOUT_REASONS


def score_rate(play: PlayTrace, role: int) -> float:
    """The role's score in the play, (u + 1) / 2 of its rank utility: 1 a win, 0 a loss, 1/2 a two-player
    draw (the metrics specification's score rate)."""
    return (utilities(play.goals)[role] + 1) / 2


def advantage_p1(play: PlayTrace) -> float:
    """The first player's score (Ludii's player 1: the role that moves first): 1 a win, 1/2 a two-player
    draw, 0 a loss."""
    return score_rate(play, play.first_mover)


def completion(play: PlayTrace) -> float:
    """1 when the play has a winner (not a draw, not a timeout)."""
    return float(winner(play.goals) is not None)


def drawishness(play: PlayTrace) -> float:
    """1 when the play is a natural draw: no winner, and not ended by a length limit."""
    return float(winner(play.goals) is None and not is_timeout(play))


def timeouts(play: PlayTrace) -> float:
    """1 when a length limit ended the play (the game's own turn limit or the step cap)."""
    return float(is_timeout(play))


def balance(plays: Sequence[PlayTrace]) -> float:
    """1 - the largest difference of score rates between two seats (a draw counts as half a win)."""
    roles = plays[0].roles
    rates = [fmean(score_rate(p, r) for p in plays) for r in range(roles)]
    return 1 - max((abs(a - b) for a, b in combinations(rates, 2)), default=0.0)


def outcome_uniformity(plays: Sequence[PlayTrace]) -> float:
    """1 - the mean over roles of the population variance of their rank utilities in [-1, 1]."""
    roles = plays[0].roles
    return 1 - fmean(pvariance([utilities(p.goals)[r] for p in plays]) for r in range(roles))


# --- duration --------------------------------------------------------------------------------------


def duration_moves(play: PlayTrace) -> float:
    """Moves played (a GDL step, one joint move, is one move)."""
    return float(play.length)


def turns(play: PlayTrace) -> int:
    """Turns: runs of steps with the same movers (:meth:`PlayTrace.movers`; Ludii counts a turn each time
    the mover changes), so a role that moves twice in a row plays one turn."""
    movers = play.movers()
    return sum(1 for step, mover in enumerate(movers) if step == 0 or mover != movers[step - 1])


def duration_turns(play: PlayTrace) -> float:
    """Turns played (:func:`turns`)."""
    return float(turns(play))


def duration_actions(play: PlayTrace) -> float:
    """Actions: per step the roles that chose a move (at least one), summed (GDL has no compound moves,
    so in a turn-taking game this equals DurationMoves; in a simultaneous game each chooser acts)."""
    return float(sum(max(1, len(play.deciders(step))) for step in range(play.length)))


def duration_turns_not_timeouts(play: PlayTrace) -> float | None:
    """Turns of a play that was not ended by a length limit (timeouts do not count)."""
    return None if is_timeout(play) else float(turns(play))


def duration_turns_std_dev(plays: Sequence[PlayTrace]) -> float:
    """Population standard deviation of the plays' turns."""
    return pstdev(turns(p) for p in plays)


# --- state repetition ------------------------------------------------------------------------------


def _repetition(ids: Sequence[int]) -> float | None:
    return 1 - (max(ids) + 1) / len(ids) if ids else None


def positional_repetition(play: PlayTrace) -> float | None:
    """1 - distinct board positions / positions seen (states s_0..s_L; needs a board)."""
    return _repetition(play.observed.positions)


def situational_repetition(play: PlayTrace) -> float | None:
    """1 - distinct situations (whole states) / states seen (s_0..s_L)."""
    return _repetition(play.observed.situations)


# --- complexity ------------------------------------------------------------------------------------


def decision_moves(play: PlayTrace) -> float | None:
    """Share of moves made with more than one legal move to choose from."""
    if play.length == 0:
        return None
    return sum(play.branching(t) > 1 for t in range(play.length)) / play.length


def game_tree_complexity(play: PlayTrace) -> float | None:
    """L * log10(mean branching factor) of the play: the log10 of the game-tree size it suggests."""
    if play.length == 0:
        return None
    return play.length * math.log10(fmean(play.branching(t) for t in range(play.length)))


def state_space_complexity(plays: Sequence[PlayTrace]) -> float:
    """Board sites * log10(piece kinds + 1): Ludii's upper bound, with the piece kinds (owner and type)
    seen on the board in the plays standing in for Ludii's component list."""
    sites = plays[0].observed.sites or 0
    kinds = {text for p in plays for text in p.observed.contents}
    return sites * math.log10(len(kinds) + 1)


# --- board coverage --------------------------------------------------------------------------------


def board_coverage_default(play: PlayTrace) -> float | None:
    """Share of the board's sites (cells) that held a piece at some point of the play."""
    sites = play.observed.sites
    return len(play.observed.covered) / sites if sites else None


def board_coverage_full(play: PlayTrace) -> float | None:
    """Share of all sites (cells, vertices and edges in Ludii) that held a piece; a GDL board has only
    cells, so this equals BoardCoverageDefault."""
    return board_coverage_default(play)


def board_coverage_used(plays: Sequence[PlayTrace]) -> float | None:
    """Mean share of the used sites that held a piece in a play; the used sites (Ludii: those the rules
    can use) are the sites any recorded play ever occupied."""
    used = set().union(*(p.observed.covered for p in plays))
    return fmean(len(p.observed.covered) / len(used) for p in plays) if used else None


# --- state evaluation ------------------------------------------------------------------------------


def top_players(play: PlayTrace) -> tuple[int, ...]:
    """The highest-ranked roles at the end (every role in a draw)."""
    best = max(play.goals)
    return tuple(r for r, goal in enumerate(play.goals) if goal == best)


def lead_change(play: PlayTrace) -> float | None:
    """Per move the set of leading roles (highest evaluation) is compared with the last one, starting
    from none (so the first state counts as a change); the changes over the moves."""
    if play.length == 0:
        return None
    changes, previous = 0, frozenset[int]()
    for t in range(play.length):
        values = [play.value(t, r) for r in range(play.roles)]
        leaders = frozenset(r for r, v in enumerate(values) if v == max(values))
        changes += leaders != previous
        previous = leaders
    return changes / play.length


def stability(play: PlayTrace) -> float | None:
    """The sum over roles of the population variance of the role's evaluations over the play."""
    if play.length == 0:
        return None
    return sum(pvariance([play.value(t, r) for t in range(play.length)]) for r in range(play.roles))


def threshold_of(play: PlayTrace) -> float:
    """The highest evaluation any role that did not finish top reached (-1 when every role did)."""
    top = top_players(play)
    return max((play.value(t, r) for t in range(play.length) for r in range(play.roles) if r not in top),
               default=-1.0)


def decisiveness_threshold(play: PlayTrace) -> float | None:
    """The highest evaluation that any role not finishing top reached in the play (-1 when every role
    finished top): :func:`threshold_of`."""
    return threshold_of(play) if play.length else None


def decisiveness_moves(play: PlayTrace) -> float | None:
    """The share of the moves played before a top role's evaluation first exceeds the decisiveness
    threshold (1 when it never does)."""
    if play.length == 0:
        return None
    threshold, top = threshold_of(play), top_players(play)
    first = next((t for t in range(play.length) if any(play.value(t, w) > threshold for w in top)), play.length)
    return first / play.length


def _clarity(play: PlayTrace, index: int) -> float | None:
    found = play.observed.clarity
    return fmean(step[index] for step in found) if found else None


def clarity_narrowness(play: PlayTrace) -> float | None:
    """Mean over moves of the share of legal moves whose evaluation is above mean + 0.75 (max - mean)."""
    return _clarity(play, 0)


def clarity_variance(play: PlayTrace) -> float | None:
    """Mean over moves of the population variance of the legal moves' evaluations."""
    return _clarity(play, 1)


# --- the Ludi criteria Ludii has no metric for (Browne & Maire; spec/metrics.md §2-3) ---------------


def ideal_duration(plays: Sequence[PlayTrace], minimum: int, maximum: int) -> float | None:
    """Per play 1 inside [min, max], L/min below, 1 - min(1, (L-max)/max) above; averaged."""
    if not plays:
        return None

    def score(length: int) -> float:
        if length < minimum:
            return length / minimum
        if length > maximum:
            return 1 - min(1.0, (length - maximum) / maximum)
        return 1.0

    return fmean(score(p.length) for p in plays)


def ludi_duration(plays: Sequence[PlayTrace], preferred: int = LUDI_PREFERRED_MOVES) -> float | None:
    """Ludi's A_durn = 1 - mean |M_pref - L| / M_pref over the plays, clamped to [0, 1] (M_pref: the
    preferred length in moves, 60 unless the game's turn limit asks for more)."""
    if not plays:
        return None
    raw = 1 - fmean(abs(preferred - p.length) / preferred for p in plays)
    return min(1.0, max(0.0, raw))


def largest_branching(plays: Sequence[PlayTrace]) -> float | None:
    """The largest number of legal joint moves in any step of any play (Ludii's BranchingFactorMaximum is
    the mean over plays of each play's largest instead)."""
    found = [p.branching(t) for p in plays for t in range(p.length)]
    return float(max(found)) if found else None
