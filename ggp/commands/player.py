"""``ggp player TYPE``: serve a player over the GGP HTTP protocol (one match at a time).

``TYPE`` is a player spec from :mod:`ggp.players.registry`, e.g. ``mcts`` or
``mcts:exploration=0.7``. Each match gets a fresh player seeded with ``--seed``; ``--iterations``
or ``--seconds`` limit every move further than the play clock does. The reasoning (building the
machine at START, the search at PLAY) runs in a worker process bounded by ``--max-memory-mb`` and in
time by the match's clocks (capped by ``--max-call-s``): see :class:`~ggp.protocol.server.PlayerLimits`.
Every step still gets a legal move when the worker is slow, over a bound or dead: a standby seat on the
prover answers, and the player starts again in a fresh worker (docs/players.md, "A legal move at any
clock").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import logging
import sys
from typing import Any

from ggp.commands._args import positive_float, positive_int
from ggp.commands._games import DEFAULT_ENGINE, ENGINE_HELP

DEFAULT_PORT = 9147


def register(subcommands: Any) -> None:
    """Add the ``player`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "player",
        help="run a GGP player as an HTTP server",
        description="Serve a player over the GGP HTTP protocol (INFO, START, PLAY, STOP, ABORT).",
    )
    parser.add_argument("type", metavar="TYPE",
                        help="random, legal, monte_carlo, mcts, alphabeta, minimax (RAPP heuristics, minimax:h=WGC) or dmcts "
                        "(GDL-II), with options: mcts:exploration=0.7")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--name", default=None, help="name reported to INFO (default: the type)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help=ENGINE_HELP)
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--iterations", type=positive_int, metavar="N", help="at most N iterations per move")
    limit.add_argument("--seconds", type=positive_float, metavar="S", help="at most S seconds per move")
    parser.add_argument("--seed", type=int, default=0, help="random seed of each match's player (default 0)")
    parser.add_argument("--max-memory-mb", type=positive_int, default=2048, metavar="MB",
                        help="address space of the reasoning worker process; over it the worker is replaced "
                        "and the match answered nil (default 2048)")
    parser.add_argument("--max-call-s", type=positive_float, default=300.0, metavar="S",
                        help="no setup or move computation runs longer, whatever the clocks (default 300)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log match lifecycle (INFO)")
    parser.set_defaults(run=run)


def player_spec(args: argparse.Namespace) -> str:
    """The spec string of the player the arguments ask for (type plus the per-move limit)."""
    extra = []
    if args.iterations is not None:
        extra.append(f"iterations={args.iterations}")
    if args.seconds is not None:
        extra.append(f"seconds={args.seconds}")
    if not extra:
        return str(args.type)
    joiner = "," if ":" in args.type else ":"
    return f"{args.type}{joiner}{','.join(extra)}"


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns the exit code."""
    from ggp.players.registry import make_player, parse_spec
    from ggp.protocol.server import PlayerLimits, create_player_app
    from ggp.reasoner.engines import engine_factory
    from ggp.reasoner.upgrade import playing_machine

    spec = player_spec(args)
    kind, _ = parse_spec(spec)
    make_player(spec, args.seed)  # report a bad spec now, not at the first match
    engine_factory(args.engine)  # and an engine that is not installed
    if args.verbose:
        logging.getLogger().setLevel(logging.INFO)
    name = args.name or kind
    limits = PlayerLimits(memory_mb=args.max_memory_mb, max_call_s=args.max_call_s)
    # The machine factories go to the worker process: partials of a module-level function pickle. A player
    # started again mid-match (a setup over its bound, a dead worker) plays on the prover at once, then
    # on the circuit when it is built.
    app = create_player_app(functools.partial(make_player, spec, args.seed), name,
                            functools.partial(playing_machine, engine=args.engine), species=kind, limits=limits,
                            recovery_factory=functools.partial(playing_machine, engine=args.engine, quick="prover"))
    print(f"ggp player {name} ({spec}, engine {args.engine}) on http://{args.host}:{args.port}/", file=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is a normal way to stop
        asyncio.run(_serve(app, args.host, args.port))
    return 0


async def _serve(app: Any, host: str, port: int) -> None:
    """Serve the player app (idle timeout, connection cap) until SIGTERM or Ctrl-C."""
    from aiohttp import web

    from ggp.commands._manager_server import SHUTDOWN_S, wait_for_stop
    from ggp.protocol.server import IDLE_TIMEOUT_S, CappedSite

    runner = web.AppRunner(app, access_log=None, keepalive_timeout=IDLE_TIMEOUT_S, shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    try:
        await CappedSite(runner, host, port).start()
        await wait_for_stop()
    finally:
        await runner.cleanup()
