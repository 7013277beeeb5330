"""The named reasoner engines and :func:`make_machine`, the one place that picks a StateMachine class.

Engines are imported lazily (``"module:factory"``), so choosing the clingo engine never loads the
compiled circuit and vice versa. A factory is called as ``factory(description, limits)``.

- ``clingo``: :class:`~ggp.reasoner.clingo_machine.ClingoStateMachine`, grounded once per game.
- ``naive``: :class:`~ggp.reasoner.naive.NaiveStateMachine`, grounds again for every query (baseline).
- ``circuit``: the compiled fast path (``ggp.reasoner.circuit``), when it is installed; games it cannot
  compile (over the compiler's budget or the grounding limits) get what ``auto`` picks, with a logged notice.
  ``circuit:c``, ``circuit:interpreter`` and ``circuit:numpy`` pick how the circuit is evaluated.
- ``per-state``: :class:`~ggp.reasoner.per_state.PerStateMachine`, compiled rules evaluated per state
  (for games whose fluent domain is too large to ground once; see ``ggp.reasoner.auto``).
- ``prover``: :class:`~ggp.reasoner.prover.ProverMachine`, tabled top-down resolution per query (for
  games whose relations are too large to enumerate bottom-up: lists, accumulators, huge static tables).
- ``auto``: :func:`~ggp.reasoner.auto.choose_machine`, clingo when the game grounds within a budget,
  else the per-state machine, else the prover (the default of every command).

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
>>> machine = make_machine(game, "naive")
>>> [str(m) for m in machine.legal_moves(machine.initial_state(), machine.roles[0])]
['go']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast

from ggp.errors import IllegalMoveError, NotStratifiedError, ReasonerError
from ggp.gdl.terms import Description
from ggp.reasoner.machine import GroundingLimits, StateMachine

EngineFactory = Callable[[Description, GroundingLimits | None], StateMachine]

ENGINES: dict[str, str] = {
    "clingo": "ggp.reasoner.clingo_machine:cached_clingo_machine",
    "naive": "ggp.reasoner.naive:NaiveStateMachine",
    "circuit": "ggp.reasoner.circuit:make_fast_machine",  # falls back to auto when it cannot compile
    "per-state": "ggp.reasoner.per_state:PerStateMachine",
    "prover": "ggp.reasoner.prover:ProverMachine",  # top-down, tabled: grounds nothing
    "auto": "ggp.reasoner.auto:choose_machine",  # ground once within a budget, else per-state
}
"""Engine name -> ``"module:factory"``; add an entry to register an engine."""

DEFAULT_ENGINE = "clingo"

CIRCUIT_EVALUATORS = ("auto", "c", "interpreter", "numpy")
"""Options of the circuit engine, written ``circuit:OPTION``: how the circuit is run (``interpreter``
needs no per-game C build; see :mod:`ggp.reasoner.circuit.evaluate`)."""


def engine_factory(engine: str) -> EngineFactory:
    """The factory of a named engine; raises ReasonerError for an unknown or unavailable engine."""
    try:
        target = ENGINES[engine]
    except KeyError:
        raise ReasonerError(f"unknown engine {engine!r}; expected one of {', '.join(sorted(ENGINES))}") from None
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        factory = getattr(module, attribute)
    except (ImportError, AttributeError) as exc:
        raise ReasonerError(f"engine {engine!r} is not available ({exc})") from exc
    return cast(EngineFactory, factory)


def check_engine(engine: str) -> str:
    """``engine`` when it names a registered engine (``circuit`` with an optional ``:evaluator``), else
    ReasonerError with the names that are; the commands check ``--engine`` with it before any game is read."""
    name, _, option = engine.partition(":")
    if name not in ENGINES:
        raise ReasonerError(f"unknown engine {name!r}; expected one of {', '.join(sorted(ENGINES))}")
    if option and name != "circuit":
        raise ReasonerError(f"engine {name!r} takes no option (got {engine!r})")
    if option and option not in CIRCUIT_EVALUATORS:
        raise ReasonerError(
            f"unknown circuit evaluator {option!r} in {engine!r}; expected one of {', '.join(CIRCUIT_EVALUATORS)}"
        )
    return engine


def make_machine(
    description: Description,
    engine: str = DEFAULT_ENGINE,
    limits: GroundingLimits | None = None,
    *,
    validate: bool = True,
) -> StateMachine:
    """A StateMachine for ``description`` built by the named engine.

    With ``validate`` (the default) the description first goes through the static GDL validator,
    so an unsafe, unstratified or otherwise invalid game is refused with a
    :class:`~ggp.errors.GdlValidationError` (with its position) before any grounding; pass
    ``validate=False`` only for descriptions that were validated already. Raises
    :class:`ReasonerError` when the engine is unknown or grounding exceeds ``limits`` (one line that names
    the game, the engine and the limit), :class:`~ggp.errors.NotStratifiedError` for a ground negative cycle.
    """
    name, _, option = check_engine(engine).partition(":")
    factory = engine_factory(name)
    if validate:
        from ggp.gdl.validator import check_or_raise

        check_or_raise(description)
    try:
        if option:
            return cast(Callable[..., StateMachine], factory)(description, limits, evaluator=option)
        return factory(description, limits)
    except (NotStratifiedError, IllegalMoveError):
        raise
    except ReasonerError as exc:
        message = str(exc)
        if "no engine can play this game" in message:
            raise  # a fallback's one line names every engine it tried already
        # One line that names the engine tried, besides the game and the limit hit.
        prefix = f"{description.file}: "
        reason = message[len(prefix):] if message.startswith(prefix) else message
        raise ReasonerError(f"{description.file}: the {engine} engine cannot play this game: {reason}") from exc


def engine_name(machine: StateMachine) -> str:
    """The registered engine that answers for ``machine``, looked up through answer caches and upgrades
    (``inner``, ``current``): e.g. ``clingo`` or ``circuit (c)`` (the circuit with its evaluator); the class
    name for a machine of no registered engine. Each engine's class says its name (``engine``)."""
    for _ in range(8):
        name: str | None = getattr(type(machine), "engine", None)
        if name == "circuit":
            evaluator = getattr(getattr(machine, "evaluator", None), "name", None)
            return f"circuit ({evaluator})" if evaluator else name
        if name is not None:
            return name
        if "inner" in getattr(machine, "__dict__", {}):  # an answer cache (wrappers.CachedStateMachine)
            machine = vars(machine)["inner"]
        elif isinstance(vars(type(machine)).get("current"), property):  # an upgrade (upgrade.UpgradingMachine)
            machine = getattr(machine, "current")  # noqa: B009 - the protocol has no such attribute
        else:
            break
    return type(machine).__name__


class KifSource(Protocol):
    """A game by name and KIF text (e.g. :class:`ggp.evaluation.selfplay.GameSource`)."""

    @property
    def key(self) -> str: ...

    @property
    def kif(self) -> str: ...


@dataclass(frozen=True, slots=True)
class KifMachines:
    """Builds a game's machine from its KIF text with one engine: the machine factory the CLI hands to
    evaluation (picklable and hashable, so worker processes and Ray tasks get it and cache by it).

    ``auto`` (the default) here means the compiled circuit first: self-play plays many matches on one
    game, so compiling once pays (``ggp evaluate --engine auto``); a game the circuit cannot compile gets
    the reasoner's ``auto`` (ground once, else per state, else the prover). Raises what
    :func:`make_machine` raises.
    """

    engine: str = "auto"

    @property
    def resolved(self) -> str:
        """The engine name :func:`make_machine` gets (``auto`` resolved as above)."""
        if self.engine != "auto":
            return self.engine
        return "circuit"

    def __call__(self, game: KifSource) -> StateMachine:
        from ggp.gdl.parser import parse_kif

        return make_machine(parse_kif(game.kif, game.key), self.resolved)
