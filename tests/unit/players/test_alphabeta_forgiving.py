"""Alpha-beta at a solved root that is not a win: it keeps the proven value and picks the move
after which the opponent's replies are worst for it on average (more room for a fallible opponent to err)."""

from __future__ import annotations

from functools import cache

from ggp.gdl.terms import Func
from ggp.player import Budget
from ggp.players.alphabeta import AlphaBetaPlayer
from tests.helpers.nim_machine import NimMachine


@cache
def _mover_wins(heaps: tuple[int, ...]) -> bool:
    """Exact Nim by brute force: does the player to move (taking the last stone wins) win?"""
    return any(
        not _mover_wins(heaps[:i] + (size - k,) + heaps[i + 1:])
        for i, size in enumerate(heaps)
        for k in range(1, size + 1)
    )


def _after(heaps: tuple[int, ...], move: Func) -> tuple[int, ...]:
    i, k = int(str(move.args[0])) - 1, int(str(move.args[1]))
    return heaps[:i] + (heaps[i] - k,) + heaps[i + 1:]


def _mean_reply_value(heaps: tuple[int, ...]) -> float:
    """Our mean exact value (+100 win, -100 loss) over the opponent's replies at ``heaps``, opponent to move."""
    if sum(heaps) == 0:
        return 100.0
    # After a reply we are to move: we win when stones are left and the position wins for the mover.
    afters = [heaps[:i] + (size - k,) + heaps[i + 1:] for i, size in enumerate(heaps) for k in range(1, size + 1)]
    values = [100.0 if sum(after) > 0 and _mover_wins(after) else -100.0 for after in afters]
    return sum(values) / len(values)


def test_from_a_lost_nim_position_alphabeta_leaves_the_opponent_the_most_ways_to_go_wrong() -> None:
    heaps = (2, 4, 6)
    assert not _mover_wins(heaps)  # every move loses against perfect play
    machine = NimMachine(heaps)
    state = machine.initial_state()
    moves = machine.legal_moves(state, machine.roles[0])
    means = {move: _mean_reply_value(_after(heaps, move)) for move in moves if isinstance(move, Func)}
    best = max(means.values())
    assert len({m for m, v in means.items() if v == best}) < len(moves)  # the choice matters
    player = AlphaBetaPlayer(0, Budget(iterations=20_000))
    player.start(machine, machine.roles[0], Budget())
    choice = player.choose(state, Budget())
    assert isinstance(choice, Func)
    assert means[choice] == best
    assert player.last_value == -100


def test_a_won_position_is_still_played_to_win() -> None:
    heaps = (1, 4, 6)
    assert _mover_wins(heaps)
    machine = NimMachine(heaps)
    player = AlphaBetaPlayer(0, Budget(iterations=20_000))
    player.start(machine, machine.roles[0], Budget())
    choice = player.choose(machine.initial_state(), Budget())
    assert isinstance(choice, Func)
    assert not _mover_wins(_after(heaps, choice))


def test_a_tiny_budget_falls_back_to_the_plain_minimax_choice() -> None:
    machine = NimMachine((2, 2))
    player = AlphaBetaPlayer(0, Budget(iterations=30))
    player.start(machine, machine.roles[0], Budget())
    state = machine.initial_state()
    assert player.choose(state, Budget()) in machine.legal_moves(state, machine.roles[0])
