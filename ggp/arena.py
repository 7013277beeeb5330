"""In-process matches between players (no HTTP, no clocks) with seat swapping, and a win-rate table.

Used by ``ggp arena`` to compare players quickly, e.g. for the README's strength table. Each game
gets fresh players (seeded from the arena seed, the game number and the seat) and the seats rotate
from game to game, so every entrant plays every role equally often when ``games`` is a multiple of
the number of roles. A player that raises is replaced for that move by a uniformly random legal
move (counted in ``errors``), like the manager's fallback.

>>> outcome_of(0, (100, 0)), outcome_of(1, (50, 50)), outcome_of(1, (100, 0))
('win', 'draw', 'loss')
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Literal

from ggp.errors import GgpError
from ggp.evaluation.metrics import winner
from ggp.player import Budget, Player
from ggp.reasoner.machine import State, StateMachine

log = logging.getLogger(__name__)

Outcome = Literal["win", "draw", "loss"]
PlayerMaker = Callable[[int], Player]
"""Makes a fresh player from a seed."""


@dataclass(frozen=True, slots=True)
class ArenaGame:
    """One finished game: ``seats[r]`` is the entrant that played role ``r``; goals in role order."""

    seats: tuple[int, ...]
    goals: tuple[int, ...]
    length: int
    end_reason: Literal["terminal", "turn_limit"]
    errors: int


@dataclass(frozen=True, slots=True)
class Standing:
    """An entrant's totals over the arena's games."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_goal: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def outcome_of(role: int, goals: Sequence[int]) -> Outcome:
    """Win (strictly highest goal), draw (tied for the highest) or loss, for the role at ``role``."""
    top = winner(goals)
    if top == role:
        return "win"
    if top is None and goals[role] == max(goals) and (len(goals) > 1 or goals[role] > 0):
        return "draw"
    return "loss"


def _safe_goals(machine: StateMachine, state: State) -> tuple[int, ...]:
    try:
        return machine.goals(state)
    except GgpError:
        return tuple(0 for _ in machine.roles)


def play_game(
    machine: StateMachine, players: Sequence[Player], rng: random.Random, max_steps: int = 1000
) -> tuple[tuple[int, ...], int, Literal["terminal", "turn_limit"], int]:
    """Play one game, ``players`` in role order; returns goals, length, end reason and errors."""
    for role, player in zip(machine.roles, players):
        player.start(machine, role, Budget())
    state = machine.initial_state()
    steps = errors = 0
    try:
        while not machine.is_terminal(state):
            if steps >= max_steps:
                return _safe_goals(machine, state), steps, "turn_limit", errors
            joint = []
            for role, player in zip(machine.roles, players):
                legal = machine.legal_moves(state, role)
                try:
                    move = player.choose(state, Budget())
                except (GgpError, ValueError, RuntimeError) as exc:
                    log.warning("%s as %s failed: %s", player.name, role, exc)
                    move = legal[rng.randrange(len(legal))]
                    errors += 1
                if move not in legal:
                    log.warning("%s as %s chose illegal %s", player.name, role, move)
                    move = legal[rng.randrange(len(legal))]
                    errors += 1
                joint.append(move)
            state = machine.next_state(state, tuple(joint))
            steps += 1
        return machine.goals(state), steps, "terminal", errors
    finally:
        for player in players:
            player.stop()


def run_arena(
    machine: StateMachine,
    makers: Sequence[PlayerMaker],
    games: int,
    seed: int = 0,
    max_steps: int = 1000,
    progress: Callable[[int, ArenaGame], None] | None = None,
) -> list[ArenaGame]:
    """Play ``games`` games with one entrant per role, rotating seats each game.

    Raises ``ValueError`` when the number of entrants differs from the number of roles.
    """
    roles = len(machine.roles)
    if len(makers) != roles:
        raise ValueError(f"the game has {roles} roles but {len(makers)} players were given; give one per role")
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, found {games}")
    results = []
    for game in range(games):
        seats = tuple((r + game) % roles for r in range(roles))
        players = [makers[entrant](seed + 1000 * game + entrant) for entrant in seats]
        goals, length, reason, errors = play_game(machine, players, random.Random(seed + game), max_steps)
        result = ArenaGame(seats, goals, length, reason, errors)
        results.append(result)
        if progress is not None:
            progress(game, result)
    return results


def standings(results: Sequence[ArenaGame], names: Sequence[str]) -> list[Standing]:
    """Each entrant's wins, draws, losses and mean goal, in entrant order."""
    table = []
    for entrant, name in enumerate(names):
        outcomes: list[Outcome] = []
        goals: list[int] = []
        for game in results:
            role = game.seats.index(entrant)
            outcomes.append(outcome_of(role, game.goals))
            goals.append(game.goals[role])
        table.append(
            Standing(name, len(outcomes), outcomes.count("win"), outcomes.count("draw"),
                     outcomes.count("loss"), fmean(goals) if goals else 0.0)
        )
    return table


def format_table(table: Sequence[Standing]) -> str:
    """A plain-text table: player, games, wins, draws, losses, win %, score %, mean goal."""
    width = max([len("player"), *(len(row.name) for row in table)])
    lines = [f"{'player':<{width}}  games  wins  draws  losses   win%  score%  mean goal"]
    for row in table:
        lines.append(
            f"{row.name:<{width}}  {row.games:>5}  {row.wins:>4}  {row.draws:>5}  {row.losses:>6}  "
            f"{100 * row.win_rate:>5.1f}  {100 * row.score:>6.1f}  {row.mean_goal:>9.1f}"
        )
    return "\n".join(lines)
