"""What the player server knows about the match it is playing: clocks, seats, history and troubles.

One record per match, kept by :class:`~ggp.protocol.server.host.PlayerHost` from START to STOP or ABORT;
it is plain data, apart from the INFO line and the tally of each move answered without the player's choice.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from ggp.gdl.terms import Description
from ggp.logtally import Tally
from ggp.player import Player
from ggp.protocol.seat import Seat, Update
from ggp.reasoner.machine import Move

log = logging.getLogger(__name__)


@dataclass(slots=True, eq=False)
class _Match:
    """What the host knows about the match it is playing."""

    match_id: str
    role: Move
    start_clock: int
    play_clock: int
    player: Player
    last_seen: float
    seat: Seat | None = None
    """The match's reasoning, when it runs in this process (no limits)."""
    setup: asyncio.Future[Any] | None = None
    """The player's seat's setup (the last one, when it was started again)."""
    failed: str | None = None
    """Why the match was refused at START (every PLAY of it is answered ``nil``)."""
    description: Description | None = None
    history: list[Update] = field(default_factory=list)
    """Every update since START, oldest first: a player started again replays them all."""
    standby: Seat | None = None
    """The standby seat (GDL matches, when the host has a standby engine)."""
    standby_started: asyncio.Future[Any] | None = None
    restarts: int = 0
    recovering: bool = False
    """True once the player's seat runs on the recovery engine."""
    given_up: str | None = None
    """Why the player's seat is no longer asked (the standby seat plays alone)."""
    start_reply: str | None = None
    """What START was answered (``ready`` or ``error: ...``): a repeated START gets the same answer."""
    configuration: str = ""
    """What the player chose for this match by itself, as its seat's START returned it (``""``: nothing, or
    the setup was not done by the START reply): the reply's ``X-GGP-Configuration`` header."""
    gdl2: bool = False
    spellings: dict[str, str] = field(default_factory=dict)
    """The rules' own spelling of each name written with capitals: replies use it (ggp-base compares
    moves case-sensitively)."""
    pending: list[Update] = field(default_factory=list)
    """Updates of PLAY messages (joint moves, percepts) not sent to the seat yet, oldest first: a PLAY that
    arrives while the setup still runs gets no move, but its update is kept and applied in order."""
    troubles: Tally = field(default_factory=Tally)
    """Moves answered without the player's own choice, by reason: logged once, when the match ends."""

    def trouble(self, why: str, answer: object) -> None:
        """A move answered without the player's choice: one INFO line now, counted for the match's summary."""
        self.troubles.add(why)
        log.info("match %s: %s; answering %s", self.match_id, why, answer)

    def wedged(self, now: float) -> bool:
        """True when nothing arrived for ``startclock + 10 * playclock`` seconds."""
        return now - self.last_seen > self.start_clock + 10 * self.play_clock
