"""Injected delays for the "a legal move at any clock" tests (docs/players.md): machine factories whose
setup never ends in time, and players that tell their moves from the standby seat's.

Everything here is module-level, so a player server's worker process gets it by pickling.
"""

from __future__ import annotations

import threading
import time

from ggp.gdl.terms import Description
from ggp.player import Budget
from ggp.players.legal_player import LegalPlayer
from ggp.protocol.seat import standby_machine
from ggp.reasoner.machine import Move, State, StateMachine

NEVER_S = 3600.0
"""An injected setup delay no test waits for: the setup's bound kills the worker first."""


def never_built(description: Description) -> StateMachine:
    """A machine factory whose setup takes an hour (then builds the prover): a game made slow on purpose."""
    time.sleep(NEVER_S)
    return standby_machine(description)


class Gate:
    """An in-process machine factory that builds the prover only once :meth:`open` is called (or after
    ``NEVER_S``): a setup as slow as the test wants, that still ends when the test does."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    def __call__(self, description: Description) -> StateMachine:
        self.opened.wait(NEVER_S)
        return standby_machine(description)

    def open(self) -> None:
        self.opened.set()


class LastLegalPlayer(LegalPlayer):
    """Always the *last* legal move: the standby seat answers the first, so a reply shows who chose it."""

    name = "last-legal"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        return legal[-1]


class NeverReturnsPlayer(LegalPlayer):
    """Has its last legal move ready as its best, then searches forever, deaf to its budget and cancel
    event: a search that overruns every play clock."""

    name = "never-returns"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        self._best = legal[-1]
        while True:
            time.sleep(0.01)
