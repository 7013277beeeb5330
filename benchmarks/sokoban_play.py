"""Benchmark: how often the general game players solve generated Sokoban levels played as GDL (issue 9).

Generates ``--count`` small levels with the SYM generator (fixed seed; by default trivial levels are
kept, so the set spans easy to medium; ``--non-trivial`` keeps only PSH > 0.5 and LEN > 0.5
ones), translates each to a one-player GDL game whose step limit is twice the optimal number of
moves, and lets each player play each level in-process (``ggp.arena.play_game``, iteration
budgets, seeded). A level counts as solved when the game ends with goal 100 (every box on a target)
within the step limit. It also plays one level through the game manager (``ggp match``: a
built-in player served over HTTP with start and play clocks, and the manager's own random player)
to show that the translated levels play through the manager too. The tables are printed and
written to ``docs/sokoban_play.md``; the levels and their GDL go to ``--work``.

Usage: python benchmarks/sokoban_play.py [--count 20] [--size 6x6] [--boxes 2] [--seed 0] [--runs 1]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ggp.arena import play_game
from ggp.commands._args import positive_int, size_arg
from ggp.errors import ReasonerError
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description
from ggp.players.registry import make_player
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import StateMachine
from ggp.translators.sokoban.candidates import Generated
from ggp.translators.sokoban.generator import SymSettings, generate
from ggp.translators.sokoban.level import levels_to_text
from ggp.translators.sokoban.to_gdl import translate

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "sokoban_play.md"
DEFAULT_WORK = ROOT / "benchmarks" / "results" / "sokoban_play"

PLAYERS: tuple[str, ...] = (
    "random",
    "monte_carlo:iterations=1000,playouts_per_visit=16",
    "mcts:iterations=50,playouts_per_leaf=16",
    "mcts:iterations=200,playouts_per_leaf=16",
    "mcts:iterations=1000,playouts_per_leaf=16",
)
"""Budgets per move: playouts for monte_carlo, tree iterations (16 playouts each) for mcts."""


@dataclass(frozen=True, slots=True)
class Play:
    """One player's game on one level."""

    level: int
    player: str
    run: int
    goal: int
    steps: int
    seconds: float

    @property
    def solved(self) -> bool:
        return self.goal == 100


def build_machine(description: Description, engine: str) -> tuple[StateMachine, str]:
    """The level's machine on ``engine``, or on clingo when that engine does not build."""
    try:
        return make_machine(description, engine), engine
    except ReasonerError as exc:
        if engine == "clingo":
            raise
        print(f"{description.file}: {engine} unavailable ({exc}); using clingo", file=sys.stderr)
        return make_machine(description, "clingo"), "clingo"


def play_levels(
    levels: list[Generated], players: list[str], runs: int, random_runs: int, engine: str, work: Path
) -> tuple[list[Play], list[str]]:
    """Every player plays every level ``runs`` times (``random``: ``random_runs``) in-process.

    Also writes each level's GDL to ``work``.
    """
    plays: list[Play] = []
    engines: list[str] = []
    for index, item in enumerate(levels):
        limit = 2 * item.difficulty.moves
        description = translate(item.level, limit)
        (work / f"level{index:02d}.kif").write_text(to_kif(description))
        machine, used = build_machine(description, engine)
        engines.append(used)
        for spec in players:
            for run in range(random_runs if spec == "random" else runs):
                seed = 1000 * index + run
                start = time.perf_counter()
                goals, steps, _, _ = play_game(machine, [make_player(spec, seed)], seed, limit + 1)
                plays.append(Play(index, spec, run, goals[0], steps, time.perf_counter() - start))
        solved = ", ".join(
            f"{spec.split(':')[0]}={sum(p.solved for p in plays if p.level == index and p.player == spec)}"
            for spec in players
        )
        print(f"level {index}: {item.difficulty.moves} moves, {item.difficulty.pushes} pushes: {solved}",
              file=sys.stderr, flush=True)
    return plays, engines



def manager_match(kif: Path, player: str, engine: str, playclock: int, seed: int) -> str:
    """Run ``ggp match`` on one level and return its summary line."""
    command = [sys.executable, "-m", "ggp", "match", str(kif), "--player", player, "--engine", engine,
               "--seed", str(seed), "--startclock", "60", "--playclock", str(playclock), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=ROOT, check=False)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}, no output"


def summary_table(levels: list[Generated], plays: list[Play], players: list[str]) -> str:
    lines = [
        "| Player | Solved | Rate | Mean steps when solved (optimal) | Mean time per game |",
        "|---|---|---|---|---|",
    ]
    for spec in players:
        mine = [p for p in plays if p.player == spec]
        won = [p for p in mine if p.solved]
        optimal = sum(levels[p.level].difficulty.moves for p in won) / len(won) if won else 0.0
        steps = f"{sum(p.steps for p in won) / len(won):.1f} ({optimal:.1f})" if won else "-"
        lines.append(
            f"| `{spec}` | {len(won)} / {len(mine)} | {100 * len(won) / len(mine):.0f}% | {steps} "
            f"| {sum(p.seconds for p in mine) / len(mine):.2f} s |"
        )
    return "\n".join(lines)


def level_table(levels: list[Generated], plays: list[Play], players: list[str], engines: list[str]) -> str:
    short = [spec.replace("playouts_per_leaf=16", "ppl16").replace("playouts_per_visit=16", "ppv16") for spec in players]
    lines = [
        "| Level | Optimal moves / pushes | Step limit | Engine | " + " | ".join(f"`{s}`" for s in short) + " |",
        "|---|---|---|---|" + "---|" * len(players),
    ]
    for index, item in enumerate(levels):
        cells = []
        for spec in players:
            mine = [p for p in plays if p.level == index and p.player == spec]
            won = [p for p in mine if p.solved]
            cells.append(f"{len(won)}/{len(mine)}" + (f" ({min(p.steps for p in won)})" if won else ""))
        lines.append(
            f"| {index} | {item.difficulty.moves} / {item.difficulty.pushes} | {2 * item.difficulty.moves} "
            f"| {engines[index]} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=positive_int, default=20, help="levels (default 20)")
    parser.add_argument("--size", type=size_arg, default=(6, 6), help="interior WxH (default 6x6)")
    parser.add_argument("--boxes", type=positive_int, default=2, help="boxes (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--non-trivial", action="store_true", help="keep only non-trivial levels")
    parser.add_argument("--runs", type=positive_int, default=1, help="seeded games per player and level")
    parser.add_argument("--random-runs", type=positive_int, default=20,
                        help="seeded games per level for the (cheap) random player (default 20)")
    parser.add_argument("--player", action="append", default=[], metavar="SPEC", help="players (default: a set)")
    parser.add_argument("--engine", default="circuit", help="reasoner engine (default circuit, else clingo)")
    parser.add_argument("--manager-level", type=int, default=None, metavar="I",
                        help="level played through ggp match (default: the one with the fewest optimal moves)")
    parser.add_argument("--playclock", type=positive_int, default=2, help="play clock of the manager match")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="where levels and GDL go")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="markdown output")
    args = parser.parse_args()
    players = args.player or list(PLAYERS)
    width, height = args.size
    settings = SymSettings(width=width, height=height, boxes=args.boxes)
    levels = list(generate(settings, args.count, args.seed, keep_trivial=not args.non_trivial))
    if args.manager_level is None:
        args.manager_level = min(range(len(levels)), key=lambda i: levels[i].difficulty.moves)
    if not 0 <= args.manager_level < len(levels):
        raise SystemExit(f"--manager-level must be below the number of levels ({len(levels)})")
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "levels.txt").write_text(levels_to_text([item.level for item in levels]))
    start = time.perf_counter()
    plays, engines = play_levels(levels, players, args.runs, args.random_runs, args.engine, args.work)
    elapsed = time.perf_counter() - start
    kif = args.work / f"level{args.manager_level:02d}.kif"
    manager = [(spec, manager_match(kif, spec, args.engine, args.playclock, args.seed)) for spec in ("mcts", "random")]
    kind = "non-trivial" if args.non_trivial else "trivial and non-trivial"
    text = "\n".join([
        "## Players solving Sokoban levels",
        "",
        (f"{len(levels)} levels from `ggp generate sokoban --size {width}x{height} --boxes {args.boxes} "
        f"--seed {args.seed}{'' if args.non_trivial else ' --keep-trivial'} --count {args.count}` "
        f"({kind}; optimal moves {min(i.difficulty.moves for i in levels)} to "
        f"{max(i.difficulty.moves for i in levels)}), each translated to a one-player GDL game with a step limit of "
        f"twice the optimal number of moves (goal 100 only when every box is on a target). Each player plays "
        f"each level {args.runs} time(s) (`random`: {args.random_runs} times) in-process with fixed seeds; budgets are per move "
        f"(`monte_carlo` iterations are playouts, `mcts` iterations are tree iterations of 16 batched playouts). "
        f"Measured with `python benchmarks/sokoban_play.py` in {elapsed:.0f} s wall-clock on a shared, loaded 2-core machine."),
        "",
        summary_table(levels, plays, players),
        "",
        "Per level: games solved (fewest steps taken).",
        "",
        level_table(levels, plays, players, engines),
        "",
        (f"Through the manager (`ggp match level{args.manager_level:02d}.kif --player P --engine {args.engine} "
        f"--playclock {args.playclock}`; `mcts` is served over HTTP and limited by the play clock, `random` is the "
         "manager's own player):"),
        "",
        *[f"- `{spec}`: {line}" for spec, line in manager],
        "",
    ])
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
