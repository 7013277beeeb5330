"""Benchmark: our players against ggp-base's SampleMonteCarloGamer, hosted by ggp-base's GameServer.

Each match is played by ggp-base's own host (``../shared/peer/run RunMatch``) at real clocks: our
player (``ggp player SPEC``, engine ``auto``: clingo at once, the compiled circuit when its background
build is done) in one seat, ggp-base's SampleMonteCarloGamer (``PlayerMain``) in every other seat;
our seat rotates match by match, so each role is ours equally often. A match is a win for us when our
goal is strictly the highest, a loss when another seat's is, else a draw; the table gives the share
of decided matches we won with its 95% Wilson interval, and every TO / IL / CE the host recorded
against our seat. Results go to a JSON-lines file as each match ends, so a run resumes where it
stopped (``--fresh`` starts over).

Usage: python benchmarks/strength_ggp_base.py [--matches 10] [--playclock 5] [--startclock 30]
           [--players mcts alphabeta] [--games ticTacToe connectFour ...] [--out FILE] [--table]
"""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import cast

from ggp_base_host import CORPUS, PEER, ROOT, our_player, play_match, roles_of, serving

from ggp.evaluation.stats import wilson

RESULTS = ROOT / "benchmarks" / "results" / "strength_ggp_base.jsonl"
"""Where a run appends its rows unless ``--out`` names another file."""
GAMES = {
    "ticTacToe": ROOT / "kif" / "ticTacToe" / "ticTacToe.kif",
    "connectFour": ROOT / "kif" / "connectFour" / "connectFour.kif",
    "breakthrough": ROOT / "kif" / "breakthrough" / "breakthrough.kif",
    "checkers": CORPUS / "checkers.kif",
    "connectFourSimultaneous": CORPUS / "connectFourSimultaneous.kif",
    "chineseCheckers3": CORPUS / "chineseCheckers3.kif",
    "hex": CORPUS / "hex.kif",
    "cylinder-checkers": CORPUS / "cylinder-checkers.kif",
    "skirmish": CORPUS / "skirmish.kif",
}
"""Three turn-taking classics, checkers, a simultaneous-move game, a 3-player game; and the large games
whose circuit takes seconds to build (hex and skirmish split, the largest checkers the budget compiles:
issue 42's item 4), where our player starts on the standby engine."""


def outcome(goals: list[int], seat: int) -> str:
    ours = goals[seat]
    best_other = max(g for i, g in enumerate(goals) if i != seat)
    return "win" if ours > best_other else "loss" if ours < best_other else "draw"


def run(args: argparse.Namespace) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh and args.out.exists():
        args.out.unlink()
    done = {(r["game"], r["player"], r["playclock"], r["index"]) for r in read_results(args.out)}
    logs = RESULTS.parent / "strength_ggp_base_logs"  # beside the default results file: never committed
    logs.mkdir(exist_ok=True)
    for game in args.games:
        kif = GAMES[game]
        n_roles = roles_of(kif)
        for spec in args.players:
            todo = [i for i in range(args.matches) if (game, spec, args.playclock, i) not in done]
            if not todo:
                continue
            for index in todo:  # a fresh player of ours and fresh peers every match: a crash decides no later one
                with ExitStack() as stack:
                    ours = stack.enter_context(serving(partial(our_player, spec), logs / "ours.log", "our player"))
                    theirs = [stack.enter_context(serving(
                        lambda port: [str(PEER), "PlayerMain", str(port), "SampleMonteCarloGamer"],
                        logs / f"peer{i}.log", "ggp-base's player")) for i in range(n_roles - 1)]
                    seat = index % n_roles
                    seats = [*theirs[:seat], ours, *theirs[seat:]]
                    record(game, spec, index, seat, play_match(kif, seats, args.startclock, args.playclock), args)


def record(game: str, spec: str, index: int, seat: int, match: dict[str, object], args: argparse.Namespace) -> None:
    """Append one match's row (our seat's result and the errors the host recorded against it)."""
    row: dict[str, object] = {"game": game, "player": spec, "playclock": args.playclock,
                              "startclock": args.startclock, "index": index, "seat": seat}
    if "failed" in match:
        row["failed"] = match["failed"]
    else:
        goals = [int(g) for g in cast(list[int], match["goalValues"])]
        steps = cast(list[list[str]], match.get("errors", []))
        row |= {"goals": goals, "result": outcome(goals, seat), "our_errors": [s[seat] for s in steps if s[seat]],
                "steps": len(cast(list[object], match.get("moves", [])))}
    with args.out.open("a") as out:
        out.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def read_results(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def table(path: Path) -> None:
    rows: dict[tuple[str, str, int], list[dict[str, object]]] = {}
    for row in read_results(path):
        rows.setdefault((str(row["game"]), str(row["player"]), cast(int, row["playclock"])), []).append(row)
    print("| Game | Ours | Play clock | Matches | W / D / L | Won of decided | 95% CI | Our TO/IL/CE | >= 90% |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (game, spec, clock), found in rows.items():
        results = [str(r.get("result", "failed")) for r in found]
        wins, draws, losses = (results.count(k) for k in ("win", "draw", "loss"))
        decided = wins + losses
        errors = sum(len(cast(list[str], r.get("our_errors", []))) for r in found)
        if decided:
            low, high = wilson(wins, decided)
            share, interval = f"{wins / decided:.0%}", f"{low:.0%}-{high:.0%}"
        else:
            share, interval = "—", "—"
        holds = "yes" if decided and wins / decided >= 0.9 and errors == 0 else "no"
        print(f"| {game} | `{spec}` | {clock} s | {len(found)} | {wins} / {draws} / {losses} | {share} | {interval} "
              f"| {errors} | {holds} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=10, help="matches per game and player")
    parser.add_argument("--startclock", type=int, default=30)
    parser.add_argument("--playclock", type=int, default=5)
    parser.add_argument("--players", nargs="+", default=["mcts", "alphabeta"])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--table", action="store_true", help="only print the table of the results so far")
    parser.add_argument("--out", help=f"results file (default {RESULTS.relative_to(ROOT)})")
    args = parser.parse_args()
    args.out = Path(args.out).resolve() if args.out else RESULTS
    if not PEER.is_file():
        raise SystemExit(f"ggp-base is not at {PEER} (../shared/peer)")
    if not args.table:
        run(args)
    table(args.out)


if __name__ == "__main__":
    main()
