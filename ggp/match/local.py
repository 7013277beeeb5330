"""In-process transport of the match loop: a :class:`~ggp.player.Player` object as a seat.

:func:`play_local` plays one match between player objects with the same rules as the manager's
HTTP matches (:mod:`ggp.match.loop`); the arena and self-play use it. A player whose ``start`` raises
refuses the game (the match stops with its reason: nobody is scored on moves it never chose); a player
whose ``choose`` raises still answers a legal move, as the player server answers one (docs/players.md,
"A legal move at any clock"): its best move so far (an :class:`~ggp.player.AnytimePlayer`'s, when
legal), else the first legal move; one warning line per match says how often, and the move is counted in
:attr:`Transcript.fallbacks` (the step's error row stays empty, as over HTTP). In GDL-II,
where the seat does not know its legal moves, it answers ``nil``: ``IL null`` and the match's fallback move.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import cast

from ggp.errors import GgpError
from ggp.logtally import Tally
from ggp.match.loop import Answer, Ending, MatchInfo, StepInfo, View, play, with_chance_seat
from ggp.match.referee import Referee
from ggp.match.rules import CHANCE_ROLE, MatchRules
from ggp.player import NO_GDL2, AnytimePlayer, Budget, Gdl2Player, Player
from ggp.reasoner.machine import Move, StateMachine

log = logging.getLogger(__name__)


class PlayerSeat:
    """A player object as a :class:`~ggp.match.loop.Seat`; ``budget`` is given to every decision.

    START calls ``start``; a player that raises there refuses the game (its message is the reason, and
    the match loop stops the match with it: no player is scored on moves it never chose), as does one
    that is no :class:`~ggp.player.Gdl2Player` in a GDL-II game. PLAY calls ``choose`` on the state (GDL-II: ``observe`` then
    ``choose_hidden``), STOP and ABORT call ``stop``.
    """

    def __init__(self, player: Player, budget: Budget | None = None) -> None:
        self.player = player
        self.name = player.name
        self.budget = budget or Budget()
        self._gdl2 = False
        self._failed = False
        self.fallbacks = 0
        """Moves this seat answered for its player (its ``choose`` raised)."""
        self.troubles = Tally()
        """Why, for the one summary line the match logs (:func:`play_local`)."""

    async def start(self, info: MatchInfo, role: int) -> Answer:
        self._gdl2 = info.gdl2
        if info.gdl2 and not isinstance(self.player, Gdl2Player):
            return Answer(refusal=NO_GDL2)
        assert info.machine is not None, "in-process players need the machine"
        try:
            self.player.start(info.machine, info.machine.roles[role], self.budget)
        except (GgpError, ValueError) as exc:  # the player says why it cannot play this game: a refusal
            log.info("player %s refused the game: %s", self.name, exc)
            self._failed = True
            return Answer(refusal=str(exc))
        except Exception as exc:  # a bug: the match stops with it, as an HTTP player's setup error does
            log.warning("player %s failed to start: %s", self.name, exc, exc_info=True)
            self._failed = True
            return Answer(refusal=f"{type(exc).__name__}: {exc}")
        return Answer()

    async def play(self, view: View) -> Answer:
        if self._failed:
            return Answer(move=self._fallback(view))
        try:
            if self._gdl2:
                assert isinstance(self.player, Gdl2Player)
                self.player.observe(view.turn, view.last_move, frozenset(view.percepts))
                return Answer(move=self.player.choose_hidden(self.budget))
            return Answer(move=self.player.choose(view.state, self.budget))
        except Exception as exc:  # the match goes on with a legal move, as over HTTP
            move = self._fallback(view)
            self.troubles.add(f"{type(exc).__name__}: {exc}")
            log.info("player %s failed to choose (%s); answering %s", self.name, exc, move)
            log.debug("player %s: the failure", self.name, exc_info=True)
            return Answer(move=move)

    def _fallback(self, view: View) -> Move | None:
        """The player's best move so far when legal, else the first legal move (None in GDL-II)."""
        self.fallbacks += 1
        if self._gdl2 or not view.legal:
            return None
        best = self.player.best_move() if isinstance(self.player, AnytimePlayer) else None
        return best if best in view.legal else view.legal[0]

    async def stop(self, view: View) -> None:
        self._stop()

    async def abort(self) -> None:
        self._stop()

    def _stop(self) -> None:
        try:
            self.player.stop()
        except Exception as exc:
            log.warning("player %s failed to stop: %s", self.name, exc)


@dataclass
class Transcript:
    """A :class:`~ggp.match.loop.Listener` that keeps everything: START errors, every step, the end."""

    start_errors: tuple[str, ...] = ()
    steps: list[StepInfo] = field(default_factory=list)
    ending: Ending | None = None
    seat_fallbacks: tuple[int, ...] = ()
    """Per role: legal moves in-process seats answered for players whose ``choose`` raised (no error
    code in the step: see the module)."""

    def started(self, errors: tuple[str, ...]) -> None:
        self.start_errors = errors

    def stepped(self, step: StepInfo) -> None:
        self.steps.append(step)

    def ended(self, ending: Ending) -> None:
        self.ending = ending

    @property
    def fallbacks(self) -> int:
        """Moves replaced by the fallback because a seat timed out, failed or answered illegally."""
        return sum(self.fallbacks_by_role())

    def fallbacks_by_role(self) -> tuple[int, ...]:
        """:attr:`fallbacks` per role, in role order (a START error counts for its role)."""
        width = max(len(self.start_errors), len(self.steps[0].errors) if self.steps else 0, len(self.seat_fallbacks))
        counts = [1 if index < len(self.start_errors) and self.start_errors[index] else 0 for index in range(width)]
        for index, count in enumerate(self.seat_fallbacks):
            counts[index] += count
        for step in self.steps:
            for index, code in enumerate(step.errors):
                counts[index] += 1 if code else 0
        return tuple(counts)


def play_local(
    machine: StateMachine,
    players: Sequence[Player | None],
    seed: int,
    rules: MatchRules | None = None,
    listener: Transcript | None = None,
    budget: Budget | None = None,
    gdl2: bool = False,
    match_id: str = "local",
) -> Ending:
    """Play one match between player objects (role order; ``None`` or a left-out chance role: played
    at random by the loop) and return how it ended. Same rules as every match (docs/matches.md).

    Raises :class:`~ggp.errors.InputError` when the players do not fit the roles.
    """
    roles = [str(role) for role in machine.roles]
    seats = with_chance_seat(roles, [None if p is None else PlayerSeat(p, budget) for p in players], None)
    info = MatchInfo(match_id, machine, gdl2=gdl2)
    referee = Referee(machine, gdl2=gdl2)
    try:
        return _run_to_end(play(referee, seats, info, seed, rules, listener, parallel=False))
    finally:
        for role, seat in zip(roles, seats):
            if isinstance(seat, PlayerSeat) and seat.troubles.counts:
                log.warning("match %s: role %s (%s) raised; its seat answered %s", match_id, role, seat.name,
                            seat.troubles.summary())
        if listener is not None:
            listener.seat_fallbacks = tuple(seat.fallbacks if isinstance(seat, PlayerSeat) else 0 for seat in seats)


def _run_to_end(match: Coroutine[object, object, Ending]) -> Ending:
    """Run a match coroutine that never suspends (in-process seats, ``parallel=False``) without an
    event loop: no loop to create per match, and it works inside a running one (a notebook)."""
    try:
        match.send(None)
    except StopIteration as finished:
        return cast(Ending, finished.value)
    match.close()
    raise RuntimeError("an in-process match waited for I/O; only seats that never suspend can be played here")


def refusal(player: Player, machine: StateMachine, role: int, gdl2: bool = False) -> str | None:
    """Why ``player`` refuses to play role ``role`` of ``machine`` (its START failure, one line), else
    ``None``; the player is stopped either way. The same test :class:`PlayerSeat` applies at START, so a
    command can refuse a game up front instead of stopping at its first match."""
    if gdl2 and not isinstance(player, Gdl2Player):
        return f"{NO_GDL2} (this game uses sees: seat GDL-II players, e.g. dmcts or random)"
    try:
        player.start(machine, machine.roles[role], Budget())
    except (GgpError, ValueError) as exc:
        return str(exc)
    finally:
        try:
            player.stop()
        except Exception as exc:  # stopping a player that never started must not hide its refusal
            log.debug("player %s failed to stop: %s", player.name, exc)
    return None


def seating_problem(roles: Sequence[object], players: int, *, exact: bool = True) -> str | None:
    """Why ``players`` entrants cannot seat a game of ``roles`` (one line naming what would fit), else
    ``None``. The chance role ``random`` takes no entrant. ``exact``: one entrant per player role (a
    match, the arena); without, at least that many (a round robin of seatings drawn from them).

    >>> seating_problem(["x", "o", "random"], 2) is None
    True
    >>> seating_problem(["a", "b", "c"], 2)
    'the game has 3 player roles (a, b, c) but 2 players were given; give one per role'
    """
    names = [str(role) for role in roles if str(role) != CHANCE_ROLE]
    if players == len(names) or (not exact and players > len(names)):
        return None
    what = "one per role" if exact else f"at least {len(names)}"
    noun = "player role" if len(names) == 1 else "player roles"
    given = "player was" if players == 1 else "players were"
    return f"the game has {len(names)} {noun} ({', '.join(names)}) but {players} {given} given; give {what}"


def players_problem(machine: StateMachine, specs: Sequence[str], make: Callable[[str, int], Player], *,
                    seed: int = 0, gdl2: bool = False) -> str | None:
    """Why one of the player ``specs`` (made by ``make(spec, seed)``) refuses a player role of ``machine``
    (one line naming the spec and the role), else ``None``: each spec is started once per role it may
    be seated at, so a game a player cannot play is refused before any match."""
    for spec in dict.fromkeys(specs):
        for index, role in enumerate(machine.roles):
            if str(role) == CHANCE_ROLE:
                continue
            reason = refusal(make(spec, seed), machine, index, gdl2)
            if reason is not None:
                return f"player {spec} cannot play role {role}: {reason}"
    return None
