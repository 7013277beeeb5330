"""Player types by name, and specs like ``mcts:iterations=200,exploration=0.7`` for the CLI and arena.

A spec is ``TYPE[:key=value,...]``. The keys ``iterations``, ``seconds`` and ``depth`` form the
player's own :class:`~ggp.player.Budget`; ``seed`` overrides the seed; any other key goes to the
player's constructor (``exploration`` and ``playouts_per_leaf`` for mcts and dmcts, ``samples``
for dmcts, ``playouts_per_visit`` for monte_carlo, the heuristic ``h`` for minimax). Values are
numbers, except for options the constructor takes as text (``h=WGCM``).

>>> player = make_player("mcts:iterations=50,exploration=0.5", seed=3)
>>> player.name, player.budget, player.exploration
('mcts', Budget(deadline=None, iterations=50, depth=None), 0.5)
>>> make_player("minimax:h=WGC,depth=3").label
'WGC'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ggp.player import Budget
from ggp.players.alphabeta import AlphaBetaPlayer
from ggp.players.base import BasePlayer
from ggp.players.determinized_mcts import DeterminizedMctsPlayer
from ggp.players.legal_player import LegalPlayer
from ggp.players.mcts import MctsPlayer
from ggp.players.minimax import MinimaxPlayer
from ggp.players.monte_carlo import MonteCarloPlayer
from ggp.players.random_player import RandomPlayer

PLAYER_TYPES: dict[str, type[BasePlayer]] = {
    "random": RandomPlayer,
    "legal": LegalPlayer,
    "monte_carlo": MonteCarloPlayer,
    "mcts": MctsPlayer,
    "alphabeta": AlphaBetaPlayer,
    "dmcts": DeterminizedMctsPlayer,
    "minimax": MinimaxPlayer,
}
"""Type name -> class; every class takes ``(seed, budget, **options)``."""

_BUDGET_KEYS = ("iterations", "seconds", "depth")


def _number(key: str, text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"option {key!r} needs a number, found {text!r}") from None


def _text_options(cls: type[BasePlayer]) -> set[str]:
    """Constructor parameters annotated ``str`` (their values stay text)."""
    parameters = inspect.signature(cls.__init__).parameters.values()
    return {p.name for p in parameters if p.annotation in ("str", str)}


def parse_spec(spec: str) -> tuple[str, dict[str, int | float | str]]:
    """Split ``TYPE[:key=value,...]``; raises ``ValueError`` for an unknown type or a bad option."""
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower().replace("-", "_")
    if kind not in PLAYER_TYPES:
        raise ValueError(f"unknown player type {kind!r}; expected one of {', '.join(PLAYER_TYPES)}")
    text_keys = _text_options(PLAYER_TYPES[kind])
    options: dict[str, int | float | str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = item.partition("=")
        if not equals:
            raise ValueError(f"player option {item!r} must look like key=value")
        key = key.strip()
        options[key] = value.strip() if key in text_keys else _number(key, value.strip())
    return kind, options


def make_player(spec: str, seed: int = 0, budget: Budget | None = None) -> BasePlayer:
    """A new player from a spec; spec budget keys are combined with ``budget`` (tightest wins).

    ``seconds`` becomes the player's per-move time limit (:attr:`BasePlayer.move_seconds`).
    Raises ``ValueError`` for an unknown type or option.
    """
    kind, options = parse_spec(spec)
    cls = PLAYER_TYPES[kind]
    seed = int(options.pop("seed", seed))
    seconds = _numeric(options.pop("seconds", None))
    iterations = _numeric(options.pop("iterations", None))
    depth = _numeric(options.pop("depth", None))
    if iterations is not None or depth is not None:
        own = Budget(
            iterations=None if iterations is None else int(iterations),
            depth=None if depth is None else int(depth),
        )
        budget = own.tightest(budget)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "seed", "budget"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        allowed = ", ".join([*_BUDGET_KEYS, "seed", *sorted(accepted)])
        raise ValueError(f"player {kind!r} has no option {unknown[0]!r}; allowed: {allowed}")
    kwargs: dict[str, Any] = dict(options)
    player = cls(seed, budget, **kwargs)
    if seconds is not None:
        if seconds <= 0:
            raise ValueError(f"seconds must be positive, found {seconds:g}")
        player.move_seconds = float(seconds)
    return player


def _numeric(value: int | float | str | None) -> int | float | None:
    if isinstance(value, str):
        raise ValueError(f"budget option needs a number, found {value!r}")
    return value


PlayerFactory = Callable[[], BasePlayer]
