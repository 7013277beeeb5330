"""Wrappers around any engine, as ggp-base wraps its provers: a cache of answers per state
(:class:`CachedStateMachine`, after its CachedStateMachine) and the choice of the first engine that can
play a game (:func:`first_that_builds`, after its FailsafeStateMachine).

Engines themselves answer each question without remembering answers across states, so the caching
policy lives here once: which answers, how many states, and that a cached machine still offers the
inner engine's optional capabilities (percepts, batched playouts, packed states...).

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.reasoner.clingo_machine import ClingoStateMachine
>>> from ggp.reasoner.machine import GroundingLimits
>>> game = parse_kif('''(role a) (init (count 0)) (<= (legal a step) (true (count 0)))
...   (<= (next (count 1)) (does a step)) (<= terminal (true (count 1))) (goal a 100)''')
>>> cached = CachedStateMachine(ClingoStateMachine(game, GroundingLimits(isolate=False)))
>>> state = cached.initial_state()
>>> cached.legal_moves(state, cached.roles[0]) is cached.legal_moves(state, cached.roles[0])
True
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ggp.errors import GgpError, NotStratifiedError, ReasonerError
from ggp.gdl.terms import Description
from ggp.reasoner.machine import (
    JointMove,
    Move,
    Role,
    State,
    StateInfo,
    StateInfoMachine,
    StateMachine,
    joint_moves_product,
)

log = logging.getLogger(__name__)

DEFAULT_CACHE_STATES = 4096


@dataclass(slots=True)
class _Answers:
    """What is known of one state: filled in as the questions come."""

    legal: tuple[tuple[Move, ...], ...] | None = None
    terminal: bool | None = None
    goals: tuple[int, ...] | GgpError | None = None


class CachedStateMachine:
    """Any :class:`StateMachine` with its answers remembered for the ``size`` most recently used states
    (legal moves of every role at once, the terminal flag, the goals or the error asking for them gave)
    and the successors of their joint moves. Thread-safe; attributes it does not define (capabilities
    such as ``next_state_and_percepts`` or ``playout_goals``) are the inner machine's, so
    ``isinstance(cached, PerceptMachine)`` holds exactly when it holds for the inner machine.
    """

    def __init__(self, machine: StateMachine, size: int = DEFAULT_CACHE_STATES) -> None:
        if size < 1:
            raise ValueError("the cache needs room for at least one state")
        self.inner = machine
        self._size = size
        self._roles = machine.roles
        self._role_index = {role: i for i, role in enumerate(self._roles)}
        self._states: OrderedDict[State, _Answers] = OrderedDict()
        self._successors: OrderedDict[tuple[State, JointMove], State] = OrderedDict()
        self._lock = threading.RLock()
        self._state_info: Callable[[State], StateInfo] | None = (
            machine.state_info if isinstance(machine, StateInfoMachine) else None
        )
        self.hits = 0
        self.misses = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"CachedStateMachine({self.inner!r}, size={self._size})"

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        return self.inner.initial_state()

    def _answers(self, state: State) -> _Answers:
        with self._lock:
            answers = self._states.get(state)
            if answers is not None:
                self._states.move_to_end(state)
                self.hits += 1
                return answers
            self.misses += 1
            answers = self._states[state] = _Answers()
            if len(self._states) > self._size:
                self._states.popitem(last=False)
            return answers

    def _legal(self, state: State) -> tuple[tuple[Move, ...], ...]:
        answers = self._answers(state)
        if answers.legal is None:
            if self._state_info is not None:  # one computation answers every role and the terminal flag
                info = self._state_info(state)
                answers.terminal = info.terminal
                answers.legal = info.legal
            else:
                answers.legal = tuple(self.inner.legal_moves(state, role) for role in self._roles)
        return answers.legal

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        try:
            index = self._role_index[role]
        except KeyError:
            raise ValueError(f"unknown role {str(role)!r}") from None
        return self._legal(state)[index]

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product(self._legal(state))

    def is_terminal(self, state: State) -> bool:
        answers = self._answers(state)
        if answers.terminal is None:
            if self._state_info is not None:
                self._legal(state)
            else:
                answers.terminal = self.inner.is_terminal(state)
        assert answers.terminal is not None
        return answers.terminal

    def goals(self, state: State) -> tuple[int, ...]:
        answers = self._answers(state)
        if answers.goals is None:
            try:
                answers.goals = self.inner.goals(state)
            except GgpError as exc:
                answers.goals = exc
        if isinstance(answers.goals, GgpError):
            raise answers.goals
        return answers.goals

    def next_state(self, state: State, joint_move: JointMove) -> State:
        key = (state, tuple(joint_move))
        with self._lock:
            successor = self._successors.get(key)
            if successor is not None:
                self._successors.move_to_end(key)
                return successor
        successor = self.inner.next_state(state, joint_move)
        with self._lock:
            self._successors[key] = successor
            if len(self._successors) > self._size:
                self._successors.popitem(last=False)
        return successor


Builder = Callable[[Description], StateMachine]


def first_that_builds(description: Description, candidates: Sequence[tuple[str, Builder]]) -> StateMachine:
    """The machine of the first candidate engine that accepts the game, trying them in order.

    A candidate that raises :class:`ReasonerError` (the game is too big to ground or to compile within
    its limits) is logged at INFO and the next one is tried; when a later one builds, the refusal is
    logged at WARNING with its reason. When every candidate refuses, one :class:`ReasonerError` names
    the game, each engine tried and the limit it hit (one line, nothing logged before it).
    :class:`~ggp.errors.NotStratifiedError` (a ground negative cycle) propagates at once, as no other
    engine would play such a game. The choice is logged at INFO. This is the one fallback mechanism of
    the engines (``auto``: ground once, else per state; ``circuit``: compile, else ``auto``).
    """
    if not candidates:
        raise ValueError("no candidate engines")
    refusals: list[tuple[str, ReasonerError]] = []
    for index, (name, build) in enumerate(candidates):
        try:
            machine = build(description)
        except NotStratifiedError:
            raise  # no engine can give a ground negative cycle one meaning
        except ReasonerError as exc:
            refusals.append((name, exc))
            if index == len(candidates) - 1:
                if len(refusals) == 1:
                    raise
                reasons = "; ".join(f"{engine}: {_without_file(str(error), description.file)}"
                                    for engine, error in refusals)
                raise ReasonerError(
                    f"{description.file}: no engine can play this game within its limits: {reasons}"
                ) from exc
            log.info("%s: the %s engine cannot play this game (%s); trying the %s engine",
                     description.file, name, exc, candidates[index + 1][0])
            continue
        for refused, error in refusals:
            log.warning("%s: the %s engine cannot play this game (%s); playing it with the %s engine",
                        description.file, refused, error, name)
        log.info("%s: reasoner engine %s", description.file, name)
        return machine
    raise AssertionError("unreachable")  # pragma: no cover


def _without_file(message: str, file: str) -> str:
    """An engine's error without its leading ``file: `` (the combined message names the game once)."""
    prefix = f"{file}: "
    return message[len(prefix):] if message.startswith(prefix) else message
