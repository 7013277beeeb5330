"""``ggp demo``: the manager with built-in players, a round robin that keeps running, and a seat for you.

The demo loads every game of kif/ and a few SBG games (:data:`DEMO_SBG`), registers the built-in
players and a person's seat ``you`` (the dashboard's "Play a game yourself" starts a game against
``mcts`` in one click), prints the URL and then plays round robins game after game, round after
round, until Ctrl-C: whoever opens the page sees a match being played. ``--once`` plays one round
over the chosen games, prints the standings and exits (for tests and CI).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggp.commands._args import positive_float, positive_int

if TYPE_CHECKING:
    from ggp.manager.service import Manager

log = logging.getLogger(__name__)

DEMO_SBG = ("six_demo", "breakthrough_6x6", "gardner")
"""The SBG games of ``games/`` the demo plays besides kif/ (small boards: quick matches)."""
SBG_DIRS = (Path("games"), Path(__file__).resolve().parents[2] / "games")
SKIPPED_ROUND_PAUSE_S = 30.0
"""How long the demo waits after a round in which no game could start, before trying again (without it the
loop never yields and the page stops answering)."""
PERSON = "you"
"""The person's seat the demo registers."""


def register(subcommands: Any) -> None:
    """Add the ``demo`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "demo", help="start the manager with built-in players, a running round robin and a seat for you",
        description="Start the manager on loopback with built-in players and a person's seat 'you', then play "
        "round robins over the games until Ctrl-C (--once: one round, then print the standings). Players "
        "named random, random2, ... are played by the manager itself.")
    parser.add_argument("--port", type=int, default=9140, help="port (default 9140; 0 = any free port)")
    parser.add_argument("--db", default=None, metavar="FILE", help="SQLite database (default: a temporary file)")
    parser.add_argument("--games", default="all",
                        help="comma-separated games: keys in kif/, NAME.sbg in games/, or files (default all: "
                        f"every kif/ game and {', '.join(DEMO_SBG)})")
    parser.add_argument("--players", default="random,legal,mcts", help="comma-separated players (built-in types)")
    parser.add_argument("--matches-per-pairing", type=positive_int, default=2, metavar="N")
    parser.add_argument("--startclock", type=positive_int, default=5, metavar="S")
    parser.add_argument("--playclock", type=positive_int, default=1, metavar="S")
    parser.add_argument("--think", type=positive_float, default=3.0, metavar="S",
                        help="longest a built-in player thinks per move, whatever the play clock (default 3 s, "
                        "so a game against you moves briskly)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="auto",
                        help="reasoner engine (default auto: ground once if that fits, else per state)")
    parser.add_argument("--once", action="store_true", help="play one round robin per game, print standings, exit")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_demo(args))
    except KeyboardInterrupt:
        return 0


def demo_games(spec: str) -> list[Path]:
    """The game files ``--games`` names: ``all`` (kif/ plus :data:`DEMO_SBG`), or keys, SBG names and files.

    Raises ``ValueError`` for a name that is neither.
    """
    from ggp.commands._games import find_game, kif_games

    def sbg(name: str) -> Path | None:
        return next((root / f"{name}.sbg" for root in SBG_DIRS if (root / f"{name}.sbg").is_file()), None)

    if spec.strip() == "all":
        return kif_games() + [path for path in map(sbg, DEMO_SBG) if path is not None]
    paths = []
    for key in filter(None, (part.strip() for part in spec.split(","))):
        found = Path(key) if Path(key).is_file() else sbg(key.removesuffix(".sbg")) if key.endswith(".sbg") else None
        paths.append(found or find_game(key))
    return paths


def _seated(manager: Manager, key: str, players: list[str]) -> tuple[str, ...]:
    """The players for a game: in a GDL-II game ``mcts`` (which needs the true state) gives way to ``dmcts``."""
    from ggp.gdl.parser import parse_kif
    from ggp.protocol.messages import uses_sees

    row = manager.store.game(key)
    gdl2 = row is not None and "sees" in row.kif and uses_sees(parse_kif(row.kif, f"{key}.kif"))
    return tuple("dmcts" if gdl2 and name == "mcts" and "dmcts" in manager.builtin_kinds() else name
                 for name in players)


async def _round_robins(manager: Manager, games: list[str], players: list[str], args: argparse.Namespace,
                        rounds: int | None) -> None:
    """Round robins over ``games``, one game after another, ``rounds`` times (``None``: until cancelled)."""
    from ggp.errors import InputError
    from ggp.manager.tournament import TournamentSpec

    done = 0
    while rounds is None or done < rounds:
        started = 0
        for key in games:
            spec = TournamentSpec(name=f"demo {key} round {done + 1}", game=key, players=_seated(manager, key, players),
                                  per_pairing=args.matches_per_pairing, start_clock=args.startclock,
                                  play_clock=args.playclock, seed=args.seed + done, parallel=2)
            try:
                tournament_id = await manager.start_tournament(spec)
            except InputError as exc:
                log.warning("demo: %s skipped: %s", key, exc)
                continue
            started += 1
            await manager.wait_tournament(tournament_id)
            current = asyncio.current_task()
            if current is not None and current.cancelling():  # wait_tournament shields: stop here
                await manager.abort_tournament(tournament_id)
                raise asyncio.CancelledError
            if rounds is not None:
                _print_standings(manager, key, tournament_id, args.matches_per_pairing)
        done += 1
        if not started and rounds is None:  # every game refused (a suspended player): wait, never spin the loop
            await asyncio.sleep(SKIPPED_ROUND_PAUSE_S)


def _print_standings(manager: Manager, key: str, tournament_id: int, per_pairing: int) -> None:
    ratings = manager.store.ratings(key)
    print(f"\n{key}: standings after {per_pairing} matches per pairing")
    print(f"  {'player':<14} {'matches':>7} {'wins':>5} {'mean goal':>9} {'elo':>7}")
    table = manager.standings(tournament_id)
    for row in table:
        elo = ratings.get(row["player"], (1500.0, 0))[0]
        name = f"{row['player']} *" if row["fallbacks"] else row["player"]
        print(f"  {name:<14} {row['matches']:>7} {row['wins']:>5} {row['mean']:>9.1f} {elo:>7.1f}")
    marked = ", ".join(f"{row['player']} {row['fallbacks']}" for row in table if row["fallbacks"])
    if marked:  # ranked partly on moves the manager played for them
        print(f"  * moves played by the fallback (timeouts, errors, illegal moves), not chosen: {marked}")


async def _demo(args: argparse.Namespace) -> int:
    from ggp.commands._end_reasons import SbgEndReasons
    from ggp.commands._manager_glue import board_fluents, builtin_launcher, game_translators, machine_factory
    from ggp.commands._manager_server import load_games, open_store, start_server, wait_for_stop
    from ggp.commands._piece_images import shape_cache, user_shape_cache
    from ggp.manager.service import Manager
    from ggp.manager.wiring import ManagerSettings

    if args.think <= 0:
        raise ValueError(f"--think must be positive, found {args.think:g}")
    with tempfile.TemporaryDirectory(prefix="ggp-demo-") as tmp:
        db = args.db or str(Path(tmp) / "demo.db")
        launcher = builtin_launcher(args.seed, options=f"seconds={args.think:g}", engine=args.engine)
        manager = Manager(open_store(db), machine_factory(args.engine), launcher,
                          ManagerSettings(public_url=f"http://127.0.0.1:{args.port}"), translators=game_translators(),
                          fluent_domain=board_fluents,
                          piece_images=shape_cache(db) if args.db else user_shape_cache(), end_reasons=SbgEndReasons())
        players = [p.strip() for p in args.players.split(",") if p.strip()]
        for name in players:
            if name.startswith("random"):
                manager.register_player(name, builtin="random")
            elif manager.store.player(name) is None:
                raise ValueError(f"unknown built-in player {name!r}; available: "
                                 f"{['random', *manager.builtin_kinds()]}")
        manager.register_player(PERSON, builtin="human")
        server = await start_server(manager, "127.0.0.1", args.port, "")
        try:
            games = await load_games(manager, demo_games(args.games))
            if not games:
                raise ValueError("none of the demo games could be loaded")
            print(f"ggp demo at {server.url}", flush=True)
            if args.once:
                await _round_robins(manager, games, players, args, rounds=1)
                return 0
            print(f"round robins over {len(games)} games running until Ctrl-C; to play yourself, open the URL "
                  f"and press 'Play as {PERSON}'", flush=True)
            robins = asyncio.create_task(_round_robins(manager, games, players, args, rounds=None))
            try:
                await wait_for_stop()
            finally:
                robins.cancel()
                await asyncio.gather(robins, return_exceptions=True)
            return 0
        finally:
            await server.close()
