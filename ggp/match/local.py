"""In-process transport of the match loop: a :class:`~ggp.player.Player` object as a seat.

:func:`play_local` plays one match between player objects with the same rules as the manager's
HTTP matches (:mod:`ggp.match.loop`); the arena and self-play use it. A player that raises is
treated as ggp-base treats a player whose move selection throws (it answers ``nil``): ``IL null``
and the match's fallback move.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import cast

from ggp.match.loop import Answer, Ending, MatchInfo, StepInfo, View, play, with_chance_seat
from ggp.match.referee import Referee
from ggp.match.rules import MatchRules
from ggp.player import NO_GDL2, Budget, Gdl2Player, Player
from ggp.reasoner.machine import StateMachine

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
            return Answer()
        try:
            if self._gdl2:
                assert isinstance(self.player, Gdl2Player)
                self.player.observe(view.turn, view.last_move, frozenset(view.percepts))
                return Answer(move=self.player.choose_hidden(self.budget))
            return Answer(move=self.player.choose(view.state, self.budget))
        except Exception as exc:  # ggp-base: a throwing player answers nil (IL null) and the match goes on
            log.warning("player %s failed to choose: %s", self.name, exc, exc_info=True)
            return Answer()

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

    def started(self, errors: tuple[str, ...]) -> None:
        self.start_errors = errors

    def stepped(self, step: StepInfo) -> None:
        self.steps.append(step)

    def ended(self, ending: Ending) -> None:
        self.ending = ending

    @property
    def fallbacks(self) -> int:
        """Moves replaced by the fallback because a seat timed out, failed or answered illegally."""
        return sum(1 for step in self.steps for code in step.errors if code) + sum(
            1 for code in self.start_errors if code)


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
    return _run_to_end(play(referee, seats, info, seed, rules, listener, parallel=False))


def _run_to_end(match: Coroutine[object, object, Ending]) -> Ending:
    """Run a match coroutine that never suspends (in-process seats, ``parallel=False``) without an
    event loop: no loop to create per match, and it works inside a running one (a notebook)."""
    try:
        match.send(None)
    except StopIteration as finished:
        return cast(Ending, finished.value)
    match.close()
    raise RuntimeError("an in-process match waited for I/O; only seats that never suspend can be played here")
