"""Tiny pure-Python StateMachines for player and server tests, independent of any reasoner.

- :class:`NimMachine`: two-player turn-taking Nim; whoever takes the last stone wins.
- :class:`MatrixMachine`: a one-step simultaneous game given by a payoff table (matching pennies,
  a game with dominant moves).
- :class:`ChanceMachine`: a player may take a safe 50 or gamble on a move of the role ``random``.

States use the same fluent terms a GDL version of the game would, so they print like real states.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from ggp.errors import IllegalMoveError
from ggp.gdl.terms import Const, Func, Term
from ggp.reasoner.machine import JointMove, Move, Role, State, joint_moves_product
from ggp.reasoner.playouts import random_playout

NOOP = Const("noop")


def _c(value: object) -> Const:
    return Const(str(value))


class _Base:
    """Shared parts: roles, joint moves and the legality check in ``next_state``."""

    _roles: tuple[Role, ...]

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        raise NotImplementedError

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product([self.legal_moves(state, role) for role in self._roles])

    def _check(self, state: State, joint_move: JointMove) -> None:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"expected {len(self._roles)} moves, found {len(joint_move)}")
        for role, move in zip(self._roles, joint_move):
            if move not in self.legal_moves(state, role):
                raise IllegalMoveError(f"{move} is not legal for {role}")


class NimMachine(_Base):
    """Nim with the given heaps: the role in control takes 1..k stones from one heap."""

    def __init__(self, heaps: Sequence[int] = (3, 4, 5), roles: tuple[str, str] = ("first", "second")) -> None:
        self._roles = (Const(roles[0]), Const(roles[1]))
        self._heaps = tuple(heaps)

    def state_of(self, heaps: Sequence[int], control: int = 0) -> State:
        """The state with these heap sizes and ``roles[control]`` to move."""
        facts: set[Term] = {Func("heap", (_c(i + 1), _c(k))) for i, k in enumerate(heaps)}
        facts.add(Func("control", (self._roles[control],)))
        return State(frozenset(facts))

    @staticmethod
    def heaps_of(state: State) -> tuple[int, ...]:
        pairs = sorted(
            (int(str(f.args[0])), int(str(f.args[1]))) for f in state.facts if isinstance(f, Func) and f.name == "heap"
        )
        return tuple(k for _, k in pairs)

    def _control(self, state: State) -> int:
        for fact in state.facts:
            if isinstance(fact, Func) and fact.name == "control":
                return self._roles.index(fact.args[0])
        raise AssertionError("no control fluent")

    def initial_state(self) -> State:
        return self.state_of(self._heaps)

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if self.is_terminal(state):
            return ()
        if self._roles[self._control(state)] != role:
            return (NOOP,)
        moves = [
            Func("take", (_c(i + 1), _c(k)))
            for i, size in enumerate(self.heaps_of(state))
            for k in range(1, size + 1)
        ]
        return tuple(sorted(moves, key=str))

    def next_state(self, state: State, joint_move: JointMove) -> State:
        self._check(state, joint_move)
        control = self._control(state)
        move = joint_move[control]
        assert isinstance(move, Func)
        heaps = list(self.heaps_of(state))
        heaps[int(str(move.args[0])) - 1] -= int(str(move.args[1]))
        return self.state_of(heaps, 1 - control)

    def is_terminal(self, state: State) -> bool:
        return sum(self.heaps_of(state)) == 0

    def goals(self, state: State) -> tuple[int, ...]:
        if not self.is_terminal(state):
            return (50, 50)
        # The role in control faces empty heaps: the other one took the last stone.
        return (0, 100) if self._control(state) == 0 else (100, 0)


class MatrixMachine(_Base):
    """A one-step simultaneous game: ``payoffs[(move of role 1, move of role 2, ...)] = (goal 1, goal 2, ...)``.

    Two roles (``row`` and ``col``) by default; give ``roles`` for more.
    """

    def __init__(
        self, payoffs: Mapping[tuple[str, ...], tuple[int, ...]], roles: tuple[str, ...] = ("row", "col")
    ) -> None:
        self._roles = tuple(Const(role) for role in roles)
        self._payoffs = dict(payoffs)
        self._moves = tuple(
            tuple(Const(m) for m in sorted({key[index] for key in payoffs})) for index in range(len(roles))
        )

    def initial_state(self) -> State:
        return State(frozenset({Const("start")}))

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if self.is_terminal(state):
            return ()
        return self._moves[self._roles.index(role)]

    def next_state(self, state: State, joint_move: JointMove) -> State:
        self._check(state, joint_move)
        return State(frozenset({Func("played", joint_move)}))

    def is_terminal(self, state: State) -> bool:
        return Const("start") not in state.facts

    def goals(self, state: State) -> tuple[int, ...]:
        for fact in state.facts:
            if isinstance(fact, Func):
                return self._payoffs[tuple(str(move) for move in fact.args)]
        return (50,) * len(self._roles)


MATCHING_PENNIES: dict[tuple[str, ...], tuple[int, ...]] = {("heads", "heads"): (100, 0), ("heads", "tails"): (0, 100),
                    ("tails", "heads"): (0, 100), ("tails", "tails"): (100, 0)}
"""Row wins on a match, column on a mismatch; no pure strategy is best."""

DOMINANT: dict[tuple[str, ...], tuple[int, ...]] = {
    ("a", "x"): (30, 70), ("a", "y"): (10, 20), ("b", "x"): (80, 60), ("b", "y"): (60, 10)
}
"""Row's ``b`` and column's ``x`` strictly dominate the other moves."""


class ChanceMachine(_Base):
    """Roles ``random`` and ``player``: ``safe`` scores 50; ``gamble`` lets ``random`` pick a coin.

    Two of the three coins win 100 for the player, so gambling is worth 67 on average, but an
    opponent choosing the coin would always pick the losing one. ``random``'s goal mirrors the player's.
    """

    def __init__(self) -> None:
        self._roles = (Const("random"), Const("player"))

    def initial_state(self) -> State:
        return State(frozenset({Func("phase", (_c(1),))}))

    def _result(self, state: State) -> int | None:
        for fact in state.facts:
            if isinstance(fact, Func) and fact.name == "result":
                return int(str(fact.args[0]))
        return None

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if self.is_terminal(state):
            return ()
        if Func("phase", (_c(1),)) in state.facts:
            return (NOOP,) if role == self._roles[0] else (Const("gamble"), Const("safe"))
        coins = tuple(Func("coin", (Const(name),)) for name in ("lose", "win1", "win2"))
        return coins if role == self._roles[0] else (NOOP,)

    def next_state(self, state: State, joint_move: JointMove) -> State:
        self._check(state, joint_move)
        chance, move = joint_move
        if move == Const("safe"):
            return State(frozenset({Func("result", (_c(50),))}))
        if move == Const("gamble"):
            return State(frozenset({Func("phase", (_c(2),))}))
        assert isinstance(chance, Func)
        won = str(chance.args[0]).startswith("win")
        return State(frozenset({Func("result", (_c(100 if won else 0),))}))

    def is_terminal(self, state: State) -> bool:
        return self._result(state) is not None

    def goals(self, state: State) -> tuple[int, ...]:
        result = self._result(state)
        value = 50 if result is None else result
        return (100 - value, value)


class BatchingNim(NimMachine):
    """Nim (heaps 3 and 4) offering the batch playout hook; records the batch sizes it was asked for."""

    def __init__(self) -> None:
        super().__init__((3, 4))
        self.calls: list[int] = []

    def playout_goals(self, state: State, n: int, rng: random.Random) -> list[tuple[int, ...]]:
        self.calls.append(n)
        return [random_playout(self, state, rng) for _ in range(n)]


class StuckNim(NimMachine):
    """Nim in which the second role has no legal move after the first step (a broken game)."""

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if role == self.roles[1] and state != self.initial_state():
            return ()
        return super().legal_moves(state, role)
