"""Benchmark: enhancement duels with ``ggp arena``, kept as one JSON line per duel, and their table.

A duel is one ``ggp arena`` run of a new player spec against the one before it (seats rotated game by
game, seeded). ``run`` plays each duel given as ``GAME NEW OLD GAMES`` (``--duel`` repeatable) with the
circuit engine, ``--seed`` as the base seed, and appends to ``--out`` a line holding the exact command
and the arena's JSON (standings and per game seats, goals, length; compressed when the file ends in
``.gz``). A duel already in the file (same command) is skipped, so a long list runs in pieces. ``table``
prints per duel the new player's wins, draws and losses, its score (wins + draws / 2) / games and the
95% Wilson interval, as docs/players.md's tables give them. Specs with ``seconds=`` are time-equal
duels (each player searches that long a move, in one process: run them on a quiet core, e.g. with
``taskset``); ``iterations=`` ones are load-independent.

``speed`` measures what a playout option costs: native MCTS iterations per CPU second at a game's
opening (the player's defaults: exploration 0.4, MAST 0.3, MCTS-Solver) for each ``--decisive`` level,
``--seconds`` each, the levels taken in turn twice.

Usage: python benchmarks/arena_duels.py run --out FILE --duel GAME NEW OLD GAMES [--duel ...] [--seed S] [--engine E]
       python benchmarks/arena_duels.py table FILE
       python benchmarks/arena_duels.py results FILE   (docs/players.md's arena results table: W, D, L)
       python benchmarks/arena_duels.py speed GAME... [--decisive 0 1 2] [--seconds 2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any, cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ggp.evaluation.stats import wilson  # noqa: E402


def _open(path: Path, mode: str) -> IO[str]:
    if path.suffix == ".gz":
        return cast(IO[str], gzip.open(path, mode + "t", encoding="utf-8"))
    return path.open(mode, encoding="utf-8")


def read_duels(path: Path) -> list[dict[str, Any]]:
    """The duels recorded in ``path`` (none when it does not exist)."""
    if not path.is_file():
        return []
    with _open(path, "r") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def duel_command(game: str, new: str, old: str, games: int, seed: int, engine: str = "circuit") -> list[str]:
    return ["ggp", "arena", game, "--engine", engine, "--games", str(games), "--seed", str(seed), "--quiet",
            "--json", "--player", new, "--player", old]


def run(out: Path, duels: list[list[str]], seed: int, engine: str = "circuit") -> None:
    done = {" ".join(duel["command"]) for duel in read_duels(out)}
    for game, new, old, games in duels:
        command = duel_command(game, new, old, int(games), seed, engine)
        if " ".join(command) in done:
            print(f"skipped (in {out}): {' '.join(command)}", flush=True)
            continue
        finished = subprocess.run([sys.executable, "-m", "ggp", *command[1:]], cwd=ROOT, check=True, capture_output=True,
                                  text=True)
        result = json.loads(finished.stdout)
        with _open(out, "a") as sink:
            sink.write(json.dumps({"command": command, "result": result}) + "\n")
        print(row({"command": command, "result": result}), flush=True)


def row(duel: dict[str, Any]) -> str:
    """One Markdown row: game, new player, old player, games, W / D / L, score, 95% interval."""
    result = duel["result"]
    new, old = result["standings"][0], result["standings"][1]
    games = new["games"]
    score = (new["wins"] + new["draws"] / 2) / games
    low, high = wilson(new["wins"] + new["draws"] / 2, games)
    game = Path(result["game"]).stem
    return (f"| {game} | `{new['player']}` | `{old['player']}` | {games} | {new['wins']} / {new['draws']} / "
            f"{new['losses']} | {100 * score:.1f}% | {100 * low:.1f}%-{100 * high:.1f}% |")


def table(path: Path) -> None:
    print("| Game | New | Before | Games | New W / D / L | New's score | 95% CI |")
    print("|---|---|---|---|---|---|---|")
    for duel in read_duels(path):
        print(row(duel))


RESULTS_HEADER = "| Game (engine) | Player | vs | Games | Wins | Draws | Losses |"
"""The header of docs/players.md's arena results table (``results``)."""


def results_row(duel: dict[str, Any]) -> str:
    """One row of docs/players.md's arena results table: game (engine), the first player, the second, games,
    the first player's wins, draws and losses."""
    result, command = duel["result"], duel["command"]
    first, second = result["standings"][0], result["standings"][1]
    engine = command[command.index("--engine") + 1]
    return (f"| {Path(result['game']).stem} ({engine}) | `{first['player']}` | `{second['player']}` | {first['games']} | "
            f"{first['wins']} | {first['draws']} | {first['losses']} |")


def results(path: Path) -> None:
    print(RESULTS_HEADER)
    print("|---|---|---|---|---|---|---|")
    for duel in read_duels(path):
        print(results_row(duel))


def speed(games: list[str], levels: list[int], seconds: float) -> None:
    import time

    from ggp.files import load_kif
    from ggp.players.mcts import DEFAULT_EXPLORATION, DEFAULT_MAST
    from ggp.reasoner.circuit import CircuitStateMachine
    from ggp.reasoner.machine import GroundingLimits

    print("| Game | Lookahead | Iterations per CPU second (two runs) | Against none |")
    print("|---|---|---|---|")
    for game in games:
        machine = CircuitStateMachine(load_kif(Path(game)), GroundingLimits(), evaluator="c")
        rates: dict[int, list[float]] = {level: [] for level in levels}
        for _ in range(2):
            for level in levels:
                tree = machine.mcts_tree(machine.initial_state(), exploration=DEFAULT_EXPLORATION, playouts_per_leaf=1,
                                         chance=[False] * len(machine.roles), seed=1, max_nodes=1_000_000,
                                         mast=DEFAULT_MAST, solver=True, decisive=level)
                assert tree is not None
                started = time.thread_time()
                done = tree.search(10**12, time.monotonic() + seconds)
                rates[level].append(done / (time.thread_time() - started))
        base = sum(rates[levels[0]]) / 2
        for level in levels:
            mean = sum(rates[level]) / 2
            print(f"| {Path(game).stem} | {level} | {rates[level][0]:,.0f}, {rates[level][1]:,.0f} | "
                  f"{mean / base:.2f}x |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("run", help="play duels, appending one JSON line each")
    play.add_argument("--out", type=Path, required=True)
    play.add_argument("--duel", nargs=4, action="append", required=True, metavar=("GAME", "NEW", "OLD", "GAMES"))
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--engine", default="circuit", help="the arena's --engine (default circuit)")
    show = commands.add_parser("table", help="print the duels of a file as a Markdown table")
    show.add_argument("file", type=Path)
    plain = commands.add_parser("results", help="print the duels of a file as docs/players.md's arena results table")
    plain.add_argument("file", type=Path)
    cost = commands.add_parser("speed", help="native MCTS iterations per CPU second for each lookahead level")
    cost.add_argument("games", nargs="+")
    cost.add_argument("--decisive", type=int, nargs="+", default=[0, 1, 2])
    cost.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    if args.command == "run":
        run(args.out, args.duel, args.seed, args.engine)
    elif args.command == "speed":
        speed(args.games, args.decisive, args.seconds)
    elif args.command == "results":
        results(args.file)
    else:
        table(args.file)


if __name__ == "__main__":
    main()
