"""A cheap stand-in for the RAPP fitness: seeded random playouts on the pure-Python SBG engine.

Used by ``ggp evolve --fitness playout`` (and as the default when the self-play RAPP fitness is not
installed) and by benchmarks as a quick sanity signal. It has the RAPP shape f = (1 − D)(1 − B)(1 − Q),
with B the colour imbalance and Q the share of plays ending within 10 plies as in RAPP (rapp.md §5),
but with D replaced by the share of plays that reach the turn limit (random play that never ends
says nothing about skill). It is *not* RAPP: it measures no algorithm ladder.

>>> from ggp.generation.generator import generate_game
>>> game = generate_game(random.Random(0), gdl=False)
>>> result = playout_fitness(game, seed=1, playouts=4)
>>> 0.0 <= result.fitness <= 1.0, result.reason
(True, 'random-playout proxy, 4 plays')
"""

from __future__ import annotations

import random

from ggp.evaluation.rapp import TOO_SHORT_PLIES, RappResult
from ggp.translators.sbg.engine import SbgEngine
from ggp.translators.sbg.model import SbgGame


def playout_fitness(game: SbgGame, *, seed: int, playouts: int = 16) -> RappResult:
    """(1 − timeouts)(1 − B)(1 − Q) over ``playouts`` seeded random plays (see the module docstring)."""
    engine = SbgEngine(game)
    rng = random.Random(seed)
    white_points = 0.0
    short = timeouts = 0
    for _ in range(playouts):
        state = engine.initial_state()
        while (outcome := engine.outcome(state)) is None:
            state = engine.apply_unchecked(state, rng.choice(engine.legal_moves(state)))
        white_points += 1.0 if outcome == "white" else 0.5 if outcome == "draw" else 0.0
        short += state.ply <= TOO_SHORT_PLIES
        timeouts += outcome == "draw" and state.ply >= game.turn_limit
    balance = abs(white_points - (playouts - white_points)) / playouts
    quick = short / playouts
    draws = timeouts / playouts
    value = round((1 - draws) * (1 - balance) * (1 - quick), 12)
    return RappResult(value, draws, balance, quick, reason=f"random-playout proxy, {playouts} plays")
