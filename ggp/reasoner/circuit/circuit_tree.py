"""The search tree of a :class:`~ggp.reasoner.circuit.machine.CircuitStateMachine`: the C runtime's tree with
states and moves in place of packed keys and move indices."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ggp.reasoner.circuit.native_tree import NativeTree
from ggp.reasoner.machine import Move, State
from ggp.reasoner.playouts import TreeRootStatistics


class CircuitMctsTree:
    """An MCTS tree searched by the circuit's C runtime (a :class:`~ggp.reasoner.playouts.MctsTree`):
    :class:`~ggp.reasoner.circuit.native_tree.NativeTree` with states and moves in place of packed keys
    and move indices: ``state_key`` packs a state, ``moves`` are the machine's moves by global index."""

    def __init__(self, state_key: Callable[[State], int], moves: Sequence[Move], tree: NativeTree) -> None:
        self._state_key = state_key
        self._moves = moves
        self._tree = tree

    def reroot(self, state: State) -> bool:
        return self._tree.reroot(self._state_key(state))

    def search(self, iterations: int, deadline: float) -> int:
        return self._tree.search(iterations, deadline)

    def nested(self, level: int, deadline: float) -> bool:
        """Nested Monte-Carlo Search of ``level`` from the root, feeding the best line (see
        :meth:`~ggp.reasoner.circuit.native_tree.NativeTree.nested`): True when the level finished before
        ``deadline``. Raises ``ValueError`` unless the game has one role and no chance."""
        return self._tree.nested(level, deadline)

    def root_statistics(self, role: int) -> TreeRootStatistics:
        root = self._tree.root(role)
        moves = tuple(self._moves[m] for m in root.moves)
        return TreeRootStatistics(root.terminal, root.branching, moves, root.visits, root.totals, root.proven,
                                  None if root.proof is None else moves[root.proof],
                                  None if root.line is None else (moves[root.line[0]], root.line[1]))

    def info(self) -> dict[str, int]:
        """Nodes, edges, bytes reserved, ``full`` (1 once the tree stopped growing) and root visits."""
        return self._tree.info()
