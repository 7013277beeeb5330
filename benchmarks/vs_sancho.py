"""Benchmark: our player against Sancho (2014 International GGP Competition winner) on ggp-base's GameServer.

Every match is hosted by ggp-base's own GameServer (``../shared/peer/run RunMatch``, see
benchmarks/ggp_base_host.py) at real clocks. Our player is ``ggp player SPEC`` (default ``mcts``,
engine ``auto``) pinned to CPU 1 (``taskset -c 1``); Sancho is ``../shared/peer/sancho/run PORT 1`` (one
search thread) pinned to CPU 0, so each side has one core. Seats are laid out by the game's kind:

- two players: our seat rotates match by match (index 0: first role, index 1: second, ...);
- three players (chineseCheckers3): our player in one seat, Sancho in the other two (two Sancho
  processes sharing CPU 0, half a core each), our seat rotating over the three;
- one player (a puzzle): each match is two games, ours then Sancho's, on the same clocks; our share is
  scored against Sancho's own score on it.

Our **share of the points** in a match is our goal / (our goal + the mean goal of the Sancho seats),
0.5 when both are 0: in a two-player constant-sum game that is our goal / 100, a draw is 0.5. The table
gives per game and clock, and overall per clock, the mean share with its 95% Wilson interval (shares
counted as fractional successes, :func:`ggp.evaluation.stats.wilson`), and every TO / IL / CE the host
recorded against either side. Each match appends one JSON line (goals, seats, errors per side, the
1-minute load average before and after, the commit of our player's code) to ``--out`` as it ends; a
rerun skips the matches already in it, so a long run goes in pieces (``table`` reads every
``benchmarks/data/vs_sancho_*.jsonl``). Every match has a fresh Sancho and a fresh player of ours, so a crash
decides no later match; a match in which Sancho answered no PLAY is a set-up failure, shown apart from the
points, and checkers (where Sancho's propnet build runs out of memory) is reported apart from the overall.

Usage: python benchmarks/vs_sancho.py run [--clock 10/2] [--matches 10] [--games ticTacToe ...] [--out FILE]
       python benchmarks/vs_sancho.py table [FILE ...] [--games ticTacToe ...]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import cast

from ggp_base_host import CORPUS, PEER, ROOT, SHARED, our_player, play_match, roles_of, serving

from ggp.evaluation.stats import wilson

SANCHO = SHARED / "peer" / "sancho" / "run"
DATA = ROOT / "benchmarks" / "data"
OUT = DATA / "vs_sancho_2026-11-27.jsonl"
LOGS = ROOT / "benchmarks" / "results" / "vs_sancho_logs"

GAMES = {
    "ticTacToe": "ticTacToe",
    "connectFour": "connectFour",
    "breakthrough": "breakthrough",
    "checkers": "checkers",
    "connectFourSimultaneous": "connectFourSimultaneous",
    "chineseCheckers3": "chineseCheckers3",
    "reversi": "reversi",
    "knightsTour": "knightsTour",
    "pentago": "pentago",
    "sheepAndWolf": "sheepAndWolf",
    "checkersTiny": "checkersTiny",
    "kalah": "kalah",
    "tron_10x10": "tron_10x10",
}
"""Name -> corpus file stem: turn-taking classics, checkers, a simultaneous-move game, a 3-player game, a
large-branching game and a one-player puzzle (the corpus connectFour: Sancho crashes on kif/'s); then
games of other kinds from the corpus that Sancho builds within a 10 s start clock (pentago: place and rotate;
sheepAndWolf: asymmetric pursuit; checkersTiny: checkers on a smaller board, where Sancho answered no PLAY in
any of 10 matches at 10 s / 2 s; kalah: sowing and capturing; tron_10x10: simultaneous moves on a board)."""

APART = frozenset({"checkers"})
"""Games reported apart and counted in no overall row: Sancho's propnet build runs out of memory on checkers,
so its matches measure a crash, not play (../shared/peer/sancho/README)."""

ERROR_KINDS = ("TO", "IL", "CE")


@dataclass(frozen=True, slots=True)
class Clock:
    """Start and play clock in whole seconds, written ``START/PLAY``."""

    start: int
    play: int

    @classmethod
    def parse(cls, text: str) -> Clock:
        start, _, play = text.partition("/")
        return cls(int(start), int(play))

    def __str__(self) -> str:
        return f"{self.start}/{self.play}"


def load_average() -> float:
    """The 1-minute load average of the machine."""
    return round(os.getloadavg()[0], 2)


def sancho(work: Path, port: int) -> list[str]:
    """Sancho on ``port`` with one search thread, pinned to CPU 0, working in ``work``."""
    return ["env", f"SANCHO_WORK={work}", "taskset", "-c", "0", str(SANCHO), str(port), "1"]


def error_counts(match: dict[str, object], seats: list[int]) -> dict[str, int]:
    """TO / IL / CE the host recorded against the given seats (each entry is e.g. ``"IL nil"``)."""
    counts: Counter[str] = Counter()
    for step in cast(list[list[str]], match.get("errors", [])):
        for seat in seats:
            if step[seat]:
                counts[step[seat].split()[0]] += 1
    return {kind: counts[kind] for kind in ERROR_KINDS}


def silent(match: dict[str, object], seats: list[int]) -> bool:
    """True when the given seats answered no PLAY of the match (every step holds an error for each): a
    set-up failure of that side (e.g. a propnet build still running or out of memory), not play.

    >>> silent({"errors": [["", "TO"], ["", "TO"]]}, [1]), silent({"errors": [["", "TO"], ["", ""]]}, [1])
    (True, False)
    """
    steps = cast(list[list[str]], match.get("errors", []))
    return bool(steps) and all(step[seat] for step in steps for seat in seats)


def share(ours: float, theirs: float) -> float:
    """Our share of the points: ours / (ours + theirs), 0.5 when both are 0.

    >>> share(100, 0), share(50, 50), share(0, 0), share(100, 75)
    (1.0, 0.5, 0.5, 0.5714285714285714)
    """
    return 0.5 if ours + theirs == 0 else ours / (ours + theirs)


CODE = ("ggp", "players", "translators", "pyproject.toml")
"""The paths whose changes change what our player does (docs and this benchmark's own results do not)."""


def describe() -> str:
    """The checkout's short commit, with ``-dirty`` when :data:`CODE` has uncommitted changes: the code a
    player process started now runs."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + ("-dirty" if git("status", "--porcelain", "--", *CODE) else "")


def read_rows(paths: list[Path]) -> list[dict[str, object]]:
    return [json.loads(line) for path in paths if path.exists() for line in path.read_text().splitlines() if line.strip()]


def todo(args: argparse.Namespace, game: str) -> list[int]:
    """Match indices of ``game`` at the run's clock not yet recorded in ``--out``."""
    done = {cast(int, r["index"]) for r in read_rows([args.out])
            if r["game"] == game and r["clock"] == str(args.clock) and r["player"] == args.player}
    return [i for i in range(args.matches) if i not in done]


def run(args: argparse.Namespace) -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for game in args.games:
        kif = CORPUS / f"{GAMES[game]}.kif"
        n_roles = roles_of(kif)
        for index in todo(args, game):
            commit = describe()  # the code the player process started below runs
            # A fresh Sancho and a fresh player of ours for every match: a crash decides no later match.
            with ExitStack() as stack:
                ours = stack.enter_context(serving(partial(our_player, args.player, cpus="1"), LOGS / "ours.log",
                                                   "our player"))
                sanchos = [stack.enter_context(serving(partial(sancho, Path(stack.enter_context(
                    tempfile.TemporaryDirectory()))), LOGS / f"sancho{i}.log", "Sancho"))
                    for i in range(max(1, n_roles - 1))]
                row = play_one(kif, n_roles, index, ours, sanchos, args.clock)
            row = {"game": game, "player": args.player, "clock": str(args.clock), "index": index, "commit": commit,
                   **row}
            with args.out.open("a") as out:
                out.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)


def play_one(kif: Path, n_roles: int, index: int, ours: str, sanchos: list[str], clock: Clock) -> dict[str, object]:
    """One match (two games for a puzzle): its row without the game, player, clock and index."""
    load_before = load_average()
    started = time.time()
    if n_roles == 1:
        mine = play_match(kif, [ours], clock.start, clock.play)
        theirs = play_match(kif, [sanchos[0]], clock.start, clock.play)
        failed = [m["failed"] for m in (mine, theirs) if "failed" in m]
        row: dict[str, object] = {"seats": ["ours"]}
        if failed:
            row["failed"] = failed
        else:
            goals = [cast(list[int], m["goalValues"])[0] for m in (mine, theirs)]
            row |= {"goals": {"ours": goals[0], "sancho": goals[1]}, "share": share(goals[0], goals[1]),
                    "errors": {"ours": error_counts(mine, [0]), "sancho": error_counts(theirs, [0])},
                    "steps": [len(cast(list[object], m.get("moves", []))) for m in (mine, theirs)],
                    "sancho_silent": silent(theirs, [0])}
    else:
        seat = index % n_roles
        others = iter(sanchos)
        names = ["ours" if r == seat else "sancho" for r in range(n_roles)]
        match = play_match(kif, [ours if r == seat else next(others) for r in range(n_roles)], clock.start, clock.play)
        row = {"seats": names}
        if "failed" in match:
            row["failed"] = match["failed"]
        else:
            goals = [int(g) for g in cast(list[int], match["goalValues"])]
            theirs_mean = sum(g for r, g in enumerate(goals) if r != seat) / (n_roles - 1)
            row |= {"goals": goals, "share": share(goals[seat], theirs_mean),
                    "errors": {"ours": error_counts(match, [seat]),
                               "sancho": error_counts(match, [r for r in range(n_roles) if r != seat])},
                    "steps": len(cast(list[object], match.get("moves", []))),
                    "sancho_silent": silent(match, [r for r in range(n_roles) if r != seat])}
    return row | {"load": [load_before, load_average()], "seconds": round(time.time() - started, 1)}


def summarize(rows: list[dict[str, object]]) -> Iterator[str]:
    """Table lines: one per (game, player, clock) in first-seen order, then one overall per player and clock
    (without the games of :data:`APART`). A match in which Sancho answered no PLAY is a set-up failure: its
    points count nowhere, the "Sancho set-up failed" column counts it."""
    groups: dict[tuple[str, str, str], list[dict[str, object]]] = {}
    for row in rows:
        groups.setdefault((str(row["game"]), str(row["player"]), str(row["clock"])), []).append(row)
    overall: dict[tuple[str, str], list[dict[str, object]]] = {}
    for (game, player, clock), found in groups.items():
        if game not in APART:
            overall.setdefault((player, clock), []).extend(found)
    yield ("| Game | Ours | Clock | Matches | Our share of points | 95% CI | Ours TO/IL/CE | Sancho TO/IL/CE "
           "| Sancho set-up failed | Failed | Load (1-min, mean) |")
    yield "|---|---|---|---|---|---|---|---|---|---|---|"
    lines = [((f"{game} (apart)" if game in APART else game, player, clock), found)
             for (game, player, clock), found in groups.items()]
    lines += [(("**overall**", player, clock), found) for (player, clock), found in overall.items()]
    for (game, player, clock), found in lines:
        played = [r for r in found if "share" in r and not r.get("sancho_silent")]
        total = sum(cast(float, r["share"]) for r in played)
        if played:
            low, high = wilson(total, len(played))
            mean, interval = f"{total / len(played):.0%}", f"{low:.0%}-{high:.0%}"
        else:
            mean, interval = "—", "—"
        errors = {side: "/".join(str(sum(cast(dict[str, dict[str, int]], r["errors"])[side][k] for r in played))
                                 for k in ERROR_KINDS) for side in ("ours", "sancho")}
        loads = [x for r in found for x in cast(list[float], r.get("load", []))]
        load = f"{sum(loads) / len(loads):.1f}" if loads else "—"
        setup = sum(1 for r in found if r.get("sancho_silent"))
        failed = sum(1 for r in found if "share" not in r)
        yield (f"| {game} | `{player}` | {clock} s | {len(played)} | {mean} | {interval} | {errors['ours']} "
               f"| {errors['sancho']} | {setup} | {failed} | {load} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("run", help="play the matches not yet recorded, appending to --out")
    play.add_argument("--clock", type=Clock.parse, default=Clock(10, 2), help="START/PLAY seconds (default 10/2)")
    play.add_argument("--matches", type=int, default=10, help="matches per game and clock (default 10)")
    play.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    play.add_argument("--player", default="mcts", help="our player's spec (default mcts)")
    play.add_argument("--out", type=Path, default=OUT, help=f"results file (default {OUT.relative_to(ROOT)})")
    table = commands.add_parser("table", help="print the table of results files")
    table.add_argument("files", nargs="*", type=Path, help="default: every benchmarks/data/vs_sancho_*.jsonl")
    table.add_argument("--games", nargs="+", default=None, choices=list(GAMES), help="only these games' rows")
    args = parser.parse_args()
    if args.command == "run":
        # killed (SIGTERM) mid-run: unwind, so the player processes and Sancho's folders go too
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        for needed in (PEER, SANCHO):
            if not needed.is_file():
                raise SystemExit(f"{needed} is missing (../shared/peer; GGP_SHARED names another place)")
        run(args)
        files = [args.out]
    else:
        files = args.files or sorted(DATA.glob("vs_sancho_*.jsonl"))
    rows = read_rows(files)
    if args.command == "table" and args.games:
        rows = [row for row in rows if row["game"] in args.games]
    for line in summarize(rows):
        print(line)


if __name__ == "__main__":
    main()
