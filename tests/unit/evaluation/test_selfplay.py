"""Self-play runner: seeded reproducibility, worker processes, resuming from results.jsonl, crash retry."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest

from ggp.evaluation.selfplay import (
    GameSource,
    MatchJob,
    MatchResult,
    RunProgress,
    play_match,
    read_results,
    round_robin,
    run_jobs,
)
from ggp.player import Player
from ggp.players.registry import make_player
from ggp.reasoner.engines import KifMachines
from ggp.reasoner.machine import StateMachine
from tests.prerequisites import require_module
from tests.unit.evaluation.tiny_games import NIM

GAME = GameSource("nim", NIM)
MACHINES = KifMachines("clingo")
SPECS = ("random", "mcts:iterations=30")


def _jobs(matches: int = 2, seed: int = 5) -> list[MatchJob]:
    return round_robin(GAME, SPECS, matches_per_seat=matches, seed=seed)


def crash_on_seed(target: int, spec: str, seed: int) -> Player:
    """A player factory that kills its whole process for the match seeded ``target`` (seed // 1009)."""
    if seed // 1009 == target:
        os._exit(3)
    return make_player(spec, seed)


def test_round_robin_rotates_seats_and_derives_distinct_seeds() -> None:
    jobs = _jobs(matches=3)
    assert [job.players for job in jobs].count(("random", "mcts:iterations=30")) == 3
    assert [job.players for job in jobs].count(("mcts:iterations=30", "random")) == 3
    assert len({job.seed for job in jobs}) == len(jobs) == 6
    assert _jobs(matches=3) == jobs


def test_a_match_reports_goals_length_moves_and_branching() -> None:
    result = play_match(MatchJob(GAME, ("random", "random"), 11), make_player, MACHINES)
    assert result.error is None and sorted(result.goals) == [0, 100]
    assert result.length == len(result.moves) == len(result.branching) and 4 <= result.length <= 7
    assert all(b in (1, 2) for b in result.branching) and result.first_mover == 0


def test_the_same_seeds_give_the_same_results() -> None:
    first = run_jobs(_jobs(), make_player, MACHINES)
    second = run_jobs(_jobs(), make_player, MACHINES)
    assert first == second and all(r.error is None for r in first)
    # Another seed plays other matches (the moves of 8 nim matches all equal would be a seeding bug).
    other = run_jobs(_jobs(seed=6), make_player, MACHINES)
    assert [r.moves for r in other] != [r.moves for r in first]


def test_estimates_give_one_value_per_role_and_state() -> None:
    job = MatchJob(GAME, ("random", "random"), 3, estimate_playouts=8)
    result = play_match(job, make_player, MACHINES)
    assert result.evaluations is not None and len(result.evaluations) == result.length + 1
    assert all(len(e) == 2 and all(0 <= v <= 1 for v in e) for e in result.evaluations)
    # The last state is terminal: its estimate is the goals themselves.
    assert result.evaluations[-1] == tuple(g / 100 for g in result.goals)
    assert play_match(job, make_player, MACHINES) == result


@pytest.mark.timeout(120)
def test_two_worker_processes_give_the_serial_results(tmp_path: Path) -> None:
    serial = run_jobs(_jobs(), make_player, MACHINES)
    parallel = run_jobs(_jobs(), make_player, MACHINES, workers=2, results_path=tmp_path / "results.jsonl")
    assert parallel == serial
    assert read_results(tmp_path / "results.jsonl") == {r.job_id: r for r in serial}


def test_a_rerun_plays_only_the_missing_jobs_after_a_torn_line(tmp_path: Path) -> None:
    jobs = _jobs()
    path = tmp_path / "results.jsonl"
    complete = run_jobs(jobs, make_player, MACHINES, results_path=path)
    lines = path.read_text().splitlines(keepends=True)
    # An interrupted run: three whole lines, then half of the fourth (no newline).
    path.write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    played: list[str] = []

    def on_result(result: MatchResult, progress: RunProgress) -> None:
        played.append(result.job_id)

    resumed = run_jobs(jobs, make_player, MACHINES, results_path=path, on_result=on_result)
    assert resumed == complete
    assert played == [job.job_id for job in jobs[3:]]
    # The torn line was cut off, so every line on disk is whole JSON and each job appears once.
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(r["job_id"] for r in records) == sorted(job.job_id for job in jobs)
    played.clear()
    assert run_jobs(jobs, make_player, MACHINES, results_path=path, on_result=on_result) == complete and played == []


def test_an_exception_in_a_player_fails_only_its_match() -> None:
    def factory(spec: str, seed: int) -> Player:
        if spec == "boom":
            raise RuntimeError("no such player")
        return make_player(spec, seed)

    jobs = round_robin(GAME, ("random", "boom"), matches_per_seat=1, seed=1)
    results = run_jobs(jobs, factory, MACHINES)
    assert all(r.error == "RuntimeError: no such player" for r in results)
    assert run_jobs(_jobs(matches=1), factory, MACHINES)[0].error is None


@pytest.mark.timeout(240)
def test_a_job_that_kills_its_worker_is_retried_once_then_reported(tmp_path: Path) -> None:
    jobs = _jobs()
    guilty = jobs[2]
    factory = functools.partial(crash_on_seed, guilty.seed)
    progress_seen: list[RunProgress] = []
    results = run_jobs(
        jobs, factory, MACHINES, workers=2, results_path=tmp_path / "results.jsonl",
        on_result=lambda result, progress: progress_seen.append(progress),
    )
    by_id = {r.job_id: r for r in results}
    assert "crashed twice" in (by_id[guilty.job_id].error or "")
    serial = {r.job_id: r for r in run_jobs(jobs, make_player, MACHINES)}
    innocent = [job.job_id for job in jobs if job is not guilty]
    assert all(by_id[j] == serial[j] for j in innocent)
    assert guilty.job_id in progress_seen[-1].retried and progress_seen[-1].failed == 1


@pytest.mark.timeout(180)
def test_a_local_ray_instance_gives_the_local_results() -> None:
    ray = require_module("ray")
    jobs = _jobs(matches=1)
    local = run_jobs(jobs, make_player, MACHINES)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        assert run_jobs(jobs, make_player, MACHINES, ray_address="local") == local
    finally:
        ray.shutdown()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_keeps_finished_results_and_a_rerun_completes_them(tmp_path: Path, workers: int) -> None:
    import multiprocessing

    jobs = _jobs()
    path = tmp_path / "results.jsonl"

    def interrupt(result: MatchResult, progress: RunProgress) -> None:
        if progress.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_jobs(jobs, make_player, MACHINES, results_path=path, workers=workers, on_result=interrupt)
    assert len(read_results(path)) == 2
    assert not multiprocessing.active_children()  # the workers were stopped, not left running
    played: list[str] = []
    resumed = run_jobs(jobs, make_player, MACHINES, results_path=path, on_result=lambda r, p: played.append(r.job_id))
    assert resumed == run_jobs(jobs, make_player, MACHINES) and len(played) == len(jobs) - 2


def test_each_process_keeps_only_the_most_recently_used_machines() -> None:
    from ggp.evaluation import selfplay

    built: list[str] = []

    def factory(game: GameSource) -> StateMachine:
        built.append(game.key)
        return MACHINES(GAME)

    games = [GameSource(f"bounded-{i}", NIM) for i in range(selfplay.MACHINE_CACHE_SIZE + 2)]
    for game in games:
        selfplay.machine_for(game, factory)
    selfplay.machine_for(games[-1], factory)  # cached: not built again
    assert built == [g.key for g in games]
    assert sum(1 for key in selfplay._MACHINES if key[1] is factory) == selfplay.MACHINE_CACHE_SIZE
    selfplay.machine_for(games[0], factory)  # evicted (least recently used): built again
    assert built[-1] == games[0].key and len(built) == len(games) + 1


def test_a_match_records_what_ludiis_metrics_read() -> None:
    from ggp.commands._boards import board_of
    from ggp.commands._games import load_game
    from ggp.evaluation.ludii.catalogue import measure

    loaded = load_game("ticTacToe")
    game = GameSource("ttt", loaded.kif, board=board_of(loaded))
    result = play_match(MatchJob(game, ("random", "random"), 4, move_playouts=1), make_player, MACHINES)
    observed = result.observed
    assert observed is not None and observed.sites == 9
    assert len(observed.legal) == result.length and observed.occupied == tuple(range(result.length + 1))
    assert observed.distances == () and observed.clarity is not None and len(observed.clarity) == min(6, result.length)
    # The record survives the results file, and the metrics read it.
    again = MatchResult.from_json(json.loads(json.dumps(result.to_json())))
    assert again == result
    found = measure([again.to_trace()], ["BoardCoverageDefault", "DecisionMoves", "MoveDistanceAverage"])
    assert found["BoardCoverageDefault"].value == result.length / 9
    assert "no piece moved from one site to another" in (found["MoveDistanceAverage"].reason or "")



def test_three_players_and_two_specs_sit_in_every_seat() -> None:
    from ggp.evaluation.selfplay import seatings

    found = seatings(["a", "b"], 3)
    assert len(found) == 6 and all(sorted(seat) in (["a", "a", "b"], ["a", "b", "b"]) for seat in found)
    assert {seat[r] for seat in found for r in range(3)} == {"a", "b"}
    assert seatings(["a", "b"], 1) == [("a",), ("b",)]


def test_a_match_without_ludii_metrics_skips_the_observations_but_keeps_its_legal_move_counts() -> None:
    result = play_match(MatchJob(GAME, ("random", "random"), 4, observe=False), make_player, MACHINES)
    observed = result.observed
    assert result.error is None and observed is not None and observed.recorded == "legal"
    assert observed.situations == () and observed.scores is None  # no goal query per state
    assert len(observed.legal) == result.length and all(len(row) == 2 for row in observed.legal)
    assert tuple(a * b for a, b in observed.legal) == result.branching
