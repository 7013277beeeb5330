"""choose_machine: ground the game once when that fits a budget, else evaluate per state, else prove top-down.

Grounding once (:class:`~ggp.reasoner.clingo_machine.ClingoStateMachine`) gives the fastest queries
but its domain analysis can explode on games with wide fluents. The per-state reasoner
(:class:`~ggp.reasoner.per_state.PerStateMachine`) grounds only the static relations and evaluates the
rest bottom-up per state: fast on wide fluents, but a game whose static relations are huge
(mummymaze1p), infinite (laikLee_hex's lists) or whose per-state relations explode bottom-up (merrills'
count accumulator) defeats it too. The prover (:class:`~ggp.reasoner.prover.ProverMachine`) evaluates
top-down and only what a query needs: it starts at once and plays every corpus game, but a step costs
about 10x the per-state reasoner's, so it comes last.

When grounding once fails, the prover is probed first (a short seeded playout in this process, bounded
by its own limits). If it passes, the per-state reasoner gets :data:`PER_STATE_PROBE_SECONDS` to compute
its static relations *and* play the same kind of short playout in a child process (killed on time, so a
per-state query that explodes costs that budget, not a hang); the parent then builds it from the static
facts the child returns. If the per-state reasoner fails or is too slow, the probed prover plays. A
game whose grounding or per-state probe failed earlier in this process (with at least the same
budget) skips that attempt, so an arena pays for them once. The choice is logged at INFO and the
reason for each fallback at WARNING.

Building is not the only test: a grounded game can be slow per state (checkers, chineseCheckers3: clingo
answers each state from a large ground program, 70-260 ms a step, where the per-state reasoner needs
0.2-0.6 ms and the prover 1-4 ms). When a timing playout on the grounded machine exceeds
:data:`SLOW_STEP_SECONDS` per step, the per-state reasoner (probed in a child as below) and the prover
play the same kind of playout, and the faster of them plays the game when it is :data:`PROVER_SPEEDUP`
times faster than the grounded machine. A per-state reasoner chosen after a failed grounding gets the
prover's check (chineseCheckers3 when grounding ran out of time on a loaded machine: 254 ms
a step per state, 0.7 ms on the prover).

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
>>> type(choose_machine(game, GroundingLimits(isolate=False)).inner).__name__
'ClingoStateMachine'
>>> type(choose_machine(game, GroundingLimits(isolate=False, max_atoms=5))).__name__
'PerStateMachine'
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import replace

from ggp.errors import GgpError, NotStratifiedError, ReasonerError
from ggp.gdl.terms import Description
from ggp.reasoner.clingo_machine import cached_clingo_machine
from ggp.reasoner.isolation import IsolationError, grounding_error, run_isolated
from ggp.reasoner.machine import GroundingLimits, StateMachine
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.prover import ProverMachine
from ggp.reasoner.relations import Facts, static_model
from ggp.reasoner.rulecode import program_from_static, split_rules
from ggp.reasoner.wrappers import Builder, first_that_builds

log = logging.getLogger(__name__)

GROUND_ONCE_SECONDS = 10.0
"""Default time budget for the ground-once attempt (per grounding phase, in a child process)."""

GROUND_ONCE_ATOMS = 2_000_000
"""Default ground-atom budget for the ground-once attempt."""

PROBE_STEPS = 4
"""Joint moves of the seeded random playout that probes the prover and the per-state reasoner."""

PROVER_PROBE_SECONDS = 10.0
"""Time limit of each prover query during its probe."""

PER_STATE_PROBE_SECONDS = 10.0
"""Budget of the per-state reasoner's child (static relations plus probe playout) when the prover passed
its probe; without a working prover it gets the caller's full limits instead."""

SLOW_STEP_SECONDS = 0.005
"""A grounded game slower than this per step of a timing playout (thread CPU) is timed on the prover too."""

TIMING_CPU_SECONDS = 0.3
"""A timing playout stops after the step that takes it past this much CPU (its mean is then clear)."""

PROVER_SPEEDUP = 3.0
"""The per-state reasoner or the prover replaces a slow machine when it is at least this many times faster
per step."""

_PREFER: dict[Description, str] = {}
"""Games whose slow grounded machine was timed against the per-state reasoner and the prover in this
process, and the engine that won (``grounded``, ``per-state`` or ``prover``: a second choice for the game
must not differ because the first one warmed the answer caches)."""

_FAILED: dict[Description, tuple[GroundingLimits, str]] = {}
"""Games whose ground-once attempt failed in this process, with the limits it had and why (an arena plays
many matches of one game: only the first pays for the attempt)."""
_FAILED_SIZE = 64

_PER_STATE_FAILED: dict[Description, float] = {}
"""Games whose per-state probe failed in this process, with the seconds it had (a later choice for the
game goes from the failed grounding straight to the prover)."""


def auto_limits(limits: GroundingLimits | None, seconds: float = GROUND_ONCE_SECONDS) -> GroundingLimits:
    """The limits of the ground-once attempt: the caller's, capped by the auto budget."""
    if limits is None:
        return GroundingLimits(seconds=seconds, max_atoms=GROUND_ONCE_ATOMS)
    return replace(limits, seconds=min(limits.seconds, seconds), max_atoms=min(limits.max_atoms, GROUND_ONCE_ATOMS))


def choose_machine(
    description: Description, limits: GroundingLimits | None = None, *, budget_seconds: float = GROUND_ONCE_SECONDS
) -> StateMachine:
    """A (cached) ClingoStateMachine if the game grounds within the budget, else a PerStateMachine, else a
    ProverMachine (see the module notes for how the last two are probed).

    ``limits`` bounds the ground-once attempt, capped at ``budget_seconds`` per grounding phase and
    :data:`GROUND_ONCE_ATOMS` atoms; with ``isolate`` (the default) the attempt runs in a child process
    so a grounding that explodes is killed on time (the budget is what a game too wide to ground costs
    at start-up). A game that failed with at least these limits earlier in this process goes straight
    to the per-state reasoner. With ``isolate`` false no child process is started: the per-state
    reasoner is then built without a probe. Raises :class:`ReasonerError` only when the prover fails too.
    """
    attempt = auto_limits(limits, budget_seconds)
    candidates: list[tuple[str, Builder]] = []
    failed = _FAILED.get(description)
    skipped = failed is not None and failed[0].seconds >= attempt.seconds and failed[0].max_atoms >= attempt.max_atoms
    if skipped:
        log.info("%s: grounding once failed earlier in this process with at least these limits", description.file)
    else:
        # (The prover's speed check logs its verdict itself.)
        candidates.append(("ground-once (clingo)",
                           lambda game: _ground_once_or_faster(game, attempt, limits or GroundingLimits())))
    probed: list[ProverMachine | ReasonerError] = []

    def prover(game: Description) -> ProverMachine:
        if not probed:
            probed.append(_probed_prover(game, limits or GroundingLimits()))
        result = probed[0]
        if isinstance(result, ReasonerError):
            raise result
        return result

    def per_state(game: Description) -> StateMachine:
        caller = limits or GroundingLimits()
        if not caller.isolate:  # no child processes: the per-state reasoner as it is
            return PerStateMachine(game, caller)
        try:
            prover(game)
        except ReasonerError:
            budget = caller.seconds  # nothing to fall back to: the caller's full limits
        else:
            budget = min(caller.seconds, PER_STATE_PROBE_SECONDS)
        failed_budget = _PER_STATE_FAILED.get(game)
        if failed_budget is not None and failed_budget >= budget:
            raise ReasonerError(f"{game.file}: its probe failed earlier in this process with at least {budget:g} s")
        try:
            machine = _probed_per_state(game, caller, budget)
        except ReasonerError:
            if len(_PER_STATE_FAILED) >= _FAILED_SIZE:
                _PER_STATE_FAILED.clear()
            _PER_STATE_FAILED[game] = budget
            raise
        fast = probed[0] if probed else None
        return fast if isinstance(fast, ProverMachine) and _prover_is_faster(game, machine, fast, "per-state") else machine

    candidates.append(("per-state", per_state))
    candidates.append(("prover", prover))
    try:
        return first_that_builds(description, candidates)
    except NotStratifiedError:
        raise
    except ReasonerError as exc:
        if not skipped or failed is None:
            raise
        # Name the ground-once attempt too, as when every engine was tried now (first_that_builds' one line).
        why = _without_file(str(exc), description.file)
        why = why.removeprefix("no engine can play this game within its limits: ")
        raise ReasonerError(f"{description.file}: no engine can play this game within its limits: ground-once "
                            f"(clingo): {failed[1]} (earlier in this process); {why}") from exc


def _without_file(message: str, file: str) -> str:
    """An engine's error without its leading ``file: `` (the combined message names the game once)."""
    prefix = f"{file}: "
    return message[len(prefix):] if message.startswith(prefix) else message


def _probe_playout(machine: StateMachine, steps: int = PROBE_STEPS, seed: int = 0, cpu_seconds: float = 0.0) -> int:
    """A short seeded random playout: what every probe runs (its queries are what a player asks first).
    Returns the number of steps it took; with ``cpu_seconds``, it stops once this thread has spent that
    much CPU on it (a timing playout on a very slow machine need not finish)."""
    rng = random.Random(seed)
    began = time.thread_time()
    state = machine.initial_state()
    for step in range(steps):
        if cpu_seconds and step and time.thread_time() - began > cpu_seconds:
            return step
        if machine.is_terminal(state):
            machine.goals(state)
            return step
        legal = [machine.legal_moves(state, role) for role in machine.roles]
        if not all(legal):
            return step
        # One move per role, not a choice among joint moves: 4 roles of 101 moves are 10^8 joint moves.
        state = machine.next_state(state, tuple(rng.choice(moves) for moves in legal))
    return steps


def _step_seconds(machine: StateMachine) -> float:
    """Thread CPU seconds per step of a timing playout (seed 1: not the probe's states, whose answers
    the machine may have kept)."""
    began = time.thread_time()
    steps = _probe_playout(machine, PROBE_STEPS, seed=1, cpu_seconds=TIMING_CPU_SECONDS)
    return (time.thread_time() - began) / max(steps, 1)


def _ground_once_or_faster(description: Description, attempt: GroundingLimits, limits: GroundingLimits) -> StateMachine:
    """The grounded machine, unless it is slow per step (:data:`SLOW_STEP_SECONDS`) and the per-state
    reasoner or the prover (under ``limits``) is at least :data:`PROVER_SPEEDUP` times faster on the same
    kind of playout (checkers, chineseCheckers3: grounded clingo answers each state from a large program;
    the per-state reasoner evaluates one state's rules, the prover the few rules a query needs); the faster
    of the two plays. The prover's probe gets a query budget scaled to the grounded step time, so a game the
    prover plays slowly costs little start-up. The verdict is kept per game."""
    machine = _ground_once(description, attempt)
    choice = _PREFER.get(description)
    built: dict[str, StateMachine] = {}
    if choice is None:
        choice = "grounded"
        grounded = _step_seconds(machine)
        if grounded > SLOW_STEP_SECONDS:
            times: dict[str, float] = {}
            per_state = _per_state_or_none(description, limits)
            if per_state is not None:
                try:
                    times["per-state"] = _step_seconds(per_state)
                    built["per-state"] = per_state
                except ReasonerError as exc:
                    log.info("%s: the per-state reasoner failed its timing playout: %s", description.file,
                             _without_file(str(exc), description.file))
            fast = _probed_prover(description, limits, probe_seconds=max(0.05, grounded * PROBE_STEPS))
            if isinstance(fast, ProverMachine):
                built["prover"], times["prover"] = fast, _step_seconds(fast)
            best = min(times, key=times.__getitem__) if times else None
            if best is not None and times[best] * PROVER_SPEEDUP <= grounded:
                choice = best
            others = ", ".join(f"{seconds * 1e3:.2f} ms {name}" for name, seconds in times.items()) or "no other engine"
            log.info("%s: a step takes %.2f ms grounded (clingo), %s: playing with the %s", description.file,
                     grounded * 1e3, others, "prover" if choice == "prover" else f"{choice} machine")
        if len(_PREFER) >= _FAILED_SIZE:
            _PREFER.clear()
        _PREFER[description] = choice
    if choice == "grounded":
        return machine
    if choice in built:
        return built[choice]
    # A later choice for the game: a fresh machine of the kind that won, else the grounded one.
    if choice == "per-state":
        return _per_state_or_none(description, limits) or machine
    fast = _probed_prover(description, limits)
    return fast if isinstance(fast, ProverMachine) else machine


def _per_state_or_none(description: Description, limits: GroundingLimits) -> StateMachine | None:
    """The per-state reasoner after its probe (in a child under :data:`PER_STATE_PROBE_SECONDS` when
    ``limits`` isolate), or None when it cannot play the game within that."""
    try:
        if not limits.isolate:
            return PerStateMachine(description, limits)
        return _probed_per_state(description, limits, min(limits.seconds, PER_STATE_PROBE_SECONDS))
    except NotStratifiedError:
        raise
    except ReasonerError as exc:
        log.info("%s: the per-state reasoner was not timed: %s", description.file,
                 _without_file(str(exc), description.file))
        return None


def _prover_is_faster(description: Description, machine: StateMachine, prover: ProverMachine, name: str,
                      seconds: float | None = None) -> bool:
    """True when ``machine`` (called ``name`` in the log) is slower than :data:`SLOW_STEP_SECONDS` per step
    of a timing playout (``seconds`` when already measured) and ``prover`` is at least
    :data:`PROVER_SPEEDUP` times faster on the same kind of playout; the comparison is logged at INFO."""
    slow = _step_seconds(machine) if seconds is None else seconds
    if slow <= SLOW_STEP_SECONDS:
        return False
    proving = _step_seconds(prover)
    verdict = proving * PROVER_SPEEDUP <= slow
    log.info("%s: a step takes %.2f ms %s, %.2f ms on the prover: playing with the %s", description.file,
             slow * 1e3, name, proving * 1e3, "prover" if verdict else f"{name.split(' ')[0]} machine")
    return verdict


def _probed_prover(
    description: Description, limits: GroundingLimits, probe_seconds: float = PROVER_PROBE_SECONDS
) -> ProverMachine | ReasonerError:
    """The prover after a probe playout under ``probe_seconds`` per query (its tables stay warm), or the
    error that stopped it."""
    machine = ProverMachine(description, replace(limits, seconds=min(limits.seconds, probe_seconds)))
    try:
        _probe_playout(machine)
    except GgpError as exc:
        why = _without_file(str(exc), description.file)
        return ReasonerError(f"{description.file}: the prover failed its probe playout: {why}")
    machine.limits = limits
    return machine


def _probed_per_state(description: Description, limits: GroundingLimits, seconds: float) -> PerStateMachine:
    """The per-state reasoner, built from the static facts of a child that also played a probe playout
    within ``seconds``; ReasonerError when the child fails or runs out of time."""
    try:
        static: Facts = run_isolated(
            _per_state_probe, (description, limits.max_atoms), seconds=seconds, memory_mb=limits.memory_mb
        )
    except IsolationError as exc:
        raise grounding_error(description.file, "per-state probe", exc, seconds, limits.memory_mb) from None
    return PerStateMachine(description, limits, program=program_from_static(description, static))


def _per_state_probe(description: Description, max_atoms: int) -> Facts:
    """In the child: the static facts, once a per-state reasoner built on them has played the probe."""
    static_rules, _, _ = split_rules(description)
    static = static_model(static_rules, description.file, max_atoms)
    _probe_playout(PerStateMachine(description, program=program_from_static(description, static)))
    return static


def _ground_once(description: Description, attempt: GroundingLimits) -> StateMachine:
    """The cached clingo engine, remembering a failure so later calls skip the attempt."""
    try:
        return cached_clingo_machine(description, attempt)
    except NotStratifiedError:
        raise  # not a limit: no other engine is tried (first_that_builds)
    except ReasonerError as exc:
        if len(_FAILED) >= _FAILED_SIZE:
            _FAILED.clear()
        _FAILED[description] = (attempt, _without_file(str(exc), description.file))
        raise
