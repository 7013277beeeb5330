"""Heuristics validated during the start clock (issue 41, item 3): candidate features read from the rules,
kept only where they correlate with the outcome of seeded random playouts, and fitted into the evaluation
that scores a cut playout in the C search (:class:`~ggp.reasoner.playouts.PlayoutCutoff`).

The candidates, both linear in the state's fluents or read from the rules' own goal relation (so the C search
scores a state with one pass over its fluents):

- **material** (Clune 2007; the piece counts of :class:`~ggp.players.material.FluentMaterial`, read from the
  fluents' names): a role's pieces less the other roles' mean;
- **goal proximity** (as Fluxplayer and Clune use the goal relation away from the end): a role's goal value
  in a state that is not terminal, less the other roles' mean (0 where the rules define none).

:func:`sample_playouts` plays the playouts and records, at every step that is not terminal, each role's
features and its final goal. :func:`validate` is a pure function of those samples: a feature is kept when its
Pearson correlation with the outcome reaches :data:`MIN_CORRELATION` over at least :data:`MIN_PLAYOUTS`
playouts; the kept features are then fitted by logistic regression (no intercept: equal features mean an even
game) to the outcome scaled onto 0..1 from the role's sampled range of goals, and the fit mapped back onto that
range is the evaluation (where a fitted weight's sign contradicts its
feature's correlation, as collinear features give, only the most correlated feature is kept). No feature kept
(a puzzle, a game with no material and no goal values before the end, such as ticTacToe) means no cut-off.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ggp.gdl.terms import Term
from ggp.players.material import FluentMaterial
from ggp.reasoner.machine import CHANCE_ROLE, State, StateMachine
from ggp.reasoner.playouts import PlayoutCutoff, safe_goals

FEATURES = ("material", "goal")
"""The candidate features, in the order of :attr:`Sample.features`."""

SAMPLE_PLAYOUTS = 96
"""Random playouts the validation plays (at most; fewer when the start clock ends them)."""

SAMPLE_DEPTH = 300
"""Joint moves after which a sampling playout is dropped (its outcome is not the game's)."""

MIN_PLAYOUTS = 32
"""A feature needs samples from at least this many finished playouts to be kept."""

MIN_CORRELATION = 0.15
"""A feature is kept when the absolute value of its correlation with the outcome reaches this. Measured over
96 playouts, seeds 1 and 2 (2026-11-28): material r = +0.19 and +0.18 on breakthrough, +0.19 and +0.20 on
reversi, +0.49 and +0.52 on checkersTiny (goal +0.49, +0.51); -0.04 to +0.11 on ticTacToe, connectFour,
pentago and knightThrough; sheepAndWolf's pieces never change (no correlation)."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One role (its index) in one non-terminal state of a random playout: its features (:data:`FEATURES`,
    each relative to the other roles' mean) and the goal (0..1) it got at the end."""

    role: int
    features: tuple[float, ...]
    outcome: float


@dataclass(frozen=True, slots=True)
class Validation:
    """What :func:`validate` found: per feature its correlation with the outcome (None where it never varied),
    the features kept, their fitted weights and the number of playouts and samples."""

    correlations: tuple[float | None, ...]
    kept: tuple[str, ...]
    weights: tuple[float, ...]
    playouts: int
    samples: int
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    """Per role (by index), the lowest and highest outcome (0..1) sampled: the range the evaluation is fitted
    and mapped onto (a loser of checkersTorus still gets 0.72)."""

    def describe(self) -> str:
        """One phrase for the log line: the correlations, and what was kept."""
        rs = ", ".join(f"{name} r={'n/a' if r is None else f'{r:+.2f}'}" for name, r in zip(FEATURES, self.correlations))
        kept = " + ".join(f"{w:.3g} x {name}" for name, w in zip(self.kept, self.weights)) or "nothing kept"
        return f"{rs} over {self.samples} states of {self.playouts} playouts: {kept}"


@dataclass(frozen=True, slots=True)
class Samples:
    """The playouts' samples, the pieces each role owns (fluents seen, by :class:`FluentMaterial`) and the
    number of finished playouts."""

    samples: tuple[Sample, ...]
    pieces: dict[Term, int]
    playouts: int


def correlation(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long sequences; None when either does not vary (or fewer than two)."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def fit_logistic(rows: Sequence[Sequence[float]], targets: Sequence[float], ridge: float = 1e-3) -> tuple[float, ...]:
    """Weights w minimising the cross-entropy of logistic(w . row) against ``targets`` (0..1), no intercept,
    with a small ridge (so separable data still give finite weights): Newton's method, 25 steps."""
    k = len(rows[0]) if rows else 0
    w = [0.0] * k
    for _ in range(25):
        grad = [ridge * w[i] for i in range(k)]
        hess = [[ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for row, y in zip(rows, targets):
            p = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, sum(a * b for a, b in zip(w, row))))))
            for i in range(k):
                grad[i] += (p - y) * row[i]
                for j in range(k):
                    hess[i][j] += p * (1.0 - p) * row[i] * row[j]
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
        if max((abs(s) for s in step), default=0.0) < 1e-9:
            break
    return tuple(w)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b, by Gaussian elimination with partial pivoting (a is small and positive definite)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-15:
            return [0.0] * n
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def _within_roles(values: Sequence[float], roles: Sequence[int]) -> list[float]:
    """values less the mean of the values of the same role: what is left once the role is known."""
    sums: dict[int, list[float]] = {}
    for v, r in zip(values, roles):
        acc = sums.setdefault(r, [0.0, 0.0])
        acc[0] += v
        acc[1] += 1.0
    return [v - sums[r][0] / sums[r][1] for v, r in zip(values, roles)]


def validate(samples: Sequence[Sample], playouts: int) -> Validation:
    """The features kept and their fitted weights (see the module notes): a pure function of the samples.
    Correlations are taken within roles (features and outcomes less their role's mean), so a feature that
    only tells the roles apart (ticTacToe's first player, who wins more often, always has as many marks as
    the second or one more) is not taken for one that tells good states from bad ones."""
    roles = [s.role for s in samples]
    outcomes = _within_roles([s.outcome for s in samples], roles)
    correlations = tuple(correlation(_within_roles([s.features[i] for s in samples], roles), outcomes)
                         for i in range(len(FEATURES)))
    enough = playouts >= MIN_PLAYOUTS
    keep = [i for i, r in enumerate(correlations) if enough and r is not None and abs(r) >= MIN_CORRELATION]
    count = 1 + max((s.role for s in samples), default=-1)
    low = tuple(min((s.outcome for s in samples if s.role == r), default=0.0) for r in range(count))
    high = tuple(max((s.outcome for s in samples if s.role == r), default=1.0) for r in range(count))
    targets = [(s.outcome - low[s.role]) / (high[s.role] - low[s.role]) if high[s.role] > low[s.role] else 0.5
               for s in samples]
    weights = fit_logistic([[s.features[i] for i in keep] for s in samples], targets) if keep else ()
    if any(w * (correlations[i] or 0.0) <= 0 for w, i in zip(weights, keep)):
        # Collinear features (checkers' goal values count its pieces) fit with opposite signs: keep the strongest.
        keep = [max(keep, key=lambda i: abs(correlations[i] or 0.0))]
        weights = fit_logistic([[s.features[keep[0]]] for s in samples], targets)
    return Validation(correlations, tuple(FEATURES[i] for i in keep), weights, playouts, len(samples), low, high)


def cutoff_of(validation: Validation, pieces: dict[Term, int], roles: int, depth: int) -> PlayoutCutoff | None:
    """The playout cut-off at ``depth`` joint moves past the leaf that scores a state by the validated
    evaluation; None when nothing was kept. Material weighs each piece of role r by the fitted weight in
    r's own column; the logistic's relative form supplies the other roles' mean."""
    if not validation.kept:
        return None
    fitted = dict(zip(validation.kept, validation.weights))
    per_piece = fitted.get("material", 0.0)
    weights = {fact: tuple(per_piece if r == owner else 0.0 for r in range(roles))
               for fact, owner in pieces.items() if owner >= 0}
    return PlayoutCutoff(depth, weights if per_piece else {}, fitted.get("goal", 0.0), 1.0, validation.low,
                         validation.high)


def sample_playouts(machine: StateMachine, seed: int, deadline: float | None = None) -> Samples:
    """Seeded random playouts from the initial state (at most :data:`SAMPLE_PLAYOUTS`, fewer when
    ``deadline``, a :func:`time.monotonic` time, comes first): each role's features in every non-terminal
    state, with the goal it got at the end. Playouts longer than :data:`SAMPLE_DEPTH` or stuck are dropped."""
    rng = random.Random(seed)
    roles = machine.roles
    material = FluentMaterial(roles)
    pieces: dict[Term, int] = {}
    counted = [r for r, role in enumerate(roles) if role != CHANCE_ROLE]
    samples: list[Sample] = []
    finished = 0
    for _ in range(SAMPLE_PLAYOUTS):
        if deadline is not None and time.monotonic() >= deadline:
            break
        trail = _playout(machine, rng, deadline)
        if trail is None:
            continue
        states, final = trail
        finished += 1
        for state in states:
            counts = _counts(material, state, pieces, len(roles))
            goals = [g / 100.0 for g in safe_goals(machine, state)]
            for r in counted:
                samples.append(Sample(r, (_relative(counts, r, counted), _relative(goals, r, counted)), final[r] / 100.0))
    return Samples(tuple(samples), pieces, finished)


def _playout(machine: StateMachine, rng: random.Random, deadline: float | None) -> tuple[list[State], tuple[int, ...]] | None:
    """The non-terminal states of one random playout and its final goals; None when it is cut, stuck or late."""
    state = machine.initial_state()
    states: list[State] = []
    for _ in range(SAMPLE_DEPTH):
        if machine.is_terminal(state):
            return states, safe_goals(machine, state)
        if deadline is not None and time.monotonic() >= deadline:
            return None
        legal = [machine.legal_moves(state, role) for role in machine.roles]
        if any(not moves for moves in legal):
            return None
        states.append(state)
        state = machine.next_state(state, tuple(rng.choice(moves) for moves in legal))
    return None


def _counts(material: FluentMaterial, state: State, pieces: dict[Term, int], roles: int) -> list[float]:
    """Pieces per role in ``state``, noting each piece fluent's owner in ``pieces``."""
    counts = [0.0] * roles
    for fact in state.facts:
        owner = pieces.get(fact)
        if owner is None and fact not in pieces:
            found = material.owner_of_fact(fact)
            pieces[fact] = -1 if found is None else found
            owner = pieces[fact]
        if owner is not None and owner >= 0:
            counts[owner] += 1.0
    return counts


def _relative(values: Sequence[float], r: int, counted: Sequence[int]) -> float:
    """values[r] less the mean of the other counted roles' values (values[r] itself with one role)."""
    others = [values[q] for q in counted if q != r]
    return values[r] - (sum(others) / len(others) if others else 0.0)


@dataclass(frozen=True, slots=True)
class HeuristicChoice:
    """The playout cut-off chosen for a match (None: none) and why, in words (for the log line)."""

    cutoff: PlayoutCutoff | None
    reason: str

    def describe(self) -> str:
        """One phrase: the cut-off and why."""
        where = "no playout cut-off" if self.cutoff is None else f"playouts cut {self.cutoff.depth} moves past the leaf"
        return f"{where} ({self.reason})"


def choose_cutoff(machine: StateMachine, seed: int, depth: int, deadline: float | None = None) -> HeuristicChoice:
    """The validated playout cut-off at ``depth`` for ``machine``'s game (see the module notes), measured by
    seeded playouts until ``deadline``: none in a puzzle or a game with chance (nothing to compare a role
    with, or the C search's mean would count the chance role), none when nothing is kept."""
    roles = machine.roles
    if len(roles) == 1:
        return HeuristicChoice(None, "one role: no opponent to weigh against")
    if CHANCE_ROLE in roles:
        return HeuristicChoice(None, "a chance role")
    measured = sample_playouts(machine, seed, deadline)
    validation = validate(measured.samples, measured.playouts)
    return HeuristicChoice(cutoff_of(validation, measured.pieces, len(roles), depth), validation.describe())
