"""A person at the board (ggp-base's Kiosk): a seat of the one match loop whose moves come from a browser tab.

:class:`HumanSeat` is a :class:`ggp.match.loop.Seat` like :class:`~ggp.manager.runner.HttpSeat`: the
loop asks it for a move every step and it answers within the play deadline. The difference is where
the move comes from: the seat publishes the pending turn (its legal moves and deadline) and waits
for :meth:`HumanSeat.submit`, which the route ``POST /api/matches/{id}/human/{role}/move`` calls
with the move a person clicked. Only a request carrying the seat's secret may move (the tab that
created the match gets it). When the deadline passes first the seat answers ``TO`` and the loop
plays its seeded random fallback and records it, as for any late player (docs/matches.md). A forced
move (the only legal one, e.g. ``noop`` while the other side moves) is played at once.

:func:`human_view` is what the person's page shows: in a GDL-II match only the person's own moves and
percepts until the match is over, never the true state or the other roles' moves.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import Any, Final

from ggp.errors import InputError
from ggp.gdl.terms import Term, find_move
from ggp.manager import wire
from ggp.manager.records import MatchRecord
from ggp.match.loop import Answer, MatchInfo, View
from ggp.reasoner.machine import Move

log = logging.getLogger(__name__)

HUMAN_KIND: Final = "human"
"""The player kind (and seat kind) of a person playing in the browser."""
MAX_WAIT_S: Final = 10.0
"""Longest a page's long poll (:meth:`HumanSeat.wait_change`) is held open."""


class NotYourTurn(InputError):
    """A move sent while the seat is not asked for one (or for an earlier turn)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A pending request for a move: the loop's turn number, the legal moves, the deadline (by the seat's clock)."""

    number: int
    legal: tuple[Move, ...]
    deadline: float


class HumanSeat:
    """A person's seat: answers the loop's PLAY with the move :meth:`submit` receives before ``play_s`` seconds.

    ``secret`` authorises moves (compare with :meth:`allows`); ``spell`` prints a move in the rules'
    own spelling (what the page shows and sends back). Use from the manager's event loop.
    """

    def __init__(self, name: str, secret: str, play_s: float, spell: Callable[[Term], str] = str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.secret = secret
        self.play_s = play_s
        self.spell = spell
        self.clock = clock
        self.role = ""
        self.turn: Turn | None = None
        self.finished = False
        self.version = 0
        self._answer: asyncio.Future[Move] | None = None
        self._changed = asyncio.Event()

    def allows(self, secret: str) -> bool:
        """True when ``secret`` is this seat's (constant-time comparison)."""
        return hmac.compare_digest(secret.encode(), self.secret.encode())

    def _touch(self) -> None:
        """Something the page shows changed: wake every long poll."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, since: int, timeout_s: float = MAX_WAIT_S) -> None:
        """Return once :attr:`version` differs from ``since``, or after ``timeout_s`` seconds."""
        if self.version != since or self.finished:
            return
        changed = self._changed
        with suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), min(timeout_s, MAX_WAIT_S))

    async def start(self, info: MatchInfo, role: int) -> Answer:
        self.role = info.roles[role]
        self._touch()
        return Answer()

    async def play(self, view: View) -> Answer:
        if len(view.legal) == 1:  # nothing to decide: no need to make the person click
            self._touch()
            return Answer(move=view.legal[0])
        answer: asyncio.Future[Move] = asyncio.get_running_loop().create_future()
        self._answer = answer
        self.turn = Turn(view.turn, view.legal, self.clock() + self.play_s)
        self._touch()
        try:
            move = await asyncio.wait_for(answer, self.play_s)
        except TimeoutError:
            log.warning("role %s (%s, a person) did not move within %.1f s", self.role, self.name, self.play_s)
            return Answer("TO")
        finally:
            self.turn = None
            self._answer = None
            self._touch()
        return Answer(move=move)

    def submit(self, text: str, turn: int | None = None) -> Move:
        """Play the move ``text`` (KIF) for the pending turn; returns the legal move it denotes.

        Raises :class:`NotYourTurn` when no move is asked for (or ``turn`` names another turn) and
        :class:`InputError` for text that is no move or an illegal move (the message lists the legal moves).
        """
        pending, answer = self.turn, self._answer
        if pending is None or answer is None or answer.done():
            raise NotYourTurn(f"role {self.role} is not asked for a move now")
        if turn is not None and turn != pending.number:
            raise NotYourTurn(f"turn {turn} is over; role {self.role} is asked for turn {pending.number}")
        move = wire.parse_reply_move(text)
        if move is None:
            raise InputError(f"cannot read {text[:80]!r} as a move")
        found = find_move(move, pending.legal)
        if found is None:
            shown = " ".join(self.spell(m) for m in pending.legal[:20]) + (" ..." if len(pending.legal) > 20 else "")
            raise InputError(f"illegal move {text[:80]!r} for role {self.role}; legal moves: {shown}")
        answer.set_result(found)
        return found

    async def stop(self, view: View) -> None:
        self._end()

    async def abort(self) -> None:
        self._end()

    def _end(self) -> None:
        self.finished = True
        self._touch()

    def seconds_left(self) -> float | None:
        """Seconds until the pending turn's deadline, or ``None`` when no move is asked for."""
        return None if self.turn is None else max(0.0, self.turn.deadline - self.clock())


def human_view(record: MatchRecord, role: str, seat: HumanSeat | None) -> dict[str, Any]:
    """The JSON the person playing ``role`` sees: the match so far, and the pending turn if any.

    In a running GDL-II match ``state`` is ``None`` and ``moves`` and ``errors`` hold only this role's
    own entries (rows of one); otherwise they are whole rows in role order. ``percepts`` (GDL-II) are
    always this role's own, one list per step.
    Raises :class:`InputError` for a role the match does not have.
    """
    if role not in record.roles:
        raise InputError(f"match {record.match_id} has no role {role!r}; its roles are {list(record.roles)}")
    index = record.roles.index(role)
    hidden = record.gdl2 and not record.finished
    turn = seat.turn if seat is not None and not seat.finished else None
    seconds = seat.seconds_left() if seat is not None and turn is not None else None
    view: dict[str, Any] = {
        "matchId": record.match_id, "game": record.game_key, "role": role, "roles": list(record.roles),
        "players": list(record.player_names), "gdl2": record.gdl2, "playClock": record.play_clock,
        "step": record.step, "version": seat.version if seat is not None else -1,
        "state": None if hidden else record.states[-1],
        "moves": [[row[index]] if hidden else list(row) for row in record.moves],
        "errors": [[row[index]] if hidden else list(row) for row in record.errors[1:]],
        "yourTurn": turn is not None, "turn": turn.number if turn is not None else None,
        "legal": [] if turn is None or seat is None else [seat.spell(move) for move in turn.legal],
        "secondsLeft": None if seconds is None else round(seconds, 1),
        "finished": record.finished, "completed": record.is_completed,
        "goals": list(record.goal_values) if record.goal_values is not None else None,
        "endReason": record.end_reason, "abortDetail": record.abort_detail,
    }
    if record.gdl2:
        view["percepts"] = [list(row[index]) for row in record.percepts]
    return view


SEALED_STATE = ""
"""What a spectator sees of a state while a sealed match runs (an empty state: the board with no pieces)."""
SEALED_MOVE = "?"


def sealed(record: MatchRecord) -> MatchRecord:
    """``record`` as spectators see it while a person plays a GDL-II match: the seats, the step count and
    the errors, but no state, move or percept (the person could read the hidden information off the
    public match page otherwise); the whole record is public once the match has ended."""
    return replace(record, states=tuple(SEALED_STATE for _ in record.states),
                   moves=tuple(tuple(SEALED_MOVE for _ in joint) for joint in record.moves), percepts=())
