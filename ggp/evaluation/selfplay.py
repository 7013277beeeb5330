"""Self-play: many reproducible matches between player configurations, in parallel, resumable.

A :class:`MatchJob` names a game (KIF text), one player spec per role and a seed; :func:`play_match`
plays it in-process with iteration/depth budgets (never wall-clock budgets, so results repeat) and
returns a :class:`MatchResult`. :func:`run_jobs` runs jobs on local processes or on a Ray cluster,
appends every finished result to a JSON-lines file as it arrives, skips jobs already in that file
(so an interrupted run resumes), and retries a crashed job once before reporting it.

Matches are played by the one match loop (:func:`ggp.match.local.play_local`), with the rules
every match follows (docs/matches.md): a step-capped match is a ``step_cap`` draw, every seat is
asked every step, the chance role is played by the loop, a failing player gets the fallback move.

Evaluation never imports concrete players, translators or reasoner engines: the caller passes a
picklable ``player_factory(spec, seed) -> Player`` (the CLI passes
``ggp.players.registry.make_player``) and a picklable ``machine_factory(game) -> StateMachine``
(the CLI passes ``ggp.commands._games.GameMachines(engine)``: SBG games on the SBG engine, the rest
on ``ggp.reasoner.engines.KifMachines(engine)``).
"""

from __future__ import annotations

import json
import logging
import math
import random
import signal
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from itertools import permutations
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from ggp.errors import GgpError
from ggp.evaluation.ludii.trace import BoardSpec, Observations, PlayTrace, observe, playout_estimator
from ggp.match.local import Transcript, play_local
from ggp.match.rules import DEFAULT_STEP_CAP, EndReason, MatchRules
from ggp.player import Player
from ggp.reasoner.machine import State, StateMachine

log = logging.getLogger(__name__)

PlayerFactory = Callable[[str, int], Player]


@dataclass(frozen=True, slots=True)
class GameSource:
    """A game to evaluate: its key, its KIF text, and the game's own length limit in plies if any.

    ``turn_limit`` lets a draw at that length be classified as a timeout (SBG turn limits). ``sbg``
    is the game's Simplified Boardgames text when it is one (the machine factory may then play it
    on the SBG engine, whose min-max is compiled; the KIF is its translation).
    """

    key: str
    kif: str
    turn_limit: int | None = None
    sbg: str | None = None
    board: BoardSpec | None = None
    """The board the game's states are read on, for Ludii's board metrics (``None``: no board)."""


MachineFactory = Callable[[GameSource], StateMachine]
"""Makes the machine of a game; must be picklable for worker processes."""


@dataclass(frozen=True, slots=True)
class MatchJob:
    """One match: ``players`` holds a player spec per role, in role order."""

    game: GameSource
    players: tuple[str, ...]
    seed: int
    step_cap: int = DEFAULT_STEP_CAP
    estimate_playouts: int = 0
    """When > 0, each state's value per role is estimated by this many random playouts."""
    move_playouts: int = 0
    """When > 0, every legal move of the mover is evaluated by this many random playouts (Ludii's clarity)."""
    observe: bool = True
    """Record everything the metrics read (a goal query per state: skipped when no metric beyond the legal-move
    counts is wanted; those are always recorded)."""

    @property
    def job_id(self) -> str:
        return f"{self.game.key}|{'|'.join(self.players)}|{self.seed}"


@dataclass(frozen=True, slots=True)
class MatchResult:
    """What one match produced; ``error`` is set (and goals empty) when it could not be played."""

    job_id: str
    game: str
    players: tuple[str, ...]
    seed: int
    goals: tuple[int, ...] = ()
    length: int = 0
    end_reason: EndReason = "terminal"
    first_mover: int = 0
    branching: tuple[int, ...] = ()
    evaluations: tuple[tuple[float, ...], ...] | None = None
    observed: Observations | None = None
    """What the metrics read of the play (:mod:`ggp.evaluation.ludii.trace`); ``None`` only in result lines
    written before every match kept its legal-move counts."""
    moves: tuple[tuple[str, ...], ...] = ()
    fallbacks: int = 0
    """Moves replaced by the match's fallback because a player raised or chose an illegal move."""
    fallback_roles: tuple[int, ...] = ()
    """:attr:`fallbacks` per role, in role order (``players`` order): which player's moves they were."""
    seconds: float = field(default=0.0, compare=False)
    """Wall-clock time of the match; left out of comparisons (it is the one part that never repeats)."""
    error: str | None = None

    def to_trace(self) -> PlayTrace:
        """The play as every metric reads it. A result line without observations (written before every match
        kept its legal-move counts) stands in each step's branching for its counts (``recorded="branching"``),
        so the metrics that need more say n/a."""
        observed = self.observed or Observations(
            legal=tuple((b,) + (1,) * (len(self.goals) - 1) for b in self.branching), recorded="branching")
        return PlayTrace(self.goals, "error" if self.error else self.end_reason, self.first_mover, observed,
                         self.evaluations)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["observed"] = None if self.observed is None else self.observed.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchResult:
        evaluations = data.get("evaluations")
        return cls(
            job_id=data["job_id"],
            game=data["game"],
            players=tuple(data["players"]),
            seed=int(data["seed"]),
            goals=tuple(data.get("goals", ())),
            length=int(data.get("length", 0)),
            end_reason=data.get("end_reason", "terminal"),
            first_mover=int(data.get("first_mover", 0)),
            branching=tuple(data.get("branching", ())),
            evaluations=None if evaluations is None else tuple(tuple(e) for e in evaluations),
            observed=None if data.get("observed") is None else Observations.from_json(data["observed"]),
            moves=tuple(tuple(m) for m in data.get("moves", ())),
            fallbacks=int(data.get("fallbacks", 0)),
            fallback_roles=tuple(int(n) for n in data.get("fallback_roles", ())),
            seconds=float(data.get("seconds", 0.0)),
            error=data.get("error"),
        )


# --- one match -------------------------------------------------------------------------------

_MACHINES: OrderedDict[tuple[GameSource, MachineFactory], StateMachine] = OrderedDict()
MACHINE_CACHE_SIZE = 8
"""Machines kept per process. Jobs come game by game, so a few suffice; each machine holds its own
caches (states, answers), and a worker that plays hundreds of generated games must not keep them all."""


def machine_for(game: GameSource, machine_factory: MachineFactory) -> StateMachine:
    """One machine per game (key and rules text) and factory in each worker process (grounding or
    compiling happens once), the :data:`MACHINE_CACHE_SIZE` most recently used kept."""
    key = (game, machine_factory)
    machine = _MACHINES.get(key)
    if machine is None:
        machine = _MACHINES[key] = machine_factory(game)
        while len(_MACHINES) > MACHINE_CACHE_SIZE:
            _MACHINES.popitem(last=False)
    else:
        _MACHINES.move_to_end(key)
    return machine


def _estimate(machine: StateMachine, state: State, playouts: int, rng: random.Random) -> tuple[float, ...]:
    """Mean goal/100 per role over random playouts (terminal states: their goals)."""
    if machine.is_terminal(state):
        return tuple(g / 100 for g in machine.goals(state))
    from ggp.reasoner.playouts import playout_goals

    results = playout_goals(machine, state, playouts, rng)
    return tuple(sum(r[i] for r in results) / (100 * len(results)) for i in range(len(machine.roles)))


def play_match(job: MatchJob, player_factory: PlayerFactory, machine_factory: MachineFactory) -> MatchResult:
    """Play one match with the match loop (to the end or the step cap) and describe it.

    Never raises for game errors: a game that breaks (a role without a legal move, no goals) or seats
    that do not fit the roles give a result with ``error`` set.
    """
    started = time.perf_counter()
    try:
        machine = machine_for(job.game, machine_factory)
        players = [player_factory(spec, job.seed * 1009 + i) for i, spec in enumerate(job.players)]
        transcript = Transcript()
        ending = play_local(machine, players, job.seed, MatchRules(job.step_cap), transcript)
        if ending.goals is None:
            raise GgpError(ending.detail)
        steps = transcript.steps
        first_mover = next((i for i, moves in enumerate(steps[0].legal) if len(moves) > 1), 0) if steps else 0
        branching = tuple(math.prod(len(moves) for moves in step.legal) for step in steps)
        evaluations = None
        if job.estimate_playouts:
            rng = random.Random(job.seed)
            states = [step.before for step in steps] + [steps[-1].after if steps else machine.initial_state()]
            estimates = [_estimate(machine, state, job.estimate_playouts, rng) for state in states[:-1]]
            final = states[-1]
            estimates.append(_estimate(machine, final, job.estimate_playouts, rng)
                             if ending.reason == "terminal" or not estimates else estimates[-1])
            evaluations = tuple(estimates)
        legal = [tuple(len(moves) for moves in step.legal) for step in steps]
        observed = Observations(tuple(legal), recorded="legal")
        if job.observe:
            final = steps[-1].after if steps else machine.initial_state()
            clarity = (playout_estimator(machine, job.move_playouts, random.Random(job.seed + 1))
                       if job.move_playouts else None)
            observed = observe(machine, [step.before for step in steps] + [final], legal, job.game.board,
                               clarity=clarity)
        reason: EndReason = ending.reason
        limit = job.game.turn_limit
        if reason == "terminal" and limit is not None and ending.steps >= limit and len(set(ending.goals)) == 1:
            reason = "turn_limit"
        return MatchResult(
            job.job_id, job.game.key, job.players, job.seed, ending.goals, ending.steps, reason, first_mover,
            branching, evaluations, observed, tuple(tuple(str(m) for m in step.joint) for step in steps),
            transcript.fallbacks, transcript.fallbacks_by_role(), time.perf_counter() - started,
        )
    except (GgpError, ValueError) as exc:
        log.warning("match %s failed: %s", job.job_id, exc)
        return MatchResult(job.job_id, job.game.key, job.players, job.seed,
                           seconds=time.perf_counter() - started, error=str(exc))


# --- scheduling ------------------------------------------------------------------------------


def seatings(specs: Sequence[str], roles: int, *, self_play: bool = False) -> list[tuple[str, ...]]:
    """Every way the evaluation seats the specs on a game's roles, so each spec plays every role.

    With at least as many specs as roles: every ordered choice of distinct specs (seat rotation of each
    pairing). With fewer (a 3-player game and 2 specs): each order of the specs repeated round the table,
    in every rotation. One role: each spec alone. ``self_play`` adds each spec on every seat.

    >>> seatings(["a", "b"], 2)
    [('a', 'b'), ('b', 'a')]
    >>> seatings(["a", "b"], 3)
    [('a', 'b', 'a'), ('b', 'a', 'a'), ('a', 'a', 'b'), ('b', 'a', 'b'), ('a', 'b', 'b'), ('b', 'b', 'a')]
    """
    if roles <= len(specs):
        found = list(permutations(specs, roles))
    else:
        found = []
        for order in permutations(specs):
            base = tuple(order[i % len(order)] for i in range(roles))
            for shift in range(roles):
                seating = base[shift:] + base[:shift]
                if seating not in found:
                    found.append(seating)
    if self_play and roles > 1:
        found += [tuple([spec] * roles) for spec in specs]
    return found


def round_robin(
    game: GameSource,
    specs: Sequence[str],
    *,
    matches_per_seat: int,
    seed: int,
    roles: int = 2,
    self_play: bool = False,
    step_cap: int = DEFAULT_STEP_CAP,
    estimate_playouts: int = 0,
    move_playouts: int = 0,
    observe: bool = True,
) -> list[MatchJob]:
    """N matches for each of the game's :func:`seatings` of the specs.

    Seeds are derived from ``seed`` and the job's position, so the same arguments give the same jobs.
    """
    jobs: list[MatchJob] = []
    for seating in seatings(specs, roles, self_play=self_play):
        for _k in range(matches_per_seat):
            job_seed = seed * 1_000_003 + len(jobs)
            jobs.append(MatchJob(game, seating, job_seed, step_cap, estimate_playouts, move_playouts, observe))
    return jobs


def read_results(path: Path) -> dict[str, MatchResult]:
    """Results already on disk (a JSON-lines file); a torn last line from an interrupted run is ignored."""
    results: dict[str, MatchResult] = {}
    if not path.exists():
        return results
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            result = MatchResult.from_json(json.loads(line))
        except (ValueError, KeyError, TypeError):
            log.warning("%s:%d: ignoring an unreadable result line", path, number)
            continue
        results[result.job_id] = result
    return results


def _cut_torn_tail(path: Path) -> None:
    """Drop a last line without its newline (a write cut short), so appended lines stay whole."""
    if not path.exists():
        return
    with path.open("rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            handle.truncate(data.rfind(b"\n") + 1)


@dataclass
class RunProgress:
    """Counts reported to a progress callback after each finished job."""

    total: int
    done: int = 0
    failed: int = 0
    retried: list[str] = field(default_factory=list)


_Makers = tuple[PlayerFactory, MachineFactory]
"""The two factories a worker needs, passed together."""


def _play_job(args: tuple[MatchJob, _Makers]) -> MatchResult:
    """play_match, with any unexpected exception turned into a failed result (one bad job never ends a run)."""
    job, (player_factory, machine_factory) = args
    try:
        return play_match(job, player_factory, machine_factory)
    except Exception as exc:  # a bug in a player or engine fails only its own match
        log.exception("match %s raised", job.job_id)
        return _failed(job, f"{type(exc).__name__}: {exc}")


def _failed(job: MatchJob, error: str) -> MatchResult:
    return MatchResult(job.job_id, job.game.key, job.players, job.seed, error=error)


def run_jobs(
    jobs: Sequence[MatchJob],
    player_factory: PlayerFactory,
    machine_factory: MachineFactory,
    *,
    results_path: Path | None = None,
    workers: int = 1,
    ray_address: str | None = None,
    on_result: Callable[[MatchResult, RunProgress], None] | None = None,
) -> list[MatchResult]:
    """Run the jobs (resuming from ``results_path``) and return every result in job order.

    A job whose worker process dies (a crash, not a game error) is retried once, alone in a fresh
    process, then reported as failed; jobs that only shared the broken pool with it are rerun and
    never blamed. Results are appended to ``results_path`` as they arrive and flushed, so Ctrl-C
    (KeyboardInterrupt, re-raised after the workers are stopped) loses only the matches in flight,
    and a rerun with the same jobs plays only the missing ones. Results are the same for any
    ``workers`` (every match is seeded by its job alone).
    """
    makers: _Makers = (player_factory, machine_factory)
    done = read_results(results_path) if results_path else {}
    wanted = {job.job_id for job in jobs}
    pending = list({job.job_id: job for job in jobs if job.job_id not in done}.values())
    progress = RunProgress(total=len(wanted), done=len(wanted & done.keys()))
    if results_path:
        _cut_torn_tail(results_path)
    sink = results_path.open("a") if results_path else None

    def record(result: MatchResult) -> None:
        done[result.job_id] = result
        progress.done += 1
        progress.failed += result.error is not None
        if sink:
            sink.write(json.dumps(result.to_json()) + "\n")
            sink.flush()
        if on_result:
            on_result(result, progress)

    try:
        if ray_address is not None:
            for result in _run_on_ray(pending, makers, ray_address):
                record(result)
        elif workers <= 1:
            for job in pending:
                record(_play_job((job, makers)))
        else:
            for result in _run_on_processes(pending, makers, workers, progress):
                record(result)
    finally:
        if sink:
            sink.close()
    return [done[job.job_id] for job in jobs if job.job_id in done]


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is handled by the parent, which stops the workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _new_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_ignore_sigint)


def _stop_pool(executor: ProcessPoolExecutor) -> None:
    """Stop at once: kill the workers (their matches are lost, finished ones are on disk already)."""
    processes = getattr(executor, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()
    executor.shutdown(wait=True, cancel_futures=True)


def _run_on_processes(
    jobs: Sequence[MatchJob], makers: _Makers, workers: int, progress: RunProgress
) -> Iterator[MatchResult]:
    """Run jobs on a pool of ``workers`` spawned processes, at most two queued per worker.

    When a worker dies the pool breaks and every job in flight fails with it, guilty or not. Those
    suspects are then run one at a time, each alone in a fresh one-worker pool: an innocent job
    simply finishes, the guilty one breaks its own pool a second time and is reported.
    """
    queue = deque(jobs)
    executor = _new_pool(workers)
    running: dict[Future[MatchResult], MatchJob] = {}
    try:
        while queue or running:
            while queue and len(running) < 2 * workers:
                job = queue.popleft()
                running[executor.submit(_play_job, (job, makers))] = job
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            suspects: list[MatchJob] = []
            for future in finished:
                job = running.pop(future)
                try:
                    yield future.result()
                except BrokenProcessPool:
                    suspects.append(job)
            if not suspects:
                continue
            # The pool is broken: every other job in flight fails too; collect them all.
            suspects += running.values()
            running.clear()
            _stop_pool(executor)
            log.warning("a worker process died; rerunning %d job(s) in flight one at a time", len(suspects))
            for job in sorted(suspects, key=lambda j: j.job_id):
                yield _run_alone(job, makers, progress)
            executor = _new_pool(workers)
    finally:
        _stop_pool(executor)


def _run_alone(job: MatchJob, makers: _Makers, progress: RunProgress) -> MatchResult:
    """Retry one job in its own process; a second crash reports it as failed."""
    progress.retried.append(job.job_id)
    executor = _new_pool(1)
    try:
        return executor.submit(_play_job, (job, makers)).result()
    except BrokenProcessPool as exc:
        log.warning("job %s crashed its worker twice; reported as failed", job.job_id)
        return _failed(job, f"worker crashed twice: {exc}")
    finally:
        _stop_pool(executor)


def _run_on_ray(jobs: Sequence[MatchJob], makers: _Makers, address: str) -> Iterator[MatchResult]:
    try:
        import ray  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise GgpError("Ray is not installed; install the optional extra: pip install 'ggp[ray]'") from None
    if not ray.is_initialized():
        ray.init(address=None if address == "local" else address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(max_retries=1)(_play_job)
    refs = {remote.remote((job, makers)): job for job in jobs}
    while refs:
        ready, _ = ray.wait(list(refs), num_returns=1)
        for ref in ready:
            job = refs.pop(ref)
            try:
                yield ray.get(ref)
            except Exception as exc:
                yield _failed(job, f"ray task failed: {exc}")
