"""Wiring shared by ``ggp serve``, ``ggp match`` and ``ggp demo``: games on disk, reasoner, built-in players.

Only the CLI wires concrete classes (STYLE.md), so this is where the manager meets the reasoner engine
and the ``players/`` package. Built-in players run as in-process HTTP players on loopback ports when
the player HTTP server (:mod:`ggp.protocol.server`) is available.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ggp.commands._games import DEFAULT_ENGINE, GameMachines
from ggp.gdl.terms import Description, Term
from ggp.manager.launcher import AppLauncher
from ggp.reasoner.machine import StateMachine

if TYPE_CHECKING:
    from ggp.protocol.server import PlayerLimits

log = logging.getLogger(__name__)


def machine_factory(engine: str = DEFAULT_ENGINE) -> Callable[[Description], StateMachine]:
    """The manager's machines (its referee, its built-in players): :class:`~ggp.commands._games.GameMachines`
    of ``engine``, the factory every command uses, so an SBG game read by this process plays on the SBG
    engine here as in ``ggp arena`` and ``ggp evaluate``."""
    return GameMachines(engine)


def builtin_launcher(seed: int = 0, options: str = "", engine: str = DEFAULT_ENGINE,
                     limits: PlayerLimits | None = None) -> AppLauncher | None:
    """An :class:`AppLauncher` for every player type except ``random`` (which the manager plays
    itself), or ``None`` when the player HTTP server is not available.

    With ``limits`` each launched player reasons in its own worker process under them, as ``ggp
    player`` does (``ggp serve``: a heavy game or a runaway search can then not take the manager's
    memory); without, in a thread of this process sharing its grounded machines (quick matches:
    ``ggp match``, ``ggp demo``)."""
    try:
        from ggp.players.registry import PLAYER_TYPES, make_player
        from ggp.protocol.server import create_player_app
    except ImportError as exc:
        log.warning("built-in players unavailable (%s); only 'random' and remote players can play", exc)
        return None
    seeds = itertools.count(seed)
    machines = machine_factory(engine)

    def factory(kind: str) -> Callable[[], Any]:
        spec = f"{kind}:{options}" if options else kind
        if limits is None:
            return lambda: create_player_app(lambda: make_player(spec, seed=next(seeds)), kind,
                                             machine_factory=machines)
        # The worker gets the factories by pickling: partials of module-level functions, one seed per launch.
        return lambda: create_player_app(functools.partial(make_player, spec, seed=next(seeds)), kind,
                                         machine_factory=machines, limits=limits)

    return AppLauncher({kind: factory(kind) for kind in PLAYER_TYPES if kind != "random"})


def sbg_to_kif(text: str, file: str) -> str:
    """A Simplified Boardgames game as KIF (``ggp.translators.sbg``); raises :class:`~ggp.errors.SbgError`
    (``file:line:column: message``) for a bad file. Warnings are logged. The translation is registered
    (:func:`~ggp.commands._games.register_sbg`), so this process's machines play it on the SBG engine."""
    from ggp.commands._games import register_sbg
    from ggp.gdl.printer import to_kif
    from ggp.translators.sbg.parser import parse_sbg
    from ggp.translators.sbg.to_gdl import translate

    game = parse_sbg(text, file)
    for warning in game.warnings:
        log.warning("%s", warning)
    description = translate(game)
    register_sbg(description, text, file)
    return to_kif(description)


def game_translators() -> dict[str, Callable[[str, str], str]]:
    """Formats the manager translates to KIF on upload: ``sbg`` when ``ggp.translators.sbg`` is available."""
    try:
        import ggp.translators.sbg  # noqa: F401
    except ImportError as exc:
        log.warning("SBG upload unavailable (%s)", exc)
        return {}
    return {"sbg": sbg_to_kif}


def board_fluents(description: Description) -> frozenset[Term]:
    """Every fluent a game can hold, for the manager's board geometry: the reasoner's ``base`` facts, else
    its relaxed fluent domain, grounded in a child process bounded in time and memory (a game too large
    to ground in time is drawn from its initial state alone)."""
    from ggp.reasoner.domains import isolated_possible_fluents

    return isolated_possible_fluents(description)
