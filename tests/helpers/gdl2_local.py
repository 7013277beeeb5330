"""Play a GDL-II match in process, telling each player only what the GDL-II PLAY message carries."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ggp.player import Budget, Gdl2Player
from ggp.players.gdl2_support import percept_step
from ggp.reasoner.machine import Move, State, StateMachine


def play_gdl2(machine: StateMachine, players: Sequence[Gdl2Player | None], seed: int,
              budget: Budget) -> tuple[tuple[int, ...], State]:
    """Goals and final state; ``None`` seats (the chance role) move uniformly from a seeded generator."""
    rng = random.Random(seed)
    for role, player in zip(machine.roles, players):
        if player is not None:
            player.start(machine, role, Budget())
    state = machine.initial_state()
    last: tuple[Move, ...] | None = None
    seen: tuple[frozenset[object], ...] = ()
    turn = 0
    while not machine.is_terminal(state):
        joint = []
        for index, (role, player) in enumerate(zip(machine.roles, players)):
            legal = machine.legal_moves(state, role)
            if player is None:
                joint.append(rng.choice(legal))
                continue
            player.observe(turn, None if last is None else last[index], frozenset() if last is None else seen[index])  # type: ignore[arg-type]
            move = player.choose_hidden(budget)
            assert move in legal, f"{role} chose illegal {move}"
            joint.append(move)
        state, seen = percept_step(machine, state, tuple(joint))
        last = tuple(joint)
        turn += 1
    for player in players:
        if player is not None:
            player.stop()
    return machine.goals(state), state
