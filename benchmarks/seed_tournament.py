"""Round robin of Random, flat Monte Carlo and MCTS on the seed game classicMap, through the manager.

Issue 10's end-to-end check: the thesis game "Slovania obchodníkmi" (a real GDL game with a chance
role, wide fluents and no length bound) played by the project's own game manager exactly as
``ggp serve`` plays tournaments: the manager's reasoner is the ``auto`` engine (grounding once gives up,
the per-state reasoner plays), the search players are built-in HTTP players on loopback ports, the
``random`` role (dice, mission cards) is played by the manager from the match seed, seats rotate
within each pairing, and a match reaching the step cap is a draw (``x-endReason: step_cap``).

Search players get an iteration budget (one playout per iteration) and a generous play clock, so a
seed fixes every match on an unloaded machine (a move that overruns the clock would get the manager's
random fallback; the script counts such errors). Goals are raw point totals: the winner of a match is
the player seat with the higher goal; equal goals (step-cap draws included) are draws. Win rates (over
all matches, and over the decided ones) come with 95% Wilson intervals.

Usage: python benchmarks/seed_tournament.py [--per-pairing 20] [--iterations 10] [--step-cap 400]
           [--players Random,MonteCarlo,MCTS] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from ggp.commands._manager_glue import builtin_launcher, machine_factory
from ggp.evaluation.stats import wilson
from ggp.files import read_text
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.tournament import TournamentSpec
from ggp.manager.wiring import ManagerSettings
from ggp.match.rules import CHANCE_ROLE

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT.parent / "shared" / "gdl-corpus" / "seed-games" / "classicMap.kif"
KINDS = {"Random": "random", "MonteCarlo": "monte_carlo", "MCTS": "mcts"}
"""Display name -> built-in player type."""


@dataclass
class Pairing:
    """Results of one pairing, from ``first``'s side."""

    first: str
    second: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    capped: int = 0
    aborted: int = 0
    errors: int = 0
    seconds: float = 0.0
    steps: int = 0

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.draws


async def run(args: argparse.Namespace) -> list[Pairing]:
    players = [name.strip() for name in args.players.split(",") if name.strip()]
    unknown = [name for name in players if name not in KINDS]
    if unknown:
        raise SystemExit(f"unknown players {unknown}; expected names from {list(KINDS)}")
    store = Store(":memory:")
    launcher = builtin_launcher(args.seed, options=f"iterations={args.iterations}", engine=args.engine)
    manager = Manager(store, machine_factory(args.engine), launcher,
                      ManagerSettings(step_cap=args.step_cap, step_cap_outcome="draw", max_running=10))
    try:
        started = time.perf_counter()
        row = await manager.add_game("classicMap", read_text(GAME), "Slovania obchodníkmi (classic map)")
        print(f"game stored, reasoner ready in {time.perf_counter() - started:.1f} s", flush=True)
        for name in players:
            manager.register_player(name, builtin=KINDS[name])
        spec = TournamentSpec("seed", "classicMap", tuple(players), args.per_pairing, args.startclock,
                              args.playclock, args.seed, parallel=1)
        started = time.perf_counter()
        tournament_id = await manager.start_tournament(spec)
        await manager.wait_tournament(tournament_id)
        wall = time.perf_counter() - started
        chance = list(row.roles).index(CHANCE_ROLE)
        seats = [i for i in range(len(row.roles)) if i != chance]
        # A is the later player of each pair (the searcher against Random, MCTS against MonteCarlo).
        pairings = {frozenset(pair): Pairing(pair[1], pair[0]) for pair in itertools.combinations(players, 2)}
        summaries = store.matches(tournament_id=tournament_id, limit=1_000_000)
        for summary in summaries:
            names = [summary.players[i] for i in seats]
            pairing = pairings[frozenset(names)]
            record = store.match(summary.match_id)
            assert record is not None
            pairing.seconds += (record.state_times[-1] - record.start_time_ms) / 1000
            pairing.steps += record.step
            pairing.errors += sum(1 for row_ in record.errors for i in seats if row_[i])
            if not record.is_completed or record.goal_values is None:
                pairing.aborted += 1
                continue
            pairing.capped += record.end_reason == "step_cap"
            goals = {name: record.goal_values[i] for name, i in zip(names, seats)}
            mine, theirs = goals[pairing.first], goals[pairing.second]
            if mine > theirs:
                pairing.wins += 1
            elif mine < theirs:
                pairing.losses += 1
            else:
                pairing.draws += 1
        print(f"{len(summaries)} matches in {wall:.0f} s", flush=True)
        return list(pairings.values())
    finally:
        await manager.close()
        store.close()


def table(pairings: list[Pairing]) -> str:
    """A Markdown table: per pairing, A's win rate over all matches and over decided ones (95% Wilson)."""
    lines = [
        ("| A vs B | matches | A wins | B wins | draws (at step cap) | A win rate [95% CI] | "
         "A wins of decided [95% CI] | s/match | steps/match | player errors |"),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in pairings:
        n, decided = p.played, p.wins + p.losses
        low, high = wilson(p.wins, n)
        d_low, d_high = wilson(p.wins, decided)
        matches = n + p.aborted
        lines.append(
            f"| {p.first} vs {p.second} | {matches} | {p.wins} | {p.losses} | {p.draws} ({p.capped}) | "
            f"{p.wins / max(n, 1):.0%} [{low:.0%}, {high:.0%}] | "
            f"{p.wins}/{decided} = {p.wins / max(decided, 1):.0%} [{d_low:.0%}, {d_high:.0%}] | "
            f"{p.seconds / max(matches, 1):.1f} | {p.steps / max(matches, 1):.0f} | {p.errors} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", default="Random,MonteCarlo,MCTS", help="names from " + ", ".join(KINDS))
    parser.add_argument("--per-pairing", type=int, default=20, help="matches per pairing (seats alternate)")
    parser.add_argument("--iterations", type=int, default=10, help="playouts per move for MonteCarlo and MCTS")
    parser.add_argument("--step-cap", type=int, default=400, help="joint moves after which a match is a draw")
    parser.add_argument("--startclock", type=int, default=60)
    parser.add_argument("--playclock", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="auto", help="the manager's and players' reasoner (default auto)")
    parser.add_argument("--out", type=Path, default=None, help="write the results table (Markdown) here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("ggp.manager.runner").setLevel(logging.INFO)  # one line per match: progress
    pairings = asyncio.run(run(args))
    text = table(pairings)
    print(text)
    if args.out is not None:
        args.out.write_text(
            f"Settings: {args.per_pairing} matches per pairing (seats alternate), {args.iterations} playouts per move, "
            f"play clock {args.playclock} s, step cap {args.step_cap} (a draw), seed {args.seed}, engine {args.engine}.\n\n"
            + text + "\n")


if __name__ == "__main__":
    main()
