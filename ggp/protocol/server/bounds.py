"""Bounds on a player server's reasoning when it runs in a worker process, and the error a call over them raises.

``ggp player`` wires a :class:`PlayerLimits` (its ``--max-memory-mb`` and ``--max-call-s`` options); the
:class:`~ggp.protocol.server.host.PlayerHost` turns the match's clocks into each call's time bound with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ggp.errors import ReasonerError


@dataclass(frozen=True, slots=True)
class PlayerLimits:
    """Bounds on a player server's reasoning, which then runs in a worker process; seconds and megabytes.

    ``memory_mb``: the worker's address space. A setup (building the machine, ``player.start``) may
    run through the start clock and ``setup_play_clocks`` play clocks (the standby seat answers PLAYs
    meanwhile; a player started again mid-match gets a play clock instead of the start clock);
    each reasoner call of a PLAY (applying the joint move, the search) through ``play_clocks`` play
    clocks, and at least ``min_call_s`` (the reply goes at the play clock either way); no call beyond
    ``max_call_s``, whatever the clocks.

    >>> limits = PlayerLimits()
    >>> limits.setup_s(start_clock=10, play_clock=5), limits.play_s(5), limits.play_s(0.5)
    (25.0, 10.0, 2.0)
    >>> PlayerLimits(max_call_s=60).setup_s(3600, 10)
    60.0
    """

    memory_mb: int = 2048
    max_call_s: float = 300.0
    setup_play_clocks: int = 3
    play_clocks: int = 2
    min_call_s: float = 2.0

    def setup_s(self, start_clock: float, play_clock: float) -> float:
        """The time bound of a match's setup."""
        return float(min(self.max_call_s, max(self.min_call_s, start_clock + self.setup_play_clocks * play_clock)))

    def play_s(self, play_clock: float) -> float:
        """The time bound of each reasoner call of a PLAY (and of the clean-up after STOP or ABORT)."""
        return float(min(self.max_call_s, max(self.min_call_s, self.play_clocks * play_clock)))


class LimitHit(ReasonerError):
    """A call of a match's reasoning went over a :class:`PlayerLimits` bound (its worker was replaced)."""
