"""Tiny pure-Python state machines for the manager's tests (no clingo needed).

``NimMachine``: two roles take 1-3 from a pile; whoever takes the last object wins.
``TicTacToeMachine``: 3x3 noughts and crosses with ``(cell x y mark)`` and ``(control r)`` fluents.
Both follow :class:`ggp.reasoner.machine.StateMachine`; ``*_KIF`` are matching descriptions to send in START.
"""

from __future__ import annotations

import time

from ggp.errors import IllegalMoveError
from ggp.gdl.terms import Const, Func, Term
from ggp.reasoner.machine import JointMove, Move, Role, State, joint_moves_product

NOOP = Const("noop")


def _num(term: Term) -> int:
    assert isinstance(term, Const)
    return int(term.name)


class NimMachine:
    """Nim with one pile of ``size`` objects; roles ``a`` and ``b`` alternate, ``a`` first."""

    def __init__(self, size: int = 7) -> None:
        self.size = size
        self._roles: tuple[Role, ...] = (Const("a"), Const("b"))

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        return State(frozenset({Func("pile", (Const(str(self.size)),)), Func("control", (Const("a"),))}))

    def _get(self, state: State, name: str) -> Term:
        for fact in state.facts:
            if isinstance(fact, Func) and fact.name == name:
                return fact.args[0]
        raise AssertionError(name)

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if self._get(state, "control") != role:
            return (NOOP,)
        pile = _num(self._get(state, "pile"))
        moves: list[Move] = [Func("take", (Const(str(n)),)) for n in range(1, min(3, pile) + 1)]
        return tuple(sorted(moves, key=str))

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product([self.legal_moves(state, role) for role in self.roles])

    def next_state(self, state: State, joint_move: JointMove) -> State:
        for role, move in zip(self.roles, joint_move):
            if move not in self.legal_moves(state, role):
                raise IllegalMoveError(f"illegal move {move} for {role}")
        control = self._get(state, "control")
        taken = next(_num(m.args[0]) for m in joint_move if isinstance(m, Func))
        pile = _num(self._get(state, "pile")) - taken
        other = self.roles[1] if control == self.roles[0] else self.roles[0]
        facts: set[Term] = {Func("pile", (Const(str(pile)),)), Func("control", (other,))}
        if pile == 0:
            facts.add(Func("winner", (control,)))
        return State(frozenset(facts))

    def is_terminal(self, state: State) -> bool:
        return _num(self._get(state, "pile")) == 0

    def goals(self, state: State) -> tuple[int, ...]:
        winners = [f.args[0] for f in state.facts if isinstance(f, Func) and f.name == "winner"]
        return tuple(100 if winners and winners[0] == role else 0 for role in self.roles)


NIM_KIF = """
(role a) (role b) (init (pile 7)) (init (control a))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (legal ?r (take 1)) (true (control ?r)))
(<= (next (pile 0)) (does a (take 1)))
(<= terminal (true (pile 0)))
(<= (goal a 100) (true (control b))) (<= (goal a 0) (true (control a)))
(<= (goal b 100) (true (control a))) (<= (goal b 0) (true (control b)))
"""

_LINES = [[(1, 1), (1, 2), (1, 3)], [(2, 1), (2, 2), (2, 3)], [(3, 1), (3, 2), (3, 3)],
          [(1, 1), (2, 1), (3, 1)], [(1, 2), (2, 2), (3, 2)], [(1, 3), (2, 3), (3, 3)],
          [(1, 1), (2, 2), (3, 3)], [(1, 3), (2, 2), (3, 1)]]


def _cell(x: int, y: int, mark: str) -> Term:
    return Func("cell", (Const(str(x)), Const(str(y)), Const(mark)))


class TicTacToeMachine:
    """Noughts and crosses: ``xplayer`` (marks x) moves first, ``oplayer`` (marks o) second."""

    def __init__(self) -> None:
        self._roles: tuple[Role, ...] = (Const("xplayer"), Const("oplayer"))

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        cells = {_cell(x, y, "b") for x in range(1, 4) for y in range(1, 4)}
        return State(frozenset(cells | {Func("control", (Const("xplayer"),))}))

    @staticmethod
    def _board(state: State) -> dict[tuple[int, int], str]:
        board: dict[tuple[int, int], str] = {}
        for fact in state.facts:
            if isinstance(fact, Func) and fact.name == "cell":
                board[(_num(fact.args[0]), _num(fact.args[1]))] = str(fact.args[2])
        return board

    @staticmethod
    def _control(state: State) -> Term:
        return next(f.args[0] for f in state.facts if isinstance(f, Func) and f.name == "control")

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if self._control(state) != role:
            return (NOOP,)
        free = [Func("mark", (Const(str(x)), Const(str(y)))) for (x, y), m in self._board(state).items() if m == "b"]
        return tuple(sorted(free, key=str))

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product([self.legal_moves(state, role) for role in self.roles])

    def next_state(self, state: State, joint_move: JointMove) -> State:
        for role, move in zip(self.roles, joint_move):
            if move not in self.legal_moves(state, role):
                raise IllegalMoveError(f"illegal move {move} for {role}")
        control = self._control(state)
        mark = "x" if control == self.roles[0] else "o"
        board = self._board(state)
        move = next(m for m in joint_move if isinstance(m, Func))
        board[(_num(move.args[0]), _num(move.args[1]))] = mark
        other = self.roles[1] if control == self.roles[0] else self.roles[0]
        facts = {_cell(x, y, m) for (x, y), m in board.items()} | {Func("control", (other,))}
        return State(frozenset(facts))

    def _line(self, state: State, mark: str) -> bool:
        board = self._board(state)
        return any(all(board[c] == mark for c in line) for line in _LINES)

    def is_terminal(self, state: State) -> bool:
        return self._line(state, "x") or self._line(state, "o") or "b" not in self._board(state).values()

    def goals(self, state: State) -> tuple[int, ...]:
        if self._line(state, "x"):
            return (100, 0)
        if self._line(state, "o"):
            return (0, 100)
        return (50, 50)


TICTACTOE_KIF = """
(role xplayer) (role oplayer)
(init (cell 1 1 b)) (init (control xplayer))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (legal ?r (mark 1 1)) (true (control ?r)) (true (cell 1 1 b)))
(<= (next (cell 1 1 x)) (does xplayer (mark 1 1)))
(<= terminal (true (cell 1 1 x)))
(<= (goal xplayer 100) (true (cell 1 1 x))) (<= (goal oplayer 0) (true (cell 1 1 x)))
"""


class CounterMachine:
    """``n`` roles each play ``(step 1)`` or ``(step 2)`` every turn for ``length`` turns; goals by total.

    Every role always has the legal move ``(step 1)``, so a fake player can answer without a reasoner
    (used by the overhead benchmark and the load test).
    """

    def __init__(self, length: int = 10, roles: int = 2, prefix: str = "p") -> None:
        self.length = length
        self._roles: tuple[Role, ...] = tuple(Const(f"{prefix}{i + 1}") for i in range(roles))
        self._moves: tuple[Move, ...] = (Func("step", (Const("1"),)), Func("step", (Const("2"),)))

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        facts: set[Term] = {Func("turn", (Const("0"),))}
        facts |= {Func("score", (role, Const("0"))) for role in self._roles}
        return State(frozenset(facts))

    def _value(self, state: State, name: str, role: Role | None = None) -> int:
        for fact in state.facts:
            if isinstance(fact, Func) and fact.name == name and (role is None or fact.args[0] == role):
                return _num(fact.args[-1])
        raise AssertionError(name)

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        return self._moves

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product([self._moves for _ in self._roles])

    def next_state(self, state: State, joint_move: JointMove) -> State:
        facts: set[Term] = {Func("turn", (Const(str(self._value(state, "turn") + 1)),))}
        for role, move in zip(self._roles, joint_move):
            if move not in self._moves:
                raise IllegalMoveError(f"illegal move {move} for {role}")
            score = self._value(state, "score", role) + _num(move.args[0]) if isinstance(move, Func) else 0
            facts.add(Func("score", (role, Const(str(score)))))
        return State(frozenset(facts))

    def is_terminal(self, state: State) -> bool:
        return self._value(state, "turn") >= self.length

    def goals(self, state: State) -> tuple[int, ...]:
        scores = [self._value(state, "score", role) for role in self._roles]
        best = max(scores)
        return tuple(100 if s == best else 0 for s in scores)


COUNTER_KIF = """
(role p1) (role p2) (init (turn 0))
(<= (legal ?r (step 1)) (role ?r))
(<= terminal (true (turn 10)))
(<= (goal ?r 100) (role ?r))
"""


class HeavyMachine(CounterMachine):
    """A counter game (roles ``h1``, ``h2``) whose reasoner goes wrong at the second step, as a heavy game's
    does: ``wedge`` sleeps an hour in ``legal_moves`` from turn ``wedge_turn`` on, ``memory`` allocates
    8 GiB in ``next_state``."""

    def __init__(self, trouble: str, wedge_turn: int = 1) -> None:
        super().__init__(length=10, roles=2, prefix="h")
        self.trouble = trouble
        self.wedge_turn = wedge_turn

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if self.trouble == "wedge" and self._value(state, "turn") >= self.wedge_turn:
            time.sleep(3600)
        return super().legal_moves(state, role)

    def next_state(self, state: State, joint_move: JointMove) -> State:
        if self.trouble == "memory" and self._value(state, "turn") >= 1:
            hog = bytearray(8 * 2**30)
            del hog
        return super().next_state(state, joint_move)


WEDGE_KIF = """
(role h1) (role h2) (init (turn 0)) (wedge)
(<= (legal ?r (step 1)) (role ?r))
(<= terminal (true (turn 10)))
(<= (goal ?r 100) (role ?r))
"""
"""A game whose reasoner sleeps for an hour from its second step on (:class:`HeavyMachine`)."""

LATE_WEDGE_KIF = WEDGE_KIF.replace("(wedge)", "(wedge) (late)")
"""A game whose legal moves hang from turn 2 on: the manager computes a state's legal moves in the
call of the step that made it, so a match of it plays one step, then its second step's call hangs."""

MEMORY_HOG_KIF = WEDGE_KIF.replace("(wedge)", "(memoryhog)")
"""A game whose reasoner allocates 8 GiB at its second step (:class:`HeavyMachine`)."""


def machine_for_description(description: object) -> NimMachine | TicTacToeMachine | CounterMachine:
    """A manager ``machine_factory`` for tests: picks the pure-Python machine by the game's roles."""
    from ggp.gdl.terms import Description

    assert isinstance(description, Description)
    roles = [str(role) for role in description.roles]
    if roles == ["a", "b"]:
        return NimMachine()
    if roles == ["xplayer", "oplayer"]:
        return TicTacToeMachine()
    if roles == ["s1", "s2"]:
        return CounterMachine(length=3, roles=2, prefix="s")
    if roles == ["h1", "h2"]:
        heads = {str(rule.head) for rule in description.rules}
        return HeavyMachine("wedge" if any("wedge" in head for head in heads) else "memory",
                            2 if any("late" in head for head in heads) else 1)
    if roles and all(r.startswith("p") for r in roles):
        return CounterMachine(length=10, roles=len(roles))
    raise AssertionError(f"no test machine for roles {roles}")


SHORT_COUNTER_KIF = COUNTER_KIF.replace("p1", "s1").replace("p2", "s2")
"""A three-step counter game (roles ``s1``, ``s2``) for the load test."""


def five_ary_kif(constants: int) -> str:
    """A game whose first player's legal rule joins a 5-ary relation over ``constants`` objects (10^10
    moves for 100): accepted with 201 before, then it held the manager for 367 s and died at 6 GB."""
    objects = " ".join(f"(obj o{i})" for i in range(constants))
    return f"""
(role a) (role b) (init (c 1)) {objects}
(<= (legal a (m ?v ?w ?x ?y ?z)) (obj ?v) (obj ?w) (obj ?x) (obj ?y) (obj ?z))
(<= (legal b noop) (role b))
(<= (next (c 2)) (true (c 1)))
(<= terminal (true (c 2)))
(<= (goal ?r 50) (role ?r))
"""
