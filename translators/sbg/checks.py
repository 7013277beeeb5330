"""The §8 checks on a parsed SBG game: errors raise SbgError, warnings go on ``game.warnings``.

Kept apart from the parser because two errors (a goal holding initially, white without a move) need
the reference engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ggp.errors import SbgError, SourcePos
from ggp.translators.sbg.automaton import compile_regex, destinations
from ggp.translators.sbg.model import SIDES, Alt, PlacementGoal, Regex, SbgGame, SbgWarning, Sym


def _letters(regex: Regex) -> Iterator[Sym]:
    if isinstance(regex, Sym):
        yield regex
    elif isinstance(regex, Alt):
        for option in regex.options:
            yield from _letters(option)
    elif hasattr(regex, "parts"):
        for part in regex.parts:
            yield from _letters(part)
    else:
        yield from _letters(regex.child)


def _fits_somewhere(regex: Regex, width: int, height: int) -> bool:
    """Whether some word of the expression stays on the board from some start square (contents ignored)."""
    nfa = compile_regex(regex)
    return any(
        destinations(nfa, (x, y), 1, (width, height), lambda _x, _y, _on: True)
        for x in range(width)
        for y in range(height)
    )


def check_game(game: SbgGame) -> SbgGame:
    """Return ``game`` with its §8 warnings attached; raise SbgError for a §8 error."""
    from ggp.translators.sbg.engine import SbgEngine

    warnings: list[SbgWarning] = []
    start = SourcePos(game.file, 1, 1)
    on_board = {ch for row in game.rows for ch in row if ch != "."}
    types = {ch.upper() for ch in on_board}
    ruled = {rule.letter for rule in game.rules}
    if not any(ch.isupper() for ch in on_board):
        warnings.append(SbgWarning("white (upper case) has no pieces", start))
    if not any(ch.islower() for ch in on_board):
        warnings.append(SbgWarning("black (lower case) has no pieces", start))
    for letter in sorted(types - ruled):
        warnings.append(SbgWarning(f"piece type {letter!r} is on the board but has no rule: it never moves", start))
    for rule in game.rules:
        if rule.letter not in types:
            warnings.append(SbgWarning(f"rule for {rule.letter!r}, a piece type that is not on the board", rule.pos))
        if any(sym.letter.dx == 0 and sym.letter.dy == 0 for sym in _letters(rule.regex)):
            warnings.append(SbgWarning(f"rule for {rule.letter!r} has a letter (0,0,.) that does not move", rule.pos))
        options = rule.regex.options if isinstance(rule.regex, Alt) else (rule.regex,)
        for number, option in enumerate(options, 1):
            if not _fits_somewhere(option, game.width, game.height):
                warnings.append(SbgWarning(
                    f"rule for {rule.letter!r}: alternative {number} never fits on the "
                    f"{game.width}x{game.height} board", rule.pos,
                ))
    for goal in game.goals:
        if goal.letter.upper() not in types | ruled:
            raise SbgError(f"goal names unknown piece {goal.letter!r}: no rule and not on the board", goal.pos)
        if goal.letter not in on_board:
            warnings.append(SbgWarning(f"goal for {goal.letter!r}, which is not on the board, is ignored", goal.pos))
        if isinstance(goal, PlacementGoal):
            for x, y in goal.squares:
                if not (0 <= x < game.width and 0 <= y < game.height):
                    warnings.append(SbgWarning(f"goal square ({x} {y}) is off the board and ignored", goal.pos))
    engine = SbgEngine(game)
    state = engine.initial_state()
    for side in SIDES:
        holding = engine.holding_goal(state.board, side)
        if holding is not None:
            what = "placement" if isinstance(holding, PlacementGoal) else "capture"
            raise SbgError(f"{what} goal {holding.letter!r} already holds in the initial position", holding.pos)
    if not engine.has_move(state, "white"):
        raise SbgError("white (upper case) has no legal move in the initial position", start)
    return dataclasses.replace(game, warnings=tuple(warnings))
