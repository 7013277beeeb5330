"""One match's reasoning on the player side: the state machine, the player, the state, one call at a time.

The player server (:mod:`ggp.protocol.server`) keeps only what the messages say (match id, clocks,
the updates not applied yet); a :class:`Seat` does everything that needs the rules: it builds the
machine and starts the player (START), applies joint moves or percepts and lists the role's legal
moves (PLAY), runs the search until the reply deadline and hands back the best move so far when it
overruns (PLAY), and logs the outcome and stops the player (STOP, ABORT). The server runs a seat
either in its search thread or, under limits, in a worker process (:class:`~ggp.reasoner.isolation.Worker`);
the functions at the end that start with ``worker_`` are the worker side. This module imports no
aiohttp, so a worker starts quickly.

Every method waits first for a search that overran its deadline to end (it was cancelled when the
deadline came), so players and machines are never used from two threads at once.

The same class is the server's *standby* seat (:func:`standby_machine`, :class:`StandbyPlayer`): a
second seat of every GDL match, in the server process itself, on the top-down prover, which builds in
milliseconds. It follows every joint move, so from START on the match always has a legal move to give
while the player's own seat builds its engines, starts again in a fresh worker, or has failed; a seat
that starts again replays the match's joint moves from the initial state (its
:meth:`Seat.catch_up` takes them all at once).

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.players.legal_player import LegalPlayer
>>> from ggp.reasoner.per_state import PerStateMachine
>>> game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
>>> seat = Seat("m1", game.roles[0])
>>> seat.start(LegalPlayer(), game, PerStateMachine, time.monotonic() + 5)  # no self-configuration to report
''
>>> [str(move) for move in seat.catch_up([(None, None)], hidden=False)]
['go']
>>> move, why = seat.choose(False, time.monotonic() + 1, time.monotonic() + 1.1)
>>> str(move), why
('go', None)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ggp.errors import GgpError, IllegalMoveError, ProtocolError
from ggp.gdl.terms import Description, Term, find_move
from ggp.player import AnytimePlayer, Budget, Gdl2Player, Player, configuration_of
from ggp.reasoner.machine import Move, Role, State, StateMachine

log = logging.getLogger(__name__)

MachineFactory = Callable[[Description], StateMachine]

RESYNC_DEPTH = 3
"""How many earlier states are tried when a joint move is not legal in the current one."""

HANDBACK = 0.1
"""Seconds before the reply deadline at which :meth:`Seat.choose` stops waiting for the search and
answers with the best move so far: the answer still has to reach the server."""

Update = tuple[tuple[Move, ...] | None, tuple[int, Move | None, frozenset[Term]] | None]
"""One PLAY's news: ``(joint move or None for NIL, None)`` in GDL, ``(None, (turn, last move,
percepts))`` in GDL-II."""


def one_line(exc: BaseException) -> str:
    """An exception as one line (its type name when it has no message)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


class Seat:
    """The reasoning of one match for one role; use one method at a time (from any one thread)."""

    def __init__(self, match_id: str, role: Role) -> None:
        self.match_id = match_id
        self.role = role
        self.player: Player | None = None
        self.machine: StateMachine | None = None
        self.state: State | None = None
        self.history: list[State] = []
        self.steps = 0
        self.as_written = False
        """The rules hold names as written (read case-sensitively): PLAY's lower-cased moves are matched to
        the legal moves case-insensitively."""
        self.cancel = threading.Event()
        self._search: threading.Thread | None = None

    def _settle(self) -> None:
        """Wait for a search that overran its deadline (already cancelled) to return."""
        if self._search is not None:
            self._search.join()
            self._search = None

    def start(self, player: Player, description: Description, machine_factory: MachineFactory,
              deadline: float) -> str:
        """Build the machine, check the role, start the player with ``deadline`` (monotonic); returns what
        the player chose for this match by itself (:func:`~ggp.player.configuration_of`, ``""``: nothing), which
        the server reports in its START reply's ``X-GGP-Configuration`` header."""
        machine = machine_factory(description)
        if self.role not in machine.roles:
            roles = " ".join(str(role) for role in machine.roles)
            raise ProtocolError(f"role {str(self.role)!r} is not a role of this game (roles: {roles})")
        state = machine.initial_state()
        self.player, self.machine, self.state, self.history = player, machine, state, [state]
        self.as_written = description.case_sensitive
        player.start(machine, self.role, Budget(deadline=deadline, cancel=self.cancel))
        return configuration_of(player)

    def catch_up(self, updates: Sequence[Update], hidden: bool) -> tuple[Move, ...]:
        """Apply ``updates`` in arrival order; the role's legal moves after them (empty: none, or terminal)."""
        self._settle()
        for moves, percepts in updates:
            if percepts is not None:
                self._observe(*percepts)
            elif hidden:
                log.warning("match %s: a GDL PLAY in a GDL-II match; its joint move is ignored", self.match_id)
            else:
                self._advance(moves)
        if hidden:
            assert isinstance(self.player, Gdl2Player)
            return self.player.own_legal_moves()
        machine, state = self.machine, self.state
        assert machine is not None and state is not None
        return () if machine.is_terminal(state) else machine.legal_moves(state, self.role)

    def _observe(self, turn: int, last_move: Move | None, percepts: frozenset[Term]) -> None:
        assert isinstance(self.player, Gdl2Player)
        self.player.observe(turn, last_move, percepts)
        self.steps = turn

    def _advance(self, moves: tuple[Move, ...] | None) -> None:
        machine, state = self.machine, self.state
        assert machine is not None and state is not None
        if moves is None:
            if self.steps:
                log.warning("match %s: PLAY NIL after %d steps; back to the initial state", self.match_id, self.steps)
                state = self.history[0]
                self.history, self.steps = [state], 0
        else:
            state = self._apply(machine, moves)
        self.state = state

    def _apply(self, machine: StateMachine, moves: tuple[Move, ...]) -> State:
        shown = " ".join(map(str, moves))
        if len(moves) != len(machine.roles):
            log.warning(
                "match %s: joint move (%s) has %d moves for %d roles; keeping the current state",
                self.match_id, shown, len(moves), len(machine.roles),
            )
            return self.history[-1]
        candidates = list(reversed(self.history[-(RESYNC_DEPTH + 1):]))
        for back, state in enumerate(candidates):
            try:
                after = machine.next_state(state, self._as_legal(machine, state, moves))
            except (IllegalMoveError, GgpError, ValueError) as exc:
                if back == 0:
                    log.warning("match %s: joint move (%s) is not legal here (%s); resynchronising",
                                self.match_id, shown, one_line(exc))
                continue
            if back:
                log.warning("match %s: resynchronised %d step(s) back", self.match_id, back)
                del self.history[len(self.history) - back:]
            self.history.append(after)
            self.steps += 1
            return after
        log.error("match %s: cannot resynchronise with (%s); playing on from the last known state", self.match_id, shown)
        return self.history[-1]

    def _as_legal(self, machine: StateMachine, state: State, moves: tuple[Move, ...]) -> tuple[Move, ...]:
        """``moves`` as the machine's own terms: as they are, unless the rules hold names as written."""
        if not self.as_written:
            return moves
        return tuple(find_move(move, machine.legal_moves(state, role)) or move
                     for role, move in zip(machine.roles, moves, strict=True))

    def choose(self, hidden: bool, budget_deadline: float, reply_deadline: float) -> tuple[Move | None, str | None]:
        """Search for a move until ``budget_deadline``; by ``reply_deadline - HANDBACK`` at the latest,
        ``(move, None)``, or ``(best move so far or None, why)`` when the search overran or failed.

        An overrunning search is cancelled and left to end in its thread; the next method waits for it.
        """
        self._settle()
        player = self.player
        assert player is not None
        self.cancel = cancel = threading.Event()
        budget = Budget(deadline=budget_deadline, cancel=cancel)
        outcome: list[Move | BaseException] = []

        def search() -> None:
            try:
                if hidden:
                    assert isinstance(player, Gdl2Player)
                    outcome.append(player.choose_hidden(budget))
                else:
                    assert self.state is not None
                    outcome.append(player.choose(self.state, budget))
            except BaseException as exc:  # reported to the server, which answers a legal move instead
                outcome.append(exc)

        thread = threading.Thread(target=search, name=f"ggp-search-{self.match_id}", daemon=True)
        thread.start()
        thread.join(max(0.0, reply_deadline - HANDBACK - time.monotonic()))
        if thread.is_alive():
            cancel.set()
            self._search = thread
            best = player.best_move() if isinstance(player, AnytimePlayer) else None
            return best, "search overran the play clock"
        result = outcome[0]
        if isinstance(result, BaseException):
            return None, f"the player failed ({one_line(result)})"
        return result, None

    def wrap_up(self, moves: tuple[Move, ...] | None, how: str, failed: bool) -> None:
        """Apply the last joint move (to log the goals) and stop the player."""
        self.cancel.set()
        self._settle()
        try:
            machine = self.machine
            if moves is not None and machine is not None and self.state is not None and not failed:
                final = self._apply(machine, moves)
                if machine.is_terminal(final):
                    log.info("match %s: %s, goals %s", self.match_id, how, machine.goals(final))
                    return
            log.info("match %s: %s", self.match_id, how)
        finally:
            if self.player is not None:
                self.player.stop()


class StandbyPlayer:
    """The player of a standby seat: it never searches (the server answers the first legal move)."""

    name = "standby"

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        """Nothing to prepare."""

    def choose(self, state: State, budget: Budget) -> Move:
        """The first legal move of the role (the server asks the seat's legal moves instead)."""
        raise GgpError("the standby player does not search")

    def stop(self) -> None:
        """Nothing to release."""


STANDBY_QUERY_SECONDS = 10.0
"""Time limit of one query of the standby engine (it runs in the player server's own process)."""

STANDBY_QUERY_ATOMS = 500_000
"""Answers one query of the standby engine may table: bounds its memory in the player server's process
(a game whose legal moves are a 5-ary join over 100 objects fails with one line instead)."""


def standby_machine(description: Description) -> StateMachine:
    """The standby engine: the rules checked by the GDL validator (raises
    :class:`~ggp.errors.GdlValidationError`), then the top-down prover, which grounds nothing, builds in
    milliseconds (checkers: 6 ms) and plays every corpus game, about 10x slower a step than the per-state
    engine: enough to list legal moves at once, not to search well. Each query is bounded by
    :data:`STANDBY_QUERY_SECONDS` and :data:`STANDBY_QUERY_ATOMS`.

    >>> from ggp.gdl.parser import parse_kif
    >>> game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
    >>> type(standby_machine(game)).__name__
    'ProverMachine'
    """
    from ggp.gdl.validator import check_or_raise
    from ggp.reasoner.machine import GroundingLimits
    from ggp.reasoner.prover import ProverMachine

    check_or_raise(description)
    return ProverMachine(description, GroundingLimits(seconds=STANDBY_QUERY_SECONDS, max_atoms=STANDBY_QUERY_ATOMS))


def standby_legal(seat: Seat, updates: Sequence[Update]) -> tuple[Move, ...]:
    """Apply ``updates`` to a started standby seat; its role's legal moves after them (GgpError when
    the seat did not start)."""
    if seat.machine is None:
        raise GgpError("the standby engine did not start")
    return seat.catch_up(updates, hidden=False)


# --- in a worker process ------------------------------------------------------------------------

_SEATS: dict[str, Seat] = {}
"""The worker's seat (one match at a time), under the key ``"seat"``."""

_RECORDS: list[tuple[str, int, str]] = []
"""Log records made in the worker since the last call (also by background threads): sent back with
the next answer, so the server's log has them."""


class _Collect(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if len(_RECORDS) < 1000:  # a chatty engine cannot fill the worker's memory
            _RECORDS.append((record.name, record.levelno, self.format(record)))


def _collect_logs(level: int) -> None:
    root = logging.getLogger()
    if not any(isinstance(handler, _Collect) for handler in root.handlers):
        root.addHandler(_Collect())
    root.setLevel(level)


def worker_call(method: str, args: tuple[Any, ...], level: int) -> tuple[Any, list[tuple[str, int, str]]]:
    """Worker side: ``Seat.method(*args)`` (``start`` makes a new seat from ``args[:2]``); the result and
    the log records made since the last call. Raises what the seat raises."""
    _collect_logs(level)
    try:
        if method == "start":
            match_id, role, *rest = args
            seat = _SEATS["seat"] = Seat(match_id, role)
            result: Any = seat.start(*rest)
        else:
            seat = _SEATS.get("seat")  # type: ignore[assignment]
            if seat is None:
                raise GgpError("this worker has no match")
            result = getattr(seat, method)(*args)
            if method == "wrap_up":
                del _SEATS["seat"]  # the match is over: its machine's memory is free before the next START
        return result, _take_records()
    except BaseException:
        _RECORDS.clear()
        raise


def _take_records() -> list[tuple[str, int, str]]:
    records = list(_RECORDS)
    _RECORDS.clear()
    return records


def worker_ready() -> None:
    """Worker side: nothing (starting a worker ahead of the next START imports this module)."""
