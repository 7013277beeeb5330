"""Ludii's published per-game metric figures beside ours (issue 32, "Checks"), and the data behind
docs/evaluation.md's section "Beside Ludii's own figures".

Usage::

    python benchmarks/ludii_compare.py [--out benchmarks/data/ludii_compare.json] [--seed 1] [--table]

It prints the markdown table of docs/evaluation.md; ``--table`` prints it from the saved data alone.

For each game it runs ``python -m ggp evaluate GAME --players 'random;random' --metrics METRICS
--matches N --seed SEED`` (uniformly random players, as Ludii's "Random playouts" pages use; N matches
per pairing and seat: 2N plays, the one pairing in both seats) and keeps each metric's value
and 95% interval from ``summary.json``. For tic-tac-toe it also enumerates all 255,168 games to give the
exact expectation of each metric under uniformly random play: a reference that needs no sampling and
no Ludii, against which both Ludii's and our sampled figures can be read.

Ludii's own figures come from ``benchmarks/data/ludii_published.json`` (:func:`published`): extracted from
Ludii's repository (``Mining/res/concepts/input/ToMerge/RulesetConcepts<Game>.csv``, concept ids resolved by
``Core/src/other/concept/Concept.java``; the file names both commits).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

METRICS = ("AdvantageP1", "Balance", "Completion", "Drawishness", "Timeouts", "DurationMoves", "DurationTurns",
           "DurationTurnsStdDev", "DurationTurnsNotTimeouts", "DecisionMoves", "BoardCoverageDefault",
           "BoardSitesOccupied", "BranchingFactor", "DecisionFactor", "PieceNumber")
"""The metrics of the "Behaviour" section of Ludii's concept pages (e.g. https://ludii.games/concepts.php?gameId=51:
PieceNumberAverage, DurationTurns, DurationTurnsStdDev, DurationTurnsNotTimeouts, DecisionMoves,
BoardCoverageDefault, AdvantageP1, Balance, Completion, Drawishness, Timeouts, BoardSitesOccupiedAverage,
BranchingFactorAverage, DecisionFactorAverage; the SkillTrace ones are not implemented here), with
DurationMoves beside DurationTurns; a family name gives all eleven of its aggregates."""

GAMES = {"ticTacToe": 2000, "connectFour": 50, "breakthrough": 25, "rockPaperScissors": 500, "chess": 50,
         "shatranj": 50, "los_alamos": 50}
"""Game in kif/ -> matches per pairing and seat (one pairing, random against random, in both seats: 2x as
many plays)."""

PUBLISHED = ROOT / "benchmarks" / "data" / "ludii_published.json"
"""Ludii's own figures for our games, extracted from its repository's RulesetConcepts CSVs (the file names
the source paths and commits)."""


def published(path: Path = PUBLISHED) -> dict[str, dict[str, float | None]]:
    """Ludii's figures per game and metric name, from the committed extract (``None``: not computed)."""
    data = json.loads(path.read_text())
    names = {str(number): name for name, number in data["concepts"]["ids"].items()}
    skipped = set(data["not_computed"])
    return {game: {names[number]: None if names[number] in skipped else float(value)
                   for number, value in values.items()}
            for game, values in data["raw"].items()}


SOURCES = {"chess": "games/chess.sbg", "shatranj": "games/shatranj.sbg", "los_alamos": "games/los_alamos.sbg"}
"""The games that are not in kif/: their SBG files (the evaluation's game name is the file's stem)."""

MORE = ("rockPaperScissors", "chess", "shatranj", "los_alamos")
"""The shared games beyond the first table's three: Ludii against ours only (no exact reference)."""


def ours(game: str, matches: int, seed: int) -> dict[str, Any]:
    """Our figures for ``game`` with random players: {metric: {"value", "interval"?, "plays"}}."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "ggp", "evaluate", SOURCES.get(game, game), "--players", "random;random",
                   "--metrics",
                   ",".join(METRICS), "--matches", str(matches), "--seed", str(seed), "--out", out]
        subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
        summary = json.loads((Path(out) / "summary.json").read_text())
    (entry,) = summary["games"]
    return {"command": "python " + shlex.join(command[1:-2]), "plays": entry["matches"], "metrics": entry["metrics"]}


def exact_tictactoe() -> dict[str, float]:
    """Exact expectations of the metrics for tic-tac-toe under uniformly random play (X moves first),
    with Ludii's definitions: a turn per move, BoardCoverageDefault = cells used / 9, DecisionMoves =
    share of moves with more than one legal move, averages per play then over plays."""
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    totals = {"x": 0.0, "o": 0.0, "draw": 0.0, "length": 0.0, "length2": 0.0, "decision": 0.0,
              "branching": 0.0, "decision_factor": 0.0, "occupied": 0.0}

    def walk(board: list[str], mover: str, p: float, branching: list[int]) -> None:
        empty = [i for i, c in enumerate(board) if not c]
        for cell in empty:
            board[cell] = mover
            q = p / len(empty)
            seen = [*branching, len(empty)]
            won = any(all(board[i] == mover for i in line) for line in lines)
            if won or len(empty) == 1:
                length = len(seen)
                totals[mover if won else "draw"] += q
                totals["length"] += q * length
                totals["length2"] += q * length * length
                totals["decision"] += q * sum(b > 1 for b in seen) / length
                totals["branching"] += q * sum(seen) / length
                choices = [b for b in seen if b > 1]
                totals["decision_factor"] += q * sum(choices) / len(choices)
                # BoardSitesOccupied per state s_0..s_L: t occupied cells of 9 after t moves.
                totals["occupied"] += q * sum(t / 9 for t in range(length + 1)) / (length + 1)
            else:
                walk(board, "o" if mover == "x" else "x", q, seen)
            board[cell] = ""

    walk([""] * 9, "x", 1.0, [])
    length = totals["length"]
    return {"AdvantageP1": totals["x"] + totals["draw"] / 2, "AdvantageP1WinsOnly": totals["x"],
            "Completion": totals["x"] + totals["o"], "Drawishness": totals["draw"],
            "Balance": 1 - abs(totals["x"] - totals["o"]), "Timeouts": 0.0,
            "DurationMoves": length, "DurationTurns": length,
            "DurationTurnsStdDev": math.sqrt(totals["length2"] - length * length),
            "DecisionMoves": totals["decision"], "BoardCoverageDefault": length / 9,
            "BranchingFactorAverage": totals["branching"], "DecisionFactorAverage": totals["decision_factor"],
            "BoardSitesOccupiedAverage": totals["occupied"], "PieceNumberAverage": 9 * totals["occupied"],
            "DurationTurnsNotTimeouts": length}


TABLE = ("AdvantageP1", "AdvantageP1WinsOnly", "Balance", "Completion", "Drawishness", "Timeouts", "DurationMoves",
         "DurationTurns", "DurationTurnsStdDev", "DurationTurnsNotTimeouts", "DecisionMoves", "BoardCoverageDefault",
         "BoardSitesOccupiedAverage", "BranchingFactorAverage", "DecisionFactorAverage", "PieceNumberAverage")
"""The rows of the table in docs/evaluation.md. ``AdvantageP1WinsOnly`` is Ludii's AdvantageP1 (wins only):
ours counts a draw as half a win (the metrics specification), so Ludii's figure is set against ours less
half the share of plays without a winner, AdvantageP1 - (1 - Completion) / 2 (two roles)."""

LABELS = {"AdvantageP1": "AdvantageP1 (a draw counts 1/2)",
          "AdvantageP1WinsOnly": "AdvantageP1, wins only (Ludii's; ours: AdvantageP1 - (1 - Completion)/2)"}


def ours_figure(data: dict[str, Any], game: str, metric: str) -> dict[str, Any]:
    """Our figure of ``metric`` for ``game``: {"value", "interval"?, "plays"} (the wins-only AdvantageP1 is
    derived, without an interval)."""
    found = data["ours"][game]["metrics"]
    if metric != "AdvantageP1WinsOnly":
        return dict(found[metric])
    advantage, completion = found["AdvantageP1"], found["Completion"]
    return {"value": advantage["value"] - (1 - completion["value"]) / 2, "plays": advantage["plays"]}


def ludii_name(metric: str) -> str | None:
    """The Ludii concept a row sets ours against (``None``: Ludii has no figure of that definition)."""
    return {"AdvantageP1": None, "AdvantageP1WinsOnly": "AdvantageP1"}.get(metric, metric)


def table(data: dict[str, Any], ludii_figures: dict[str, dict[str, float | None]] | None = None) -> str:
    """The markdown table of docs/evaluation.md: per metric Ludii's figure (:func:`published`; "-" where its
    file has none), the exact tic-tac-toe value, and ours with its 95% interval, for tic-tac-toe, connect
    four and breakthrough."""
    figures = published() if ludii_figures is None else ludii_figures

    def ludii(game: str, metric: str) -> str:
        name = ludii_name(metric)
        value = None if name is None else figures.get(game, {}).get(name)
        return "-" if value is None else f"{value:g}"

    def ours(game: str, metric: str) -> str:
        found = ours_figure(data, game, metric)
        interval = found.get("interval")
        return f"{found['value']:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")

    exact = data["exact"]["ticTacToe"]
    lines = ["| metric | tic-tac-toe: Ludii | exact | ours | connect four: Ludii | ours | breakthrough: Ludii | ours |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {LABELS.get(m, m)} | {ludii('ticTacToe', m)} | {exact[m]:.3f} | {ours('ticTacToe', m)} "
              f"| {ludii('connectFour', m)} | {ours('connectFour', m)} | {ludii('breakthrough', m)} "
              f"| {ours('breakthrough', m)} |" for m in TABLE]
    return "\n".join(lines)


def more_table(data: dict[str, Any], ludii_figures: dict[str, dict[str, float | None]] | None = None) -> str:
    """The second markdown table of docs/evaluation.md: Ludii's figure and ours (95% interval) for the
    shared games of :data:`MORE`, the metrics Ludii's files give."""
    figures = published() if ludii_figures is None else ludii_figures
    rows = [m for m in TABLE if (name := ludii_name(m)) is not None
            and any(figures.get(game, {}).get(name) is not None for game in MORE)]
    lines = ["| metric | " + " | ".join(f"{game}: Ludii | ours" for game in MORE) + " |",
             "|---|" + "---|---|" * len(MORE)]
    for metric in rows:
        cells = []
        for game in MORE:
            name = ludii_name(metric)
            value = None if name is None else figures.get(game, {}).get(name)
            found = data["ours"][game]["metrics"].get(metric) if metric != "AdvantageP1WinsOnly" else None
            mine = ours_figure(data, game, metric) if found is not None or metric == "AdvantageP1WinsOnly" else None
            shown = "n/a" if mine is None or mine.get("value") is None else f"{mine['value']:.3f}" + (
                f" [{mine['interval'][0]:.3f}, {mine['interval'][1]:.3f}]" if mine.get("interval") else "")
            cells += ["-" if value is None else f"{value:g}", shown]
        lines.append(f"| {LABELS.get(metric, metric)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


Z95 = 1.96
PROPORTIONS = frozenset({"AdvantageP1", "Completion", "Drawishness", "Timeouts"})
"""Metrics that are a share of plays (a 0/1 value per play)."""


def differences(data: dict[str, Any], ludii_figures: dict[str, dict[str, float | None]] | None = None) -> str:
    """The markdown table of docs/evaluation.md that sets each Ludii figure against ours: the difference and
    the largest number of Ludii trials for which sampling alone explains it (the difference within two
    standard errors of both samples; our per-play standard deviation is read back from our 95% bootstrap
    interval, sd = width / (2 * 1.96) * sqrt(plays), or for a share of plays p the binomial sqrt(p (1 - p)) at
    the mean of both figures, and Ludii's two-decimal rounding, 0.005, is taken off
    the difference first). "any" means sampling explains it at every trial count; "-" where we have no
    interval (a metric over all plays)."""
    figures = published() if ludii_figures is None else ludii_figures
    lines = ["| game | metric | Ludii | ours | difference | explained by sampling up to N Ludii trials |",
             "|---|---|---|---|---|---|"]
    for game in GAMES:
        for metric in TABLE:
            name = ludii_name(metric)
            value = None if name is None else figures.get(game, {}).get(name)
            if value is None or name is None:
                continue
            found = ours_figure(data, game, metric)
            if found.get("value") is None:
                continue  # n/a for our game (no board): nothing to set against
            difference = abs(value - found["value"])
            interval = found.get("interval")
            if interval is None and name not in PROPORTIONS:
                trials = "-"
            else:
                if name in PROPORTIONS:  # a share of plays: the binomial deviation (ours is 0 when no play differed)
                    share = (value + found["value"]) / 2
                    sd = math.sqrt(share * (1 - share))
                else:
                    assert interval is not None
                    sd = (interval[1] - interval[0]) / (2 * Z95) * math.sqrt(found["plays"])
                se_ours = sd / math.sqrt(found["plays"])
                room = (max(0.0, difference - 0.005) / 2) ** 2 - se_ours ** 2
                most = math.floor(sd * sd / room) if room > 0 else None
                trials = "any" if most is None else "none" if most < 1 else f"{most:,}"
            lines.append(f"| {game} | {name} | {value:g} | {found['value']:.3f} | {difference:.3f} | {trials} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "data" / "ludii_compare.json")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--table", action="store_true", help="only print the table of the data in --out")
    args = parser.parse_args()
    if args.table:
        data = json.loads(args.out.read_text())
        print(table(data) + "\n\n" + more_table(data) + "\n\n" + differences(data))
        return
    data = {"exact": {"ticTacToe": exact_tictactoe()},
            "ours": {game: ours(game, matches, args.seed) for game, matches in GAMES.items()}}
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(table(data) + "\n\n" + more_table(data) + "\n\n" + differences(data))


if __name__ == "__main__":
    main()
