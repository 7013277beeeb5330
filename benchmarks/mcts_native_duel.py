"""Benchmark: MCTS searching in the circuit's C runtime against the same MCTS searching in Python, same clock.

Both players are :class:`ggp.players.mcts.MctsPlayer` on one compiled circuit machine with the same
exploration constant, one playout per leaf and uniformly random playouts (``mast=0``: the Python search
has no MAST); the Python one has its native search switched off, so the
only difference is how many iterations each gets through in ``--seconds`` a move (both ponder on forced
moves, as under a real play clock). Seats alternate; each line is one game, then the summed scores
(goal / 100). With ``--iterations`` both get that many iterations instead (the same algorithm: expect
an even score).

Usage: python benchmarks/mcts_native_duel.py [--game connectFour] [--games 10] [--seconds 0.2 | --iterations 300]
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from ggp.files import load_kif
from ggp.player import Budget
from ggp.players.mcts import MctsPlayer
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.machine import State
from ggp.reasoner.playouts import MctsTree

ROOT = Path(__file__).resolve().parents[1]


class PythonMcts(MctsPlayer):
    """MctsPlayer with the machine's native search ignored: the tree and the loop stay in Python."""

    def _native_tree(self, state: State) -> MctsTree | None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", default="connectFour", help="a game in kif/")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=0.2, help="search time per move")
    parser.add_argument("--iterations", type=int, help="iterations per move instead of a clock")
    args = parser.parse_args()
    machine = CircuitStateMachine(load_kif(ROOT / "kif" / args.game / f"{args.game}.kif"))

    def budget() -> Budget:
        if args.iterations:
            return Budget(iterations=args.iterations, cancel=threading.Event())  # a clock-like budget: ponders
        return Budget.for_seconds(args.seconds)

    scores = {"C": 0.0, "Python": 0.0}
    for game in range(args.games):
        seats = [("C", MctsPlayer), ("Python", PythonMcts)]
        if game % 2:
            seats.reverse()
        players = [kind(seed=100 + 2 * game + i, mast=0.0) for i, (_, kind) in enumerate(seats)]
        for role, player in zip(machine.roles, players):
            player.start(machine, role, Budget())
        state = machine.initial_state()
        while not machine.is_terminal(state):
            state = machine.next_state(state, tuple(player.choose(state, budget()) for player in players))
        goals = machine.goals(state)
        for (name, _), goal in zip(seats, goals):
            scores[name] += goal / 100
        print(f"game {game + 1}: {' vs '.join(name for name, _ in seats)} -> {goals}", flush=True)
    print(f"{args.game}, {args.iterations or args.seconds} {'iterations' if args.iterations else 's'} a move: {scores}")


if __name__ == "__main__":
    main()
