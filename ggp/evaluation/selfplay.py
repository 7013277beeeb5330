"""Self-play: many reproducible matches between player configurations, in parallel, resumable.

A :class:`MatchJob` names a game (KIF text), one player spec per role and a seed; :func:`play_match`
plays it in-process with iteration/depth budgets (never wall-clock budgets, so results repeat) and
returns a :class:`MatchResult`. :func:`run_jobs` runs jobs on local processes or on a Ray cluster,
appends every finished result to a JSON-lines file as it arrives, skips jobs already in that file
(so an interrupted run resumes), and retries a crashed job once before reporting it.

Evaluation never imports concrete players or translators: the caller passes a picklable
``player_factory(spec, seed) -> Player`` (the CLI passes ``ggp.players.registry.make_player``).
"""

from __future__ import annotations

import json
import logging
import random
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from itertools import permutations
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from ggp.errors import GgpError
from ggp.evaluation.metrics import EndReason, PlayRecord
from ggp.player import Budget, Player
from ggp.reasoner.machine import State, StateMachine

log = logging.getLogger(__name__)

PlayerFactory = Callable[[str, int], Player]

DEFAULT_STEP_CAP = 1000


@dataclass(frozen=True, slots=True)
class GameSource:
    """A game to evaluate: its key, its KIF text, and the game's own length limit in plies if any.

    ``turn_limit`` lets a draw at that length be classified as a timeout (SBG turn limits).
    """

    key: str
    kif: str
    turn_limit: int | None = None


@dataclass(frozen=True, slots=True)
class MatchJob:
    """One match: ``players`` holds a player spec per role, in role order."""

    game: GameSource
    players: tuple[str, ...]
    seed: int
    engine: str = "clingo"
    step_cap: int = DEFAULT_STEP_CAP
    estimate_playouts: int = 0
    """When > 0, each state's value per role is estimated by this many random playouts."""

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
    moves: tuple[tuple[str, ...], ...] = ()
    seconds: float = field(default=0.0, compare=False)
    """Wall-clock time of the match; left out of comparisons (it is the one part that never repeats)."""
    error: str | None = None

    def to_record(self) -> PlayRecord:
        return PlayRecord(
            goals=self.goals,
            length=self.length,
            end_reason="error" if self.error else self.end_reason,
            first_mover=self.first_mover,
            branching=self.branching,
            evaluations=self.evaluations,
            players=self.players,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

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
            moves=tuple(tuple(m) for m in data.get("moves", ())),
            seconds=float(data.get("seconds", 0.0)),
            error=data.get("error"),
        )


# --- one match -------------------------------------------------------------------------------

_MACHINES: dict[tuple[str, str], StateMachine] = {}


def _machine_for(game: GameSource, engine: str) -> StateMachine:
    """One machine per game and engine in each worker process (grounding/compiling happens once).

    ``engine`` is a name for :func:`~ggp.reasoner.engines.make_machine`, options included (e.g.
    ``circuit:interpreter``, which needs no per-game C compilation).
    """
    key = (game.key, engine)
    machine = _MACHINES.get(key)
    if machine is None:
        from ggp.gdl.parser import parse_kif
        from ggp.reasoner.engines import make_machine

        machine = make_machine(parse_kif(game.kif, game.key), engine)
        _MACHINES[key] = machine
    return machine


def _mover(machine: StateMachine, state: State) -> int:
    """The role with more than one legal move (turn-taking games), else 0."""
    for index, role in enumerate(machine.roles):
        if len(machine.legal_moves(state, role)) > 1:
            return index
    return 0


def _estimate(machine: StateMachine, state: State, playouts: int, rng: random.Random) -> tuple[float, ...]:
    """Mean goal/100 per role over random playouts (terminal states: their goals)."""
    if machine.is_terminal(state):
        return tuple(g / 100 for g in machine.goals(state))
    from ggp.reasoner.playouts import playout_goals

    results = playout_goals(machine, state, playouts, rng)
    return tuple(sum(r[i] for r in results) / (100 * len(results)) for i in range(len(machine.roles)))


def play_match(job: MatchJob, player_factory: PlayerFactory) -> MatchResult:
    """Play one match to the end (or the step cap) and describe it. Never raises for game errors."""
    started = time.perf_counter()
    base = MatchResult(job.job_id, job.game.key, job.players, job.seed)
    try:
        machine = _machine_for(job.game, job.engine)
        if len(job.players) != len(machine.roles):
            raise GgpError(f"{len(job.players)} players for a game of {len(machine.roles)} roles")
        players = [player_factory(spec, job.seed * 1009 + i) for i, spec in enumerate(job.players)]
        budget = Budget()
        for player, role in zip(players, machine.roles):
            player.start(machine, role, budget)
        rng = random.Random(job.seed)
        state = machine.initial_state()
        first_mover = _mover(machine, state)
        branching: list[int] = []
        evaluations: list[tuple[float, ...]] = []
        moves: list[tuple[str, ...]] = []
        steps = 0
        while not machine.is_terminal(state):
            if steps >= job.step_cap:
                break
            legal = [machine.legal_moves(state, role) for role in machine.roles]
            if any(not options for options in legal):
                stuck = next(role for role, options in zip(machine.roles, legal) if not options)
                raise GgpError(f"role {stuck} has no legal move after {steps} steps in a non-terminal state")
            product = 1
            for options in legal:
                product *= len(options)
            branching.append(product)
            if job.estimate_playouts:
                evaluations.append(_estimate(machine, state, job.estimate_playouts, rng))
            joint = tuple(
                options[0] if len(options) == 1 else player.choose(state, budget)
                for player, options in zip(players, legal)
            )
            moves.append(tuple(str(m) for m in joint))
            state = machine.next_state(state, joint)
            steps += 1
        for player in players:
            player.stop()
        terminal = machine.is_terminal(state)
        if job.estimate_playouts:
            evaluations.append(_estimate(machine, state, job.estimate_playouts, rng) if terminal else evaluations[-1])
        if terminal:
            goals = machine.goals(state)
            reason: EndReason = "terminal"
            if job.game.turn_limit is not None and steps >= job.game.turn_limit and len(set(goals)) == 1:
                reason = "turn_limit"
        else:
            goals = tuple(50 for _ in machine.roles)
            reason = "step_cap"
        return MatchResult(
            job.job_id, job.game.key, job.players, job.seed, goals, steps, reason, first_mover,
            tuple(branching), tuple(evaluations) if job.estimate_playouts else None, tuple(moves),
            time.perf_counter() - started,
        )
    except (GgpError, ValueError) as exc:
        log.warning("match %s failed: %s", job.job_id, exc)
        return MatchResult(
            base.job_id, base.game, base.players, base.seed, seconds=time.perf_counter() - started, error=str(exc)
        )


# --- scheduling ------------------------------------------------------------------------------


def round_robin(
    game: GameSource,
    specs: Sequence[str],
    *,
    matches_per_seat: int,
    seed: int,
    engine: str = "clingo",
    roles: int = 2,
    self_play: bool = False,
    step_cap: int = DEFAULT_STEP_CAP,
    estimate_playouts: int = 0,
) -> list[MatchJob]:
    """Every ordered assignment of distinct specs to the roles (seat rotation), N matches each.

    Seeds are derived from ``seed`` and the job's position, so the same arguments give the same jobs.
    """
    seatings: list[tuple[str, ...]] = list(permutations(specs, roles))
    if self_play:
        seatings += [tuple([spec] * roles) for spec in specs]
    jobs: list[MatchJob] = []
    for seating in seatings:
        for k in range(matches_per_seat):
            job_seed = seed * 1_000_003 + len(jobs)
            jobs.append(MatchJob(game, seating, job_seed, engine, step_cap, estimate_playouts))
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


def _play_job(args: tuple[MatchJob, PlayerFactory]) -> MatchResult:
    """play_match, with any unexpected exception turned into a failed result (one bad job never ends a run)."""
    job, factory = args
    try:
        return play_match(job, factory)
    except Exception as exc:  # a bug in a player or engine fails only its own match
        log.exception("match %s raised", job.job_id)
        return _failed(job, f"{type(exc).__name__}: {exc}")


def _failed(job: MatchJob, error: str) -> MatchResult:
    return MatchResult(job.job_id, job.game.key, job.players, job.seed, error=error)


def run_jobs(
    jobs: Sequence[MatchJob],
    player_factory: PlayerFactory,
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
            for result in _run_on_ray(pending, player_factory, ray_address):
                record(result)
        elif workers <= 1:
            for job in pending:
                record(_play_job((job, player_factory)))
        else:
            for result in _run_on_processes(pending, player_factory, workers, progress):
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
    jobs: Sequence[MatchJob], player_factory: PlayerFactory, workers: int, progress: RunProgress
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
                running[executor.submit(_play_job, (job, player_factory))] = job
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
                yield _run_alone(job, player_factory, progress)
            executor = _new_pool(workers)
    finally:
        _stop_pool(executor)


def _run_alone(job: MatchJob, player_factory: PlayerFactory, progress: RunProgress) -> MatchResult:
    """Retry one job in its own process; a second crash reports it as failed."""
    progress.retried.append(job.job_id)
    executor = _new_pool(1)
    try:
        return executor.submit(_play_job, (job, player_factory)).result()
    except BrokenProcessPool as exc:
        log.warning("job %s crashed its worker twice; reported as failed", job.job_id)
        return _failed(job, f"worker crashed twice: {exc}")
    finally:
        _stop_pool(executor)


def _run_on_ray(jobs: Sequence[MatchJob], player_factory: PlayerFactory, address: str) -> Iterator[MatchResult]:
    try:
        import ray  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise GgpError("Ray is not installed; install the optional extra: pip install 'ggp[ray]'") from None
    if not ray.is_initialized():
        ray.init(address=None if address == "local" else address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(max_retries=1)(_play_job)
    refs = {remote.remote((job, player_factory)): job for job in jobs}
    while refs:
        ready, _ = ray.wait(list(refs), num_returns=1)
        for ref in ready:
            job = refs.pop(ref)
            try:
                yield ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - reported per job
                yield _failed(job, f"ray task failed: {exc}")


def records_by_game(results: Iterable[MatchResult]) -> dict[str, list[PlayRecord]]:
    """PlayRecords grouped by game key."""
    grouped: dict[str, list[PlayRecord]] = {}
    for result in results:
        grouped.setdefault(result.game, []).append(result.to_record())
    return grouped
