"""``ggp play-sbg FILE [--as white|black] [--seed S] [--opponent random|greedy]``: play an SBG game in
the terminal against a built-in opponent, using the pure-Python reference engine.

Moves are typed as ``a2a3`` (file letter from the left, rank from 1 at the bottom) or as four numbers
``0 1 0 2`` (x1 y1 x2 y2 as in the GDL moves). An illegal or unreadable move gets a one-line message
and another prompt; ``quit`` or end of input stops the game.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ggp.translators.sbg.engine import Move, SbgEngine, SbgState

_ALGEBRAIC = re.compile(r"^([a-z])(\d+)\s*[-x]?\s*([a-z])(\d+)$")


def register(subcommands: Any) -> None:
    """Add the ``play-sbg`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "play-sbg", help="play an SBG game in the terminal against a built-in opponent",
        description="Play a Simplified Boardgames file against a random or 1-ply greedy opponent. "
        "Type moves as 'a2a3' or '0 1 0 2'.",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="SBG game file")
    parser.add_argument("--as", dest="side", choices=("white", "black"), default="white",
                        help="your side (default white, which moves first)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="opponent's random seed (default 0)")
    parser.add_argument("--opponent", choices=("random", "greedy"), default="greedy",
                        help="random moves, or greedy: win at once if possible, else capture, else random")
    parser.set_defaults(run=run)


def parse_move(text: str, width: int, height: int) -> Move | None:
    """Read 'a2a3' or '0 1 0 2' as (x1, y1, x2, y2); None when the text is neither form.

    >>> parse_move("a2a3", 8, 8), parse_move("0 1 0 2", 8, 8), parse_move("z9", 8, 8)
    ((0, 1, 0, 2), (0, 1, 0, 2), None)
    """
    text = text.strip().lower()
    match = _ALGEBRAIC.match(text)
    if match:
        return (ord(match[1]) - ord("a"), int(match[2]) - 1, ord(match[3]) - ord("a"), int(match[4]) - 1)
    parts = text.replace(",", " ").split()
    if len(parts) == 4 and all(part.isdigit() for part in parts):
        x1, y1, x2, y2 = (int(part) for part in parts)
        return (x1, y1, x2, y2)
    return None


def format_move(move: Move) -> str:
    """(0, 1, 0, 2) -> 'a2a3' (boards up to 26 files)."""
    x1, y1, x2, y2 = move
    return f"{chr(ord('a') + x1)}{y1 + 1}{chr(ord('a') + x2)}{y2 + 1}"


def choose_move(engine: SbgEngine, state: SbgState, rng: random.Random, greedy: bool) -> Move:
    """The built-in opponent: random, or (greedy) an immediate win, else a capture, else random."""
    moves = engine.legal_moves(state)
    if greedy:
        wins = [m for m in moves if engine.outcome(engine.apply_unchecked(state, m)) == state.to_move]
        if wins:
            return rng.choice(wins)
        width = engine.width
        white = state.to_move == "white"
        captures = [
            m for m in moves
            if state.board[m[3] * width + m[2]] != "." and state.board[m[3] * width + m[2]].isupper() != white
        ]
        if captures:
            return rng.choice(captures)
    return rng.choice(moves)


def run(args: argparse.Namespace) -> int:
    """Play one game on stdin/stdout; returns 0 when the game ends or the user quits."""
    from ggp.errors import IllegalMoveError
    from ggp.files import read_text
    from ggp.translators.sbg.engine import SbgEngine
    from ggp.translators.sbg.parser import parse_sbg

    game = parse_sbg(read_text(args.file), str(args.file))
    engine = SbgEngine(game)
    rng = random.Random(args.seed)
    state = engine.initial_state()
    print(f"{game.name}: you play {args.side} ({'upper' if args.side == 'white' else 'lower'} case); "
          f"draw after {game.turn_limit} plies. Type moves as a2a3 or '0 1 0 2', 'quit' to stop.")
    while engine.outcome(state) is None:
        print(engine.render(state))
        if state.to_move == args.side:
            print(f"{state.to_move} (ply {state.ply + 1})> ", end="", flush=True)
            line = sys.stdin.readline()
            if not line or line.strip().lower() in ("quit", "exit", "q"):
                print("\nstopped.")
                return 0
            move = parse_move(line, engine.width, engine.height)
            if move is None:
                print(f"cannot read {line.strip()!r}: type a move as a2a3 or '0 1 0 2'")
                continue
            try:
                state = engine.apply(state, move)
            except IllegalMoveError:
                legal = " ".join(format_move(m) for m in engine.legal_moves(state))
                print(f"illegal move {line.strip()!r}; legal moves: {legal}")
                continue
        else:
            move = choose_move(engine, state, rng, args.opponent == "greedy")
            print(f"{state.to_move} plays {format_move(move)} ({' '.join(map(str, move))})")
            state = engine.apply(state, move)
    print(engine.render(state))
    result = engine.outcome(state) or "draw"
    white, black = engine.scores(state)
    print(f"game over after {state.ply} plies: {'draw' if result == 'draw' else result + ' wins'} "
          f"(white {white}, black {black})")
    return 0
