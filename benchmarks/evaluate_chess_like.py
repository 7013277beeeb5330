"""How long ``ggp evaluate`` takes on an 8x8 chess-like SBG game with the default ladder.

Random, MCTS (200 iterations a move) and alpha-beta (depth 2), every pairing in both seats, 10 matches
per pairing per seat (60 matches), on 2 worker processes with the compiled engine. Target: at most two
minutes on a 2-core machine. The load average is printed because the figure means little on a busy
machine. Per-player and per-match times come from the results file, so a slow player stands out.

Usage: python benchmarks/evaluate_chess_like.py [--game games/chess.sbg] [--matches 10] [--workers 2]
       [--engine circuit] [--players 'random;mcts:iterations=200;alphabeta:depth=2'] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from ggp.commands.evaluate import _load_game
from ggp.evaluation.evaluate import DEFAULT_LADDER, check_playable, report_game
from ggp.evaluation.selfplay import MatchResult, RunProgress, machine_for, round_robin, run_jobs
from ggp.players.registry import make_player
from ggp.reasoner.engines import KifMachines

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", type=Path, default=ROOT / "games" / "chess.sbg")
    parser.add_argument("--matches", type=int, default=10, help="matches per pairing per seat")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", default="circuit")
    parser.add_argument("--players", default=";".join(DEFAULT_LADDER))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="keep results.jsonl here (default: a temp folder)")
    args = parser.parse_args()
    specs = tuple(s.strip() for s in args.players.split(";"))
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores")

    started = time.perf_counter()
    game, _ = _load_game(args.game)
    machine_for(game, KifMachines(args.engine))  # compiles (or loads the cached circuit) once, as the CLI's check does
    reason = check_playable(game, KifMachines(args.engine), seed=args.seed)
    prepared = time.perf_counter() - started
    print(f"{game.key}: translate + build + playability check {prepared:.1f} s ({reason or 'playable'})")

    jobs = round_robin(game, specs, matches_per_seat=args.matches, seed=args.seed)
    out = args.out or Path(tempfile.mkdtemp(prefix="ggp-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.jsonl"
    path.unlink(missing_ok=True)

    def on_result(result: MatchResult, progress: RunProgress) -> None:
        if progress.done % 10 == 0 or progress.done == progress.total:
            print(f"  {progress.done}/{progress.total} matches, {time.perf_counter() - begun:.0f} s", flush=True)

    begun = time.perf_counter()
    results = run_jobs(jobs, make_player, KifMachines(args.engine), results_path=path, workers=args.workers, on_result=on_result)
    played = time.perf_counter() - begun
    total = prepared + played
    print(f"{len(results)} matches on {args.workers} workers: {played:.1f} s of play, {total:.1f} s in all "
          f"(target 120 s); load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")

    by_pairing: dict[tuple[str, ...], list[MatchResult]] = defaultdict(list)
    for result in results:
        by_pairing[result.players].append(result)
    print(f"{'white':<22}{'black':<22}{'mean s':>8}{'max s':>8}{'plies':>7}{'white score':>13}")
    for players, group in sorted(by_pairing.items()):
        good = [r for r in group if not r.error]
        outcomes = [1.0 if r.goals[0] > r.goals[1] else 0.0 if r.goals[0] < r.goals[1] else 0.5 for r in good]
        score = statistics.fmean(outcomes) if outcomes else float("nan")
        print(f"{players[0]:<22}{players[1]:<22}{statistics.fmean(r.seconds for r in group):8.2f}"
              f"{max(r.seconds for r in group):8.2f}{statistics.fmean(r.length for r in group):7.1f}{score:13.2f}")
    report = report_game(game.key, results, specs, None, preferred_length=max(60, (game.turn_limit or 120) // 2))
    print("win matrix (row's score against column):")
    for spec, row in zip(specs, report.matrix):
        print(f"  {spec:<22}" + " ".join("  -  " if v is None else f"{v:5.2f}" for v in row))
    print(f"failed matches: {report.failed}; results in {path}")


if __name__ == "__main__":
    main()
