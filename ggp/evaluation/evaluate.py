"""Evaluating games: playability, self-play, quality criteria and RAPP fitness in one report per game.

The flow for ``ggp evaluate``: check that each game can be played at all (:func:`check_playable`);
play a round robin of the player ladder with seat rotation (:mod:`ggp.evaluation.selfplay`); turn the
results into the performance matrix, the metrics of the catalogue (:mod:`ggp.evaluation.ludii.catalogue`: Ludii's
metrics and the Ludi criteria, each once) and, given a RAPP model, the fitness.
A RAPP model (the mean matrix of the model games and the chosen algorithms) is built from the example
games with :func:`build_model` and stored as JSON.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ggp.errors import GgpError
from ggp.evaluation import rapp
from ggp.evaluation.ludii.catalogue import CORE, METRICS, Measured, measure, resolve
from ggp.evaluation.selfplay import GameSource, MachineFactory, MatchResult, PlayerFactory, machine_for
from ggp.gdl.parser import parse_kif
from ggp.match.local import players_problem
from ggp.protocol.messages import uses_sees

DEFAULT_LADDER = ("random", "mcts:iterations=200", "alphabeta:depth=2")
"""The default algorithms: weakest first, knowledge-free except alpha-beta's generic evaluation."""

SHIPPED_MODELS = {
    "minimax3": Path(__file__).with_name("data") / "minimax3_model.json",
    "minimax4": Path(__file__).with_name("data") / "minimax4_model.json",
    "mcts": Path(__file__).with_name("data") / "mcts_model.json",
}
"""The RAPP models shipped with the package, by name: the paper's heuristic min-max models with 3 and 4
algorithms (built from the example games, docs/rapp_results.md) and the knowledge-free MCTS ladder."""
DEFAULT_MODEL_PATH = SHIPPED_MODELS["minimax3"]
"""The default model: the paper's 3-algorithm min-max model."""


def seat_problem(game: GameSource) -> str | None:
    """Why self-play cannot seat ``game`` (one line naming what would fit), else
    ``None``. Checked before any match, so such a game is refused at once instead of by every match.

    Any number of player roles is seated (:func:`~ggp.evaluation.selfplay.seatings` rotates the specs
    over every role, repeating them when there are fewer specs than roles); a GDL-II game (``sees``) is
    refused, since self-play hands every player the true state.
    """
    if game.sbg is None and uses_sees(parse_kif(game.kif, game.key)):
        return ("a GDL-II game (sees): self-play would show every player the true state; play it with "
                "ggp arena or ggp match and GDL-II players (dmcts)")
    return None


def check_playable(
    game: GameSource,
    machine_factory: MachineFactory,
    *,
    playouts: int = 3,
    step_cap: int = 1000,
    seed: int = 0,
    players: Sequence[str] = (),
    player_factory: PlayerFactory | None = None,
) -> str | None:
    """None when the game can be played, else the reason it cannot (one line).

    The machine comes from ``machine_factory`` (cached per process, so the matches that follow reuse it).

    Checks: the rules build a state machine, every role has a legal move in the initial state, random
    playouts end within the game's turn limit (or ``step_cap``), and every role gets a goal at the end.
    With ``players`` (specs) and ``player_factory``, each player must also accept every role of the
    game (a min-max whose heuristic needs a board says so here, not by playing fallback moves).
    """
    try:
        machine = machine_for(game, machine_factory)
    except GgpError as exc:
        return f"the rules cannot be used: {exc}"
    if player_factory is not None:
        refused = players_problem(machine, players, player_factory, seed=seed)
        if refused is not None:
            return refused
    rng = random.Random(seed)
    limit = (game.turn_limit + 1) if game.turn_limit else step_cap
    try:
        start = machine.initial_state()
        if not machine.is_terminal(start):
            for role in machine.roles:
                if not machine.legal_moves(start, role):
                    return f"role {role} has no legal move in the initial state"
        else:
            return "the initial state is already terminal"
        for _ in range(playouts):
            state = start
            for _step in range(limit):
                if machine.is_terminal(state):
                    break
                joint = []
                for role in machine.roles:
                    options = machine.legal_moves(state, role)
                    if not options:
                        return f"role {role} has no legal move in a reachable non-terminal state"
                    joint.append(options[rng.randrange(len(options))])
                state = machine.next_state(state, tuple(joint))
            else:
                return f"a random playout did not end within {limit} steps"
            machine.goals(state)
    except GgpError as exc:
        return str(exc)
    return None


@dataclass(frozen=True, slots=True)
class RappModel:
    """The reference profile: algorithms (in matrix order), the model games and their mean matrix."""

    algorithms: tuple[str, ...]
    games: tuple[str, ...]
    matrix: tuple[tuple[float, ...], ...]

    @property
    def array(self) -> np.ndarray:
        return np.array(self.matrix, dtype=float)

    def to_json(self) -> dict[str, Any]:
        return {"algorithms": list(self.algorithms), "games": list(self.games), "matrix": [list(r) for r in self.matrix]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RappModel:
        try:
            algorithms = tuple(str(a) for a in data["algorithms"])
            matrix = tuple(tuple(float(v) for v in row) for row in data["matrix"])
            games = tuple(str(g) for g in data.get("games", ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise GgpError(f"not a RAPP model: {exc}") from None
        if len(matrix) != len(algorithms) or any(len(row) != len(algorithms) for row in matrix):
            raise GgpError("not a RAPP model: the matrix does not match the algorithm list")
        return cls(algorithms, games, matrix)

    @classmethod
    def load(cls, path: Path) -> RappModel:
        try:
            return cls.from_json(json.loads(path.read_text()))
        except json.JSONDecodeError as exc:
            raise GgpError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None


def model_named(text: str) -> RappModel:
    """A shipped model by name (``minimax3``, ``minimax4``, ``mcts``) or a model JSON file; raises GgpError."""
    path = SHIPPED_MODELS.get(text, Path(text))
    if not path.is_file():
        raise GgpError(f"no RAPP model {text!r}: give a JSON file or one of {', '.join(SHIPPED_MODELS)}")
    return RappModel.load(path)


def default_model(specs: Sequence[str] | None = None, path: Path = DEFAULT_MODEL_PATH) -> RappModel | None:
    """The shipped RAPP model, or None when there is none or (given ``specs``) not all its algorithms are
    among ``specs``."""
    if not path.is_file():
        return None
    model = RappModel.load(path)
    return model if specs is None or set(model.algorithms) <= set(specs) else None


def plays_of(results: Sequence[MatchResult]) -> list[rapp.Play]:
    """Two-player results as RAPP plays (white = the first role); failed matches are left out."""
    plays = []
    for result in results:
        if result.error or len(result.goals) != 2:
            continue
        white, black = result.goals
        score = 1.0 if white > black else 0.0 if white < black else 0.5
        plays.append(rapp.Play(result.players[0], result.players[1], score, result.length))
    return plays


def build_model(
    results_by_game: Mapping[str, Sequence[MatchResult]], algorithms: Sequence[str], *, anchor: str, k: int | None = None
) -> RappModel:
    """Choose the model games (the closest group containing ``anchor``) and, if ``k``, k model algorithms."""
    matrices = {game: rapp.performance_matrix(plays_of(res), algorithms) for game, res in results_by_game.items()}
    matrices = {g: m for g, m in matrices.items() if not np.isnan(m).any()}
    if anchor not in matrices:
        raise GgpError(f"the anchor game {anchor!r} has no complete results")
    games = rapp.choose_model_games(matrices, anchor)
    model = rapp.model_matrix(matrices, games)
    chosen = tuple(algorithms)
    if k is not None and k < len(algorithms):
        chosen = rapp.choose_model_algorithms(model, algorithms, k)
        index = [algorithms.index(a) for a in chosen]
        model = model[np.ix_(index, index)]
    return RappModel(chosen, games, tuple(tuple(float(v) for v in row) for row in model))


@dataclass(frozen=True, slots=True)
class GameReport:
    """Everything ``ggp evaluate`` says about one game."""

    game: str
    algorithms: tuple[str, ...]
    matches: int
    failed: int
    matrix: tuple[tuple[float | None, ...], ...]
    lengths: tuple[int, ...]
    fitness: rapp.RappResult
    unplayable: str | None = None
    errors: tuple[str, ...] = field(default=())
    fallbacks: Mapping[str, int] = field(default_factory=dict)
    """Per player spec, the moves the match loop played for it (it raised, or chose an illegal move): its
    results then count moves it did not choose, which the summary and the report say."""
    metrics: Mapping[str, Measured] = field(default_factory=dict)
    """The catalogue's metrics by name (:mod:`ggp.evaluation.ludii.catalogue`): the Ludi criteria
    (:data:`~ggp.evaluation.ludii.catalogue.CORE`) and the ones asked for, in catalogue order."""
    roles: int = 2
    intrinsic: Mapping[str, float | None] = field(default_factory=dict)
    """Browne's intrinsic criteria, from the rules alone (:mod:`ggp.evaluation.intrinsic`)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data; NaN (undefined) values become null."""
        data: dict[str, Any] = _without_nan({
            "game": self.game,
            "algorithms": list(self.algorithms),
            "matches": self.matches,
            "failed": self.failed,
            "fallbacks": dict(self.fallbacks),
            "win_matrix": [list(row) for row in self.matrix],
            "lengths": list(self.lengths),
            "rapp": {
                "fitness": self.fitness.fitness,
                "distance": self.fitness.distance,
                "balance": self.fitness.balance,
                "quickness": self.fitness.quickness,
                "reason": self.fitness.reason,
                "plays": self.fitness.plays,
                "intervals": {name: [iv.low, iv.high] for name, iv in self.fitness.intervals},
            },
            "unplayable": self.unplayable,
            "errors": list(self.errors),
            "roles": self.roles,
            "intrinsic": dict(self.intrinsic),
            "metrics": {name: found.to_json() for name, found in self.metrics.items()},
        })
        return data


def _without_nan(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _without_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nan(v) for v in value]
    return value


def report_game(
    game: str,
    results: Sequence[MatchResult],
    algorithms: Sequence[str],
    model: RappModel | None,
    *,
    preferred_length: int = 60,
    roles: int = 2,
    metrics: Sequence[str] = (),
    seed: int = 0,
) -> GameReport:
    """The win matrix, (with a model) the RAPP fitness and the metrics (the Ludi criteria and the ones named,
    see :mod:`ggp.evaluation.ludii.catalogue`) of one game from its results. RAPP compares two players, so
    for a game of another number of ``roles`` its fitness is n/a with that reason. ``preferred_length`` is
    Ludi's preferred length in moves (``LudiDuration``)."""
    good = [r for r in results if not r.error]
    errors = tuple(sorted({r.error for r in results if r.error}))
    plays = plays_of(good)
    matrix = rapp.performance_matrix(plays, algorithms) if plays else np.full((len(algorithms),) * 2, np.nan)
    shown = tuple(tuple(None if np.isnan(v) else float(v) for v in row) for row in matrix)
    if not good:
        fitness = rapp.unplayable(errors[0] if errors else "no match was played")
    elif roles != 2:
        fitness = rapp.RappResult(float("nan"), reason=f"RAPP compares two players; this game has {roles} role"
                                  + ("s" if roles > 1 else ""))
    elif model is None:
        fitness = rapp.RappResult(float("nan"), None, rapp.colour_balance(plays), rapp.quickness(plays), "no RAPP model given")
    else:
        model_plays = [p for p in plays if p.white in model.algorithms and p.black in model.algorithms]
        fitness = rapp.evaluate_game(model_plays, model.algorithms, model.array)
    return GameReport(
        game,
        tuple(algorithms),
        len(results),
        len(results) - len(good),
        shown,
        tuple(r.length for r in good),
        fitness,
        None,
        errors,
        fallbacks_by_player(good),
        measure([r.to_trace() for r in good], wanted(metrics), seed=seed, preferred_length=preferred_length),
        roles,
    )


def fallbacks_by_player(results: Sequence[MatchResult]) -> dict[str, int]:
    """The fallback moves of each player spec over ``results`` (specs without any left out)."""
    counts: dict[str, int] = {}
    for result in results:
        for spec, count in zip(result.players, result.fallback_roles):
            if count:
                counts[spec] = counts.get(spec, 0) + count
    return counts


def wanted(names: Sequence[str]) -> list[str]:
    """The metrics an evaluation measures: the Ludi criteria and ``names`` (published names or aliases), each
    once under its catalogue name, in catalogue order."""
    chosen = {*CORE, *(resolve(name) for name in names)}
    return [name for name in METRICS if name in chosen]


def unplayable_report(game: str, algorithms: Sequence[str], reason: str, metrics: Sequence[str] = ()) -> GameReport:
    """The report of a game that could not be played at all: fitness -1 and the reason (every metric it
    would have measured is n/a with it)."""
    empty = tuple(tuple(None for _ in algorithms) for _ in algorithms)
    return GameReport(game, tuple(algorithms), 0, 0, empty, (), rapp.unplayable(reason), reason,
                      metrics={name: Measured(None, f"unplayable: {reason}") for name in wanted(metrics)})
