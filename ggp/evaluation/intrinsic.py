"""Browne's intrinsic criteria: what the rules alone say about a game, computed without playing.

Browne's Ludi measured 16 intrinsic criteria on its own rule language (board, pieces, moves, goals);
what GDL and SBG let us read of them, from the GDL rules (an SBG game through its translation) and the
board the rules show (:class:`~ggp.evaluation.ludii.trace.BoardSpec`):

- ``Roles``; ``BoardSites``, ``BoardWidth``, ``BoardHeight`` (n/a without a board);
- ``PieceTypes`` (distinct owner-and-piece contents on the initial board) and ``PiecesAtStart``;
- ``MoveKinds``: distinct move shapes in the ``legal`` rules (a move's name and arity: ``(mark x y)`` and
  ``noop`` are two kinds; an SBG translation's single ``move`` shape is one);
- ``GoalValues``: distinct goal values the rules can give; ``TerminalRules``: rules ending the game;
- ``RuleCount`` and ``RuleSymbols`` (symbols in all rules): the size of the description.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role x) (role o) (init (control x)) (<= (legal x (mark 1)) (true (control x)))"
...                  " (<= (legal o noop) (true (control x))) (<= (goal x 100) (true (control o)))"
...                  " (<= (goal x 0) (true (control x))) (<= terminal (true (control o)))")
>>> found = intrinsic_criteria(game, None)
>>> found["Roles"], found["MoveKinds"], found["GoalValues"], found["TerminalRules"], found["BoardSites"]
(2.0, 2.0, 2.0, 1.0, None)
"""

from __future__ import annotations

from ggp.evaluation.ludii.trace import BoardSpec
from ggp.gdl.terms import Const, Description, Distinct, Func, Literal, Not, Or, Term

CRITERIA = ("Roles", "BoardSites", "BoardWidth", "BoardHeight", "PieceTypes", "PiecesAtStart", "MoveKinds",
            "GoalValues", "TerminalRules", "RuleCount", "RuleSymbols")
"""The intrinsic criteria, in report order."""


def _size(item: Term | Literal) -> int:
    """Symbols in a term or literal (names, variables, and one for each ``not``, ``distinct`` and ``or``)."""
    if isinstance(item, Func):
        return 1 + sum(_size(arg) for arg in item.args)
    if isinstance(item, Not):
        return 1 + _size(item.arg)
    if isinstance(item, Distinct):
        return 1 + _size(item.left) + _size(item.right)
    if isinstance(item, Or):
        return 1 + sum(_size(d) for d in item.disjuncts)
    return 1


def _shape(move: Term) -> tuple[str, int]:
    return (move.name, len(move.args)) if isinstance(move, Func) else (str(move) if isinstance(move, Const) else "?", 0)


def intrinsic_criteria(description: Description, board: BoardSpec | None) -> dict[str, float | None]:
    """The intrinsic criteria of a game's rules (``None``: does not apply, e.g. no board)."""
    heads = [rule.head for rule in description.rules]
    roles = sum(1 for rule in description.rules if rule.head.name == "role" and not rule.body)
    initial = [h.args[0] for rule in description.rules if (h := rule.head).name == "init" and not rule.body
               and isinstance(h, Func)]
    contents = board.contents(initial) if board is not None else {}
    moves = {_shape(h.args[1]) for h in heads if h.name == "legal" and isinstance(h, Func) and len(h.args) == 2}
    goals = {str(h.args[1]) for h in heads if h.name == "goal" and isinstance(h, Func) and len(h.args) == 2}
    return {
        "Roles": float(roles),
        "BoardSites": None if board is None else float(board.sites),
        "BoardWidth": None if board is None else float(len(board.xs)),
        "BoardHeight": None if board is None or board.y is None else float(len(board.ys)),
        "PieceTypes": None if board is None else float(len(set(contents.values()))),
        "PiecesAtStart": None if board is None else float(sum(t.count("+") + 1 for t in contents.values())),
        "MoveKinds": float(len(moves)),
        "GoalValues": float(len(goals)),
        "TerminalRules": float(sum(1 for h in heads if h.name == "terminal")),
        "RuleCount": float(len(description.rules)),
        "RuleSymbols": float(sum(_size(rule.head) + sum(_size(lit) for lit in rule.body) for rule in description.rules)),
    }
