"""The metric catalogue: every game metric once, under its published name, with its groups, range, source,
aliases and Python function, and how to measure it.

The catalogue holds Ludii's metrics under Ludii's names (CamelCase, as Ludii publishes them) and the Ludi
criteria of the metrics specification (Browne & Maire), on one play record,
:class:`~ggp.evaluation.ludii.trace.PlayTrace`. A Ludi criterion that Ludii also has is that Ludii metric,
its Ludi name an alias (:data:`ALIASES`: ``balance`` is ``Balance``, ``duration_mean`` is
``DurationMoves``, ``drama_mean`` is ``DramaAverage``); the two Ludii lacks join under names of their own
(``LudiDuration``, ``BranchingFactorLargest``). Python functions keep snake_case names
(:attr:`Metric.python`: ``AdvantageP1`` is :func:`~ggp.evaluation.ludii.single.advantage_p1`).

Where the Ludi criterion and Ludii's metric of the same name were defined differently, one definition is
kept, by the metrics specification's Decision lines (spec/metrics.md):

- **Balance and AdvantageP1: the specification's, a draw counts as half a win.** Its Decision line defines
  the score rate, rate_r = mean (u_r + 1)/2 ("a draw counts as half a win"), and §3 defines Balance as
  1 - max |rate_a - rate_b| and AdvantageP1 as the first player's rate. Ludii counts wins only
  (``Balance.java``, ``AdvantageP1.java``). For two players Balance is the same either way (a draw adds
  1/2 to both rates); AdvantageP1 is higher by half the share of plays without a winner, so Ludii's
  figure is AdvantageP1 - (1 - Completion)/2 for a two-player game.
- **DecisivenessMoves, LeadChange and Drama: Ludii's.** No Decision line defines them (the
  specification's table re-states Ludii's metrics, its only Decision on them says that state values lie
  in [0, 1] where Ludii uses [-1, 1] and that "only thresholds depend on the scale"), so the Ludii
  metric named by the criterion is kept as Ludii computes it: values on Ludii's scale 2e - 1, the first
  state's leaders counting as a change (LeadChange), the "top" roles of a draw included
  (DecisivenessMoves, Drama), states s_0..s_{L-1}. The Ludi criteria gave the spec's reference trace
  lead change 0.75, drama 0.05/0.2 and decisiveness 0.75; the catalogue gives LeadChange 1.0,
  DramaAverage 0.1, DramaMaximum 0.4 and DecisivenessMoves 0.75
  (``tests/unit/evaluation/test_metrics.py``).
- Completion, Drawishness, Timeouts, OutcomeUniformity, DurationMoves (``duration_mean``) and
  BranchingFactorAverage (``branching_mean``) were the same definitions; ``branching_max`` (the largest
  branching of any play) is not Ludii's BranchingFactorMaximum (the mean of each play's largest) and
  joins as BranchingFactorLargest.

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
from dataclasses import dataclass, replace
from statistics import fmean
from typing import Literal

import numpy as np

from ggp.evaluation import metrics
from ggp.evaluation.ludii import families, single
from ggp.evaluation.ludii.trace import PlayTrace

Requirement = Literal["two_roles", "board", "evaluations", "alternating", "clarity", "scores", "moves", "observed",
                      "roles"]
"""What a metric needs of a game or of its recorded plays."""

LudiiGroup = Literal["outcome", "duration", "state repetition", "complexity", "board coverage",
                     "state evaluation", "multi"]
"""Ludii's groups (a Ludi criterion is filed in the group of its kind)."""
BrowneGroup = Literal["intrinsic", "viability", "quality"]

SINGLE = "Evaluation/src/metrics/single/"
MULTIPLE = "Evaluation/src/metrics/multiple/metrics/"


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric: its published name, Ludii's group and Browne's, its range (``None``: unbounded), what it
    needs, its source (a file in Ludeme/Ludii, or the Ludi publication), and either a per-play value
    (averaged), an all-plays one, or an all-plays one given the preferred length (``LudiDuration``)."""

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
    python: str = ""
    """The snake_case name of the Python function(s) that compute it (family metrics: family_aggregate)."""
    preferred: Callable[[Sequence[PlayTrace], int], float | None] | None = None
    aliases: tuple[str, ...] = ()
    """Other published names of the metric (the Ludi criteria's names)."""


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
                  definition=_first_paragraph(function), python=function.__name__)


def _all(name: str, group: LudiiGroup, browne: BrowneGroup, low: float | None, high: float | None,
         requires: tuple[Requirement, ...], source: str, function: Callable[[Sequence[PlayTrace]], float | None]) -> Metric:
    return Metric(name, group, browne, low, high, requires, source, whole=function,
                  definition=_first_paragraph(function), python=function.__name__)


def _first_paragraph(function: Callable[..., object]) -> str:
    return " ".join((function.__doc__ or "").strip().split("\n\n")[0].split())


_EVAL: tuple[Requirement, ...] = ("evaluations", "roles", "alternating", "moves")
_TURNS: tuple[Requirement, ...] = ("roles",)
_S = single

SINGLE_METRICS: tuple[Metric, ...] = (
    _per("AdvantageP1", "outcome", "viability", 0, 1, ("two_roles",), SINGLE + "outcome/AdvantageP1.java", _S.advantage_p1),
    _all("Balance", "outcome", "viability", 0, 1, ("two_roles",), SINGLE + "outcome/Balance.java", _S.balance),
    _per("Completion", "outcome", "viability", 0, 1, (), SINGLE + "outcome/Completion.java", _S.completion),
    _per("Drawishness", "outcome", "viability", 0, 1, (), SINGLE + "outcome/Drawishness.java", _S.drawishness),
    _per("Timeouts", "outcome", "viability", 0, 1, (), SINGLE + "outcome/Timeouts.java", _S.timeouts),
    _all("OutcomeUniformity", "outcome", "viability", 0, 1, (), SINGLE + "outcome/OutcomeUniformity.java",
         _S.outcome_uniformity),
    _per("DurationActions", "duration", "viability", 0, None, _TURNS, SINGLE + "duration/DurationActions.java",
         _S.duration_actions),
    _per("DurationMoves", "duration", "viability", 0, None, (), SINGLE + "duration/DurationMoves.java", _S.duration_moves),
    _per("DurationTurns", "duration", "viability", 0, None, _TURNS, SINGLE + "duration/DurationTurns.java", _S.duration_turns),
    _all("DurationTurnsStdDev", "duration", "viability", 0, None, _TURNS, SINGLE + "duration/DurationTurnsStdDev.java",
         _S.duration_turns_std_dev),
    _per("DurationTurnsNotTimeouts", "duration", "viability", 0, None, _TURNS,
         SINGLE + "duration/DurationTurnsNotTimeouts.java", _S.duration_turns_not_timeouts),
    _per("PositionalRepetition", "state repetition", "quality", 0, 1, ("observed", "board"),
         SINGLE + "stateRepetition/PositionalRepetition.java", _S.positional_repetition),
    _per("SituationalRepetition", "state repetition", "quality", 0, 1, ("observed",),
         SINGLE + "stateRepetition/SituationalRepetition.java", _S.situational_repetition),
    _per("DecisionMoves", "complexity", "quality", 0, 1, ("moves",), SINGLE + "complexity/DecisionMoves.java",
         _S.decision_moves),
    _per("GameTreeComplexity", "complexity", "quality", 0, None, ("moves",),
         SINGLE + "complexity/GameTreeComplexity.java", _S.game_tree_complexity),
    _all("StateSpaceComplexity", "complexity", "intrinsic", 0, None, ("observed", "board"),
         SINGLE + "complexity/StateSpaceComplexity.java", _S.state_space_complexity),
    _per("BoardCoverageDefault", "board coverage", "quality", 0, 1, ("observed", "board"),
         SINGLE + "boardCoverage/BoardCoverageDefault.java", _S.board_coverage_default),
    _per("BoardCoverageFull", "board coverage", "quality", 0, 1, ("observed", "board"),
         SINGLE + "boardCoverage/BoardCoverageFull.java", _S.board_coverage_full),
    _all("BoardCoverageUsed", "board coverage", "quality", 0, 1, ("observed", "board"),
         SINGLE + "boardCoverage/BoardCoverageUsed.java", _S.board_coverage_used),
    _per("ClarityNarrowness", "state evaluation", "quality", 0, 1, ("observed", "clarity"),
         SINGLE + "stateEvaluation/clarity/ClarityNarrowness.java", _S.clarity_narrowness),
    _per("ClarityVariance", "state evaluation", "quality", 0, 1, ("observed", "clarity"),
         SINGLE + "stateEvaluation/clarity/ClarityVariance.java", _S.clarity_variance),
    _per("DecisivenessMoves", "state evaluation", "quality", 0, 1, _EVAL,
         SINGLE + "stateEvaluation/decisiveness/DecisivenessMoves.java", _S.decisiveness_moves),
    _per("DecisivenessThreshold", "state evaluation", "quality", -1, 1, _EVAL,
         SINGLE + "stateEvaluation/decisiveness/DecisivenessThreshold.java", _S.decisiveness_threshold),
    _per("LeadChange", "state evaluation", "quality", 0, 1, _EVAL, SINGLE + "stateEvaluation/LeadChange.java",
         _S.lead_change),
    _per("Stability", "state evaluation", "quality", 0, None, _EVAL, SINGLE + "stateEvaluation/Stability.java",
         _S.stability),
)
"""The single metrics of Ludii's registry (``Evaluation.java``), in its groups."""

_FAMILY_INFO: dict[str, tuple[tuple[Requirement, ...], float | None, float | None]] = {
    "Drama": (_EVAL, 0, 2),
    "MoveEvaluation": (_EVAL, -1, 1),
    "StateEvaluationDifference": (("evaluations", "roles", "alternating"), 0, 2),
    "BoardSitesOccupied": (("observed", "board"), 0, 1),
    "BranchingFactor": (("moves",), 1, None),
    "DecisionFactor": (("moves",), 2, None),
    "MoveDistance": (("observed", "board"), 1, None),
    "PieceNumber": (("observed", "board"), 0, None),
    "ScoreDifference": (("observed", "scores"), 0, 100),
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
                  per_play=per_play, definition=f"{aggregate} of: {doc}", empty=_EMPTY.get(family, _DEFAULT_EMPTY),
                  python=f"{values.__name__}_{combine.__name__}")


_DEFAULT_EMPTY = "the plays were too short, or every play timed out"
_EMPTY = {
    "MoveDistance": "no piece moved from one site to another (a placement game)",
    "DecisionFactor": "no move had a choice",
}


FAMILY_METRICS: tuple[Metric, ...] = tuple(
    _family_metric(family, aggregate) for family in families.FAMILIES for aggregate in families.AGGREGATES
)
"""The 99 family metrics (9 families x 11 aggregates), named ``DramaAverage`` ... ``ScoreDifferenceMaxDecrease``."""

LUDI = "Browne & Maire, Evolutionary Game Design (2010), Ludi criteria; spec/metrics.md §2"

LUDI_METRICS: tuple[Metric, ...] = (
    Metric("LudiDuration", "duration", "viability", 0, 1, (), LUDI, preferred=_S.ludi_duration,
           definition=_first_paragraph(_S.ludi_duration), python="ludi_duration"),
    _all("BranchingFactorLargest", "complexity", "quality", 1, None, (), LUDI, _S.largest_branching),
)
"""The Ludi criteria Ludii has no metric for."""

ALIASES: dict[str, str] = {
    "completion": "Completion",
    "balance": "Balance",
    "advantage_first_player": "AdvantageP1",
    "drawishness": "Drawishness",
    "timeouts": "Timeouts",
    "duration_mean": "DurationMoves",
    "duration_ludi": "LudiDuration",
    "outcome_uniformity": "OutcomeUniformity",
    "branching_mean": "BranchingFactorAverage",
    "branching_max": "BranchingFactorLargest",
    "decisiveness": "DecisivenessMoves",
    "lead_change": "LeadChange",
    "drama_mean": "DramaAverage",
    "drama_max": "DramaMaximum",
}
"""The Ludi criteria's published names (``ggp evaluate``'s former ``criteria``) -> their catalogue names."""


def _with_aliases(metric: Metric) -> Metric:
    found = tuple(alias for alias, name in ALIASES.items() if name == metric.name)
    return replace(metric, aliases=found) if found else metric


METRICS: dict[str, Metric] = {m.name: _with_aliases(m) for m in (*SINGLE_METRICS, *LUDI_METRICS, *FAMILY_METRICS)}
"""Every metric by its published name, in catalogue order."""

CORE: tuple[str, ...] = tuple(name for name in METRICS if METRICS[name].aliases)
"""The Ludi criteria: measured for every evaluated game, whatever ``--metrics`` asks for."""


def resolve(name: str) -> str:
    """The catalogue name of a published name or alias; raises ValueError for an unknown one.

    >>> resolve("drama_mean"), resolve("Balance")
    ('DramaAverage', 'Balance')
    """
    found = ALIASES.get(name, name)
    if found not in METRICS:
        raise ValueError(f"unknown metric {name!r}")
    return found


# --- measuring -----------------------------------------------------------------------------------------

_REASONS: dict[Requirement, str] = {
    "two_roles": "the game has one role",
    "board": "the game has no board the rules show",
    "evaluations": "no state evaluations were estimated (give --estimate-playouts)",
    "alternating": "several roles move at once (Ludii evaluates states of alternating-move games only)",
    "clarity": "move evaluations were not measured (give --move-playouts; not on simultaneous moves)",
    "scores": "the goals cannot be read in every state",
    "moves": "no play made a move",
    "observed": "the matches were recorded without the observations it reads (--metrics rapp records only the "
                "legal-move counts); ask for it in a fresh --out",
    "roles": "the matches were recorded before per-role legal-move counts were kept; use a fresh --out",
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
    if requirement == "observed":
        return any(p.observed.recorded != "full" for p in plays)
    if requirement == "roles":
        return any(p.observed.recorded == "branching" for p in plays)
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
                seed: int = 0, preferred_length: int = metrics.LUDI_PREFERRED_MOVES) -> Measured:
    """One metric on a game's plays (aborted and failed plays must be left out by the caller);
    ``preferred_length`` is Ludi's preferred length in moves (``LudiDuration``)."""
    reason = reason_not_applicable(metric, plays)
    if reason is not None:
        return Measured(None, reason)
    if metric.whole is not None or metric.preferred is not None:
        value = metric.whole(plays) if metric.whole is not None else metric.preferred(plays, preferred_length)  # type: ignore[misc]
        return Measured(value, None if value is not None else "no play gives it a value", plays=len(plays))
    assert metric.per_play is not None
    values = [v for p in plays if (v := metric.per_play(p)) is not None]
    if not values:
        return Measured(None, f"no play gives it a value: {metric.empty}")
    interval = _interval(values, resamples, seed) if resamples and len(values) > 1 else None
    return Measured(fmean(values), None, interval, len(values))


def measure(plays: Sequence[PlayTrace], names: Iterable[str] | None = None, *,
            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
            preferred_length: int = metrics.LUDI_PREFERRED_MOVES) -> dict[str, Measured]:
    """The named metrics (published names or aliases; all of :data:`METRICS` by default) on a game's plays,
    each once under its catalogue name, in catalogue order; aborted and failed plays are left out."""
    chosen = set(METRICS) if names is None else {resolve(n) for n in names}
    plays = [p for p in plays if p.end_reason not in ("aborted", "error")]
    return {name: measure_one(METRICS[name], plays, resamples=resamples, seed=seed, preferred_length=preferred_length)
            for name in METRICS if name in chosen}


@dataclass(frozen=True, slots=True)
class Selection:
    """What ``--metrics`` asks for: the RAPP fitness, and which catalogue metrics beside :data:`CORE` (which
    every evaluation measures)."""

    rapp: bool
    metrics: tuple[str, ...]

    @property
    def needs_evaluations(self) -> bool:
        """True when some chosen metric reads state evaluations."""
        return any("evaluations" in METRICS[name].requires for name in self.metrics)

    @property
    def needs_move_evaluations(self) -> bool:
        return any("clarity" in METRICS[name].requires for name in self.metrics)


def select(text: str) -> Selection:
    """Parse ``--metrics``: ``all`` (RAPP and every metric), ``ludii`` (Ludii's metrics), ``rapp``, or a
    comma-separated list of ``rapp``, metric names (published names or aliases), family names (all eleven
    aggregates) and Ludii group names.

    >>> select("rapp,Completion,Drama").metrics[:3]
    ('Completion', 'DramaAverage', 'DramaMedian')
    >>> select("outcome").metrics
    ('AdvantageP1', 'Balance', 'Completion', 'Drawishness', 'Timeouts', 'OutcomeUniformity')
    >>> select("drama_mean,balance").metrics
    ('Balance', 'DramaAverage')
    """
    words = [w.strip() for w in text.split(",") if w.strip()]
    if not words:
        raise ValueError("--metrics needs all, ludii, rapp or metric names")
    use_rapp, chosen = False, set()
    ludii = {m.name for m in (*SINGLE_METRICS, *FAMILY_METRICS)}
    for word in words:
        if word in ("all", "rapp"):
            use_rapp = True
        if word == "all":
            chosen |= set(METRICS)
        elif word == "ludii":
            chosen |= ludii
        elif word == "rapp":
            continue
        elif word in METRICS or word in ALIASES:
            chosen.add(resolve(word))
        elif word in families.FAMILIES:
            chosen |= {f"{word}{aggregate}" for aggregate in families.AGGREGATES}
        elif found := [m.name for m in (*SINGLE_METRICS, *LUDI_METRICS) if m.group == word]:
            chosen |= set(found)
        else:
            raise ValueError(f"unknown metric {word!r}: expected all, ludii, rapp, a metric name or alias, a Ludii "
                             "family or group name (docs/evaluation.md lists them)")
    return Selection(use_rapp, tuple(name for name in METRICS if name in chosen))


STAND_INS: dict[str, str] = {
    "AdvantageP1": "player 1 = the role that moves first in the play (seats rotate, so it is not always the same "
                   "player); a draw counts as half a win (spec/metrics.md; Ludii counts wins only)",
    "Balance": "score rates per seat (role) over all seatings; a draw counts as half a win (spec/metrics.md; Ludii "
               "counts wins only, the same Balance for two roles)",
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


def markdown_rows() -> list[str]:
    """The single metrics' and Ludi criteria's table of docs/evaluation.md, one markdown row each (Sphinx
    cross-references shown as code)."""
    import re

    def shown(value: float | None, unbounded: str) -> str:
        return unbounded if value is None else f"{value:g}"

    rows = []
    for metric in (METRICS[m.name] for m in (*SINGLE_METRICS, *LUDI_METRICS)):
        definition = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`",
                            ("mean over plays of: " if metric.per_play else "") + metric.definition).replace("|", "\\|")
        source = (f"`{metric.source.removeprefix('Evaluation/src/metrics/')}`"
                  if metric.source.startswith("Evaluation/") else metric.source)
        aliases = ", ".join(f"`{alias}`" for alias in metric.aliases) or "-"
        rows.append(f"| {metric.name} | {aliases} | `{metric.python}` | {metric.group} | {metric.browne} | "
                    f"[{shown(metric.low, '-inf')}, {shown(metric.high, 'inf')}] | {definition} | {source} | "
                    f"{STAND_INS.get(metric.name, '-')} |")
    return rows


def alias_rows() -> list[str]:
    """The table of docs/evaluation.md that maps each Ludi criterion's name to its catalogue metric."""
    return [f"| `{alias}` | {name} | `{METRICS[name].python}` |" for alias, name in ALIASES.items()]
