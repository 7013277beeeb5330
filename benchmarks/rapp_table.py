"""Build a RAPP model from finished self-play results and print every game's fitness as a Markdown table.

Reads one or more ``results.jsonl`` files written by ``ggp evaluate`` (or its benchmarks), builds the
model from the group of games containing ``--anchor`` (games whose win matrix is incomplete are left
out), optionally saves it, and prints fitness, distance, balance and quickness per game. This is how
``ggp/evaluation/data/default_model.json`` was made (see docs/evaluation.md).

Usage: python benchmarks/rapp_table.py RESULTS.jsonl... --players 'random;mcts:iterations=10;...'
       (--anchor gardner [--save ggp/evaluation/data/default_model.json] | --model FILE)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ggp.evaluation.evaluate import RappModel, build_model, report_game
from ggp.evaluation.selfplay import MatchResult, read_results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--players", required=True, help="the ladder, ';'-separated, weakest first")
    parser.add_argument("--anchor", default=None, help="build the model: the group of games containing this one")
    parser.add_argument("--model", type=Path, default=None, help="use this model JSON instead of building one")
    parser.add_argument("--save", type=Path, default=None, help="write the model JSON here")
    args = parser.parse_args()
    specs = tuple(s.strip() for s in args.players.split(";"))
    by_game: dict[str, list[MatchResult]] = {}
    for path in args.results:
        for result in read_results(path).values():
            if set(result.players) <= set(specs):
                by_game.setdefault(result.game, []).append(result)
    if args.model:
        model = RappModel.load(args.model)
    elif args.anchor:
        model = build_model(by_game, specs, anchor=args.anchor)
    else:
        parser.error("give --anchor (build a model) or --model (use one)")
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(model.to_json(), indent=2) + "\n")
    print(f"model games: {', '.join(model.games)}; algorithms: {', '.join(model.algorithms)}")
    print("| game | plays | RAPP fitness | D | B | Q | mean plies | in model |")
    print("|---|---|---|---|---|---|---|---|")
    for game in sorted(by_game):
        report = report_game(game, by_game[game], specs, model)
        f = report.fitness
        shown = [f"{v:.3f}" if v is not None else "n/a" for v in (f.fitness, f.distance, f.balance, f.quickness)]
        plies = report.criteria.get("duration_mean")
        print(f"| {game} | {report.matches - report.failed} | {' | '.join(shown)} | "
              f"{'n/a' if plies is None else f'{plies:.1f}'} | {'yes' if game in model.games else ''} |")


if __name__ == "__main__":
    main()
