"""The GDL-II chance role: a role named ``random`` that moves uniformly among its legal moves.

As in ggp-base, the manager (or a search player simulating the game) plays ``random`` itself and never
asks anyone for its move. These helpers find the chance roles, draw their moves, and turn the two ways
a game can break the chance contract into clear :class:`ReasonerError` messages that print the state:
``random`` without a legal move in a non-terminal state, and a terminal state where a role lacks a goal.

Goals are whatever the rules say: games like the seed games use raw point totals (0, 1, 6, 12), which
:meth:`StateMachine.goals` returns as plain integers; nothing here rescales them.

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.reasoner.per_state import PerStateMachine
>>> game = parse_kif('''(role p) (role random) (init start)
...   (<= (legal random (roll 1)) (true start)) (<= (legal random (roll 2)) (true start))
...   (<= (legal p noop) (true start)) (<= (next (rolled ?n)) (does random (roll ?n)))
...   (<= terminal (true (rolled ?n))) (<= (goal p ?n) (true (rolled ?n))) (goal random 0)''')
>>> machine = PerStateMachine(game)
>>> chance_roles(machine)
(1,)
>>> state = machine.initial_state()
>>> noop = machine.legal_moves(state, machine.roles[0])[0]
>>> joint = sample_chance_moves(machine, state, (noop, None), random.Random(3))
>>> [str(move) for move in joint]
['noop', '(roll 1)']
>>> terminal_goals(machine, machine.next_state(state, joint))
(1, 0)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ggp.errors import ReasonerError
from ggp.reasoner.machine import CHANCE_ROLE, JointMove, Move, State, StateMachine


def chance_roles(machine: StateMachine) -> tuple[int, ...]:
    """Indices (in role order) of the roles named ``random``."""
    return tuple(i for i, role in enumerate(machine.roles) if role == CHANCE_ROLE)


def has_chance(machine: StateMachine) -> bool:
    """Whether the game has a ``random`` role."""
    return bool(chance_roles(machine))


def chance_moves(machine: StateMachine, state: State) -> tuple[Move, ...]:
    """The legal moves of the (first) chance role; ReasonerError naming the state when there are none.

    Raises :class:`ReasonerError` when the game has no chance role, the state is terminal, or
    ``random`` has no legal move in this non-terminal state (a broken game).
    """
    indices = chance_roles(machine)
    if not indices:
        raise ReasonerError("the game has no role named random")
    return _legal_for_chance(machine, state, indices[0])


def _legal_for_chance(machine: StateMachine, state: State, index: int) -> tuple[Move, ...]:
    if machine.is_terminal(state):
        raise ReasonerError(f"random cannot move in a terminal state: {state}")
    moves = machine.legal_moves(state, machine.roles[index])
    if not moves:
        raise ReasonerError(f"role random has no legal move in the non-terminal state {state}")
    return moves


def sample_chance_moves(
    machine: StateMachine, state: State, joint_partial: Sequence[Move | None], rng: random.Random
) -> JointMove:
    """``joint_partial`` with every chance role's slot filled by a uniformly drawn legal move.

    ``joint_partial`` has one entry per role, in role order; the entries of chance roles are ignored
    (pass ``None``), every other entry must be a move. The draw uses only ``rng`` (seed it to repeat a
    game) and the sorted legal moves, so equal seeds give equal games. Raises :class:`ReasonerError`
    when ``random`` cannot move (see :func:`chance_moves`) and ``ValueError`` when ``joint_partial`` has
    the wrong length or a missing move for a non-chance role.
    """
    roles = machine.roles
    if len(joint_partial) != len(roles):
        raise ValueError(f"a joint move needs {len(roles)} entries (one per role), got {len(joint_partial)}")
    chance = set(chance_roles(machine))
    joint: list[Move] = []
    for index, move in enumerate(joint_partial):
        if index in chance:
            joint.append(rng.choice(_legal_for_chance(machine, state, index)))
        elif move is None:
            raise ValueError(f"no move given for role {roles[index]}")
        else:
            joint.append(move)
    return tuple(joint)


def random_joint_move(machine: StateMachine, state: State, rng: random.Random) -> JointMove:
    """A joint move where every role (chance or not) plays uniformly at random; for playouts."""
    chance = set(chance_roles(machine))
    partial: list[Move | None] = []
    for index, role in enumerate(machine.roles):
        if index in chance:
            partial.append(None)
            continue
        moves = machine.legal_moves(state, role)
        if not moves:
            raise ReasonerError(f"role {role} has no legal move in the non-terminal state {state}")
        partial.append(rng.choice(moves))
    return sample_chance_moves(machine, state, partial, rng)


def terminal_goals(machine: StateMachine, state: State) -> tuple[int, ...]:
    """The goals of a terminal state, raw values as integers (seed games: points like 0, 1, 6, 12).

    Raises :class:`ReasonerError` with the state printed when the state is not terminal or some role
    does not have exactly one integer goal there.
    """
    if not machine.is_terminal(state):
        raise ReasonerError(f"goals asked for a non-terminal state: {state}")
    try:
        return machine.goals(state)
    except ReasonerError as exc:
        text = str(exc)
        raise ReasonerError(text if str(state) in text else f"{text} (terminal state: {state})") from exc
