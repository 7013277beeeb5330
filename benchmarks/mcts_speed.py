"""Benchmark: MCTS iterations per second at the start position, ours beside OpenSpiel's C++ MCTS bot.

Ours: :class:`ggp.players.mcts.MctsPlayer` on the machine ``ggp player --engine auto`` plays with
(for GDL games the compiled circuit once its background build is done; for SBG games the SBG engine),
searching the start position for ``--seconds``; an iteration is selection, expansion, ``playouts``
random playouts from the new leaf and backup. With one playout per leaf it is measured twice: with
uniformly random playouts (OpenSpiel's iteration: the ratio compares the same algorithm) and with the
player's default MAST playouts (the speed it plays at; MAST applies to single playouts only). On the
circuit the whole search loop runs in its C runtime
(``CircuitStateMachine.mcts_tree``); on the SBG engine the tree is Python's and the playouts C. OpenSpiel: ``pyspiel.MCTSBot``
with a one-rollout ``RandomRolloutEvaluator`` (its C++ MCTS, the same iteration) on its own C++
``breakthrough`` and ``connect_four``, measured in the same run so machine load affects both alike (the
last column divides by CPU seconds of the process instead, which a loaded machine disturbs less).
OpenSpiel is a benchmark-only dependency: ``pip install -e '.[bench]'``; without it only our rows
are printed.

Usage: python benchmarks/mcts_speed.py [--seconds 5] [--playouts 1 8]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from ggp.files import load_kif
from ggp.player import Budget
from ggp.players.mcts import DEFAULT_MAST, MctsPlayer
from ggp.reasoner.machine import StateMachine
from ggp.reasoner.upgrade import UpgradingMachine, playing_machine
from ggp.translators.sbg.machine import SbgStateMachine
from ggp.translators.sbg.parser import parse_sbg

ROOT = Path(__file__).resolve().parents[1]
GAMES = {
    "breakthrough": ROOT / "kif" / "breakthrough" / "breakthrough.kif",
    "connectFour": ROOT / "kif" / "connectFour" / "connectFour.kif",
    "chess (SBG)": ROOT / "games" / "chess.sbg",
}
OPENSPIEL = {"breakthrough": "breakthrough", "connectFour": "connect_four"}


def machine_for(path: Path) -> tuple[StateMachine, str]:
    """The machine a player with ``--engine auto`` ends up on, and its name."""
    if path.suffix == ".sbg":
        return SbgStateMachine(parse_sbg(path.read_text(encoding="utf-8"), str(path))), "sbg"
    machine = playing_machine(load_kif(path), "auto")
    if isinstance(machine, UpgradingMachine):
        machine.wait(600)
        return machine, "circuit" if machine.upgraded else "clingo"
    return machine, "auto"


def ours(machine: StateMachine, seconds: float, playouts: int, mast: float) -> tuple[float, float]:
    """MCTS iterations per second from the start position: per wall-clock second and per CPU second of
    this process (the fairer clock on a loaded machine)."""
    player = MctsPlayer(seed=0, playouts_per_leaf=playouts, mast=mast)
    player.start(machine, machine.roles[0], Budget())
    started, cpu = time.perf_counter(), time.process_time()
    player.choose(machine.initial_state(), Budget.for_seconds(seconds))
    done = player.last_iterations
    return done / (time.perf_counter() - started), done / max(time.process_time() - cpu, 1e-9)


def openspiel(name: str, seconds: float) -> tuple[float, float] | None:
    """OpenSpiel's C++ MCTS bot's simulations per wall-clock and per CPU second from the start position
    (None without it)."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    simulations = 1000
    while True:
        evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
        bot = pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 1000, False, 0, False)
        started, cpu = time.perf_counter(), time.process_time()
        bot.step(game.new_initial_state())
        elapsed = time.perf_counter() - started
        if elapsed >= seconds / 2 or simulations >= 10_000_000:
            return simulations / elapsed, simulations / max(time.process_time() - cpu, 1e-9)
        simulations *= 2


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="search time per measurement")
    parser.add_argument("--playouts", type=int, nargs="+", default=[1, 8], help="random playouts per MCTS iteration")
    args = parser.parse_args()
    print(f"load average before the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus")
    print("| Game | Engine | Playouts per iteration | Ours: iterations/s | Ours: playouts/s "
          "| OpenSpiel MCTSBot: iterations/s | Ours / OpenSpiel (iterations) | Same, per CPU second |")
    print("|---|---|---|---|---|---|---|---|")
    for game, path in GAMES.items():
        machine, engine = machine_for(path)
        theirs = openspiel(OPENSPIEL[game], args.seconds) if game in OPENSPIEL else None
        for playouts in args.playouts:
            for mast in (0.0, DEFAULT_MAST) if playouts == 1 and engine == "circuit" else (0.0,):
                rate, cpu_rate = ours(machine, args.seconds, playouts, mast)
                shown = f"{theirs[0]:,.0f}" if theirs else "—"
                ratio = f"{rate / theirs[0]:.2f}" if theirs else "—"
                cpu = f"{cpu_rate:,.0f} / {theirs[1]:,.0f} = {cpu_rate / theirs[1]:.2f}" if theirs else f"{cpu_rate:,.0f} / —"
                label = f"{playouts}, MAST {mast:g}" if mast else f"{playouts}"
                print(f"| {game} | {engine} | {label} | {rate:,.0f} | {rate * playouts:,.0f} | {shown} | {ratio} | {cpu} |",
                      flush=True)


if __name__ == "__main__":
    main()
