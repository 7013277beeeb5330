"""The reference engine behind the project's StateMachine protocol, on the translation's own fluents.

States are the GDL states of :func:`ggp.translators.sbg.to_gdl.translate` (``(cell x y owner type)``,
``(control r)``, ``(step n)``) and moves its ``(move x1 y1 x2 y2)`` / ``noop`` terms, so this
machine and a GDL reasoner on the translated game can be compared state by state (the
reasoner-consistency check S9 of gdl.md) and players can use the fast engine directly.

>>> from ggp.translators.sbg.parser import parse_sbg
>>> game = parse_sbg('<<T>> <BOARD> 1 3 |k| |.| |K| <PIECES> K (0,1,e)^*((0,1,e) + (0,1,p)) & <GOALS> 5 & #k 0 & #K 0 &')
>>> machine = SbgStateMachine(game)
>>> state = machine.initial_state()
>>> [str(m) for m in machine.legal_moves(state, machine.roles[0])]
['(move 0 0 0 1)', '(move 0 0 0 2)']
>>> after = machine.next_state(state, machine.legal_joint_moves(state)[1])
>>> machine.is_terminal(after), machine.goals(after)
(True, (100, 0))
"""

from __future__ import annotations

import random

from ggp.errors import IllegalMoveError
from ggp.gdl.terms import Const, Func, Term
from ggp.reasoner.heuristics import Heuristic
from ggp.reasoner.machine import JointMove, Move, Role, State, joint_moves_product
from ggp.translators.sbg.engine import Move as BoardMove
from ggp.translators.sbg.engine import SbgEngine, SbgState
from ggp.translators.sbg.minimax import SbgMinimax
from ggp.translators.sbg.model import SIDES, SbgGame, Side
from ggp.translators.sbg.native import MAX_DEPTH as NATIVE_MAX_DEPTH
from ggp.translators.sbg.native import NativeSearch, native_search

NOOP = Const("noop")
_SCORES: dict[str, tuple[int, int]] = {"white": (100, 0), "black": (0, 100), "draw": (50, 50)}
ROLES: tuple[Role, Role] = (Const("white"), Const("black"))


def move_term(move: BoardMove) -> Func:
    """(0, 1, 0, 2) -> ``(move 0 1 0 2)``."""
    return Func("move", tuple(Const(str(v)) for v in move))


def term_move(term: Term) -> BoardMove | None:
    """``(move 0 1 0 2)`` -> (0, 1, 0, 2); None for any other term."""
    if isinstance(term, Func) and term.name == "move" and len(term.args) == 4:
        args = term.args
        if all(isinstance(a, Const) and a.name.isdigit() for a in args):
            x1, y1, x2, y2 = (int(a.name) for a in args)
            return (x1, y1, x2, y2)
    return None


class SbgStateMachine:
    """A :class:`~ggp.reasoner.machine.StateMachine` for one SBG game, backed by :class:`SbgEngine`.

    Raises :class:`IllegalMoveError` for an illegal joint move and ``ValueError`` for a state that
    is not one of this game's positions.
    """

    def __init__(self, game: SbgGame) -> None:
        self.game = game
        self.engine = SbgEngine(game)
        self._to_board: dict[State, SbgState] = {}
        self._minimax: SbgMinimax | None = None
        self._native: NativeSearch | None = None

    @property
    def roles(self) -> tuple[Role, ...]:
        return ROLES

    def to_state(self, position: SbgState) -> State:
        """The GDL state of an engine position."""
        width = self.engine.width
        facts: set[Term] = {
            Func("cell", (Const(str(i % width)), Const(str(i // width)),
                          Const("white" if ch.isupper() else "black"), Const(ch.lower())))
            for i, ch in enumerate(position.board)
            if ch != "."
        }
        facts.add(Func("control", (Const(position.to_move),)))
        facts.add(Func("step", (Const(str(position.ply)),)))
        state = State(frozenset(facts))
        if len(self._to_board) > 200_000:
            self._to_board.clear()
        self._to_board[state] = position
        return state

    def position(self, state: State) -> SbgState:
        """The engine position of a GDL state (read from its fluents when not seen before)."""
        known = self._to_board.get(state)
        if known is not None:
            return known
        width, height = self.engine.width, self.engine.height
        cells = ["."] * (width * height)
        to_move: Side | None = None
        ply = None
        for fact in state.facts:
            if not isinstance(fact, Func) or not all(isinstance(a, Const) for a in fact.args):
                raise ValueError(f"not a fluent of this game: {fact}")
            names = [a.name for a in fact.args]
            if fact.name == "cell" and len(names) == 4 and names[0].isdigit() and names[1].isdigit():
                x, y = int(names[0]), int(names[1])
                if not (x < width and y < height and names[2] in SIDES and len(names[3]) == 1):
                    raise ValueError(f"not a fluent of this game: {fact}")
                cells[y * width + x] = names[3].upper() if names[2] == "white" else names[3]
            elif fact.name == "control" and len(names) == 1 and names[0] in SIDES:
                to_move = "white" if names[0] == "white" else "black"
            elif fact.name == "step" and len(names) == 1 and names[0].isdigit():
                ply = int(names[0])
            else:
                raise ValueError(f"not a fluent of this game: {fact}")
        if to_move is None or ply is None:
            raise ValueError("state lacks (control r) or (step n)")
        return SbgState("".join(cells), to_move, ply)

    def initial_state(self) -> State:
        return self.to_state(self.engine.initial_state())

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        """The mover's moves as ``(move ...)`` terms sorted by KIF text; ``noop`` for the other role."""
        position = self.position(state)
        if role not in ROLES:
            raise ValueError(f"unknown role {role}")
        if role != ROLES[SIDES.index(position.to_move)]:
            return (NOOP,)
        return tuple(sorted((move_term(m) for m in self.engine.legal_moves(position)), key=str))

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return joint_moves_product([self.legal_moves(state, role) for role in ROLES])

    def next_state(self, state: State, joint_move: JointMove) -> State:
        position = self.position(state)
        if len(joint_move) != 2:
            raise IllegalMoveError(f"expected 2 moves (white, black), got {len(joint_move)}")
        mover = SIDES.index(position.to_move)
        if joint_move[1 - mover] != NOOP:
            raise IllegalMoveError(f"{ROLES[1 - mover]} must play noop, not {joint_move[1 - mover]}")
        move = term_move(joint_move[mover])
        if move is None:
            raise IllegalMoveError(f"{joint_move[mover]} is not a legal move for {ROLES[mover]}")
        return self.to_state(self.engine.apply(position, move))

    def is_terminal(self, state: State) -> bool:
        return self.engine.is_terminal(self.position(state))

    def goals(self, state: State) -> tuple[int, ...]:
        return self.engine.scores(self.position(state))

    def playout_goals(self, state: State, n: int, seed: int | random.Random = 0) -> list[tuple[int, ...]]:
        """Goals (white, black) at the end of ``n`` uniformly random playouts from ``state``: compiled when
        a C compiler is there (MCTS's batched leaf evaluation, :mod:`ggp.reasoner.playouts`), else played
        on the engine one move at a time."""
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        position = self.position(state)
        self.minimax  # noqa: B018 - builds the compiled tables on first use
        if self._native is not None:
            return [_SCORES[winner] for winner in self._native.playouts(position, n, rng.getrandbits(64))]
        return [self._playout(position, rng) for _ in range(n)]

    def _playout(self, position: SbgState, rng: random.Random) -> tuple[int, ...]:
        """One random playout on the engine (as ``sbg_playouts`` in minimax.c)."""
        while not self.engine.is_terminal(position):
            moves = self.engine.legal_moves(position)
            if not moves:  # only at ply 0, where the rules do not apply yet: the side to move is stuck
                return _SCORES["black" if position.to_move == "white" else "white"]
            position = self.engine.apply_unchecked(position, rng.choice(moves))
        return self.engine.scores(position)

    # --- RAPP's heuristic min-max (ggp.reasoner.heuristics.MinimaxSearchMachine) ------------------

    @property
    def minimax(self) -> SbgMinimax:
        """The reference evaluation and search of this game (built on first use)."""
        if self._minimax is None:
            self._minimax = SbgMinimax(self.engine)
            self._native = native_search(self._minimax)
        return self._minimax

    def minimax_values(self, state: State, role: Role, heuristic: Heuristic, depth: int) -> tuple[tuple[Move, float], ...]:
        """Each legal move of ``role`` with its min-max value (compiled when a C compiler is there).

        Raises ``ValueError`` when it is not ``role``'s turn or the depth is out of range.
        """
        position = self.position(state)
        if role != ROLES[SIDES.index(position.to_move)]:
            raise ValueError(f"it is not {role}'s turn")
        reference = self.minimax
        search = self._native if self._native is not None and depth <= NATIVE_MAX_DEPTH else reference
        return tuple((move_term(move), value) for move, value in search.root_values(position, heuristic, depth))
