"""``ggp evaluate GAME...``: self-play evaluation with quality criteria, RAPP fitness and a report."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ggp.commands._args import non_negative_int, positive_float, positive_int
from ggp.commands._games import EVALUATION_ENGINE_HELP, FORMATS_HELP

DEFAULT_OUT = Path("evaluation")


def register(subcommands: Any) -> None:
    parser = subcommands.add_parser(
        "evaluate",
        help="evaluate games by self-play: criteria, RAPP fitness, HTML report",
        description=(
            "Play a round robin of player configurations on each game (seat rotation, fixed seeds, "
            "iteration budgets) and report the metrics (Ludii's and the Ludi criteria) and the RAPP fitness. Results are "
            "appended to OUT/results.jsonl as they finish, so a rerun resumes an interrupted evaluation."
        ),
    )
    parser.add_argument("games", nargs="+", metavar="GAME", help=FORMATS_HELP)
    parser.add_argument("--matches", type=_matches, default=10,
                        help="matches per pairing per seat (default 10), or 'auto': play rounds of "
                        f"{AUTO_ROUND} per pairing and seat until every fitness interval is narrower than "
                        "--precision, or --max-matches is reached")
    parser.add_argument("--precision", type=positive_float, default=0.05,
                        help="with --matches auto: the width of the 95%% fitness interval to reach (default 0.05)")
    parser.add_argument("--max-matches", type=positive_int, default=40,
                        help="with --matches auto: at most this many matches per pairing per seat (default 40)")
    parser.add_argument(
        "--players",
        default=None,
        help="player specs separated by ';', weakest first (default: the RAPP model's algorithms: the paper's "
        "min-max model when every game is SBG, else the knowledge-free MCTS model)",
    )
    parser.add_argument("--engine", default="auto",
                        help=EVALUATION_ENGINE_HELP)
    parser.add_argument("--workers", type=positive_int, default=1, help="local worker processes (default 1)")
    parser.add_argument("--ray", metavar="ADDRESS", default=None, help="run the matches on a Ray cluster ('auto' or 'local')")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--step-cap", type=positive_int, default=1000, help="end a match as a draw after this many steps")
    parser.add_argument("--metrics", default="all",
                        help="what to report beside the Ludi criteria (always measured): all (the default: RAPP "
                        "fitness and every metric), ludii (Ludii's metrics), rapp, or a comma-separated list of rapp, "
                        "metric names or aliases, Ludii family or group names (docs/evaluation.md)")
    parser.add_argument("--estimate-playouts", type=non_negative_int, default=None,
                        help="random playouts per state for the state-evaluation metrics (lead change, drama, "
                        f"decisiveness...; 0 = off; default {DEFAULT_ESTIMATE_PLAYOUTS} when the chosen metrics "
                        "need them, else 0)")
    parser.add_argument("--move-playouts", type=non_negative_int, default=None,
                        help="random playouts per legal move for Ludii's clarity metrics (0 = off; default "
                        f"{DEFAULT_MOVE_PLAYOUTS} when the chosen metrics need them, else 0)")
    parser.add_argument("--model", default=None,
                        help="RAPP model: minimax3 (the default: the paper's 3 min-max algorithms), minimax4, mcts "
                        "(knowledge-free MCTS ladder) or a JSON file from --build-model; without it, the default "
                        "model when its algorithms are among --players")
    parser.add_argument("--build-model", metavar="ANCHOR", default=None,
                        help="build a RAPP model from these games, the model group containing ANCHOR, into OUT/model.json")
    parser.add_argument("--model-algorithms", type=positive_int, default=None,
                        help="with --build-model: keep the k most spread algorithms")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default ./evaluation)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary for scripts")
    parser.set_defaults(run=run)


def _load_game(spec: str) -> tuple[Any, dict[str, float | None]]:
    """The game to evaluate and its intrinsic criteria (from the rules and the board they show)."""
    from ggp.commands._boards import board_of
    from ggp.commands._games import load_game
    from ggp.evaluation.intrinsic import intrinsic_criteria
    from ggp.evaluation.selfplay import GameSource

    loaded = load_game(spec)
    board = board_of(loaded)
    return GameSource(loaded.name, loaded.kif, loaded.turn_limit, loaded.sbg, board), intrinsic_criteria(
        loaded.description, board)


DEFAULT_ESTIMATE_PLAYOUTS = 8
"""Random playouts per state for the state-evaluation metrics when ``--metrics`` needs them."""
DEFAULT_MOVE_PLAYOUTS = 1
"""Random playouts per legal move for the clarity metrics when ``--metrics`` needs them."""

HEADLINE = ("Balance", "Completion", "Drawishness", "DurationTurns", "DecisionMoves", "LeadChange", "DramaAverage",
            "BoardCoverageDefault")
"""The metrics printed on the terminal (every one is in summary.json and the report)."""

AUTO_ROUND = 4
"""Matches per pairing and seat that each round of ``--matches auto`` adds."""


def _matches(text: str) -> int | str:
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {text!r}") from None


def _refused(games: list[Any], machines: Any) -> dict[str, str]:
    """The games self-play cannot seat, with the reason (:func:`ggp.evaluation.evaluate.seat_problem`);
    a game whose rules cannot be built is left to the playability check, which says why."""
    from ggp.errors import GgpError
    from ggp.evaluation.evaluate import seat_problem
    from ggp.evaluation.selfplay import machine_for

    refused = {}
    for game in games:
        try:
            machine_for(game, machines)
        except GgpError:
            continue
        reason = seat_problem(game)
        if reason is not None:
            refused[game.key] = reason
    return refused


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    """Evaluate the games: check the options, choose the players, play, report; 130 when interrupted."""
    from ggp.commands._games import GameMachines

    chosen, estimate, move_playouts = _checked_options(args)
    loaded = [_load_game(path) for path in args.games]
    games = [game for game, _ in loaded]
    intrinsic = {game.key: criteria for game, criteria in loaded}
    specs, model, notice = _players_and_model(args, games)
    machines = GameMachines.for_self_play(args.engine)
    reports, playable, roles = _sort_playable(args, games, specs, machines, chosen, notice)

    def jobs_for(round_games: list[Any], per_seat: int, round_seed: int) -> list[Any]:
        from ggp.evaluation.selfplay import round_robin

        return [
            job for game in round_games for job in round_robin(
                game, specs, matches_per_seat=per_seat, seed=round_seed, roles=roles[game.key],
                step_cap=args.step_cap, estimate_playouts=estimate, move_playouts=move_playouts,
                observe=bool(chosen.metrics),
            )
        ]

    if args.matches == "auto":
        results = _play_until_precise(args, playable, specs, model, roles, jobs_for, machines)
    else:
        results = _play_jobs(args, jobs_for(playable, args.matches, args.seed), machines)
    if results is None:
        return 130
    ordered = _final_reports(args, games, results, reports, specs, model, roles, chosen, intrinsic)
    _print_summary(args, ordered)
    return 0


def _checked_options(args: argparse.Namespace) -> tuple[Any, int, int]:
    """Refuse bad option values in one line before any game is read; returns the chosen metrics and the
    playouts per state and per move they need."""
    from ggp.evaluation.ludii.catalogue import select
    from ggp.match.rules import MatchRules

    auto = args.matches == "auto"
    if not auto and args.matches < 1:
        raise ValueError("--matches must be at least 1")
    if auto and (args.max_matches < 1 or not 0 < args.precision < 1):
        raise ValueError("--matches auto needs --max-matches >= 1 and 0 < --precision < 1")
    MatchRules(args.step_cap)  # a step cap below 1 fails here, not in every match
    chosen = select(args.metrics)
    estimate = args.estimate_playouts
    if estimate is None:
        estimate = DEFAULT_ESTIMATE_PLAYOUTS if chosen.needs_evaluations else 0
    move_playouts = args.move_playouts
    if move_playouts is None:
        move_playouts = DEFAULT_MOVE_PLAYOUTS if chosen.needs_move_evaluations else 0
    return chosen, estimate, move_playouts


def _players_and_model(args: argparse.Namespace, games: list[Any]) -> tuple[tuple[str, ...], Any, str]:
    """The player specs, the RAPP model (or ``None``) and a notice to print once the games are playable.

    Without --players, the players are the RAPP model's algorithms (the given or a shipped model), so the
    fitness is defined: the paper's min-max model when every game is a board game (SBG), else the
    knowledge-free MCTS model, which plays any game. With --players, a shipped model is used when its
    algorithms are among them."""
    from ggp.evaluation.evaluate import DEFAULT_LADDER, SHIPPED_MODELS, RappModel, default_model, model_named
    from ggp.players.registry import parse_spec

    given_model = model_named(args.model) if args.model else None
    model: RappModel | None = given_model
    notice = ""
    if args.players:
        specs = tuple(s.strip() for s in args.players.split(";"))
        if model is None and not args.build_model:
            model = default_model(specs) or default_model(specs, SHIPPED_MODELS["mcts"])
    else:
        if model is None and not args.build_model:
            boards = all(game.sbg is not None for game in games)
            model = default_model() if boards else model_named("mcts")
            if not boards:
                notice = ("ggp evaluate: not every game is an SBG board game, so the players are the knowledge-free "
                          "MCTS model's (--model mcts); give --model minimax3 for the min-max players")
        specs = model.algorithms if model is not None else DEFAULT_LADDER
    for spec in specs:
        parse_spec(spec)
    if len(specs) < 2:
        raise ValueError("--players needs at least two player specs")
    return specs, model, notice


def _sort_playable(args: argparse.Namespace, games: list[Any], specs: tuple[str, ...], machines: Any, chosen: Any,
                   notice: str) -> tuple[dict[str, Any], list[Any], dict[str, int]]:
    """(the reports of the games that cannot be played, the playable games, each playable game's role count).
    Raises :class:`InputError` when no game can be seated; prints ``notice`` once some can."""
    from ggp.errors import InputError
    from ggp.evaluation.evaluate import check_playable, unplayable_report
    from ggp.evaluation.selfplay import machine_for
    from ggp.players.registry import make_player

    refused = _refused(games, machines)
    if len(refused) == len(games):  # nothing to play: one line per game, before any match or report
        raise InputError("; ".join(f"{key}: {reason}" for key, reason in refused.items()))
    if notice:  # said once the games are known to be playable
        print(notice, file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    reports = {}
    playable = []
    roles: dict[str, int] = {}
    for game in games:
        if game.key in refused:
            reports[game.key] = unplayable_report(game.key, specs, refused[game.key])
            continue
        reason = check_playable(game, machines, step_cap=args.step_cap, seed=args.seed, players=specs,
                                player_factory=make_player)
        if reason:
            reports[game.key] = unplayable_report(game.key, specs, reason, chosen.metrics)
        else:
            playable.append(game)
            roles[game.key] = len(machine_for(game, machines).roles)
    return reports, playable, roles


def _play_jobs(args: argparse.Namespace, jobs: list[Any], machines: Any) -> list[Any] | None:
    """Play the match jobs with a progress bar, appending to OUT/results.jsonl; ``None`` when interrupted
    (Ctrl-C or SIGTERM), the finished matches kept."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ggp.evaluation.selfplay import MatchResult, RunProgress, run_jobs
    from ggp.players.registry import make_player

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, disable=args.json or not sys.stderr.isatty(), transient=False) as progress:
        task = progress.add_task("matches", total=len(jobs))

        def on_result(result: MatchResult, state: RunProgress) -> None:
            progress.update(task, completed=state.done, description=f"matches ({state.failed} failed)")

        # SIGTERM (kill, a batch scheduler) stops the workers like Ctrl-C instead of orphaning them.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            return run_jobs(
                jobs, make_player, machines, results_path=args.out / "results.jsonl", workers=args.workers,
                ray_address=args.ray, on_result=on_result,
            )
        except KeyboardInterrupt:
            progress.stop()
            print(f"ggp evaluate: interrupted; finished matches are kept in {args.out / 'results.jsonl'}, "
                  "run the same command again to resume", file=sys.stderr)
            return None
        finally:
            signal.signal(signal.SIGTERM, previous)


def _play_until_precise(args: argparse.Namespace, playable: list[Any], specs: tuple[str, ...], model: Any,
                        roles: dict[str, int], jobs_for: Any, machines: Any) -> list[Any] | None:
    """``--matches auto``: rounds with their own seeds (seed, seed + 1, ...), so every round adds new matches
    and a rerun resumes from results.jsonl. A game leaves the loop once its fitness interval is narrow
    enough; ``None`` when interrupted."""
    from ggp.evaluation.evaluate import report_game

    results: list[Any] = []
    pending, per_seat, round_index = list(playable), 0, 0
    while pending and per_seat < args.max_matches:
        step = min(AUTO_ROUND, args.max_matches - per_seat)
        played = _play_jobs(args, jobs_for(pending, step, args.seed + round_index), machines)
        if played is None:
            return None
        results += played
        per_seat += step
        round_index += 1
        if model is None:
            break  # no RAPP model: nothing to make precise
        narrow = set()
        for game in pending:
            interim = report_game(game.key, [r for r in results if r.game == game.key], specs, model,
                                  roles=roles[game.key])
            found = interim.fitness.interval("fitness")
            if not interim.fitness.playable or (found is not None and found.width < args.precision):
                narrow.add(game.key)
        pending = [game for game in pending if game.key not in narrow]
    for game in pending:
        print(f"ggp evaluate: {game.key}: the fitness interval is still wider than --precision {args.precision:g} "
              f"after {per_seat} matches per pairing and seat (--max-matches {args.max_matches}); "
              "the intervals reached are reported", file=sys.stderr)
    return results


def _final_reports(args: argparse.Namespace, games: list[Any], results: list[Any], reports: dict[str, Any],
                   specs: tuple[str, ...], model: Any, roles: dict[str, int], chosen: Any,
                   intrinsic: dict[str, Any]) -> list[Any]:
    """Each game's report in the order given (building OUT/model.json first with --build-model), written to
    OUT/summary.json."""
    from ggp.evaluation import report as report_module
    from ggp.evaluation.evaluate import build_model, report_game

    by_game: dict[str, list[Any]] = {}
    for result in results:
        by_game.setdefault(result.game, []).append(result)
    if args.build_model:
        model = build_model(by_game, specs, anchor=args.build_model, k=args.model_algorithms)
        (args.out / "model.json").write_text(json.dumps(model.to_json(), indent=2))
    for game in games:
        if game.key not in reports:
            preferred = max(60, (game.turn_limit or 120) // 2)
            reports[game.key] = report_game(game.key, by_game.get(game.key, []), specs,
                                            model if chosen.rapp else None, preferred_length=preferred,
                                            roles=roles[game.key], metrics=chosen.metrics, seed=args.seed)
    if not chosen.rapp:  # the fitness was not asked for: say so instead of "no RAPP model given"
        for key, report in reports.items():
            if report.fitness.playable and report.roles == 2:
                reports[key] = replace(report, fitness=replace(report.fitness, reason="RAPP not asked for (--metrics)"))
    ordered = [replace(reports[g.key], intrinsic=intrinsic[g.key]) for g in games]
    report_module.write_json(ordered, args.out / "summary.json")
    return ordered


def _print_summary(args: argparse.Namespace, ordered: list[Any]) -> None:
    """Write the HTML report; print the JSON summary (--json) or one line per game, its headline Ludii
    metrics, and where the report is."""
    from ggp.evaluation import report as report_module
    from ggp.evaluation.report import fallback_note

    page = report_module.write_html(ordered, args.out)
    if args.json:
        print(json.dumps(report_module.summary(ordered), indent=2))
        return
    for row in report_module.summary(ordered):
        print(_summary_line(row))
        if fallback_note(row):  # the fitness then rests on moves some player did not choose
            print(f"  {fallback_note(row)}")
    for report in ordered:
        headline = [f"{name} {measured.value:.3f}" for name in HEADLINE
                    if (measured := report.metrics.get(name)) is not None and measured.value is not None]
        if headline:
            print(f"  {report.game}: " + ", ".join(headline) + f" ({len(report.metrics)} metrics in summary.json)")
    print(f"report: {page}")


def _summary_line(row: dict[str, Any]) -> str:
    """``GAME: RAPP fitness F (95% CI ...), N matches, K failed; why the fitness is missing``.

    >>> _summary_line({"game": "g", "unplayable": False, "fitness": None, "fitness_interval": None,
    ...                "matches": 6, "failed": 0, "reason": "RAPP compares two players; this game has 3 roles"})
    'g: RAPP fitness n/a, 6 matches, 0 failed; RAPP compares two players; this game has 3 roles'
    """
    fitness = row["fitness"]
    shown = "unplayable" if row["unplayable"] else "n/a" if fitness is None else f"{fitness:.3f}"
    interval = row["fitness_interval"]
    if isinstance(interval, list):
        shown += f" (95% CI {interval[0]:.3f}-{interval[1]:.3f}; " + ", ".join(
            f"{key} {row[key]:.3f}" for key in ("D", "B", "Q") if isinstance(row[key], float)
        ) + ")"
    why = f"; {row['reason']}" if row["reason"] else ""
    return f"{row['game']}: RAPP fitness {shown}, {row['matches']} matches, {row['failed']} failed{why}"
