"""A search stopped by its budget's cancel event (what the player server does at the reply deadline)."""

from __future__ import annotations

import threading
import time

from ggp.player import Budget
from ggp.players.mcts import MctsPlayer
from ggp.reasoner.machine import Move, StateMachine


def cancel_a_running_search(machine: StateMachine, join_seconds: float) -> MctsPlayer:
    """Start an MCTS search from the initial state in a thread, check that its anytime best move is legal
    after 0.2 s, set the cancel event and check that the search ends within ``join_seconds`` with one
    move; returns the player (for its statistics)."""
    player = MctsPlayer(seed=0)
    player.start(machine, machine.roles[0], Budget())
    cancel = threading.Event()
    result: list[Move] = []
    worker = threading.Thread(target=lambda: result.append(player.choose(machine.initial_state(), Budget(cancel=cancel))))
    worker.start()
    time.sleep(0.2)
    assert player.best_move() in machine.legal_moves(machine.initial_state(), machine.roles[0])
    cancel.set()
    worker.join(timeout=join_seconds)
    assert not worker.is_alive() and len(result) == 1
    return player
