"""``ggp trace GAME.kif --playouts N --seed S -o OUT.json``: record random playouts as a trace.

The trace has the JSON format of ``../shared/traces`` (see :mod:`ggp.reasoner.traces`), so ``ggp
replay`` can later check any engine against it. Playouts are cut after 200 joint moves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ggp.commands._args import positive_int
from ggp.commands._games import DEFAULT_ENGINE, ENGINE_HELP, FORMATS_HELP, add_case_option, add_limit_options, grounding_limits


def register(subcommands: Any) -> None:
    """Add the ``trace`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "trace",
        help="record seeded random playouts of a game as a trace file",
        description="Record uniformly random playouts (seeded) with a reasoner, in the trace JSON format.",
    )
    parser.add_argument("game", metavar="GAME", help=FORMATS_HELP)
    parser.add_argument("--playouts", type=positive_int, default=3, metavar="N", help="number of playouts (default 3)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--max-moves", type=positive_int, default=200, metavar="M",
                        help="cut each playout after M joint moves (default 200)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help=ENGINE_HELP)
    add_case_option(parser)
    add_limit_options(parser)
    parser.add_argument("-o", "--output", type=Path, default=None, metavar="OUT.json",
                        help="output file (default: standard output)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Record the trace and write it; 0 on success."""
    from ggp.commands._games import load_game
    from ggp.reasoner.engines import make_machine
    from ggp.reasoner.traces import record_trace, trace_json_text

    loaded = load_game(args.game, case_sensitive=args.case_sensitive)
    description = loaded.description
    machine = make_machine(description, args.engine, grounding_limits(args))
    trace = record_trace(
        machine, playouts=args.playouts, seed=args.seed, game=loaded.path.name,
        source=f"ggp {args.engine} reasoner", max_moves=args.max_moves,
    )
    text = trace_json_text(trace)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        print(f"{args.output}: {len(trace.playouts)} playouts, {trace.step_count} steps")
    return 0
