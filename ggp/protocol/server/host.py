"""The player host: answers the typed GGP messages of one match at a time, with a legal move at any clock.

:class:`PlayerHost` keeps the match's state (:mod:`ggp.protocol.server.match_state`), runs the player's
seat in a search thread or in a bounded worker process (:mod:`ggp.protocol.server.bounds`), follows
every joint move on the standby seat, restarts a failed seat and picks the reply at the deadline; the
package docstring (:mod:`ggp.protocol.server`) describes the match flow. It knows nothing of HTTP:
:mod:`ggp.protocol.server.app` hands it parsed messages.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ggp.errors import GgpError, ReasonerError
from ggp.player import NO_GDL2, SAFETY_MARGIN, Gdl2Player, Player, clean_configuration
from ggp.protocol.messages import (
    ABORTED,
    BUSY,
    DONE,
    NIL,
    READY,
    Abort,
    Info,
    Message,
    Play,
    PlayII,
    Preview,
    Start,
    Stop,
    StopII,
    format_move,
    info_reply,
    message_type,
    uses_sees,
)
from ggp.protocol.seat import (
    MachineFactory,
    Seat,
    StandbyPlayer,
    Update,
    one_line,
    standby_legal,
    standby_machine,
    worker_call,
    worker_ready,
)
from ggp.protocol.server.bounds import LimitHit, PlayerLimits
from ggp.protocol.server.match_state import _Match
from ggp.reasoner.isolation import IsolationError, Worker, limit_message
from ggp.reasoner.machine import Move

log = logging.getLogger(__name__)

PlayerFactory = Callable[[], Player]

REPLY_MARGIN = SAFETY_MARGIN
"""Seconds before a clock runs out at which the host answers (protocol.md §4 decision)."""

SEARCH_SLACK = 0.15
"""The player's own deadline ends this much before the reply deadline, so it usually returns by itself."""

LATE_GRACE = 0.25
"""Seconds past the reply deadline (still :data:`REPLY_MARGIN` minus this before the play clock) that the
host waits for a search's move on its way back: on a loaded machine the worker's hand-back missed the
deadline by a scheduling slice now and then (chineseCheckers3, load 7 on 2 cores: 2 moves of 15), and the
fallback, the first legal move, can throw a game."""

STANDBY_RESERVE = 0.2
"""Seconds before the reply deadline at which the host stops waiting for the player's seat to be set up
or to apply the moves, and takes the standby seat's legal moves (computed meanwhile) instead."""

STANDBY_MAX_RULES = 20_000
"""Rules (sentences) above which a match gets no standby seat: the standby runs in the server's own
process, so rules this large (35x the largest corpus game, alexChess's 579; a hostile 1 MiB START has
500,000) would hold its memory and, being pure Python, share its time with the event loop."""

MAX_RESTARTS = 3
"""How often one match's player is started again (a fresh worker, the recovery engine) before the
standby seat plays the rest of the match alone."""

_T = TypeVar("_T")


def _consume(future: asyncio.Future[Any]) -> None:
    """Done-callback for work nobody awaits any more: log its failure instead of losing it."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None and not isinstance(exc, LimitHit):  # a limit hit is logged where it happens
        log.warning("background work failed: %s", one_line(exc))


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Done-callback for work whose failure is examined (and logged) where it is awaited, if at all."""
    if not future.cancelled():
        future.exception()


def _update(message: Play | PlayII) -> Update:
    if isinstance(message, PlayII):
        return None, (message.turn, message.last_move, frozenset(message.percepts))
    return message.moves, None


class PlayerHost:
    """Plays one match at a time with players from ``player_factory`` (a new player per match).

    With ``limits`` every match's reasoning runs in a worker process under them (``player_factory``'s
    players, ``machine_factory`` and ``recovery_factory`` must then pickle: module-level functions,
    :func:`functools.partial`); without, in one search thread here. ``standby_factory`` builds the
    standby seat's machine in this process (None: no standby seat); ``recovery_factory`` the machine of a
    player started again (default: ``standby_factory``'s, else the prover). Call :meth:`aclose` at shutdown.
    """

    def __init__(
        self,
        player_factory: PlayerFactory,
        name: str,
        machine_factory: MachineFactory,
        species: str | None = None,
        limits: PlayerLimits | None = None,
        standby_factory: MachineFactory | None = standby_machine,
        recovery_factory: MachineFactory | None = None,
    ) -> None:
        self.name = name
        self.species = species or name
        self.limits = limits
        self._player_factory = player_factory
        self._machine_factory = machine_factory
        self._standby_factory = standby_factory
        self._recovery_factory = recovery_factory or standby_factory or standby_machine
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-search")
        self._standby_executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-standby")
        self._worker: Worker | None = None
        self._retired: set[Worker] = set()
        self._background: set[asyncio.Future[Any]] = set()
        self.replaced = 0
        """How many workers were killed over a limit (or with an aborted match) and replaced."""
        self._match: _Match | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def match_id(self) -> str | None:
        """The id of the match being played, if any."""
        return self._match.match_id if self._match else None

    def configuration(self, match_id: str) -> str:
        """What the player of match ``match_id`` chose for it by itself at START (``""``: nothing, the setup
        was not done by the reply, or no such match is played): the app sends it in the START reply's
        ``X-GGP-Configuration`` header, for the manager's match record."""
        match = self._current(match_id)
        return match.configuration if match is not None else ""

    @property
    def worker_pid(self) -> int | None:
        """The process id of the current worker (None without limits or before it started)."""
        return self._worker.pid if self._worker is not None else None

    async def warm_up(self) -> None:
        """Start the worker ahead of the first START (with limits; nothing without)."""
        if self.limits is not None:
            self._keep(asyncio.ensure_future(self._current_worker().call(worker_ready, (), self.limits.max_call_s)))

    async def aclose(self) -> None:
        """Cancel any search, kill the worker (with limits) and stop the search thread (at shutdown)."""
        self._closed = True
        if self._match is not None and self._match.seat is not None:
            self._match.seat.cancel.set()
        workers = [w for w in (self._worker, *self._retired) if w is not None]
        self._worker = None
        for worker in workers:
            worker.kill()
        for worker in workers:
            await worker.close()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._standby_executor.shutdown(wait=False, cancel_futures=True)

    def _keep(self, future: asyncio.Future[Any]) -> None:
        """Hold a reference to background work until it ends (the loop keeps only weak ones)."""
        self._background.add(future)
        future.add_done_callback(self._background.discard)
        future.add_done_callback(_consume)

    def _current_worker(self) -> Worker:
        if self._closed:
            raise ReasonerError("the player server is shutting down")
        if self._worker is None:
            assert self.limits is not None
            self._worker = Worker(self.limits.memory_mb)
        return self._worker

    def _replace(self, worker: Worker) -> None:
        """Retire ``worker`` (killed) and start a fresh one for what comes next."""
        worker.kill()
        if self._worker is worker:
            self._worker = None
            self.replaced += 1
            if not self._closed:
                self._keep(asyncio.ensure_future(self.warm_up()))
        self._retired.add(worker)

        async def reap() -> None:
            await worker.close()
            self._retired.discard(worker)

        self._keep(asyncio.ensure_future(reap()))

    def _submit(self, match: _Match, method: str, args: tuple[Any, ...], phase: str, seconds: float
                ) -> asyncio.Future[Any]:
        """Run ``Seat.method(*args)`` of ``match`` where its reasoning runs; the future of its result."""
        if self.limits is None:
            if method == "start":
                match.seat = Seat(match.match_id, match.role)
            assert match.seat is not None
            loop = asyncio.get_running_loop()
            return loop.run_in_executor(self._executor, getattr(match.seat, method), *args)
        if method == "start":
            args = (match.match_id, match.role, *args)
        # The worker is picked now: one replaced before this call starts fails it ("stopped").
        return asyncio.ensure_future(self._in_worker(self._current_worker(), match, method, args, phase, seconds))

    async def _in_worker(self, worker: Worker, match: _Match, method: str, args: tuple[Any, ...], phase: str,
                         seconds: float) -> Any:
        assert self.limits is not None
        level = logging.getLogger("ggp").getEffectiveLevel()
        try:
            result, records = await worker.call(worker_call, (method, args, level), seconds)
        except IsolationError as exc:
            if exc.kind == "failed":  # the seat raised: bad rules, a missing role, a bug
                raise ReasonerError(exc.detail) from None
            message = limit_message(f"match {match.match_id}", phase, exc, seconds, self.limits.memory_mb)
            current = worker is self._worker  # not one killed already (an aborted match, a restart, shutdown)
            if current:
                log.warning("%s; worker %s replaced", message, worker.pid)
            self._replace(worker)
            if current and method != "wrap_up":
                self._recover(match, message.removeprefix(f"match {match.match_id}: "), limit_hit=True)
            raise LimitHit(message) from None
        for name, record_level, text in records:
            logging.getLogger(name).log(record_level, "%s", text)
        return result

    async def _until(self, future: asyncio.Future[_T], deadline: float) -> _T:
        """Await ``future`` until the monotonic ``deadline``; raises TimeoutError and lets it run on."""
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            future.add_done_callback(_consume)
            raise

    def _current(self, match_id: str) -> _Match | None:
        match = self._match
        if match is not None and match.match_id.lower() == match_id.lower():
            return match
        return None

    async def reply(self, message: Message, received: float | None = None) -> str:
        """The reply text to a message; ``received`` is when it arrived (monotonic, default now)."""
        now = time.monotonic() if received is None else received
        if isinstance(message, Info):
            match = self._match
            busy = match is not None and match.failed is None and not match.wedged(now)
            return info_reply(self.name, self.species, busy=busy)
        if isinstance(message, Preview):
            return READY
        if isinstance(message, Start):
            return await self._start(message, now)
        if isinstance(message, Play):
            return await self._play(message, now)
        if isinstance(message, PlayII):
            return await self._play(message, now)
        if isinstance(message, Stop):
            return self._finish(message.match_id, message.moves, DONE, "stopped")
        if isinstance(message, StopII):
            return self._finish(message.match_id, None, DONE, f"stopped at turn {message.turn}")
        if isinstance(message, Abort):
            return self._finish(message.match_id, None, ABORTED, "aborted")
        raise AssertionError(f"unhandled message {message_type(message)}")  # pragma: no cover

    # --- START ---------------------------------------------------------------------------------

    async def _start(self, message: Start, now: float) -> str:
        current = self._match
        if current is not None:
            if current.match_id.lower() == message.match_id.lower():
                log.info("match %s: START repeated; answered as before", message.match_id)
                return current.start_reply or READY  # a refused START stays refused
            if not (current.failed or current.wedged(now)):
                log.info("match %s: refused START, still playing %s", message.match_id, current.match_id)
                return BUSY
            log.warning("match %s: dropped (failed or silent too long) for new match %s", current.match_id, message.match_id)
            self._drop(current, None, "dropped")
        match = _Match(
            message.match_id, message.role, message.start_clock, message.play_clock,
            self._player_factory(), now,
        )
        self._match = match
        match.spellings = dict(message.description.spellings)
        try:
            match.start_reply = await self._start_registered(match, message, now)
            return match.start_reply
        except BaseException:
            if self._match is match and match.setup is None:
                self._match = None  # a START that failed before its setup began never leaves the host busy
            raise

    async def _start_registered(self, match: _Match, message: Start, now: float) -> str:
        if uses_sees(message.description):
            match.gdl2 = True
            if not isinstance(match.player, Gdl2Player):
                match.failed = NO_GDL2
                log.warning("match %s: refused a GDL-II game (%s): %s", match.match_id,
                            getattr(match.player, "name", "player"), NO_GDL2)
                return f"error: {NO_GDL2}"
        deadline = now + max(0.0, message.start_clock - REPLY_MARGIN)
        log.info(
            "match %s: START as %s (start clock %ds, play clock %ds)",
            match.match_id, match.role, match.start_clock, match.play_clock,
        )
        match.description = message.description
        self._start_standby(match, deadline)
        bound = self.limits.setup_s(match.start_clock, match.play_clock) if self.limits else 0.0
        setup = self._submit(match, "start", (match.player, message.description, self._machine_factory,
                                              deadline - SEARCH_SLACK), "setup", bound)
        match.setup = setup
        try:
            match.configuration = clean_configuration(await self._until(setup, deadline))
        except TimeoutError:
            log.warning("match %s: setup still running at the start clock; answering ready%s", match.match_id,
                        " (the standby engine answers meanwhile)" if match.standby else "")
            return READY
        except LimitHit:
            return READY  # logged; the player starts again on the recovery engine
        except (GgpError, ValueError, RecursionError) as exc:
            reason = one_line(exc)
            if await self._standby_fails(match, deadline) is None:
                self._recover(match, f"its engine cannot play these rules ({reason})")
                return READY
            match.failed = reason
            log.warning("match %s: cannot play these rules: %s", match.match_id, match.failed)
            return f"error: {match.failed}"
        except Exception as exc:  # a bug in an engine or player must not take the server down
            match.failed = one_line(exc)
            log.exception("match %s: setup failed", match.match_id)
            return f"error: {match.failed}"
        return READY

    # --- the standby seat and restarts ----------------------------------------------------------

    def _start_standby(self, match: _Match, deadline: float) -> None:
        """Start the match's standby seat in its thread (GDL matches, when the host has a standby engine)."""
        if self._standby_factory is None or match.gdl2 or match.description is None:
            return
        if len(match.description.rules) > STANDBY_MAX_RULES:
            log.info("match %s: no standby engine for %d rules (over %d)", match.match_id,
                     len(match.description.rules), STANDBY_MAX_RULES)
            return
        seat = match.standby = Seat(match.match_id, match.role)
        player: Player = StandbyPlayer()
        started = asyncio.get_running_loop().run_in_executor(
            self._standby_executor, seat.start, player, match.description, self._standby_factory, deadline)
        started.add_done_callback(_retrieve)
        match.standby_started = started

    async def _standby_fails(self, match: _Match, deadline: float) -> str | None:
        """None when the standby seat started (waiting for it until ``deadline``), else why not (logged;
        "" when there is none or it is still starting)."""
        if match.standby_started is None:
            return ""
        try:
            await self._until(match.standby_started, deadline)
        except TimeoutError:
            return ""
        except Exception as exc:
            log.info("match %s: the standby engine cannot play these rules either: %s", match.match_id, one_line(exc))
            return one_line(exc)
        return None

    def _standby_step(self, match: _Match, update: Update) -> asyncio.Future[tuple[Move, ...]] | None:
        """Apply ``update`` to the standby seat (in its thread, in arrival order); the future of its legal moves."""
        if match.standby is None:
            return None
        future = asyncio.get_running_loop().run_in_executor(
            self._standby_executor, standby_legal, match.standby, (update,))
        future.add_done_callback(_retrieve)
        return future

    def _recover(self, match: _Match, why: str, limit_hit: bool = False) -> None:
        """Start the match's player again (a fresh player, the recovery engine, in the current worker), to
        replay the match's updates; after :data:`MAX_RESTARTS`, or when the recovery engine itself failed
        (not over a limit: ``limit_hit``, a starved or killed worker, may pass next time), give the player's
        seat up (the standby plays on alone)."""
        if self._closed or self._match is not match or match.given_up is not None or match.description is None:
            return
        if match.restarts >= MAX_RESTARTS:
            match.given_up = f"{why}; {match.restarts} restarts already"
        elif match.recovering and not limit_hit:
            match.given_up = why  # the recovery engine cannot play these rules: another try would fail alike
        if match.given_up is not None:
            log.warning("match %s: the player is given up (%s); %s", match.match_id, match.given_up,
                        "the standby engine plays its first legal move each step from now on" if match.standby
                        else "no standby engine: answering nil")
            return
        match.restarts += 1
        match.recovering = True
        match.player = self._player_factory()
        match.pending = list(match.history)
        deadline = time.monotonic() + max(0.0, match.play_clock - REPLY_MARGIN)
        bound = self.limits.setup_s(match.play_clock, match.play_clock) if self.limits else 0.0
        log.warning("match %s: %s; the player starts again on the recovery engine (restart %d, %d step(s) to replay)",
                    match.match_id, why, match.restarts, len(match.history))
        setup = self._submit(match, "start", (match.player, match.description, self._recovery_factory,
                                              deadline - SEARCH_SLACK), "setup", bound)
        setup.add_done_callback(_retrieve)
        match.setup = setup

    # --- PLAY ----------------------------------------------------------------------------------

    async def _play(self, message: Play | PlayII, now: float) -> str:
        match = self._current(message.match_id)
        if match is None:
            if self._match is None:  # not "busy": nothing is being played, this match is simply unknown
                log.info("match %s: PLAY for an unknown match", message.match_id)
                return f"error: unknown match {message.match_id}"
            log.info("match %s: PLAY refused, current match is %s", message.match_id, self.match_id)
            return BUSY
        match.last_seen = now
        deadline = now + max(0.05, match.play_clock - REPLY_MARGIN)
        async with self._lock:
            try:
                return await self._play_locked(match, message, deadline)
            except TimeoutError:
                match.trouble("no move ready by the deadline", NIL)
                return NIL
            except LimitHit:
                return NIL  # logged where the limit was hit
            except Exception:  # one bad match must not take the server down
                log.exception("match %s: PLAY failed", match.match_id)
                return NIL

    async def _play_locked(self, match: _Match, message: Play | PlayII, deadline: float) -> str:
        hidden = isinstance(message, PlayII) or match.gdl2
        if hidden and not isinstance(match.player, Gdl2Player):
            log.warning("match %s: a GDL-II PLAY for a player without GDL-II support; answering nil", match.match_id)
            return NIL
        if match.failed is not None:
            match.trouble(f"cannot play ({match.failed})", NIL)
            return NIL
        update = _update(message)
        match.pending.append(update)
        match.history.append(update)
        standby = None if hidden else self._standby_step(match, update)
        legal, move, why = await self._player_move(match, hidden, deadline)
        if move is None:
            if not legal and standby is not None:
                try:
                    legal = await self._until(standby, deadline)
                except Exception as exc:  # a standby that failed or is too slow: nothing to answer
                    why = f"{why}; the standby engine has no move ({one_line(exc)})"
            if not legal:
                match.trouble(f"{why or 'the player was given up'}; no legal move known", NIL)
                return NIL
            move = legal[0]
        if why is not None:
            match.trouble(why, move)
        log.debug("match %s: plays %s", match.match_id, move)
        return format_move(move, match.spellings)

    async def _player_move(self, match: _Match, hidden: bool, deadline: float
                           ) -> tuple[tuple[Move, ...] | None, Move | None, str | None]:
        """The player's seat's legal moves (None: not known) and its move (None: none by the deadline, with
        why); ``(legal, move, why)``, where ``why`` says what went wrong even when a move came."""
        if match.given_up is not None:
            return None, None, None  # said once, when it was given up: the standby's moves are expected now
        handoff = deadline - (STANDBY_RESERVE if match.standby is not None else 0.0)
        setup = match.setup
        if setup is None:
            return None, None, "the player has no setup"
        if not setup.done():
            with contextlib.suppress(Exception):
                await self._until(setup, handoff)
        if match.setup is not setup:
            return None, None, "the player is starting again"
        if not setup.done():
            return None, None, "the player's setup is still running"
        error = setup.exception()
        if error is not None:
            if not isinstance(error, LimitHit):  # a limit hit started the player again already
                self._recover(match, f"its setup failed ({one_line(error)})")
            return None, None, f"the player's setup failed ({one_line(error)})"
        bound = self.limits.play_s(match.play_clock) if self.limits else 0.0
        updates, match.pending = match.pending, []
        try:
            legal: tuple[Move, ...] = await self._until(
                self._submit(match, "catch_up", (updates, hidden), "applying the moves", bound), handoff)
        except TimeoutError:
            return None, None, "applying the moves overran"
        except LimitHit:
            return None, None, "applying the moves was stopped"
        except Exception as exc:
            log.warning("match %s: applying the moves failed", match.match_id, exc_info=True)
            return None, None, f"applying the moves failed ({one_line(exc)})"
        if not legal:
            return legal, None, f"{match.role} has no legal move in the player's state"
        search = self._submit(match, "choose", (hidden, deadline - SEARCH_SLACK, deadline), "the search", bound)
        try:
            move, why = await self._until(search, deadline + LATE_GRACE)
        except TimeoutError:
            return legal, None, "no move from the search by the play clock"
        except LimitHit:
            return legal, None, "the search was stopped"
        except Exception as exc:
            return legal, None, f"the player failed ({one_line(exc)})"
        if move is not None and move not in legal:
            return legal, None, f"the player chose illegal {move}"
        return legal, move, why

    # --- STOP and ABORT ------------------------------------------------------------------------

    def _finish(self, match_id: str, moves: tuple[Move, ...] | None, answer: str, how: str) -> str:
        match = self._current(match_id)
        if match is None:
            if self._match is not None:
                log.info("match %s: %s refused, current match is %s", match_id, how, self._match.match_id)
                return BUSY
            return answer
        self._drop(match, moves, how)
        return answer

    def _drop(self, match: _Match, moves: tuple[Move, ...] | None, how: str) -> None:
        """Forget the match now; apply the last moves (for the log) and stop the player in the background.

        In a worker that is still busy (a setup, a search past its deadline) nothing is waited for: the
        worker is killed and replaced, so the next match starts at once.
        """
        if self._match is match:
            self._match = None
        if match.troubles.counts:
            log.warning("match %s: %s not the player's own choice (%s)", match.match_id, match.troubles.summary(), how)
        if match.seat is not None:
            match.seat.cancel.set()
        if match.setup is None or (self.limits is not None and match.failed is not None):
            log.info("match %s: %s", match.match_id, how)  # nothing of it left to clean up
            return
        if self.limits is not None:
            worker = self._worker
            if worker is not None and worker.busy:
                log.info("match %s: %s; its worker %s was busy and is replaced", match.match_id, how, worker.pid)
                match.failed = how
                self._replace(worker)
                return
        bound = self.limits.play_s(match.play_clock) if self.limits else 0.0
        self._keep(self._submit(match, "wrap_up", (moves, how, match.failed is not None), "the clean-up", bound))
