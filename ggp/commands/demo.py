"""``ggp demo``: the manager with built-in players and a small round robin on games from kif/.

Prints the URL and keeps serving; ``--once`` runs the tournaments to completion, prints the standings
and exits (for tests and CI).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any


def register(subcommands: Any) -> None:
    """Add the ``demo`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "demo", help="start the manager with built-in players and a small tournament",
        description="Start the manager on loopback with built-in players and a round robin per game. "
        "Players named random, random2, ... are played by the manager itself.")
    parser.add_argument("--port", type=int, default=9140, help="port (default 9140; 0 = any free port)")
    parser.add_argument("--db", default=None, metavar="FILE", help="SQLite database (default: a temporary file)")
    parser.add_argument("--games", default="ticTacToe,connectFour", help="comma-separated game keys in kif/")
    parser.add_argument("--players", default="random,legal,mcts", help="comma-separated players (built-in types)")
    parser.add_argument("--matches-per-pairing", type=int, default=2, metavar="N")
    parser.add_argument("--startclock", type=int, default=5, metavar="S")
    parser.add_argument("--playclock", type=int, default=1, metavar="S")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="auto",
                        help="reasoner engine (default auto: ground once if that fits, else per state)")
    parser.add_argument("--once", action="store_true", help="run the tournaments to the end, print standings, exit")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_demo(args))
    except KeyboardInterrupt:
        return 0


async def _demo(args: argparse.Namespace) -> int:
    from ggp.commands._manager_glue import (
        board_fluents,
        builtin_launcher,
        find_game,
        game_translators,
        machine_factory,
    )
    from ggp.commands._manager_server import load_games, open_store, start_server, wait_for_stop
    from ggp.manager.service import Manager, ManagerSettings
    from ggp.manager.tournament import TournamentSpec

    with tempfile.TemporaryDirectory(prefix="ggp-demo-") as tmp:
        db = args.db or str(Path(tmp) / "demo.db")
        launcher = builtin_launcher(args.seed, engine=args.engine)
        manager = Manager(open_store(db), machine_factory(args.engine), launcher,
                          ManagerSettings(public_url=f"http://127.0.0.1:{args.port}"), translators=game_translators(),
                          fluent_domain=board_fluents)
        players = [p.strip() for p in args.players.split(",") if p.strip()]
        for name in players:
            if name.startswith("random"):
                manager.register_player(name, builtin="random")
            elif manager.store.player(name) is None:
                raise ValueError(f"unknown built-in player {name!r}; available: "
                                 f"{['random', *manager.builtin_kinds()]}")
        server = await start_server(manager, "127.0.0.1", args.port, "")
        try:
            paths = [find_game(key.strip()) for key in args.games.split(",") if key.strip()]
            games = await load_games(manager, paths)
            if not games:
                raise ValueError("none of the demo games could be loaded")
            print(f"ggp demo at {server.url}", flush=True)
            tournaments = {}
            for key in games:
                spec = TournamentSpec(name=f"demo {key}", game=key, players=tuple(players),
                                      per_pairing=args.matches_per_pairing, start_clock=args.startclock,
                                      play_clock=args.playclock, seed=args.seed, parallel=2)
                tournaments[key] = await manager.start_tournament(spec)
            if not args.once:
                print("tournaments running; Ctrl-C stops the demo", flush=True)
                await wait_for_stop()
                return 0
            for key, tournament_id in tournaments.items():
                await manager.wait_tournament(tournament_id)
                ratings = manager.store.ratings(key)
                print(f"\n{key}: standings after {args.matches_per_pairing} matches per pairing")
                print(f"  {'player':<14} {'matches':>7} {'wins':>5} {'mean goal':>9} {'elo':>7}")
                for row in manager.standings(tournament_id):
                    elo = ratings.get(row["player"], (1500.0, 0))[0]
                    print(f"  {row['player']:<14} {row['matches']:>7} {row['wins']:>5} {row['mean']:>9.1f} {elo:>7.1f}")
        finally:
            await server.close()
    return 0
