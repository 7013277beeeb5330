"""An independent check of the RAPP generation restrictions (rapp.md §4), used by several tests."""

from __future__ import annotations

from ggp.translators.sbg.model import CaptureGoal, PlacementGoal, SbgGame


def rapp_violations(game: SbgGame) -> list[str]:
    """Every way ``game`` breaks the chess-like restrictions; empty when it keeps them all."""
    problems = []
    w, h = game.width, game.height
    if w not in (6, 7, 8) or h not in (6, 7, 8):
        problems.append(f"size {w}x{h}")
    back, front = game.rows[-1], game.rows[-2]
    if game.rows[0] != back.lower() or game.rows[1] != front.lower():
        problems.append("black is not white's mirror image")
    if any(set(row) != {"."} for row in game.rows[2:-2]):
        problems.append("pieces outside the two home rows")
    if back.count("K") != 1 or "K" in front:
        problems.append("not exactly one king on the back row")
    if set(front) - {"P", "."} or "P" not in front or "P" in back:
        problems.append(f"front row {front!r} is not pawns and empties with a pawn")
    others = {ch for ch in back if ch not in ".K"}
    if not 3 <= len(others) <= 5 or any(not ch.isupper() for ch in others):
        problems.append(f"{len(others)} non-winning types")
    if {rule.letter for rule in game.rules} != others | {"K", "P"}:
        problems.append("rules do not match the piece types on the board")
    expected = {
        PlacementGoal("P", tuple((x, h - 1) for x in range(w))),
        PlacementGoal("p", tuple((x, 0) for x in range(w))),
        CaptureGoal("K", 0),
        CaptureGoal("k", 0),
    }
    if set(game.goals) != expected or len(game.goals) != 4:
        problems.append("goals are not @P, @p, #K 0, #k 0")
    if not 3 * w * h <= game.turn_limit <= 3 * w * h + 19:
        problems.append(f"turn limit {game.turn_limit}")
    return problems
