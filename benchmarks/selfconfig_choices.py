"""What the default ``mcts`` chooses for itself per game (issue 41's self-configuration), and from what.

Profiles each game on its compiled circuit exactly as :meth:`ggp.players.mcts.MctsPlayer.start` does
(:func:`ggp.players.selfconfig.profile_game` with the player's seed, no clock: the count-bounded measurement
a seat with a long enough start clock makes) and writes one JSON line per game; ``table`` prints the
Markdown table of docs/strength.md from those lines.

    PYTHONPATH=. python benchmarks/selfconfig_choices.py run --out benchmarks/data/selfconfig_choices.jsonl
    PYTHONPATH=. python benchmarks/selfconfig_choices.py table benchmarks/data/selfconfig_choices.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "gdl-corpus"
GAMES = ("ticTacToe", "connectFour", "connectFourSimultaneous", "knightsTour", "breakthrough", "reversi",
         "chineseCheckers3", "checkers", "pentago", "sheepAndWolf", "3pConnectFour", "dotsAndBoxesSuicide",
         "dualConnect4")
"""docs/strength.md's games against Sancho, then others of different kinds from the corpus."""


def measure(game: str, seed: int) -> dict[str, object]:
    """One game's profile and choice (or the reason it has none)."""
    from ggp.files import load_kif
    from ggp.players.selfconfig import choose_settings, profile_game
    from ggp.reasoner.circuit.machine import make_fast_machine

    machine = make_fast_machine(load_kif(CORPUS / f"{game}.kif"))
    if getattr(machine, "mcts_tree", None) is None:
        settings = choose_settings(None, "no native search: the circuit is not compiled within a quick build")
        return {"game": game, "decisive": settings.decisive, "reason": settings.reason}
    profile = profile_game(machine, seed)
    settings = choose_settings(profile)
    return {"game": game, "decisive": settings.decisive, "puzzle": settings.puzzle, "decisions": profile.decisions,
            "win_share": round(profile.win_share, 3), "fit_share": round(profile.fit_share, 3),
            "branching": round(profile.branching, 1), "seconds": round(profile.seconds, 2), "factors": profile.factors,
            "one_factor_share": round(profile.one_factor / profile.decisions, 3) if profile.decisions else 0.0,
            "factored": settings.factored, "reason": settings.reason}


def table(rows: list[dict[str, object]]) -> str:
    """docs/strength.md's table of the choices."""
    lines = ["| Game | Decisions sampled | Decisive move exists | (move, reply) pairs fit 64 lanes | Mean branching "
             "| Independent sub-games (a decision's moves in one) | Chosen |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        if "decisions" not in row:
            lines.append(f"| {row['game']} | - | - | - | - | - | decisive={row['decisive']} ({row['reason']}) |")
            continue
        chosen = f"decisive={row['decisive']}" + (", NMCS + best line (puzzle)" if row.get("puzzle") else "")
        chosen += ", factored search" if row.get("factored") else ""
        factors = int(row.get("factors", 1))  # type: ignore[call-overload]
        split = f"{factors} ({float(row.get('one_factor_share', 0.0)):.0%})" if factors > 1 else "1"  # type: ignore[arg-type]
        lines.append(f"| {row['game']} | {row['decisions']} | {float(row['win_share']):.0%} "  # type: ignore[arg-type]
                     f"| {float(row['fit_share']):.0%} | {row['branching']} | {split} | {chosen} |")  # type: ignore[arg-type]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="profile the games and write one JSON line each")
    run.add_argument("--out", type=Path, required=True)
    run.add_argument("--seed", type=int, default=0, help="the player's seed (default 0, as `ggp player mcts`)")
    run.add_argument("games", nargs="*", default=list(GAMES))
    show = sub.add_parser("table", help="print the Markdown table of a results file")
    show.add_argument("results", type=Path)
    args = parser.parse_args()
    if args.command == "table":
        print(table([json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]))
        return
    with args.out.open("w") as out:
        for game in args.games:
            row = measure(game, args.seed)
            print(json.dumps(row), file=out, flush=True)
            print(row)


if __name__ == "__main__":
    main()
