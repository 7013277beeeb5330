"""The one match loop: START, PLAY until terminal or the step cap, then STOP or ABORT.

:func:`play` runs a match between :class:`Seat` s: a seat is a player reached through some transport
(in-process: :class:`ggp.match.local.PlayerSeat`; over HTTP: the manager's seat). Every reasoner call
goes through the :class:`~ggp.match.referee.Referee`. The rules (docs/matches.md):

- every step, every seat is asked for a move, forced or not (as ggp-base's GameServer sends PLAY to
  every player every step), in parallel (``parallel=False``: one after another, in role order);
- before the requests go out, one fallback per role is drawn from the match's seeded RNG
  (``random.Random(seed).choice`` of the role's legal moves, in role order), so the seed alone fixes
  every fallback and every chance move;
- a player that refuses the game at START (``error: <reason>``) ends the match with ``error`` and that
  reason before any move: nobody is scored on fallback moves a player never chose;
- a seat that is ``None`` (the chance role ``random`` or the manager's built-in random player) is
  never asked: its move is its fallback;
- a late reply (``TO``), an I/O failure (``CE``), an unparseable reply or a player that raised
  (``IL null``, as ggp-base treats a player's ``nil``) or an illegal move (``IL <move>``) is replaced by
  the fallback and recorded in that step's error row;
- at a terminal state the rules' goals score the match (``terminal``); after ``step_cap`` joint moves
  the match ends with ``step_cap`` as a draw (every role :data:`~ggp.match.rules.STEP_CAP_DRAW_GOAL`)
  or an abort (:attr:`MatchRules.step_cap_outcome`); a role without a legal move or a terminal state
  without goals ends it with ``error``; cancellation, a wedge or an internal error with ``aborted``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ggp.errors import GgpError, InputError, ReasonerError
from ggp.gdl.terms import Description, Term, find_move
from ggp.logtally import Tally
from ggp.match.referee import Percepts, Referee
from ggp.match.rules import CHANCE_ROLE, STEP_CAP_DRAW_GOAL, EndReason, GameBroken, MatchRules
from ggp.reasoner.machine import Move, State, StateMachine

log = logging.getLogger(__name__)

_T = TypeVar("_T")

MAX_RECORDED_MOVE_CHARS = 200
"""An illegal move goes into the record (``IL <move>``) cut to this many characters: the record of a
player that answers with huge terms stays small."""


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What START tells a seat: the match, the rules text, the clocks, the machine (in-process seats;
    ``None`` where the machine lives in a worker process) and the roles."""

    match_id: str
    machine: StateMachine | None
    description: Description | None = None
    start_clock: int = 0
    play_clock: int = 0
    gdl2: bool = False
    roles: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class View:
    """What one seat is told at a PLAY or STOP.

    ``turn`` counts PLAYs from 0; ``last_joint`` is the previous joint move (``None`` at first);
    ``last_move`` and ``percepts`` are this seat's own executed move and percepts (GDL-II; ``None``
    and empty at first); ``state`` is the current state, which only in-process GDL players read;
    ``legal`` is this seat's legal moves at a PLAY (empty at STOP), which a person's seat offers.
    """

    turn: int
    state: State
    last_joint: tuple[Move, ...] | None
    last_move: Move | None
    percepts: tuple[Term, ...]
    legal: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """A seat's reply: ``code`` ``TO``/``CE`` when none came; else ``move`` (``None``: unparseable).

    ``refusal`` is a START reply's ``error: <reason>``: the player refuses the game (its rules, a GDL-II
    game for a player without hidden-information support), and the match stops with that reason.
    """

    code: str = ""
    move: Move | None = None
    refusal: str = ""


class Seat(Protocol):
    """A player behind some transport. Methods never raise for the player's faults: they answer codes."""

    name: str

    async def start(self, info: MatchInfo, role: int) -> Answer: ...

    async def play(self, view: View) -> Answer: ...

    async def stop(self, view: View) -> None: ...

    async def abort(self) -> None: ...


@dataclass(frozen=True, slots=True)
class StepInfo:
    """One step: the state before, every role's legal moves, the joint move played, the error row,
    the state after and (GDL-II) every role's percepts."""

    before: State
    legal: tuple[tuple[Move, ...], ...]
    joint: tuple[Move, ...]
    errors: tuple[str, ...]
    after: State
    percepts: Percepts | None


@dataclass(frozen=True, slots=True)
class Ending:
    """How a match ended: goals in role order (``None`` when aborted), steps played, a detail line."""

    reason: EndReason
    goals: tuple[int, ...] | None
    steps: int
    detail: str = ""

    @property
    def completed(self) -> bool:
        return self.goals is not None


class Listener(Protocol):
    """Told what happens, in order: ``started`` (START error row), ``stepped`` per step, ``ended`` once."""

    def started(self, errors: tuple[str, ...]) -> None: ...

    def stepped(self, step: StepInfo) -> None: ...

    def ended(self, ending: Ending) -> None: ...


def check_seats(roles: Sequence[str], seats: Sequence[object | None], names: Sequence[str]) -> None:
    """Raise :class:`InputError` unless there is one seat per role and the chance role's seat is ``None``."""
    if len(seats) != len(roles):
        raise InputError(f"the game has {len(roles)} roles {list(roles)} but {len(seats)} players were given")
    for role, seat, name in zip(roles, seats, names):
        if role == CHANCE_ROLE and seat is not None:
            raise InputError(f"role 'random' is chance, played by the match itself; seat the built-in "
                             f"'random' player there, not {name!r}")


def with_chance_seat(roles: Sequence[str], seats: Sequence[_T], chance: _T) -> tuple[_T, ...]:
    """The seats with ``chance`` inserted at the ``random`` role when exactly that seat is missing.

    >>> with_chance_seat(["first", "random"], ["p"], None)
    ('p', None)
    """
    if CHANCE_ROLE in roles and len(seats) == len(roles) - 1:
        index = list(roles).index(CHANCE_ROLE)
        return (*seats[:index], chance, *seats[index:])
    return tuple(seats)


async def play(
    referee: Referee,
    seats: Sequence[Seat | None],
    info: MatchInfo,
    seed: int,
    rules: MatchRules | None = None,
    listener: Listener | None = None,
    wedge_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    parallel: bool = True,
) -> Ending:
    """Play one match to its end (see the module docstring for the rules) and return how it ended.

    ``wedge_s`` aborts a match in which one step took longer than that (by ``clock``). ``parallel``
    sends each message to all seats at once (remote seats); without it the seats are asked one after
    another and the loop itself never suspends, so in-process matches need no event loop
    (:func:`ggp.match.local.play_local`). The results are the same either way. Cancelling the
    task sends ABORT to every seat, tells the listener and re-raises. Raises :class:`InputError` when
    the seats do not fit the roles.
    """
    names = [seat.name if seat is not None else "random" for seat in seats]
    check_seats([str(role) for role in referee.roles], seats, names)
    return await _Match(referee, seats, names, info, seed, rules or MatchRules(), listener, wedge_s, clock,
                        parallel).run()


class _Refused(GameBroken):
    """A player refused the game at START (its reason in the message): the match ends with ``error``."""


class _Match:
    def __init__(self, referee: Referee, seats: Sequence[Seat | None], names: Sequence[str], info: MatchInfo,
                 seed: int, rules: MatchRules, listener: Listener | None, wedge_s: float | None,
                 clock: Callable[[], float], parallel: bool) -> None:
        self.referee = referee
        self.seats = tuple(seats)
        self.names = tuple(names)
        self.roles = tuple(str(role) for role in referee.roles)
        self.info = info
        self.rng = random.Random(seed)
        self._troubles = Tally()
        """Fallback moves by role, player and kind (TO, IL, ...): one WARNING when the match ends."""
        self._missed_start: list[str] = []
        """``role (player) code`` of each seat whose START failed, in that same WARNING."""
        self.rules = rules
        self.listener = listener
        self.wedge_s = wedge_s
        self.clock = clock
        self.parallel = parallel
        self.last_joint: tuple[Move, ...] | None = None
        self.last_percepts: Percepts | None = None
        self.ending: Ending | None = None

    async def _each(self, ask: Callable[[int, Seat | None], Awaitable[_T]]) -> list[_T]:
        """``ask`` every seat: all at once, or (``parallel=False``) one after another in role order."""
        if self.parallel:
            return list(await asyncio.gather(*(ask(i, seat) for i, seat in enumerate(self.seats))))
        return [await ask(i, seat) for i, seat in enumerate(self.seats)]

    def _where(self, index: int) -> str:
        return f"match {self.info.match_id}: role {self.roles[index]} ({self.names[index]})"

    def _view(self, index: int, legal: tuple[Move, ...] = ()) -> View:
        own_move = None if self.last_joint is None else self.last_joint[index]
        percepts = () if self.last_percepts is None else tuple(sorted(self.last_percepts[index], key=str))
        return View(self.referee.steps, self.referee.state, self.last_joint, own_move, percepts, legal)

    async def _start(self) -> None:
        async def one(index: int, seat: Seat | None) -> Answer:
            return Answer() if seat is None else await seat.start(self.info, index)

        answers = await self._each(one)
        for index, answer in enumerate(answers):
            if answer.code:  # INFO: the match's end logs it in its one WARNING
                log.info("%s: START %s", self._where(index), answer.code)
                self._missed_start.append(f"{self.roles[index]} ({self.names[index]}) {answer.code}")
        if self.listener is not None:
            self.listener.started(tuple(answer.code for answer in answers))
        log.info("match %s started: %s", self.info.match_id, ", ".join(self.names))
        for index, answer in enumerate(answers):
            if answer.refusal:
                raise _Refused(f"player {self.names[index]!r} (role {self.roles[index]}) refused the game: "
                               f"{answer.refusal}")

    async def _step(self) -> None:
        before = self.referee.state
        legal = await self.referee.legal()
        fallback = [self.rng.choice(moves) for moves in legal]

        async def one(index: int, seat: Seat | None) -> Answer | None:
            return None if seat is None else await seat.play(self._view(index, legal[index]))

        answers = await self._each(one)
        joint: list[Move] = []
        errors: list[str] = []
        for index, answer in enumerate(answers):
            move, code = fallback[index], ""
            if answer is not None:
                code = answer.code
                if not code:
                    if answer.move is None:
                        code = "IL null"
                    else:
                        found = find_move(answer.move, legal[index])  # (moveUp) and moveUp are one move
                        if found is None:
                            code = f"IL {str(answer.move)[:MAX_RECORDED_MOVE_CHARS]}"
                        else:
                            move = found
                if code:  # one INFO line per move; the match's end logs the tally as one WARNING
                    log.info("%s: %s, playing the fallback %s", self._where(index), code, move)
                    self._troubles.add(f"{self.roles[index]} ({self.names[index]}) {code.split()[0]}")
            joint.append(move)
            errors.append(code)
        self.last_percepts = await self.referee.advance(tuple(joint))
        self.last_joint = tuple(joint)
        if self.listener is not None:
            self.listener.stepped(StepInfo(before, legal, self.last_joint, tuple(errors), self.referee.state,
                                           self.last_percepts))

    async def _end(self, ending: Ending, farewell: str) -> None:
        """Record the ending, then send STOP (``farewell == "stop"``) or ABORT to every seat."""
        self.ending = ending
        log.info("match %s ended after %d steps: %s%s", self.info.match_id, ending.steps, ending.reason,
                 f" ({ending.detail})" if ending.detail else f", goals {ending.goals}")
        troubles = [f"START not answered by {', '.join(self._missed_start)}"] if self._missed_start else []
        if self._troubles.counts:
            troubles.append(f"fallback moves played for {self._troubles.summary()}")
        if troubles:
            log.warning("match %s: %s", self.info.match_id, "; ".join(troubles))
        if self.listener is not None:
            self.listener.ended(ending)

        async def one(index: int, seat: Seat | None) -> None:
            if seat is not None:
                await (seat.stop(self._view(index)) if farewell == "stop" else seat.abort())

        await self._each(one)

    async def _abort(self, reason: EndReason, detail: str) -> Ending:
        await self._end(Ending(reason, None, self.referee.steps, detail), "abort")
        assert self.ending is not None
        return self.ending

    async def _loop(self) -> Ending:
        await self._start()
        last_change = self.clock()
        while not await self.referee.is_terminal():
            if self.referee.steps >= self.rules.step_cap:
                detail = f"step cap of {self.rules.step_cap} joint moves reached"
                if self.rules.step_cap_outcome == "abort":
                    return await self._abort("step_cap", detail)
                goals = (STEP_CAP_DRAW_GOAL,) * len(self.roles)
                await self._end(Ending("step_cap", goals, self.referee.steps, detail), "abort")
                assert self.ending is not None
                return self.ending
            await self._step()
            now = self.clock()
            if self.wedge_s is not None and now - last_change > self.wedge_s:
                return await self._abort("aborted", f"wedged: a step took {now - last_change:.1f} s")
            last_change = now
        await self._end(Ending("terminal", await self.referee.goals(), self.referee.steps), "stop")
        assert self.ending is not None
        return self.ending

    async def run(self) -> Ending:
        reason: EndReason
        try:
            return await self._loop()
        except asyncio.CancelledError:
            if self.ending is None:
                await asyncio.shield(self._abort("aborted", "cancelled"))
            raise
        except _Refused as exc:  # the player's choice, not a broken game: one line, no state dump
            log.warning("match %s: %s", self.info.match_id, exc)
            reason, detail = "error", str(exc)
        except GameBroken as exc:
            log.error("match %s: game error after %d steps: %s; state: %s", self.info.match_id,
                      self.referee.steps, exc, " ".join(self.referee.state.sorted_texts()))
            reason = "error"
            detail = f"game error: {exc}"
        except GgpError as exc:
            log.error("match %s: %s; state: %s", self.info.match_id, exc, " ".join(self.referee.state.sorted_texts()))
            reason = "error" if isinstance(exc, ReasonerError) else "aborted"
            detail = f"game error: {exc}"
        except Exception as exc:  # a bug or a failing listener must not leave the match running
            log.exception("match %s: internal error", self.info.match_id)
            reason, detail = "aborted", f"internal error: {type(exc).__name__}: {exc}"
        if self.ending is not None:
            return self.ending
        return await self._abort(reason, detail)
