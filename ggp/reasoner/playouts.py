"""Random playouts, with a hook that hands them to a machine able to run them in batches.

A machine that offers ``playout_goals(state, n, rng) -> Sequence[tuple[int, ...]]`` (e.g. a compiled
engine running many playouts at once) is used for every batch; any other machine is played out one
random joint move at a time through the StateMachine protocol. Both give goal tuples in role order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import cast

from ggp.errors import GgpError, ReasonerError
from ggp.reasoner.machine import Move, Role, State, StateMachine

MAX_PLAYOUT_STEPS = 1000
"""A playout stops after this many joint moves and scores the state it reached (guards endless games)."""

BatchPlayouts = Callable[[State, int, random.Random], Sequence[tuple[int, ...]]]


def batch_hook(machine: StateMachine) -> BatchPlayouts | None:
    """The machine's ``playout_goals`` method when it has one (a :class:`PlayoutGoalsMachine`), else ``None``.

    Looked up by attribute, not by ``isinstance`` on the runtime protocol: this runs once per MCTS
    iteration, and a protocol check costs more than the batched playout of a small game."""
    hook = getattr(machine, "playout_goals", None)
    return cast(BatchPlayouts, hook) if callable(hook) else None


def require_legal(machine: StateMachine, state: State, role: Role, steps: int) -> tuple[Move, ...]:
    """The role's legal moves in a non-terminal state; ReasonerError naming the role and the step when it has
    none (the game is broken there: a command reports it in one line instead of failing to pick a move)."""
    moves = machine.legal_moves(state, role)
    if not moves:
        raise ReasonerError(f"role {str(role)!r} has no legal move in a non-terminal state after {steps} steps")
    return moves


def safe_goals(machine: StateMachine, state: State) -> tuple[int, ...]:
    """Goal values of a state, or all zeros when the rules define none there (non-terminal states)."""
    try:
        return machine.goals(state)
    except GgpError:
        return tuple(0 for _ in machine.roles)


class PlayoutInterrupted(Exception):
    """A playout stopped half-way because its caller's ``stop`` test said so (a clock ran out)."""


def random_playout(
    machine: StateMachine,
    state: State,
    rng: random.Random,
    max_steps: int = MAX_PLAYOUT_STEPS,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, ...]:
    """Play uniformly random joint moves from ``state`` to the end; the goals reached, role order.

    ``stop`` is asked before every step; when it answers True the playout raises
    :class:`PlayoutInterrupted` (one long playout must not outlast a play clock).
    """
    roles = machine.roles
    for _ in range(max_steps):
        if stop is not None and stop():
            raise PlayoutInterrupted
        if machine.is_terminal(state):
            break
        joint = []
        for role in roles:
            legal = machine.legal_moves(state, role)
            if not legal:
                return safe_goals(machine, state)
            joint.append(legal[rng.randrange(len(legal))])
        state = machine.next_state(state, tuple(joint))
    return safe_goals(machine, state)


def playout_goals(
    machine: StateMachine,
    state: State,
    n: int,
    rng: random.Random,
    max_steps: int = MAX_PLAYOUT_STEPS,
    stop: Callable[[], bool] | None = None,
) -> list[tuple[int, ...]]:
    """``n`` random playouts from ``state``: batched by the machine when it can (one compiled call),
    else one by one, each interruptible by ``stop`` (see :func:`random_playout`)."""
    hook = batch_hook(machine)
    if hook is not None:
        return [tuple(goals) for goals in hook(state, n, rng)]
    return [random_playout(machine, state, rng, max_steps, stop) for _ in range(n)]
