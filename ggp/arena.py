"""In-process matches between players (no HTTP, no clocks) with seat swapping, and a win-rate table.

Used by ``ggp arena`` to compare players quickly, e.g. for the README's strength table. Each game
is played by the one match loop (:func:`ggp.match.local.play_local`, rules in docs/matches.md) with
fresh players (seeded from the arena seed, the game number and the seat); the seats rotate from game
to game, so every entrant plays every role equally often when ``games`` is a multiple of the number
of player roles. The chance role ``random`` gets no entrant: the loop plays it. A player that refuses
the game (raises at START) stops the arena with its reason; one that raises later plays its best move
so far or its first legal move (:mod:`ggp.match.local`, logged), and one that chooses an illegal move
gets the match's fallback move: both are counted per entrant (``fallbacks``), and the table marks its
row, since its results then include moves it did not choose. What a self-configuring player (the default
``mcts``) chose for each game is kept per game (:attr:`ArenaGame.configurations`).

>>> outcome_of(0, (100, 0)), outcome_of(1, (50, 50)), outcome_of(1, (100, 0))
('win', 'draw', 'loss')
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Literal

from ggp.errors import GgpError
from ggp.evaluation.metrics import winner
from ggp.match.local import Transcript, play_local, seating_problem
from ggp.match.rules import CHANCE_ROLE, DEFAULT_STEP_CAP, MatchRules
from ggp.player import Player, configuration_of
from ggp.reasoner.machine import StateMachine

log = logging.getLogger(__name__)

Outcome = Literal["win", "draw", "loss"]
PlayerMaker = Callable[[int], Player]
"""Makes a fresh player from a seed."""


@dataclass(frozen=True, slots=True)
class ArenaGame:
    """One finished game: ``seats[r]`` is the entrant that played player role ``r`` (the roles other
    than chance, in role order); ``goals`` are those roles' goals; ``errors`` counts fallback moves,
    ``fallbacks`` the same per player role."""

    seats: tuple[int, ...]
    goals: tuple[int, ...]
    length: int
    end_reason: Literal["terminal", "step_cap"]
    errors: int
    fallbacks: tuple[int, ...] = ()
    configurations: tuple[str, ...] = ()
    """Per player role, what its player chose for the game by itself (:func:`~ggp.player.configuration_of`,
    the function whose line the player server sends the manager: the same choice, reported the same way;
    ``""`` for a player that chose nothing); ``()`` when none did."""


@dataclass(frozen=True, slots=True)
class Standing:
    """An entrant's totals over the arena's games."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_goal: float
    fallbacks: int = 0
    """Moves played for this entrant by the fallback (it raised, timed out or chose an illegal move)."""

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


def player_roles(machine: StateMachine) -> tuple[int, ...]:
    """Indices of the roles that get an entrant: every role but chance (``random``)."""
    return tuple(i for i, role in enumerate(machine.roles) if str(role) != CHANCE_ROLE)


def play_game(
    machine: StateMachine, players: Sequence[Player], seed: int, max_steps: int = DEFAULT_STEP_CAP
) -> tuple[tuple[int, ...], int, Literal["terminal", "step_cap"], int]:
    """Play one game, ``players`` in player-role order; returns the goals (player roles), length, end
    reason and the number of fallback moves.

    Raises :class:`~ggp.errors.GgpError` (one line) when the game breaks: a role without a legal move
    in a non-terminal state, or no goals at the end.
    """
    goals, length, reason, by_role = _play(machine, players, seed, max_steps)
    return goals, length, reason, sum(by_role)


def _play(
    machine: StateMachine, players: Sequence[Player], seed: int, max_steps: int, gdl2: bool = False
) -> tuple[tuple[int, ...], int, Literal["terminal", "step_cap"], tuple[int, ...]]:
    """:func:`play_game` with the fallback moves per player role (``gdl2``: players see only their percepts)."""
    transcript = Transcript()
    ending = play_local(machine, players, seed, MatchRules(max_steps), transcript, gdl2=gdl2)
    if ending.goals is None or ending.reason not in ("terminal", "step_cap"):
        raise GgpError(ending.detail or f"the game ended with {ending.reason}")
    indices = player_roles(machine)
    goals = tuple(ending.goals[i] for i in indices)
    reason: Literal["terminal", "step_cap"] = "terminal" if ending.reason == "terminal" else "step_cap"
    by_role = transcript.fallbacks_by_role()
    return goals, ending.steps, reason, tuple(by_role[i] if i < len(by_role) else 0 for i in indices)


def run_arena(
    machine: StateMachine,
    makers: Sequence[PlayerMaker],
    games: int,
    seed: int = 0,
    max_steps: int = DEFAULT_STEP_CAP,
    progress: Callable[[int, ArenaGame], None] | None = None,
    gdl2: bool = False,
) -> list[ArenaGame]:
    """Play ``games`` games with one entrant per player role, rotating seats each game; ``gdl2`` plays a
    GDL-II game as one (each player sees only its percepts; a player that cannot is refused).

    Raises ``ValueError`` when the number of entrants differs from the number of player roles, and
    :class:`~ggp.errors.GgpError` when the game breaks (see :func:`play_game`).
    """
    roles = len(player_roles(machine))
    seating = seating_problem(machine.roles, len(makers))
    if seating is not None:
        raise ValueError(seating)
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, found {games}")
    results = []
    for game in range(games):
        seats = tuple((r + game) % roles for r in range(roles))
        players = [makers[entrant](seed + 1000 * game + entrant) for entrant in seats]
        goals, length, reason, fallbacks = _play(machine, players, seed + game, max_steps, gdl2)
        chosen = tuple(configuration_of(player) for player in players)
        result = ArenaGame(seats, goals, length, reason, sum(fallbacks), fallbacks, chosen if any(chosen) else ())
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
        fallbacks = 0
        for game in results:
            role = game.seats.index(entrant)
            outcomes.append(outcome_of(role, game.goals))
            goals.append(game.goals[role])
            fallbacks += game.fallbacks[role] if role < len(game.fallbacks) else 0
        table.append(
            Standing(name, len(outcomes), outcomes.count("win"), outcomes.count("draw"),
                     outcomes.count("loss"), fmean(goals) if goals else 0.0, fallbacks)
        )
    return table


def format_table(table: Sequence[Standing]) -> str:
    """A plain-text table: player, games, wins, draws, losses, win %, score %, mean goal.

    A player some of whose moves were fallbacks gets a ``*`` and a note under the table saying how many:
    its row then counts moves it did not choose.

    >>> print(format_table([Standing("a", 2, 1, 0, 1, 50.0, fallbacks=3), Standing("b", 2, 1, 0, 1, 50.0)]))
    player  games  wins  draws  losses   win%  score%  mean goal
    a *         2     1      0       1   50.0    50.0       50.0
    b           2     1      0       1   50.0    50.0       50.0
    * a: 3 moves were fallbacks (the player raised, timed out or chose an illegal move), not its own choices
    """
    names = [f"{row.name} *" if row.fallbacks else row.name for row in table]
    width = max([len("player"), *map(len, names)])
    lines = [f"{'player':<{width}}  games  wins  draws  losses   win%  score%  mean goal"]
    for name, row in zip(names, table):
        lines.append(
            f"{name:<{width}}  {row.games:>5}  {row.wins:>4}  {row.draws:>5}  {row.losses:>6}  "
            f"{100 * row.win_rate:>5.1f}  {100 * row.score:>6.1f}  {row.mean_goal:>9.1f}"
        )
    for row in table:
        if row.fallbacks:
            lines.append(f"* {row.name}: {row.fallbacks} move{'s were' if row.fallbacks != 1 else ' was'} "
                         "fallbacks (the player raised, timed out or chose an illegal move), not its own choices")
    return "\n".join(lines)
