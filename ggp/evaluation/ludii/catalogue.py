"""Every Ludii metric under its Ludii name, with its groups, range and source, and how to measure it.

A metric either gives each play a value and is their mean (most of them: then it has a 95% percentile
bootstrap interval over the plays), or reads all plays at once. A metric that does not apply to a game
(board coverage without a board, AdvantageP1 with one role, state evaluations that were not estimated)
is "n/a" with the reason, never 0 or -1.

>>> from ggp.evaluation.ludii.trace import Observations, PlayTrace
>>> plays = [PlayTrace((100, 0), observed=Observations(legal=((2, 1), (1, 2)))),
...          PlayTrace((0, 100), observed=Observations(legal=((2, 1),)))]
>>> found = measure(plays, ["Completion", "BoardCoverageDefault", "DurationMoves"])
>>> found["Completion"].value, found["BoardCoverageDefault"].reason, found["DurationMoves"].value
(1.0, 'the game has no board the rules show', 1.5)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Literal

import numpy as np

from ggp.evaluation.ludii import families, single
from ggp.evaluation.ludii.trace import PlayTrace

Requirement = Literal["two_roles", "board", "evaluations", "alternating", "clarity", "scores", "moves"]
"""What a metric needs of a game or of its recorded plays."""

LudiiGroup = Literal["outcome", "duration", "state repetition", "complexity", "board coverage",
                     "state evaluation", "multi"]
BrowneGroup = Literal["intrinsic", "viability", "quality"]

SINGLE = "Evaluation/src/metrics/single/"
MULTIPLE = "Evaluation/src/metrics/multiple/metrics/"


@dataclass(frozen=True, slots=True)
class Metric:
    """One Ludii metric: its name, Ludii's group and Browne's, its range (``None``: unbounded), what it
    needs, its source file in Ludeme/Ludii, and either a per-play value (averaged) or an all-plays one."""

    name: str
    group: LudiiGroup
    browne: BrowneGroup
    low: float | None
    high: float | None
    requires: tuple[Requirement, ...]
    source: str
    per_play: Callable[[PlayTrace], float | None] | None = None
    whole: Callable[[Sequence[PlayTrace]], float | None] | None = None
    definition: str = ""
    empty: str = "the plays were too short, or every play timed out"  # = _DEFAULT_EMPTY
    """Why no play gives the metric a value, when none does."""


@dataclass(frozen=True, slots=True)
class Measured:
    """A metric's value on a game's plays, or ``reason`` when it does not apply; ``interval`` is the 95%
    bootstrap interval when the value is a mean over plays; ``plays`` counts the plays it used."""

    value: float | None
    reason: str | None = None
    interval: tuple[float, float] | None = None
    plays: int = 0

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"value": self.value, "plays": self.plays}
        if self.reason is not None:
            data["reason"] = self.reason
        if self.interval is not None:
            data["interval"] = list(self.interval)
        return data


def _per(name: str, group: LudiiGroup, browne: BrowneGroup, low: float | None, high: float | None,
         requires: tuple[Requirement, ...], source: str, function: Callable[[PlayTrace], float | None]) -> Metric:
    return Metric(name, group, browne, low, high, requires, source, per_play=function,
                  definition=(function.__doc__ or "").strip().split("\n\n")[0].replace("\n", " "))


def _all(name: str, group: LudiiGroup, browne: BrowneGroup, low: float | None, high: float | None,
         requires: tuple[Requirement, ...], source: str, function: Callable[[Sequence[PlayTrace]], float | None]) -> Metric:
    return Metric(name, group, browne, low, high, requires, source, whole=function,
                  definition=(function.__doc__ or "").strip().split("\n\n")[0].replace("\n", " "))


_EVAL: tuple[Requirement, ...] = ("evaluations", "alternating", "moves")
_S = single

SINGLE_METRICS: tuple[Metric, ...] = (
    _per("AdvantageP1", "outcome", "viability", 0, 1, ("two_roles",), SINGLE + "outcome/AdvantageP1.java", _S.AdvantageP1),
    _all("Balance", "outcome", "viability", 0, 1, ("two_roles",), SINGLE + "outcome/Balance.java", _S.Balance),
    _per("Completion", "outcome", "viability", 0, 1, (), SINGLE + "outcome/Completion.java", _S.Completion),
    _per("Drawishness", "outcome", "viability", 0, 1, (), SINGLE + "outcome/Drawishness.java", _S.Drawishness),
    _per("Timeouts", "outcome", "viability", 0, 1, (), SINGLE + "outcome/Timeouts.java", _S.Timeouts),
    _all("OutcomeUniformity", "outcome", "viability", 0, 1, (), SINGLE + "outcome/OutcomeUniformity.java",
         _S.OutcomeUniformity),
    _per("DurationActions", "duration", "viability", 0, None, (), SINGLE + "duration/DurationActions.java",
         _S.DurationActions),
    _per("DurationMoves", "duration", "viability", 0, None, (), SINGLE + "duration/DurationMoves.java", _S.DurationMoves),
    _per("DurationTurns", "duration", "viability", 0, None, (), SINGLE + "duration/DurationTurns.java", _S.DurationTurns),
    _all("DurationTurnsStdDev", "duration", "viability", 0, None, (), SINGLE + "duration/DurationTurnsStdDev.java",
         _S.DurationTurnsStdDev),
    _per("DurationTurnsNotTimeouts", "duration", "viability", 0, None, (),
         SINGLE + "duration/DurationTurnsNotTimeouts.java", _S.DurationTurnsNotTimeouts),
    _per("PositionalRepetition", "state repetition", "quality", 0, 1, ("board",),
         SINGLE + "stateRepetition/PositionalRepetition.java", _S.PositionalRepetition),
    _per("SituationalRepetition", "state repetition", "quality", 0, 1, (),
         SINGLE + "stateRepetition/SituationalRepetition.java", _S.SituationalRepetition),
    _per("DecisionMoves", "complexity", "quality", 0, 1, ("moves",), SINGLE + "complexity/DecisionMoves.java",
         _S.DecisionMoves),
    _per("GameTreeComplexity", "complexity", "quality", 0, None, ("moves",),
         SINGLE + "complexity/GameTreeComplexity.java", _S.GameTreeComplexity),
    _all("StateSpaceComplexity", "complexity", "intrinsic", 0, None, ("board",),
         SINGLE + "complexity/StateSpaceComplexity.java", _S.StateSpaceComplexity),
    _per("BoardCoverageDefault", "board coverage", "quality", 0, 1, ("board",),
         SINGLE + "boardCoverage/BoardCoverageDefault.java", _S.BoardCoverageDefault),
    _per("BoardCoverageFull", "board coverage", "quality", 0, 1, ("board",),
         SINGLE + "boardCoverage/BoardCoverageFull.java", _S.BoardCoverageFull),
    _all("BoardCoverageUsed", "board coverage", "quality", 0, 1, ("board",),
         SINGLE + "boardCoverage/BoardCoverageUsed.java", _S.BoardCoverageUsed),
    _per("ClarityNarrowness", "state evaluation", "quality", 0, 1, ("clarity",),
         SINGLE + "stateEvaluation/clarity/ClarityNarrowness.java", _S.ClarityNarrowness),
    _per("ClarityVariance", "state evaluation", "quality", 0, 1, ("clarity",),
         SINGLE + "stateEvaluation/clarity/ClarityVariance.java", _S.ClarityVariance),
    _per("DecisivenessMoves", "state evaluation", "quality", 0, 1, _EVAL,
         SINGLE + "stateEvaluation/decisiveness/DecisivenessMoves.java", _S.DecisivenessMoves),
    _per("DecisivenessThreshold", "state evaluation", "quality", -1, 1, _EVAL,
         SINGLE + "stateEvaluation/decisiveness/DecisivenessThreshold.java", _S.DecisivenessThreshold),
    _per("LeadChange", "state evaluation", "quality", 0, 1, _EVAL, SINGLE + "stateEvaluation/LeadChange.java",
         _S.LeadChange),
    _per("Stability", "state evaluation", "quality", 0, None, _EVAL, SINGLE + "stateEvaluation/Stability.java",
         _S.Stability),
)
"""The single metrics of Ludii's registry (``Evaluation.java``), in its groups."""

_FAMILY_INFO: dict[str, tuple[tuple[Requirement, ...], float | None, float | None]] = {
    "Drama": (_EVAL, 0, 2),
    "MoveEvaluation": (_EVAL, -1, 1),
    "StateEvaluationDifference": (("evaluations", "alternating"), 0, 2),
    "BoardSitesOccupied": (("board",), 0, 1),
    "BranchingFactor": (("moves",), 1, None),
    "DecisionFactor": (("moves",), 2, None),
    "MoveDistance": (("board",), 1, None),
    "PieceNumber": (("board",), 0, None),
    "ScoreDifference": (("scores",), 0, 100),
}
"""Per family: what it needs, and the range of its values on our scales (evaluations in [-1, 1], goals
0-100); change statistics and variances have their own ranges (:func:`_aggregate_range`)."""


def _aggregate_range(aggregate: str, low: float | None, high: float | None) -> tuple[float | None, float | None]:
    if aggregate in ("Average", "Median", "Maximum", "Minimum"):
        return low, high
    span = None if low is None or high is None else high - low
    if aggregate == "Variance":
        return 0, None if span is None else span * span / 4
    if aggregate in ("ChangeSign",):
        return -1, 1
    if aggregate == "ChangeNumTimes":
        return 0, 1
    if aggregate == "MaxIncrease":
        return 0, span
    if aggregate == "MaxDecrease":
        return None if span is None else -span, 0
    return (None if span is None else -span), span


def _family_metric(family: str, aggregate: str) -> Metric:
    values, combine = families.FAMILIES[family], families.AGGREGATES[aggregate]
    requires, low, high = _FAMILY_INFO[family]
    lo, hi = _aggregate_range(aggregate, low, high)

    def per_play(play: PlayTrace) -> float | None:
        return combine(values(play))

    browne: BrowneGroup = "quality"
    doc = (values.__doc__ or "").strip().replace("\n", " ")
    return Metric(f"{family}{aggregate}", "multi", browne, lo, hi, requires, MULTIPLE + f"{family}.java",
                  per_play=per_play, definition=f"{aggregate} of: {doc}", empty=_EMPTY.get(family, _DEFAULT_EMPTY))


_DEFAULT_EMPTY = "the plays were too short, or every play timed out"
_EMPTY = {
    "MoveDistance": "no piece moved from one site to another (a placement game)",
    "DecisionFactor": "no move had a choice",
}


FAMILY_METRICS: tuple[Metric, ...] = tuple(
    _family_metric(family, aggregate) for family in families.FAMILIES for aggregate in families.AGGREGATES
)
"""The 99 family metrics (9 families x 11 aggregates), named ``DramaAverage`` ... ``ScoreDifferenceMaxDecrease``."""

METRICS: dict[str, Metric] = {m.name: m for m in (*SINGLE_METRICS, *FAMILY_METRICS)}
"""Every Ludii metric by name."""


# --- measuring -----------------------------------------------------------------------------------------

_REASONS: dict[Requirement, str] = {
    "two_roles": "the game has one role",
    "board": "the game has no board the rules show",
    "evaluations": "no state evaluations were estimated (give --estimate-playouts)",
    "alternating": "several roles move at once (Ludii evaluates states of alternating-move games only)",
    "clarity": "move evaluations were not measured (give --move-playouts; not on simultaneous moves)",
    "scores": "the goals cannot be read in every state",
    "moves": "no play made a move",
}


def missing(requirement: Requirement, plays: Sequence[PlayTrace]) -> bool:
    """True when ``plays`` lack what ``requirement`` asks for."""
    if requirement == "two_roles":
        return plays[0].roles < 2
    if requirement == "board":
        return any(p.observed.sites is None for p in plays)
    if requirement == "evaluations":
        return any(p.evaluations is None for p in plays)
    if requirement == "alternating":
        return any(len(mover) > 1 for p in plays for mover in p.movers())
    if requirement == "clarity":
        return any(p.observed.clarity is None for p in plays)
    if requirement == "scores":
        return any(p.observed.scores is None for p in plays)
    return all(p.length == 0 for p in plays)


def reason_not_applicable(metric: Metric, plays: Sequence[PlayTrace]) -> str | None:
    """Why ``metric`` does not apply to these plays, or ``None`` when it does."""
    if not plays:
        return "no play was completed"
    for requirement in metric.requires:
        if missing(requirement, plays):
            return _REASONS[requirement]
    return None


BOOTSTRAP_RESAMPLES = 400


def _interval(values: Sequence[float], resamples: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    data = np.asarray(values, dtype=float)
    means = data[rng.integers(0, len(data), (resamples, len(data)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return round(float(low), 12), round(float(high), 12)


def measure_one(metric: Metric, plays: Sequence[PlayTrace], *, resamples: int = BOOTSTRAP_RESAMPLES,
                seed: int = 0) -> Measured:
    """One metric on a game's plays (aborted and failed plays must be left out by the caller)."""
    reason = reason_not_applicable(metric, plays)
    if reason is not None:
        return Measured(None, reason)
    if metric.whole is not None:
        value = metric.whole(plays)
        return Measured(value, None if value is not None else "no play gives it a value", plays=len(plays))
    assert metric.per_play is not None
    values = [v for p in plays if (v := metric.per_play(p)) is not None]
    if not values:
        return Measured(None, f"no play gives it a value: {metric.empty}")
    interval = _interval(values, resamples, seed) if resamples and len(values) > 1 else None
    return Measured(fmean(values), None, interval, len(values))


def measure(plays: Sequence[PlayTrace], names: Iterable[str] | None = None, *,
            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> dict[str, Measured]:
    """The named metrics (all of :data:`METRICS` by default) on a game's plays, in catalogue order."""
    chosen = list(METRICS) if names is None else list(names)
    unknown = [n for n in chosen if n not in METRICS]
    if unknown:
        raise ValueError(f"unknown Ludii metric {unknown[0]!r}")
    return {name: measure_one(METRICS[name], plays, resamples=resamples, seed=seed) for name in chosen}


@dataclass(frozen=True, slots=True)
class Selection:
    """What ``--metrics`` asks for: the RAPP fitness (with the classic criteria) and which Ludii metrics."""

    rapp: bool
    ludii: tuple[str, ...]

    @property
    def needs_evaluations(self) -> bool:
        """True when some chosen metric reads state evaluations."""
        return any("evaluations" in METRICS[name].requires for name in self.ludii)

    @property
    def needs_move_evaluations(self) -> bool:
        return any("clarity" in METRICS[name].requires for name in self.ludii)


def select(text: str) -> Selection:
    """Parse ``--metrics``: ``all`` (RAPP and every Ludii metric), ``ludii``, ``rapp``, or a comma-separated
    list of ``rapp``, metric names, family names (all eleven aggregates) and Ludii group names.

    >>> select("rapp,Completion,Drama").ludii[:3]
    ('Completion', 'DramaAverage', 'DramaMedian')
    >>> select("outcome").ludii
    ('AdvantageP1', 'Balance', 'Completion', 'Drawishness', 'Timeouts', 'OutcomeUniformity')
    """
    words = [w.strip() for w in text.split(",") if w.strip()]
    if not words:
        raise ValueError("--metrics needs all, ludii, rapp or metric names")
    use_rapp, chosen = False, []
    for word in words:
        if word in ("all", "rapp"):
            use_rapp = True
        if word in ("all", "ludii"):
            chosen += list(METRICS)
        elif word == "rapp":
            continue
        elif word in METRICS:
            chosen.append(word)
        elif word in families.FAMILIES:
            chosen += [f"{word}{aggregate}" for aggregate in families.AGGREGATES]
        elif found := [m.name for m in SINGLE_METRICS if m.group == word]:
            chosen += found
        else:
            raise ValueError(f"unknown metric {word!r}: expected all, ludii, rapp, a Ludii metric, family or group "
                             "name (docs/evaluation.md lists them)")
    return Selection(use_rapp, tuple(dict.fromkeys(chosen)))


STAND_INS: dict[str, str] = {
    "AdvantageP1": "player 1 = the role that moves first in the play (seats rotate, so it is not always the same player)",
    "Balance": "win rates per seat (role) over all seatings; draws are no wins",
    "Drawishness": "a timeout is a play ended by the SBG turn limit or the manager's step cap",
    "Timeouts": "the SBG turn limit, or the step cap (--step-cap)",
    "DurationActions": "GDL has no compound moves: per step, the roles with a choice (at least one)",
    "DurationMoves": "a move is one GDL step (a joint move)",
    "DurationTurns": "a turn is a run of steps with the same mover (the roles with a choice); a forced step (no role "
                     "has one) continues the turn before another role's decision, else is the next role's while the "
                     "play alternates",
    "DurationTurnsNotTimeouts": "as DurationTurns; n/a when every play timed out (Ludii returns 1250 x players)",
    "PositionalRepetition": "a position is the board's contents (the board the rules show); float division",
    "SituationalRepetition": "a situation is the whole GDL state (every fluent)",
    "DecisionMoves": "legal joint moves > 1 (the mover's legal moves in a turn-taking game)",
    "GameTreeComplexity": "branching = legal joint moves per step",
    "StateSpaceComplexity": "component kinds = distinct owner-and-piece contents seen on the board in the plays",
    "BoardCoverageDefault": "sites = the cells of the recognised board (SBG: width x height)",
    "BoardCoverageFull": "a GDL board has one site type (cells): equals BoardCoverageDefault",
    "BoardCoverageUsed": "used sites = the sites any recorded play occupied",
    "ClarityNarrowness": "move values = random-playout estimates of the state after each legal move "
                         "(--move-playouts, default 1), on up to 6 evenly spaced steps a play; float division",
    "ClarityVariance": "as ClarityNarrowness",
    "DecisivenessMoves": "state values = random-playout estimates (--estimate-playouts, default 8) mapped to "
                         "Ludii's [-1, 1] by 2e - 1; float division",
    "DecisivenessThreshold": "as DecisivenessMoves",
    "LeadChange": "as DecisivenessMoves",
    "Stability": "as DecisivenessMoves; the range is [0, roles] (a variance in [0, 1] per role)",
    "Drama": "as DecisivenessMoves",
    "MoveEvaluation": "the mover's playout estimate of the state after its move (mover = the role with a choice)",
    "StateEvaluationDifference": "as DecisivenessMoves",
    "BoardSitesOccupied": "as BoardCoverageDefault",
    "BranchingFactor": "legal joint moves per step",
    "DecisionFactor": "legal joint moves per step, steps with a choice only",
    "MoveDistance": "a move is read from the board difference (one site emptied, the piece found elsewhere); "
                    "distance in king steps",
    "PieceNumber": "pieces = non-empty board entries",
    "ScoreDifference": "scores = the GDL goal values in every state (n/a when a state has none)",
}
"""What stands in, per metric or family, where GDL lacks what Ludii's definition reads."""
