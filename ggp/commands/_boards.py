"""The board a game's states are read on for Ludii's board metrics: the SBG board, or the board the
manager recognises in a GDL game's rules (:mod:`ggp.manager.boards`, the web UI's board)."""

from __future__ import annotations

import logging

from ggp.commands._games import LoadedGame
from ggp.errors import GgpError
from ggp.evaluation.ludii.trace import BoardSpec

log = logging.getLogger(__name__)

DOMAIN_SECONDS = 10.0
"""Longest time spent grounding a GDL game's possible fluents (a board is found without them, from the
initial state and the declared axes, when this runs out)."""


def board_of(game: LoadedGame) -> BoardSpec | None:
    """The game's board, or ``None`` when its rules show none (a GDL game without a cell-like fluent)."""
    if game.sbg is not None:
        from ggp.translators.sbg.parser import parse_sbg

        sbg = parse_sbg(game.sbg, str(game.path))
        return BoardSpec.sbg(sbg.width, sbg.height)
    from ggp.manager.boards import recognise_board
    from ggp.reasoner.domains import initial_fluents, isolated_possible_fluents

    try:
        initial = initial_fluents(game.description)
    except GgpError as exc:
        log.info("%s: no board (the initial state cannot be read: %s)", game.name, exc)
        return None
    try:
        possible = isolated_possible_fluents(game.description, seconds=DOMAIN_SECONDS)
    except GgpError as exc:
        log.info("%s: board from the initial state only (%s)", game.name, exc)
        possible = frozenset()
    geometry = recognise_board(game.description, possible, initial)
    if geometry is None:
        return None
    main = geometry.layers[0]
    return BoardSpec(main.relation, main.arity, main.x, main.y, main.owner, main.piece, geometry.xs, geometry.ys)
