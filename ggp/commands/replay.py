"""``ggp replay GAME.kif TRACE.json``: replay a recorded trace on a reasoner and compare every step.

At each step the state, each role's legal move set and the terminal flag are compared, and the goals
in terminal states. Prints ``N/N steps agree`` or the first disagreement in full. Exit code 0 only
when every step agrees, 1 otherwise (or for unreadable input), 2 for usage errors.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ggp.commands._args import positive_int
from ggp.commands._games import DEFAULT_ENGINE, ENGINE_HELP, FORMATS_HELP, add_case_option, add_limit_options, grounding_limits


def register(subcommands: Any) -> None:
    """Add the ``replay`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "replay",
        help="replay a recorded trace and compare the reasoner with it",
        description="Replay the joint moves of a trace and compare states, legal moves, terminal and goals. "
        "Exit 0 only if every step agrees.",
    )
    parser.add_argument("game", metavar="GAME", help=FORMATS_HELP)
    parser.add_argument("trace", type=Path, metavar="TRACE.json", help="trace file (the ../shared/traces format)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help=ENGINE_HELP)
    add_case_option(parser)
    add_limit_options(parser)
    parser.add_argument("--playouts", type=positive_int, default=None, metavar="N", help="replay only the first N playouts")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Replay the trace; print the verdict; 0 when all steps agree."""
    from ggp.commands._games import load_game
    from ggp.reasoner.engines import make_machine
    from ggp.reasoner.traces import load_trace, replay_trace

    description = load_game(args.game, case_sensitive=args.case_sensitive).description
    trace = load_trace(args.trace)
    machine = make_machine(description, args.engine, grounding_limits(args))
    result = replay_trace(machine, trace, max_playouts=args.playouts)
    print(f"{args.game}: {result.agreed}/{result.total} steps agree")
    if result.disagreement is not None:
        print(f"first disagreement: {result.disagreement}")
    return 0 if result.ok else 1
