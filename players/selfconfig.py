"""Self-configuration of MCTS for one match: what the rules and a short measurement say about a game, and
the search settings chosen from that (issue 41: a competition player decides per game, during the start
clock, instead of waiting for its user to pick options; it never looks at a game's name).

:func:`profile_game` plays seeded random playouts on the match's machine and, in the states they visit,
asks for every role with a choice: does one of its moves end the game at once at its highest goal (a
decisive move), and do all (move, reply) pairs fit the 64 lanes in which the C search tries them
(``players/native/search_decisive.c``)? It stops at a count (so the same seed gives the same profile) or
at a deadline (a share of the start clock). :func:`choose_settings` is a pure function of the profile.

What it decides, and from which measurements (docs/players.md has the duels behind each rule):

- **Decisive and anti-decisive playouts** (``decisive=2``): on where decisive moves are common in random
  play (:data:`WIN_SHARE_MIN`, 10% of the decisions) and the (move, reply) pairs fit one lane word in most
  decisions (:data:`PAIR_FIT_MIN`), off elsewhere. With the pairs fitting, the lookahead avoids a reply's
  immediate win in every playout step (connectFour: 86% at equal time against the default, 80% against
  Sancho); where they do not fit, only the decisive half runs, which never measurably helped (51.5% at
  equal iterations on connectFour, 51.7% on breakthrough) and halves the iterations (breakthrough 23%,
  reversi 30% at equal time).
- **Nested Monte-Carlo Search and the best line**: in a game with one role and no chance (a puzzle),
  NMCS under a clock and the best line, as :class:`~ggp.players.mcts.MctsPlayer` does by default; the
  lookahead stays off there (no replies to avoid; the duels behind it are two-player games).
- **Playout cut-off** (heuristics validated in the start clock, :mod:`ggp.players.heuristic`): not chosen
  here; off unless ``mcts:cutoff=K`` asks for it (its duels won one game and lost two, and the validated
  correlation did not tell them apart: docs/players.md). When asked for, its phrase ends this module's line
  (:attr:`SearchSettings.heuristic`).
- **Factored search** (Günther, Schiffel & Thielscher 2009): where the rules fall apart into independent
  sub-games (:mod:`ggp.reasoner.factoring`, found on the compiled circuit) and a role's legal moves lie in
  one of them in at least :data:`FACTOR_SHARE_MIN` of the sampled decisions (connectFourSimultaneous: each
  turn one player drops on one board, the other on the other), each decision searches that sub-game alone,
  the rest of the state held as it is (the C search's ``ggp_mcts_set_factor``); off elsewhere.
- Everything else keeps the player's defaults (MAST share 0.3, exploration 0.4, MCTS-Solver on).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ggp.reasoner.factoring import FactorAt, Factoring, factor_hook
from ggp.reasoner.machine import CHANCE_ROLE, JointMove, Move, State, StateMachine
from ggp.reasoner.playouts import safe_goals

PROFILE_PLAYOUTS = 24
"""Random playouts the profile samples states from (at most)."""

PROFILE_STATES = 240
"""Decisions (a state and a role with a choice) the profile examines at most."""

PROFILE_DEPTH = 300
"""Joint moves after which a profiling playout is cut."""

LANES = 64
"""(move, reply) pairs the C search tries in one evaluation of the circuit (one lane each)."""

WIN_SHARE_MIN = 0.10
"""Decisive moves must exist in at least this share of decisions for the lookahead to be worth its cost: the
lookahead won where they exist in 13-24% of random play's decisions (connectFour, connectFourSimultaneous)
and was even or worse at equal iterations where they exist in 5-8% (pentago 51%, sheepAndWolf 40%; docs/players.md)."""

PAIR_FIT_MIN = 0.5
"""The (move, reply) pairs must fit :data:`LANES` in at least this share of decisions (else the
anti-decisive half of the lookahead rarely runs)."""

FACTOR_SHARE_MIN = 0.9
"""A factored game is searched factor by factor when a role's legal moves lie in one factor in at least this
share of the sampled decisions (else a decision spans factors too often for the factor alone to decide it)."""

SAFE_DEFAULTS_REASON = "the safe defaults"


@dataclass(frozen=True, slots=True)
class GameProfile:
    """What a short random-play measurement says about a game (see :func:`profile_game`).

    ``decisions`` counts the (state, role) pairs examined where the role has a choice (chance aside);
    ``wins`` those where a move ends the game at once at the role's highest goal; ``fits`` those where
    the role's moves and the other roles' replies after each fit :data:`LANES` pairs; ``simultaneous``
    the states where two or more roles choose; ``complete`` is False when the deadline cut the
    measurement short (its figures are then a smaller sample)."""

    roles: int
    chance: bool
    decisions: int
    wins: int
    fits: int
    simultaneous: int
    states: int
    branching: float
    seconds: float
    complete: bool
    factors: int = 1
    """Independent sub-games with moves in the rules (1: the game does not factor, or the engine cannot tell)."""
    one_factor: int = 0
    """Decisions whose legal moves all lie in one of those sub-games."""

    @property
    def win_share(self) -> float:
        return self.wins / self.decisions if self.decisions else 0.0

    @property
    def fit_share(self) -> float:
        return self.fits / self.decisions if self.decisions else 0.0

    @property
    def puzzle(self) -> bool:
        """One role and no chance: a puzzle, where NMCS and the best line apply."""
        return self.roles == 1 and not self.chance


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """The settings :func:`choose_settings` picked, with the reason in words (for the log and the match record)."""

    decisive: int
    puzzle: bool
    reason: str
    factored: bool = False
    """Search the sub-game a decision's moves lie in alone (see the module notes)."""
    heuristic: str = ""
    """The playout cut-off validated in the start clock and why (``HeuristicChoice.describe``); empty when
    none was asked for (the default, see ``mcts``'s ``cutoff``)."""

    def describe(self) -> str:
        """One line: the settings, then why."""
        nested = "NMCS and the best line (one role, no chance)" if self.puzzle else "no NMCS (not a puzzle)"
        cut = f"; {self.heuristic}" if self.heuristic else ""
        factored = ", factored search" if self.factored else ""
        return f"decisive={self.decisive}, {nested}{factored}: {self.reason}{cut}"


MIN_DECISIONS = PROFILE_STATES // 4
"""A measurement the start clock cut short before this many decisions gives the safe defaults."""


def choose_settings(profile: GameProfile | None, why_none: str = SAFE_DEFAULTS_REASON, puzzle: bool = False) -> SearchSettings:
    """The search settings for a game with ``profile``; None (no measurement: ``why_none`` says why), a
    measurement that met no decision or one cut short before :data:`MIN_DECISIONS` give the safe defaults.
    Pure: the same profile gives the same settings. ``puzzle`` (one role, no chance: from the rules) is
    reported where there is no profile."""
    if profile is None:
        return SearchSettings(0, puzzle, why_none)
    if profile.decisions == 0:
        return SearchSettings(0, profile.puzzle, f"{SAFE_DEFAULTS_REASON}: no decision in the sampled playouts")
    if not profile.complete and profile.decisions < MIN_DECISIONS:
        return SearchSettings(0, profile.puzzle, f"{SAFE_DEFAULTS_REASON}: the start clock ended the measurement "
                                                 f"after {profile.decisions} decisions")
    measured = (f"a move wins at once in {profile.win_share:.0%} of {profile.decisions} sampled decisions, "
                f"(move, reply) pairs fit {LANES} lanes in {profile.fit_share:.0%}")
    lookahead = not profile.puzzle and profile.win_share >= WIN_SHARE_MIN and profile.fit_share >= PAIR_FIT_MIN
    factored = (profile.factors > 1 and not profile.puzzle and not profile.chance
                and profile.one_factor >= FACTOR_SHARE_MIN * profile.decisions)
    if profile.factors > 1:
        measured += f", {profile.factors} sub-games, a decision's moves in one in {profile.one_factor / profile.decisions:.0%}"
    return SearchSettings(2 if lookahead else 0, profile.puzzle, measured, factored)


def profile_game(machine: StateMachine, seed: int, deadline: float | None = None) -> GameProfile:
    """Random playouts from the initial state (seeded), examining every decision on the way (see
    :class:`GameProfile`), until :data:`PROFILE_STATES` decisions or :data:`PROFILE_PLAYOUTS` playouts, or
    ``deadline`` (a :func:`time.monotonic` time)."""
    started = time.monotonic()
    rng = random.Random(seed)
    roles = machine.roles
    chance = [role == CHANCE_ROLE for role in roles]
    counts = _Counts()
    factor_at = factor_hook(machine)
    factoring = getattr(machine, "factoring", None)
    factors = len(factoring.factors) if isinstance(factoring, Factoring) else 1
    highest = _highest_goals(machine, rng, deadline)
    complete = True
    for _ in range(PROFILE_PLAYOUTS):
        state = machine.initial_state()
        for _ in range(PROFILE_DEPTH):
            if machine.is_terminal(state):
                break
            if counts.decisions >= PROFILE_STATES or _late(deadline):
                break
            legal = [machine.legal_moves(state, role) for role in roles]
            if any(not moves for moves in legal):
                break
            _examine(machine, state, legal, chance, highest, counts, factor_at if factors > 1 else None)
            state = machine.next_state(state, tuple(rng.choice(moves) for moves in legal))
        if counts.decisions >= PROFILE_STATES:
            break
        if _late(deadline):
            complete = False
            break
    return GameProfile(len(roles), any(chance), counts.decisions, counts.wins, counts.fits, counts.simultaneous,
                       counts.states, counts.moves / counts.decisions if counts.decisions else 0.0,
                       time.monotonic() - started, complete, factors, counts.one_factor)


@dataclass(slots=True)
class _Counts:
    decisions: int = 0
    wins: int = 0
    fits: int = 0
    simultaneous: int = 0
    states: int = 0
    moves: int = 0
    one_factor: int = 0


def _late(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def _highest_goals(machine: StateMachine, rng: random.Random, deadline: float | None) -> list[int]:
    """Each role's highest goal seen at the end of a few random playouts (the C search uses the rules'
    highest; random play reaches it in every game whose win is reachable at all)."""
    highest = [0] * len(machine.roles)
    for _ in range(8):
        state = machine.initial_state()
        for _ in range(PROFILE_DEPTH):
            if machine.is_terminal(state) or _late(deadline):
                break
            legal = [machine.legal_moves(state, role) for role in machine.roles]
            if any(not moves for moves in legal):
                break
            state = machine.next_state(state, tuple(rng.choice(moves) for moves in legal))
        if machine.is_terminal(state):
            highest = [max(h, g) for h, g in zip(highest, safe_goals(machine, state))]
    return highest


def _examine(machine: StateMachine, state: State, legal: list[tuple[Move, ...]], chance: list[bool],
             highest: list[int], counts: _Counts, factor_at: FactorAt | None = None) -> None:
    """Counts the decisions of ``state`` (see :class:`GameProfile`); the other roles play their first move."""
    counts.states += 1
    choosers = [r for r, moves in enumerate(legal) if len(moves) > 1 and not chance[r]]
    if len(choosers) > 1:
        counts.simultaneous += 1
    for r in choosers:
        counts.decisions += 1
        counts.moves += len(legal[r])
        counts.one_factor += factor_at is not None and factor_at(state, machine.roles[r]) is not None
        won, pairs = False, 0
        for move in legal[r][:LANES + 1]:
            joint: JointMove = tuple(move if q == r else moves[0] for q, moves in enumerate(legal))
            after = machine.next_state(state, joint)
            if machine.is_terminal(after):
                won = won or (highest[r] > 0 and safe_goals(machine, after)[r] >= highest[r])
                continue
            pairs += sum(len(machine.legal_moves(after, role)) for q, role in enumerate(machine.roles)
                         if q != r and not chance[q])
        counts.wins += won
        counts.fits += pairs <= LANES and len(legal[r]) <= LANES  # none at all: nothing to check, it fits
