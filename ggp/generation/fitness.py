"""RAPP fitness of an SBG game: translate it, check it can be played, play the model ladder, score it;
or, with an :class:`Objective`, any weighted sum of Ludii's metrics (and the RAPP fitness) on those plays.

The RAPP fitness is what ``ggp evolve`` uses by default. The RAPP model (the algorithms and the mean
performance matrix of the model games) comes from ``ggp evaluate --build-model`` and is shipped as
``ggp/evaluation/data/minimax3_model.json`` (:func:`ggp.evaluation.evaluate.default_model`; docs/rapp_results.md).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ggp.errors import GgpError, InputError
from ggp.evaluation import evaluate
from ggp.evaluation.evaluate import GameReport, RappModel, check_playable, report_game
from ggp.evaluation.ludii.catalogue import ALIASES, METRICS
from ggp.evaluation.ludii.trace import BoardSpec
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
    return GameSource(key, kif, game.turn_limit, to_sbg(game), BoardSpec.sbg(game.width, game.height))


OBJECTIVE_ESTIMATE_PLAYOUTS = 8
"""Random playouts per state when the objective reads state evaluations (as ``ggp evaluate`` does)."""


@dataclass(frozen=True, slots=True)
class Objective:
    """A weighted sum of metrics to maximise: ``rapp`` (the RAPP fitness) or any catalogue metric by its name
    or alias (kept under its catalogue name).

    >>> Objective.parse("DurationTurns:0.01,DramaAverage:2").terms
    (('DurationTurns', 0.01), ('DramaAverage', 2.0))
    >>> Objective.parse("rapp").score({"rapp": 0.5})
    0.5
    """

    terms: tuple[tuple[str, float], ...]

    @classmethod
    def parse(cls, text: str) -> Objective:
        """``NAME[:WEIGHT],...`` (weight 1 by default); raises InputError for an unknown name or weight."""
        terms = []
        for part in (p.strip() for p in text.split(",") if p.strip()):
            name, _, weight = part.partition(":")
            name = ALIASES.get(name, name)
            if name != "rapp" and name not in METRICS:
                raise InputError(f"unknown objective metric {name!r}: expected rapp or a metric name or alias "
                                 "(docs/evaluation.md lists them)")
            try:
                terms.append((name, float(weight) if weight else 1.0))
            except ValueError:
                raise InputError(f"objective weight {weight!r} of {name} is not a number") from None
        if not terms:
            raise InputError("the objective names no metric")
        return cls(tuple(terms))

    @property
    def ludii(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.terms if name != "rapp")

    @property
    def is_rapp(self) -> bool:
        return self.terms == (("rapp", 1.0),)

    def score(self, values: dict[str, float]) -> float:
        """The weighted sum of ``values`` (every term must be there)."""
        return sum(weight * values[name] for name, weight in self.terms)


def _play(game: SbgGame, *, seed: int, model: RappModel, matches_per_seat: int, machines: MachineFactory,
          workers: int, ray_address: str | None, ludii: tuple[str, ...] = ()) -> GameReport | RappResult:
    """Play the model's ladder on the game and report it, or the unplayable verdict."""
    from ggp.players.registry import make_player

    source = game_source(game)
    reason = check_playable(source, machines, seed=seed, players=model.algorithms, player_factory=make_player)
    if reason:
        return unplayable(reason)
    estimate = OBJECTIVE_ESTIMATE_PLAYOUTS if any("evaluations" in METRICS[n].requires for n in ludii) else 0
    moves = 1 if any("clarity" in METRICS[n].requires for n in ludii) else 0
    jobs = round_robin(source, model.algorithms, matches_per_seat=matches_per_seat, seed=seed,
                       estimate_playouts=estimate, move_playouts=moves, observe=bool(ludii))
    results = run_jobs(jobs, make_player, machines, workers=workers, ray_address=ray_address)
    return report_game(source.key, results, model.algorithms, model, metrics=ludii, seed=seed)


def objective_fitness(
    game: SbgGame,
    *,
    seed: int,
    objective: Objective,
    model: RappModel | None = None,
    matches_per_seat: int = DEFAULT_MATCHES_PER_SEAT,
    machines: MachineFactory,
    workers: int = 1,
    ray_address: str | None = None,
) -> RappResult:
    """The objective's weighted sum on the plays of the model's ladder (as the RAPP fitness plays them).

    An unplayable game keeps -1; a term that is n/a for the game (or a RAPP fitness that is not defined)
    makes the objective 0 with the reason, so such games are bred from least.
    """
    model = model or evaluate.default_model()
    if model is None:
        raise GgpError("no RAPP model is installed; build one with 'ggp evaluate games/*.sbg --build-model chess'")
    report = _play(game, seed=seed, model=model, matches_per_seat=matches_per_seat, machines=machines,
                   workers=workers, ray_address=ray_address, ludii=objective.ludii)
    if isinstance(report, RappResult):
        return report
    values: dict[str, float] = {}
    if any(name == "rapp" for name, _ in objective.terms):
        if not report.fitness.playable:
            return report.fitness
        values["rapp"] = report.fitness.fitness
    for name in objective.ludii:
        found = report.metrics[name]
        if found.value is None:
            return RappResult(0.0, reason=f"objective term {name} is n/a: {found.reason}")
        values[name] = found.value
    missing = [name for name, value in values.items() if value != value]  # NaN: RAPP undefined
    if missing:
        return RappResult(0.0, reason=f"objective term {missing[0]} is not defined: {report.fitness.reason}")
    return RappResult(objective.score(values), plays=report.fitness.plays,
                      reason=", ".join(f"{name} {value:.3f}" for name, value in values.items()))


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
    model = model or evaluate.default_model()
    if model is None:
        raise GgpError("no RAPP model is installed; build one with 'ggp evaluate games/*.sbg --build-model chess'")
    report = _play(game, seed=seed, model=model, matches_per_seat=matches_per_seat, machines=machines,
                   workers=workers, ray_address=ray_address)
    return report if isinstance(report, RappResult) else report.fitness
