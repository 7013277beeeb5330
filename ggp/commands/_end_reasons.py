"""Why a finished SBG match ended, in words, for the person's end-of-game banner (``"white's P reached
(2, 4)"``, ``"the turn limit of 80 plies was reached"``).

Only the CLI wires concrete classes (STYLE.md): the manager asks a :class:`ggp.manager.wiring.EndReasons`
and this one reads the game's SBG goals (:mod:`ggp.translators.sbg`) against the last state's
``(cell x y owner type)``, ``(control side)`` and ``(step n)`` fluents, which the translation writes with
the SBG coordinates.
"""

from __future__ import annotations

import re

CELL = re.compile(r"\(\s*cell\s+(\d+)\s+(\d+)\s+(white|black)\s+(\w+)\s*\)")
CONTROL = re.compile(r"\(\s*control\s+(white|black)\s*\)")
STEP = re.compile(r"\(\s*step\s+(\d+)\s*\)")


class SbgEndReasons:
    """:class:`ggp.manager.wiring.EndReasons` for games uploaded as SBG; ``None`` for other formats."""

    def explain(self, game_format: str, source: str, final_state: str) -> str | None:
        """The goal the last state meets, else the turn limit, else the side to move having no move.

        >>> game = "<<T>>\\n<BOARD> 1 3\\n|k|\\n|.|\\n|P|\\n<PIECES>\\nP (0,1,e) &\\nK (0,1,e) &\\n" \\
        ...        "<GOALS> 10 &\\n@P 0 2 &\\n#K 0 &\\n#k 0 &\\n"
        >>> SbgEndReasons().explain("sbg", game, "( (cell 0 1 white p) (control black) (step 3) )")
        "black's k was captured"
        >>> SbgEndReasons().explain("sbg", game, "( (cell 0 2 white p) (control black) (step 3) )")
        "white's P reached 0 2"
        >>> SbgEndReasons().explain("sbg", game, "( (cell 0 2 black k) (cell 0 1 white p) (control black) (step 10) )")
        'the turn limit of 10 plies was reached'
        """
        from ggp.translators.sbg.model import CaptureGoal, Side, opponent, owner_of
        from ggp.translators.sbg.parser import parse_sbg

        if game_format != "sbg":
            return None
        game = parse_sbg(source, "game.sbg")
        pieces = [(int(x), int(y), owner, kind) for x, y, owner, kind in CELL.findall(final_state)]
        for goal in game.active_goals():
            owner, kind = owner_of(goal.letter), goal.letter.lower()
            if isinstance(goal, CaptureGoal):
                left = sum(1 for _, _, o, k in pieces if (o, k) == (owner, kind))
                if left <= goal.count:
                    return f"{owner}'s {goal.letter} was captured" if goal.count == 0 else \
                        f"{owner} has {left} {goal.letter} left, at most {goal.count} loses"
            else:
                square = next(((x, y) for x, y, o, k in pieces if (o, k) == (owner, kind) and (x, y) in goal.squares), None)
                if square is not None:
                    return f"{owner}'s {goal.letter} reached {square[0]} {square[1]}"
        step = STEP.search(final_state)
        if step is not None and int(step.group(1)) >= game.turn_limit:
            return f"the turn limit of {game.turn_limit} plies was reached"
        control = CONTROL.search(final_state)
        if control is not None:
            side: Side = "white" if control.group(1) == "white" else "black"
            return f"{side} had no legal move ({opponent(side)} wins)"
        return None
