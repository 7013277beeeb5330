"""An MCTS tree held by the C runtime (``players/native/``), driven through ctypes."""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ggp.errors import ReasonerError
from ggp.reasoner.circuit.build import Circuit
from ggp.reasoner.playouts import PlayoutCutoff


class TreeHost(Protocol):
    """What a tree needs of its evaluator (:class:`~.native_evaluator.CEvaluator` or the interpreted one):
    the loaded runtime, the game in it and the size of a packed state; the tree keeps its host alive."""

    lib: ctypes.CDLL
    circuit: Circuit
    game: int
    nbytes: int


@dataclass(frozen=True, slots=True)
class TreeRoot:
    """The root of a :class:`NativeTree`: one role's moves with their visits and goal totals."""

    terminal: bool
    branching: tuple[int, ...]  # legal moves per role (0 for all at a terminal root)
    moves: tuple[int, ...]  # the role's moves, global indices ascending
    visits: tuple[int, ...]
    totals: tuple[float, ...]  # summed goals, each in 0..1
    proven: tuple[float | None, ...]  # per move: the role's goal (0..1) under perfect play after it, None if unproven
    proof: int | None  # the index of the move a proven root's proof takes for the role (see ggp_mcts_proven)
    line: tuple[int, float] | None = None  # one-role games: the best line's first move (index) and goal (0..1)


class NativeTree:
    """An MCTS tree held by the C runtime (``ggp_mcts_*``, ``players/native/search_*.c``): decoupled UCT as
    ``players/mcts.py`` runs it, over packed states and global move indices.

    The tree owns its memory (freed with the object) and keeps the evaluator alive; it uses only its own
    buffers and the game's read-only tables, so a search needs no lock against other queries. Raises
    :class:`ReasonerError` when out of memory.
    """

    def __init__(
        self, evaluator: TreeHost, key: int, exploration: float, playouts_per_leaf: int,
        chance: Sequence[bool], seed: int, max_nodes: int, max_bytes: int, max_depth: int,
    ) -> None:
        self._evaluator = evaluator
        self._lib = lib = evaluator.lib
        self._nbytes = evaluator.nbytes
        self._roles = len(evaluator.circuit.roles)
        self._width = max([len(moves) for moves in evaluator.circuit.moves] + [1])
        tree = lib.ggp_mcts_new(
            evaluator.game, key.to_bytes(self._nbytes, "little"), exploration, playouts_per_leaf,
            bytes(int(bool(c)) for c in chance), seed & 0xFFFFFFFFFFFFFFFF, max_nodes, max_bytes, max_depth,
        )
        if not tree:
            raise ReasonerError("out of memory for the search tree")
        self._tree = tree
        self._finalizer = weakref.finalize(self, lib.ggp_mcts_free, tree)

    def reroot(self, key: int) -> bool:
        """Move the root to a packed state: True when the subtree of that state (the root, a child or a
        grandchild) was kept, False when the tree starts afresh there."""
        status = self._lib.ggp_mcts_reroot(self._tree, key.to_bytes(self._nbytes, "little"))
        if status < 0:
            raise ReasonerError("out of memory for the search tree")
        return bool(status)

    def set_mast(self, epsilon: float) -> None:
        """Play MAST playouts from now on (``ggp_mcts_set_mast``: with one playout per leaf, a random move
        with chance ``epsilon``, else the move with the best mean goal so far). Raises
        :class:`ReasonerError` when out of memory."""
        if self._lib.ggp_mcts_set_mast(self._tree, epsilon) != 0:
            raise ReasonerError("out of memory for the MAST statistics")

    def set_rave(self, k: float) -> None:
        """Use RAVE from now on with equivalence parameter ``k`` (``ggp_mcts_set_rave``: UCB1's mean of an
        edge of n visits is beta * its all-moves-as-first mean + (1 - beta) * its mean, beta = sqrt(k / (3n + k));
        0 turns it off). Raises :class:`ReasonerError` when out of memory."""
        if self._lib.ggp_mcts_set_rave(self._tree, k) != 0:
            raise ReasonerError("out of memory for the RAVE statistics")

    def set_decisive(self, level: int) -> None:
        """Set the single playouts' lookahead from now on (``ggp_mcts_set_decisive``): 0 none; 1 decisive
        moves (at each step a role with a move that ends the game at its highest goal plays it; all its moves
        are tried at once, one per lane); 2 anti-decisive moves too (else it avoids a move after which the one
        opponent to choose has such a move). Raises :class:`ReasonerError` when out of memory."""
        if self._lib.ggp_mcts_set_decisive(self._tree, level) != 0:
            raise ReasonerError("out of memory for the decisive-move lookahead")

    def set_cutoff(self, cutoff: PlayoutCutoff | None) -> None:
        """Cut single playouts from now on by ``cutoff`` (``ggp_mcts_set_cutoff``; see :class:`PlayoutCutoff`),
        its weights passed role-major, one per (role, fluent index); a fluent the circuit does not know can
        never hold and is left out. None plays them to the end again. Raises :class:`ReasonerError` when out of
        memory."""
        if cutoff is None:
            self._lib.ggp_mcts_set_cutoff(self._tree, -1, None, 0.0, 0.0, None, None)
            return
        fluents = self._evaluator.circuit.fluents
        index = {fact: f for f, fact in enumerate(fluents)}
        weights = (ctypes.c_double * max(1, self._roles * len(fluents)))()
        for fact, row in cutoff.weights.items():
            f = index.get(fact)
            if f is None:
                continue
            for r, w in enumerate(row[:self._roles]):
                weights[r * len(fluents) + f] = float(w)
        low = (ctypes.c_double * self._roles)(*cutoff.lows(self._roles))
        high = (ctypes.c_double * self._roles)(*cutoff.highs(self._roles))
        if self._lib.ggp_mcts_set_cutoff(self._tree, max(0, cutoff.depth), weights, cutoff.goal_weight, cutoff.scale,
                                         low, high) != 0:
            raise ReasonerError("out of memory for the playout cut-off")

    def set_factor(self, fluents: Iterable[int], moves: Iterable[int], held: int) -> None:
        """Search one factor of the game from now on (``ggp_mcts_set_factor``, the tree started afresh at
        ``held``): only ``fluents`` change, the others stay as in the packed state ``held``, and a role chooses
        among ``moves`` (global indices), one with none of them playing its first legal move. Raises
        ``ValueError`` with several playouts per leaf and :class:`ReasonerError` when out of memory."""
        n_moves = sum(len(moves) for moves in self._evaluator.circuit.moves)
        keep = sum(1 << f for f in set(fluents)).to_bytes(self._nbytes, "little")
        allowed = sum(1 << m for m in set(moves)).to_bytes(8 * (n_moves // 64 + 1), "little")
        status = self._lib.ggp_mcts_set_factor(self._tree, keep, held.to_bytes(self._nbytes, "little"), allowed)
        if status == -2:
            raise ValueError("a factored search needs one playout per leaf")
        if status < 0:
            raise ReasonerError("out of memory for the factored search")

    def set_solver(self, on: bool) -> None:
        """Prove nodes from now on (``ggp_mcts_set_solver``, MCTS-Solver: a node where one role chooses is
        proven once a child gives that role its highest goal or all its children are proven)."""
        self._lib.ggp_mcts_set_solver(self._tree, int(on))

    def search(self, iterations: int, deadline: float) -> int:
        """Run up to ``iterations`` iterations, stopping at ``deadline`` (a ``time.monotonic()`` time,
        checked before each one; ``math.inf`` for none); returns how many ran (0 at a terminal or proven
        root)."""
        return int(self._lib.ggp_mcts_search(self._tree, iterations, deadline))

    def nested(self, level: int, deadline: float) -> bool:
        """Nested Monte-Carlo Search of ``level`` from the root (``ggp_mcts_nested``; level 0: one playout) in a
        game with one role and no chance, stopping at ``deadline`` (a ``time.monotonic()`` time, ``math.inf``
        for none): True when the level finished, False when cut off. Every sequence it plays to the end that
        beats the best line becomes the best line (:attr:`TreeRoot.line`). Raises ``ValueError`` in any other
        game and :class:`ReasonerError` when out of memory."""
        status = self._lib.ggp_mcts_nested(self._tree, max(0, min(level, 1 << 30)), deadline)
        if status == -2:
            raise ValueError("nested Monte-Carlo search needs a game with one role and no chance")
        if status < 0:
            raise ReasonerError("out of memory for nested Monte-Carlo search")
        return bool(status)

    def root(self, role: int) -> TreeRoot:
        """The root's statistics for role index ``role``."""
        branching = (ctypes.c_int32 * self._roles)()
        moves = (ctypes.c_int32 * self._width)()
        visits = (ctypes.c_int32 * self._width)()
        totals = (ctypes.c_double * self._width)()
        terminal = self._lib.ggp_mcts_root(self._tree, role, branching, moves, visits, totals)
        n = branching[role]
        proven = (ctypes.c_double * self._width)()
        value = (ctypes.c_double * 1)()  # the root's own value: its per-move proofs say it
        choice = (ctypes.c_int32 * 1)()
        self._lib.ggp_mcts_proven(self._tree, role, proven, value, choice)
        goal = (ctypes.c_double * 1)()
        first = self._lib.ggp_mcts_line(self._tree, goal) if self._roles == 1 else -1
        return TreeRoot(bool(terminal), tuple(branching), tuple(moves[:n]), tuple(visits[:n]), tuple(totals[:n]),
                        tuple(None if v < 0 else v for v in proven[:n]), None if choice[0] < 0 else choice[0],
                        None if first < 0 else (first, goal[0]))

    def info(self) -> dict[str, int]:
        """Nodes, edges, bytes reserved, ``full`` (1 once the arena stopped growing) and root visits."""
        out = (ctypes.c_int64 * 5)()
        self._lib.ggp_mcts_info(self._tree, out)
        return dict(zip(("nodes", "edges", "bytes", "full", "visits"), out))
