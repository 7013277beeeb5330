"""RAPP fitness of an SBG game: translate it, check it can be played, play the model ladder, score it.

This is the fitness ``ggp evolve`` uses by default. The RAPP model (the algorithms and the mean
performance matrix of the model games) comes from ``ggp evaluate --build-model`` and is shipped as
``ggp/evaluation/data/minimax3_model.json`` (:func:`ggp.evaluation.evaluate.default_model`; docs/rapp_results.md).
"""

from __future__ import annotations

import hashlib

from ggp.errors import GgpError
from ggp.evaluation import evaluate
from ggp.evaluation.evaluate import RappModel, check_playable, report_game
from ggp.evaluation.rapp import RappResult, unplayable
from ggp.evaluation.selfplay import GameSource, MachineFactory, round_robin, run_jobs
from ggp.gdl.printer import to_kif
from ggp.translators.sbg.model import SbgGame
from ggp.translators.sbg.printer import to_sbg
from ggp.translators.sbg.to_gdl import translate

DEFAULT_MATCHES_PER_SEAT = 2


def game_source(game: SbgGame) -> GameSource:
    """The game as SBG and KIF, keyed by a hash of its rules (so equal games share a machine)."""
    kif = to_kif(translate(game))
    key = f"{game.name.replace(' ', '_') or 'game'}-{hashlib.sha1(kif.encode()).hexdigest()[:10]}"
    return GameSource(key, kif, game.turn_limit, to_sbg(game))


def rapp_fitness(
    game: SbgGame,
    *,
    seed: int,
    model: RappModel | None = None,
    matches_per_seat: int = DEFAULT_MATCHES_PER_SEAT,
    machines: MachineFactory,
    workers: int = 1,
    ray_address: str | None = None,
) -> RappResult:
    """f = (1 - D)(1 - B)(1 - Q) over plays of the model's algorithms, or -1 with a reason.

    ``machines`` builds each game's state machine (the command wires it:
    ``ggp.commands._games.GameMachines``, which plays SBG games on the SBG engine).
    """
    from ggp.players.registry import make_player

    model = model or evaluate.default_model()
    if model is None:
        raise GgpError("no RAPP model is installed; build one with 'ggp evaluate games/*.sbg --build-model chess'")
    source = game_source(game)
    reason = check_playable(source, machines, seed=seed, players=model.algorithms, player_factory=make_player)
    if reason:
        return unplayable(reason)
    jobs = round_robin(source, model.algorithms, matches_per_seat=matches_per_seat, seed=seed)
    results = run_jobs(jobs, make_player, machines, workers=workers, ray_address=ray_address)
    return report_game(source.key, results, model.algorithms, model).fitness
