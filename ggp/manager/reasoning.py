"""The manager's reasoning, off the event loop: every game lives in a worker process under limits.

Each stored game version (keyed by its KIF text) gets one :class:`~ggp.reasoner.isolation.Worker`: a
child process whose address space is limited to ``memory_mb`` and which holds the game's state
machine. An upload is translated, parsed, validated, grounded and probed (initial state, every role's
legal moves, terminal) in such a worker within ``load_s``, so a game that cannot be played within
the limits is refused with the reason and never reaches a match. A match asks its worker through an
:class:`IsolatedReferee`: one call per step, which returns the next state together with its
:class:`Verdict` (terminal or not, then its legal moves or its goals), so the questions the match asks
next about that state are answered without another round trip (each costs the manager a pipe write
that wakes the worker, and a read; the initial state's verdict comes with the load). Each call has
``call_s``. A call that runs out of time or memory kills the worker (the next call of any match starts
a fresh one) and aborts its match with the reason, while every other match, and the web server, keep
running on the free event loop.

Workers of games no match is using are kept for reuse, least recently used first out, while the
workers' resident memory together stays under ``cache_mb`` (bytes, not a count: one game can take
1,000 times the memory of another).

The functions below that start with ``_worker_`` run inside the worker process.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import pickle
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ggp.errors import InputError, ReasonerError
from ggp.gdl.parser import parse_kif
from ggp.gdl.terms import Description
from ggp.match.referee import Percepts, Referee
from ggp.protocol.messages import uses_sees
from ggp.reasoner.isolation import IsolationError, Worker, failure_text, limit_message
from ggp.reasoner.machine import Move, PerceptMachine, Role, State, StateMachine

log = logging.getLogger(__name__)

_T = TypeVar("_T")

MachineFactory = Callable[[Description], StateMachine]
GameTranslator = Callable[[str, str], str]
Legal = tuple[tuple[Move, ...], ...]
"""Every role's legal moves, in role order."""


@dataclass(frozen=True, slots=True)
class ReasonerLimits:
    """Bounds on the manager's reasoning; seconds and megabytes.

    ``call_s``: one reasoner call of a match: a step's (the next state, whether it is terminal, and
    its legal moves or goals), or one question the step's call did not answer;
    ``load_s``: translating, parsing, validating, grounding and probing one game;
    ``memory_mb``: the address space of each worker process;
    ``cache_mb``: resident memory of the workers kept for games no match is using.
    """

    call_s: float = 10.0
    load_s: float = 60.0
    memory_mb: int = 2048
    cache_mb: int = 512


class GameRejected(InputError):
    """A game the manager refuses, with every problem found (``problems``)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"invalid game: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        self.problems = problems


def game_problems(description: Description) -> list[str]:
    """Why the manager cannot run a game: the validator's errors, one line each.

    GDL-II games (``sees``, a ``random`` role) are accepted: the runner plays them in GDL-II mode.
    """
    from ggp.gdl.validator import validate

    return [str(f) for f in validate(description) if f.severity == "error"]


@dataclass(frozen=True, slots=True)
class Failed:
    """A question a worker could not answer; ``detail`` is the error text a call asking it alone fails with."""

    detail: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a match asks next about a state, answered in the worker call that made the state.

    ``terminal``, then ``legal`` (every role's moves, for a state that is not terminal) or ``goals``
    (for a terminal one); ``None`` for the one not computed. A question whose computation raised holds
    :class:`Failed`: the referee raises its error only when the match asks it, as a call of its own did.
    """

    terminal: bool | Failed
    legal: Legal | Failed | None = None
    goals: tuple[int, ...] | Failed | None = None


@dataclass(frozen=True, slots=True)
class LoadedGame:
    """What the manager keeps of a game its worker has loaded and probed.

    The description comes pickled: unpickling a 1 MB game's rules takes seconds, which must not
    happen on the event loop during an upload (:meth:`Reasoners.description` does it in a thread,
    once, when a match needs it).
    """

    kif: str
    description_pickle: bytes
    roles: tuple[Role, ...]
    initial: State
    gdl2: bool
    verdict: Verdict
    """The initial state's :class:`Verdict`, probed at the load."""


@dataclass(frozen=True, slots=True)
class _Rejected:
    problems: list[str]


# --- inside the worker process -----------------------------------------------------------------

_LOADED: dict[str, Any] = {}
"""The worker's one game: its machine (a worker serves one game version)."""


def _worker_load(text: str, file: str, factory: MachineFactory, translator: GameTranslator | None,
                 translated_file: str) -> LoadedGame | _Rejected:
    """Translate (when a translator is given), parse, validate, build and probe a game; keep its machine."""
    kif = translator(text, file) if translator is not None else text
    description = parse_kif(kif, translated_file)
    problems = game_problems(description)
    if problems:
        return _Rejected(problems)
    machine = factory(description)
    gdl2 = uses_sees(description)
    if gdl2 and not isinstance(machine, PerceptMachine):
        raise InputError("this game uses 'sees' (GDL-II) but the reasoner cannot compute percepts")
    initial = machine.initial_state()
    _LOADED["machine"] = machine
    if _worker_terminal(initial):
        verdict = Verdict(True, goals=_answer(_worker_goals, initial))
    else:
        legal = _worker_legal(initial)
        for role, moves in zip(machine.roles, legal):
            if not moves:
                raise InputError(f"role {str(role)!r} has no legal move in the initial state")
        verdict = Verdict(False, legal=legal)
    return LoadedGame(kif, pickle.dumps(description), tuple(machine.roles), initial, gdl2, verdict)


def _machine() -> StateMachine:
    machine = _LOADED.get("machine")
    if machine is None:
        raise ReasonerError("this worker has no game loaded")
    return machine  # type: ignore[no-any-return]


def _worker_terminal(state: State) -> bool:
    return bool(_machine().is_terminal(state))


def _worker_legal(state: State) -> Legal:
    machine = _machine()
    return tuple(machine.legal_moves(state, role) for role in machine.roles)


def _worker_next(state: State, joint: tuple[Move, ...], gdl2: bool) -> tuple[State, Percepts | None]:
    machine = _machine()
    if gdl2:
        assert isinstance(machine, PerceptMachine)
        after, percepts = machine.next_state_and_percepts(state, joint)
        return after, tuple(percepts)
    return machine.next_state(state, joint), None


def _worker_goals(state: State) -> tuple[int, ...]:
    return tuple(_machine().goals(state))


def _answer(question: Callable[[State], Any], state: State) -> Any:
    """``question(state)``, or :class:`Failed` with the error text a call of its own would have failed
    with; running out of memory still fails the whole call (and stops the worker)."""
    try:
        return question(state)
    except Exception as exc:
        detail = failure_text(exc)
        if detail is None:
            raise
        return Failed(detail)


def _worker_verdict(state: State) -> Verdict:
    terminal = _answer(_worker_terminal, state)
    if terminal is True:
        return Verdict(True, goals=_answer(_worker_goals, state))
    if terminal is False:
        return Verdict(False, legal=_answer(_worker_legal, state))
    return Verdict(terminal)


def _worker_step(state: State, joint: tuple[Move, ...], gdl2: bool) -> tuple[State, Percepts | None, Verdict]:
    """One step of a match in one call: the next state (and percepts) with the next state's verdict."""
    after, percepts = _worker_next(state, joint, gdl2)
    return after, percepts, _worker_verdict(after)


def _worker_sleep(seconds: float) -> None:
    """Tests: a call that takes ``seconds``."""
    time.sleep(seconds)


# --- in the manager ------------------------------------------------------------------------------


@dataclass(eq=False)
class GameSlot:
    """One game version and the worker that holds its machine; ``users`` counts the matches on it."""

    key: str
    file: str
    worker: Worker
    game: LoadedGame | None = None
    users: int = 0
    memory_bytes: int = 0
    replaced: int = 0
    replacing: asyncio.Lock = field(default_factory=asyncio.Lock)
    description: Description | None = None
    unpickling: asyncio.Lock = field(default_factory=asyncio.Lock)


class Reasoners:
    """The worker processes of the manager's games, bounded in time, memory and number kept.

    Use from one event loop; call :meth:`close` at shutdown (it kills every worker).
    """

    def __init__(self, factory: MachineFactory, limits: ReasonerLimits | None = None) -> None:
        self.factory = factory
        self.limits = limits or ReasonerLimits()
        self._slots: OrderedDict[str, GameSlot] = OrderedDict()
        self._workers: weakref.WeakSet[Worker] = weakref.WeakSet()  # loading ones too: close() kills all
        self._loading: dict[str, asyncio.Lock] = {}
        self._closed = False

    def _new_worker(self) -> Worker:
        if self._closed:
            raise ReasonerError("the manager is shutting down")
        worker = Worker(self.limits.memory_mb)
        self._workers.add(worker)
        return worker

    async def load(self, text: str, file: str, translator: GameTranslator | None = None,
                   translated_file: str | None = None) -> GameSlot:
        """The slot of a game (loading and probing it in a new worker unless cached).

        Raises :class:`GameRejected` (validator errors), :class:`InputError` (a syntax error, a
        translation error, or a game that does not fit the limits: the message says which).
        """
        key = _key(text, file, translator is not None)
        lock = self._loading.setdefault(key, asyncio.Lock())
        async with lock:  # one load per game at a time
            slot = await self._load(key, text, file, translator, translated_file)
        if not lock.locked():
            self._loading.pop(key, None)
        return slot

    async def _load(self, key: str, text: str, file: str, translator: GameTranslator | None,
                    translated_file: str | None) -> GameSlot:
        slot = self._slots.get(key)
        if slot is not None and slot.game is not None:
            self._slots.move_to_end(key)
            return slot
        slot = GameSlot(key, translated_file or file, self._new_worker())
        started = time.monotonic()
        try:
            result = await slot.worker.call(_worker_load, (text, file, self.factory, translator,
                                                           translated_file or file), self.limits.load_s)
        except IsolationError as exc:
            await slot.worker.close()
            if exc.kind == "failed":  # a syntax or translation error, or the engine refused the rules
                raise InputError(exc.detail if exc.detail.startswith(file) or exc.detail.startswith(slot.file)
                                 else f"{slot.file}: {exc.detail}") from None
            raise InputError(self._limit_message(f"{slot.file}: cannot be played within the limits",
                                                  "loading", exc, self.limits.load_s)) from None
        except BaseException:
            await slot.worker.close()
            raise
        if isinstance(result, _Rejected):
            await slot.worker.close()
            raise GameRejected(result.problems)
        slot.game = result
        if translator is not None:  # kept under the KIF it became: the stored version's matches find it
            key = slot.key = _key(result.kif, slot.file, False)
        kept = self._slots.get(key)
        if kept is not None and kept.game is not None:  # loaded meanwhile by a caller that got another lock
            await slot.worker.close()
            return kept
        slot.memory_bytes = self._measure(slot) or 64 * len(text)
        log.info("game %s loaded in worker %s in %.2f s (%.0f MB)", slot.file, slot.worker.pid,
                 time.monotonic() - started, slot.memory_bytes / 2**20)
        self._slots[key] = slot
        await self._evict()
        return slot

    def _limit_message(self, what: str, phase: str, exc: IsolationError, seconds: float) -> str:
        return limit_message(what, phase, exc, seconds, self.limits.memory_mb)

    async def description(self, slot: GameSlot) -> Description:
        """The slot's parsed description (unpickled once, in a thread, so the event loop keeps running)."""
        assert slot.game is not None
        async with slot.unpickling:
            if slot.description is None:
                description = await asyncio.to_thread(pickle.loads, slot.game.description_pickle)
                assert isinstance(description, Description)
                slot.description = description
        return slot.description

    def hold(self, slot: GameSlot) -> None:
        """A match starts using ``slot`` (it is not evicted until :meth:`release`)."""
        slot.users += 1

    async def release(self, slot: GameSlot) -> None:
        slot.users -= 1
        if slot.users == 0:
            slot.memory_bytes = self._measure(slot) or slot.memory_bytes
            await self._evict()

    @staticmethod
    def _measure(slot: GameSlot) -> int | None:
        """The bytes a slot keeps: its worker's resident memory plus, here, the rules (pickled and,
        once a match used them, parsed: about three times the pickle)."""
        worker = slot.worker.memory_bytes()
        if worker is None:
            return None
        assert slot.game is not None
        kept = len(slot.game.kif) + len(slot.game.description_pickle)
        return worker + kept + (3 * len(slot.game.description_pickle) if slot.description is not None else 0)

    def cached_bytes(self) -> int:
        """The resident memory of the workers kept (as last measured)."""
        return sum(slot.memory_bytes for slot in self._slots.values())

    def cached_games(self) -> int:
        return len(self._slots)

    def live_workers(self) -> int:
        """Worker processes alive now (the games' and those still loading)."""
        return sum(1 for worker in list(self._workers) if worker.alive)

    async def _evict(self) -> None:
        """Close the least recently used idle workers while the kept workers' memory is over ``cache_mb``."""
        budget = self.limits.cache_mb * 2**20
        for key in list(self._slots):
            if self.cached_bytes() <= budget:
                break
            slot = self._slots[key]
            if slot.users:
                continue
            del self._slots[key]
            log.info("game %s: worker %s closed (least recently used; %.0f MB)", slot.file, slot.worker.pid,
                     slot.memory_bytes / 2**20)
            await slot.worker.close()

    async def call(self, slot: GameSlot, function: Callable[..., Any], args: tuple[Any, ...], what: str) -> Any:
        """Run one reasoner call of a match in the slot's worker; :class:`ReasonerError` when a limit is hit.

        A worker that was killed (by this call or by another match's) is replaced first: the game is
        loaded again in a new one.
        """
        for attempt in range(2):
            if not slot.worker.alive:
                await self._replace(slot)
            try:
                return await slot.worker.call(function, args, self.limits.call_s)
            except IsolationError as exc:
                if exc.kind == "stopped" and attempt == 0:
                    continue  # another match's call killed the worker while this one waited: replace it
                self._fail(slot, exc, what)
        raise AssertionError("unreachable")  # pragma: no cover

    def _fail(self, slot: GameSlot, exc: IsolationError, what: str) -> None:
        if exc.kind == "failed":
            raise ReasonerError(exc.detail) from None
        message = self._limit_message(slot.file, f"the reasoner call '{what}'", exc, self.limits.call_s)
        log.warning("%s; worker %s replaced", message, slot.worker.pid)
        raise ReasonerError(f"{message}; worker replaced") from None

    async def _replace(self, slot: GameSlot) -> None:
        async with slot.replacing:
            if not slot.worker.alive:
                await self._reload(slot)

    async def _reload(self, slot: GameSlot) -> None:
        assert slot.game is not None
        old = slot.worker
        await old.close()
        slot.worker = self._new_worker()
        slot.replaced += 1
        try:
            await slot.worker.call(_worker_load, (slot.game.kif, slot.file, self.factory, None, slot.file),
                                   self.limits.load_s)
        except IsolationError as exc:
            raise ReasonerError(self._limit_message(slot.file, "reloading the game", exc, self.limits.load_s)) from None

    def referee(self, slot: GameSlot) -> IsolatedReferee:
        assert slot.game is not None
        return IsolatedReferee(self, slot)

    async def close(self) -> None:
        """Kill every worker, busy or not (a load or a call in progress fails at once); later loads fail."""
        self._closed = True
        workers = list(self._workers)  # before the slots go: the set holds them weakly
        self._slots.clear()
        for worker in workers:
            worker.kill()
        for worker in workers:
            await worker.close()


def _key(text: str, file: str, translated: bool) -> str:
    return hashlib.sha256(f"{translated}\0{file}\0{text}".encode()).hexdigest()


class IsolatedReferee(Referee):
    """A :class:`~ggp.match.referee.Referee` whose machine lives in a game's worker process.

    It keeps the :class:`Verdict` of the state its last step made (of the initial state, from the load)
    and answers the questions about that state from it: a match costs one worker call per step. A
    question about any other state, or one the verdict does not hold, is a call of its own.
    """

    def __init__(self, reasoners: Reasoners, slot: GameSlot) -> None:
        assert slot.game is not None
        self.machine = None
        self._reasoners = reasoners
        self._slot = slot
        self._begin(slot.game.roles, slot.game.initial, slot.game.gdl2)
        self._known: tuple[State, Verdict] | None = (slot.game.initial, slot.game.verdict)

    def _verdict(self, state: State) -> Verdict | None:
        """The kept verdict when it is ``state``'s (the very object the step returned)."""
        known = self._known
        return known[1] if known is not None and known[0] is state else None

    async def _compute_terminal(self, state: State) -> bool:
        verdict = self._verdict(state)
        if verdict is not None:
            return bool(_settle(verdict.terminal))
        return bool(await self._reasoners.call(self._slot, _worker_terminal, (state,), "terminal"))

    async def _compute_legal(self, state: State) -> Legal:
        verdict = self._verdict(state)
        if verdict is not None and verdict.legal is not None:
            legal: Legal = _settle(verdict.legal)
            return legal
        legal = await self._reasoners.call(self._slot, _worker_legal, (state,), "legal")
        return legal

    async def _compute_next(self, state: State, joint: tuple[Move, ...]) -> tuple[State, Percepts | None]:
        after, percepts, verdict = await self._reasoners.call(
            self._slot, _worker_step, (state, joint, self.gdl2), "next")
        self._known = (after, verdict)
        return after, percepts

    async def _compute_goals(self, state: State) -> tuple[int, ...]:
        verdict = self._verdict(state)
        if verdict is not None and verdict.goals is not None:
            goals: tuple[int, ...] = _settle(verdict.goals)
            return goals
        goals = await self._reasoners.call(self._slot, _worker_goals, (state,), "goals")
        return goals


def _settle(answer: _T | Failed) -> _T:
    """A kept answer, or the :class:`ReasonerError` a call asking it would have raised."""
    if isinstance(answer, Failed):
        raise ReasonerError(answer.detail)
    return answer
