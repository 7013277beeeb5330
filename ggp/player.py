"""The Player protocol and Budget: the only things the server, the arena and evaluation know of a player.

A player is handed a :class:`~ggp.reasoner.machine.StateMachine` and its role at the start of a
match, then asked for a move in each state under a :class:`Budget`. Players in ``players/`` use only
this module, the StateMachine protocol and ``ggp.gdl.terms``, so any reasoner can drive them.

>>> budget = Budget(iterations=100)
>>> budget.exhausted(99), budget.exhausted(100)
(False, True)
>>> Budget.from_play_clock(10, margin=0.5, now=1000.0).deadline
1009.5
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

from ggp.gdl.terms import Term
from ggp.reasoner.machine import Move, Role, State, StateMachine

log = logging.getLogger(__name__)

_N = TypeVar("_N", int, float)

NO_GDL2 = "this player does not support GDL-II"
"""Why a player that is no :class:`Gdl2Player` refuses a game with ``sees`` (the START reply ``error: ...``)."""

SAFETY_MARGIN = 0.5
"""Seconds kept back from a protocol clock so the reply travels back in time (protocol.md §4)."""

MAX_CONFIGURATION_CHARS = 200
"""Longest self-configuration line kept (:func:`clean_configuration`): a log line's worth, and what the manager
stores per seat at most whatever a remote player sends."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a player may think for one decision; ``None`` means no limit of that kind.

    ``deadline`` is a :func:`time.monotonic` time, ``iterations`` counts the player's own unit of
    work (playouts for Monte Carlo players, expanded nodes for alpha-beta) and ``depth`` bounds
    search depth in joint moves. ``cancel`` lets the owner (the HTTP server) stop a search early; it
    takes no part in equality. Same seed plus an iteration or depth budget gives the same moves.
    """

    deadline: float | None = None
    iterations: int | None = None
    depth: int | None = None
    cancel: threading.Event | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"an iteration budget must be at least 1, found {self.iterations}")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"a depth budget must be at least 1, found {self.depth}")

    @classmethod
    def from_play_clock(
        cls, play_clock: float, margin: float = SAFETY_MARGIN, now: float | None = None
    ) -> Budget:
        """A deadline ``play_clock - margin`` seconds from ``now`` (default: the current monotonic time)."""
        start = time.monotonic() if now is None else now
        return cls(deadline=start + max(0.0, play_clock - margin))

    @classmethod
    def for_seconds(cls, seconds: float) -> Budget:
        """A deadline ``seconds`` from now."""
        return cls(deadline=time.monotonic() + seconds)

    @property
    def bounded(self) -> bool:
        """True when some limit (deadline, iterations, depth or a cancel event) can end a search."""
        return (
            self.deadline is not None
            or self.iterations is not None
            or self.depth is not None
            or self.cancel is not None
        )

    def time_left(self) -> float | None:
        """Seconds until the deadline (never negative), or ``None`` without a deadline."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def out_of_time(self) -> bool:
        """True once the deadline has passed or the owner has cancelled the search."""
        if self.cancel is not None and self.cancel.is_set():
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def exhausted(self, iterations_done: int) -> bool:
        """True when ``iterations_done`` reaches the iteration limit or time is up."""
        if self.iterations is not None and iterations_done >= self.iterations:
            return True
        return self.out_of_time()

    def tightest(self, other: Budget | None) -> Budget:
        """The budget that respects both ``self`` and ``other`` (earliest deadline, fewest iterations)."""
        if other is None:
            return self
        return Budget(
            deadline=_least(self.deadline, other.deadline),
            iterations=_least(self.iterations, other.iterations),
            depth=_least(self.depth, other.depth),
            cancel=self.cancel if self.cancel is not None else other.cancel,
        )

    def or_default(self, iterations: int) -> Budget:
        """This budget, with an iteration limit added when nothing else could end a search."""
        if self.bounded:
            return self
        return Budget(iterations=iterations)


def _least(left: _N | None, right: _N | None) -> _N | None:
    if left is None:
        return right
    if right is None:
        return left
    return min(left, right)


@runtime_checkable
class Player(Protocol):
    """A game player. One instance plays one match at a time; calls come from one thread at a time.

    ``start`` may use its budget for metagaming; ``choose`` returns a legal move of the player's role
    in ``state`` within the budget; ``stop`` releases what the match held (search trees, caches).
    """

    name: str

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None: ...

    def choose(self, state: State, budget: Budget) -> Move: ...

    def stop(self) -> None: ...


@runtime_checkable
class AnytimePlayer(Player, Protocol):
    """A player that can report its best move so far while ``choose`` is still running.

    The server calls :meth:`best_move` from another thread when the reply deadline arrives, so it
    must only read a value that the search thread replaces atomically.
    """

    def best_move(self) -> Move | None: ...


@runtime_checkable
class Gdl2Player(Player, Protocol):
    """A player that can play GDL-II games, where it never sees the state (protocol.md §8).

    After ``start`` the server feeds it, at every step, only what the GDL-II PLAY message carries:
    :meth:`observe` gets the turn (0 at the first PLAY), the move the manager executed for this
    player in the previous step (``None`` at turn 0) and this role's percepts after that step.
    :meth:`own_legal_moves` lists the role's legal moves now (for the server's fallback and its
    legality check) and :meth:`choose_hidden` picks one within the budget. Players without these
    methods refuse GDL-II games at START.
    """

    def observe(self, turn: int, last_move: Move | None, percepts: frozenset[Term]) -> None: ...

    def own_legal_moves(self) -> tuple[Move, ...]: ...

    def choose_hidden(self, budget: Budget) -> Move: ...


@runtime_checkable
class Configuration(Protocol):
    """Settings a player chose for its current match by itself (self-configuration, issue 41), e.g.
    :class:`~ggp.players.selfconfig.SearchSettings`: anything that describes itself in one line."""

    def describe(self) -> str: ...


def configuration_of(player: object) -> str:
    r"""What ``player`` chose for its current match, as one clean line (:func:`clean_configuration`), or ``""``.

    A player that configures itself during ``start`` keeps its choice in a ``configuration`` attribute (a
    :class:`Configuration`, None when every option was given). This one function reads it for everyone who
    reports it: the player server (its START reply's ``X-GGP-Configuration`` header, which the manager records
    for remote and built-in seats alike) and ``ggp arena`` (its ``--json``), so both report the same choice
    the same way. A ``describe`` that raises is logged and reported as ``""``: a report never breaks a match.

    >>> class Settings:
    ...     def describe(self) -> str:
    ...         return "decisive=2:\n because"
    >>> class Chooser:
    ...     configuration = Settings()
    >>> configuration_of(Chooser()), configuration_of(object())
    ('decisive=2: because', '')
    """
    settings = getattr(player, "configuration", None)
    if not isinstance(settings, Configuration):
        return ""
    try:
        return clean_configuration(settings.describe())
    except Exception:  # a report must not fail the match it reports on
        log.warning("%s: describing its configuration failed", getattr(player, "name", "player"), exc_info=True)
        return ""


def clean_configuration(text: object) -> str:
    r"""``text`` as one line of printable ASCII (whitespace runs as one space, anything else as ``?``), cut to
    :data:`MAX_CONFIGURATION_CHARS` (ending ``...`` when cut); ``""`` for anything but a string. Applied where a
    configuration is made and again where one is received, so no sender can make a record hold more.

    >>> clean_configuration("  decisive=0,\tbecause \u00e9 "), len(clean_configuration("x" * 5000)), clean_configuration(3)
    ('decisive=0, because ?', 200, '')
    """
    if not isinstance(text, str):
        return ""
    line = " ".join(text[:4 * MAX_CONFIGURATION_CHARS].split())
    line = "".join(c if " " <= c <= "~" else "?" for c in line)
    if len(line) > MAX_CONFIGURATION_CHARS:
        line = line[:MAX_CONFIGURATION_CHARS - 3] + "..."
    return line
