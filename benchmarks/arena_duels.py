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

``enhancements FILE`` plays the runs of :data:`ENHANCEMENTS` missing from FILE in the same way (a row may sum
several base seeds, the old player entering first in a block marked swapped; a puzzle row plays each spec
alone) and prints docs/players.md's measured-enhancement table and the best-line rows of its puzzle table
(``--table``: print only).

``speed`` measures what a playout option costs: native MCTS iterations per CPU second at a game's
opening (the player's defaults: exploration 0.4, MAST 0.3, MCTS-Solver) for each ``--decisive`` level,
``--seconds`` each, the levels taken in turn twice.

Usage: python benchmarks/arena_duels.py run --out FILE --duel GAME NEW OLD GAMES [--duel ...] [--seed S] [--engine E]
       python benchmarks/arena_duels.py table FILE
       python benchmarks/arena_duels.py results FILE   (docs/players.md's arena results table: W, D, L)
       python benchmarks/arena_duels.py enhancements FILE [--table] [--engine E]
       python benchmarks/arena_duels.py speed GAME... [--decisive 0 1 2] [--seconds 2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
from dataclasses import dataclass
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
    return arena_command(game, [new, old], games, seed, engine)


def arena_command(game: str, players: list[str], games: int, seed: int, engine: str = "circuit") -> list[str]:
    """The ``ggp arena`` command playing ``players`` (one ``--player`` each, in entrant order) as JSON."""
    command = ["ggp", "arena", game, "--engine", engine, "--games", str(games), "--seed", str(seed), "--quiet", "--json"]
    for spec in players:
        command += ["--player", spec]
    return command


def play(out: Path, command: list[str]) -> dict[str, Any] | None:
    """Run one ``ggp arena`` ``command`` and append its record (the command and the arena's JSON) to ``out``;
    None, without running it, when ``out`` already holds that command."""
    if " ".join(command) in {" ".join(duel["command"]) for duel in read_duels(out)}:
        print(f"skipped (in {out}): {' '.join(command)}", flush=True)
        return None
    finished = subprocess.run([sys.executable, "-m", "ggp", *command[1:]], cwd=ROOT, check=True, capture_output=True,
                              text=True)
    record = {"command": command, "result": json.loads(finished.stdout)}
    with _open(out, "a") as sink:
        sink.write(json.dumps(record) + "\n")
    return record


def run(out: Path, duels: list[list[str]], seed: int, engine: str = "circuit") -> None:
    for game, new, old, games in duels:
        record = play(out, duel_command(game, new, old, int(games), seed, engine))
        if record is not None:
            print(row(record), flush=True)


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


ENHANCEMENTS_HEADER = ("| Enhancement (new vs before) | Game | Iterations a move | Seed(s) | Games | New W / D / L | "
                       "New's score | 95% CI |")
"""The header of docs/players.md's enhancement duels table (``enhancements``)."""

PUZZLES_HEADER = ("| Enhancement (new vs before) | Game | Iterations a move | Seed(s) | Games | "
                  "New's mean goal (full tours) | Before's |")
"""The header of docs/players.md's one-role (puzzle) table; ``enhancements`` prints its best-line rows."""

CONNECT_FOUR = "kif/connectFour/connectFour.kif"
BREAKTHROUGH = "kif/breakthrough/breakthrough.kif"
CORPUS = "../shared/gdl-corpus/"


@dataclass(frozen=True)
class Block:
    """One ``ggp arena`` run of a row: base seed, games, and whether the old player enters first."""

    seed: int
    games: int
    swapped: bool = False


@dataclass(frozen=True)
class Enhancement:
    """One row of the enhancement table: ``new`` against ``old`` on ``game``, summed over ``blocks``; a puzzle
    row (``puzzle``) instead plays each spec alone in one block and gives each one's mean goal."""

    label: str
    game: str
    new: str
    old: str
    blocks: tuple[Block, ...]
    puzzle: bool = False

    def commands(self, engine: str = "circuit") -> list[list[str]]:
        if self.puzzle:
            [block] = self.blocks
            return [arena_command(self.game, [spec], block.games, block.seed, engine) for spec in (self.new, self.old)]
        return [arena_command(self.game, [self.old, self.new] if block.swapped else [self.new, self.old], block.games,
                              block.seed, engine) for block in self.blocks]

    def cells(self) -> str:
        """The row's cells up to its games: label, game, iterations a move, seeds, games."""
        iterations = re.search(r"iterations=(\d+)", self.new)
        assert iterations is not None, self.new
        seeds = ", ".join(f"{b.seed}{' (seats swapped)' if b.swapped else ''}" for b in self.blocks)
        return (f"| {self.label} | {Path(self.game).stem} | {int(iterations[1]):,} | {seeds} | "
                f"{sum(b.games for b in self.blocks)} |")


def _pinned(iterations: int, options: str = "") -> str:
    """An ``mcts`` spec at ``iterations`` a move with ``decisive=0`` pinned (no per-match choice)."""
    return f"mcts:iterations={iterations},{options + ',' if options else ''}decisive=0"


ENHANCEMENTS = (
    Enhancement("MCTS-Solver (`mcts` vs `mcts:solver=0`)", CONNECT_FOUR, _pinned(3000), _pinned(3000, "solver=0"),
                (Block(0, 100), Block(5000, 200))),
    Enhancement("MCTS-Solver", "kif/ticTacToe/ticTacToe.kif", _pinned(1000), _pinned(1000, "solver=0"), (Block(0, 100),)),
    Enhancement("MCTS-Solver", BREAKTHROUGH, _pinned(1000), _pinned(1000, "solver=0"),
                (Block(0, 60), Block(7000, 60, swapped=True), Block(9000, 60))),
    Enhancement("RAVE k = 500 (`mcts:rave=500` vs `mcts`)", CONNECT_FOUR, _pinned(3000, "rave=500"), _pinned(3000),
                (Block(0, 100),)),
    Enhancement("RAVE k = 50", CONNECT_FOUR, _pinned(3000, "rave=50"), _pinned(3000), (Block(0, 100),)),
    Enhancement("RAVE k = 500", BREAKTHROUGH, _pinned(1000, "rave=500"), _pinned(1000), (Block(0, 30),)),
    Enhancement("(null check: `mcts:solver=0` vs itself)", BREAKTHROUGH, _pinned(1000, "solver=0"),
                _pinned(1000, "solver=0"), (Block(0, 60),)),
    Enhancement("(null check: `mcts:solver=0` vs itself)", BREAKTHROUGH, _pinned(1000, "solver=0"),
                _pinned(1000, "solver=0"), (Block(9000, 60),)),
    Enhancement("Most visited move at simultaneous roots (`mcts:mix=0` vs `mcts`)", CORPUS + "connectFourSimultaneous.kif",
                _pinned(3000, "mix=0"), _pinned(3000), (Block(0, 20), Block(5000, 100))),
    Enhancement("Best line (`mcts` vs `mcts:line=0`, both `nested=0`: no NMCS)", CORPUS + "knightsTour.kif",
                _pinned(2000, "nested=0"), _pinned(2000, "nested=0,line=0"), (Block(0, 10),), puzzle=True),
    Enhancement("Best line", CORPUS + "knightsTour.kif", _pinned(10000, "nested=0"), _pinned(10000, "nested=0,line=0"),
                (Block(0, 10),), puzzle=True),
)
"""The duels of docs/players.md's measured enhancements (issue 44): each enhancement against the player
without it at equal iterations, ``decisive=0`` pinned on both sides (the default player chooses it per match
since issue 41; these duels measure the enhancement alone, as first run on 2026-11-27)."""


def _recorded(duels: list[dict[str, Any]], command: list[str]) -> dict[str, Any]:
    """The result of ``command`` among ``duels`` (KeyError when it was not run)."""
    found: dict[str, dict[str, Any]] = {" ".join(duel["command"]): duel["result"] for duel in duels}
    return found[" ".join(command)]


def enhancement_row(plan: Enhancement, duels: list[dict[str, Any]]) -> str:
    """``plan``'s row of the enhancement table from the recorded ``duels``: the new player's wins, draws and
    losses over all its blocks, its score and the 95% Wilson interval."""
    wins = draws = losses = 0
    for block, command in zip(plan.blocks, plan.commands()):
        new = _recorded(duels, command)["standings"][1 if block.swapped else 0]
        assert new["player"].split("#")[0] == plan.new, (new, plan)
        wins, draws, losses = wins + new["wins"], draws + new["draws"], losses + new["losses"]
    games = wins + draws + losses
    low, high = wilson(wins + draws / 2, games)
    return (f"{plan.cells()} {wins} / {draws} / {losses} | {100 * (wins + draws / 2) / games:.1f}% | "
            f"{100 * low:.1f}%-{100 * high:.1f}% |")


def puzzle_row(plan: Enhancement, duels: list[dict[str, Any]]) -> str:
    """``plan``'s row of the puzzle table: each player's mean goal and, in brackets, its games at goal 100."""
    shown = []
    for spec, command in zip((plan.new, plan.old), plan.commands()):
        result = _recorded(duels, command)
        assert result["players"] == [spec], (result["players"], spec)
        goals = [game["goals"][0] for game in result["games"]]
        shown.append(f"{sum(goals) / len(goals):.1f} ({goals.count(100)})")
    return f"{plan.cells()} {shown[0]} | {shown[1]} |"


def enhancements(path: Path, play_missing: bool, engine: str = "circuit") -> None:
    """Play the :data:`ENHANCEMENTS` runs missing from ``path`` (``play_missing``), then print both tables."""
    if play_missing:
        for plan in ENHANCEMENTS:
            for command in plan.commands(engine):
                if play(path, command) is not None:
                    print(f"done: {' '.join(command)}", flush=True)
    duels = read_duels(path)
    for header, puzzle in ((ENHANCEMENTS_HEADER, False), (PUZZLES_HEADER, True)):
        print(f"\n{header}\n|{'---|' * header.count(' | ')}---|")
        for plan in ENHANCEMENTS:
            if plan.puzzle == puzzle:
                try:
                    print((puzzle_row if puzzle else enhancement_row)(plan, duels))
                except KeyError:
                    print(f"{plan.cells()} (not all of its runs are in {path})")


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
    plan = commands.add_parser("enhancements", help="play the enhancement duels missing from FILE, print their tables")
    plan.add_argument("file", type=Path)
    plan.add_argument("--table", action="store_true", help="only print the tables of FILE's runs")
    plan.add_argument("--engine", default="circuit", help="the arena's --engine (default circuit)")
    cost = commands.add_parser("speed", help="native MCTS iterations per CPU second for each lookahead level")
    cost.add_argument("games", nargs="+")
    cost.add_argument("--decisive", type=int, nargs="+", default=[0, 1, 2])
    cost.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    if args.command == "run":
        run(args.out, args.duel, args.seed, args.engine)
    elif args.command == "enhancements":
        enhancements(args.file, not args.table, args.engine)
    elif args.command == "speed":
        speed(args.games, args.decisive, args.seconds)
    elif args.command == "results":
        results(args.file)
    else:
        table(args.file)


if __name__ == "__main__":
    main()
