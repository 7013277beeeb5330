"""In-process transport of the match loop: a :class:`~ggp.player.Player` object as a seat.

:func:`play_local` plays one match between player objects with the same rules as the manager's
HTTP matches (:mod:`ggp.match.loop`); the arena and self-play use it. A player whose ``choose`` raises,
or whose ``start`` failed, still answers a legal move, as the player server answers one (docs/players.md,
"A legal move at any clock"): its best move so far (an :class:`~ggp.player.AnytimePlayer`'s, when
legal), else the first legal move; the warning is logged and the move counted in
:attr:`Transcript.fallbacks` (the step's error row stays empty, as over HTTP). In GDL-II,
where the seat does not know its legal moves, it answers ``nil``: ``IL null`` and the match's fallback move.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import cast

from ggp.match.loop import Answer, Ending, MatchInfo, StepInfo, View, play, with_chance_seat
from ggp.match.referee import Referee
from ggp.match.rules import MatchRules
from ggp.player import NO_GDL2, AnytimePlayer, Budget, Gdl2Player, Player
from ggp.reasoner.machine import Move, StateMachine

log = logging.getLogger(__name__)


class PlayerSeat:
    """A player object as a :class:`~ggp.match.loop.Seat`; ``budget`` is given to every decision.

    START calls ``start`` (a GDL-II game refuses a player that is no
    :class:`~ggp.player.Gdl2Player`), PLAY calls ``choose`` on the state (GDL-II: ``observe`` then
    ``choose_hidden``), STOP and ABORT call ``stop``.
    """

    def __init__(self, player: Player, budget: Budget | None = None) -> None:
        self.player = player
        self.name = player.name
        self.budget = budget or Budget()
        self._gdl2 = False
        self._failed = False
        self.fallbacks = 0
        """Moves this seat answered for its player (it raised, or its start failed)."""

    async def start(self, info: MatchInfo, role: int) -> Answer:
        self._gdl2 = info.gdl2
        if info.gdl2 and not isinstance(self.player, Gdl2Player):
            return Answer(refusal=NO_GDL2)
        assert info.machine is not None, "in-process players need the machine"
        try:
            self.player.start(info.machine, info.machine.roles[role], self.budget)
        except Exception as exc:  # a player's fault: recorded, never the match's end (as over HTTP)
            log.warning("player %s failed to start: %s", self.name, exc, exc_info=True)
            self._failed = True
            return Answer(refusal=f"{type(exc).__name__}: {exc}" if info.gdl2 else "")
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
            log.warning("player %s failed to choose (%s); answering %s", self.name, exc, move, exc_info=True)
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
    seat_fallbacks: int = 0
    """Legal moves in-process seats answered for players that raised (no error code: see the module)."""

    def started(self, errors: tuple[str, ...]) -> None:
        self.start_errors = errors

    def stepped(self, step: StepInfo) -> None:
        self.steps.append(step)

    def ended(self, ending: Ending) -> None:
        self.ending = ending

    @property
    def fallbacks(self) -> int:
        """Moves replaced by a fallback because a seat timed out, failed or answered illegally."""
        return sum(1 for step in self.steps for code in step.errors if code) + sum(
            1 for code in self.start_errors if code) + self.seat_fallbacks


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
    own = [None if p is None else PlayerSeat(p, budget) for p in players]
    seats = with_chance_seat(roles, own, None)
    info = MatchInfo(match_id, machine, gdl2=gdl2)
    referee = Referee(machine, gdl2=gdl2)
    try:
        return _run_to_end(play(referee, seats, info, seed, rules, listener, parallel=False))
    finally:
        if listener is not None:
            listener.seat_fallbacks += sum(seat.fallbacks for seat in own if seat is not None)


def _run_to_end(match: Coroutine[object, object, Ending]) -> Ending:
    """Run a match coroutine that never suspends (in-process seats, ``parallel=False``) without an
    event loop: no loop to create per match, and it works inside a running one (a notebook)."""
    try:
        match.send(None)
    except StopIteration as finished:
        return cast(Ending, finished.value)
    match.close()
    raise RuntimeError("an in-process match waited for I/O; only seats that never suspend can be played here")
