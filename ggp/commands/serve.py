"""``ggp serve``: the game manager's web server (REST API and web UI), bound to 127.0.0.1 by default.

Binding to another address needs ``--expose`` and then ``--token T`` (or ``GGP_MANAGER_TOKEN``);
every state-changing request must then carry ``Authorization: Bearer T``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggp.commands._args import non_negative_int, positive_float, positive_int

if TYPE_CHECKING:
    from ggp.manager.members import RegistrationSettings
    from ggp.manager.scheduler import ScheduleSettings


def register(subcommands: Any) -> None:
    """Add the ``serve`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "serve", help="run the game manager's web server and UI",
        description="Serve the game manager: REST API, live match pages and tournaments. Loads the games in "
        "kif/ unless --no-kif.")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=9140, help="port (default 9140; 0 = any free port)")
    parser.add_argument("--db", default="ggp-manager.db", metavar="FILE",
                        help="SQLite database (default ggp-manager.db); SBG piece shapes are cached in ggp-shapes/ beside it")
    parser.add_argument("--public-url", default="", metavar="URL",
                        help="the address other machines reach this manager at, for the gameMetaURL of matches "
                        "(default http://HOST:PORT; give it with --host 0.0.0.0 or behind a proxy)")
    parser.add_argument("--expose", action="store_true", help="allow binding beyond loopback (needs --token)")
    parser.add_argument("--token", default=os.environ.get("GGP_MANAGER_TOKEN", ""), help="admin token")
    parser.add_argument("--engine", default="auto",
                        help="reasoner engine (default auto: ground once if that fits, else per state)")
    parser.add_argument("--suspend-after", type=non_negative_int, default=3, metavar="N",
                        help="suspend a player after N failed matches in a row (0 = never; default 3)")
    parser.add_argument("--step-cap", type=positive_int, default=1000, metavar="N",
                        help="end a match after N joint moves (default 1000)")
    parser.add_argument("--step-cap-outcome", choices=("draw", "abort"), default="draw",
                        help="a match at the step cap is a draw (every role 50; the default) or aborted")
    parser.add_argument("--no-kif", action="store_true", help="do not load the games in kif/")
    parser.add_argument("--sbg", action="append", default=[], type=Path, metavar="DIR",
                        help="also load every .sbg game in DIR, e.g. games/ (repeatable; their pieces get shapes)")
    parser.add_argument("--repository", action="append", default=[], type=Path, metavar="DIR",
                        help="also load every game of DIR, a folder in the ggp.org layout (<key>/METADATA, as kif/) "
                        "or of <key>.kif files; a broken game is listed at /api/repository, not fatal (repeatable)")
    parser.add_argument("--schedule", action="store_true",
                        help="continuous scheduling: pair the registered remote players that answer a ping on the "
                        "stored games, round after round (pause players with POST /api/players/NAME/pause)")
    parser.add_argument("--schedule-round", type=positive_float, default=5.0, metavar="S",
                        help="seconds between scheduling rounds (default 5)")
    parser.add_argument("--schedule-clocks", default="30,15", metavar="START,PLAY",
                        help="clocks of games whose METADATA gives none (default 30,15)")
    parser.add_argument("--schedule-games", default="", metavar="KEY,...",
                        help="draw only these games (default: every stored game)")
    parser.add_argument("--retry-suspended", type=non_negative_int, default=600, metavar="S",
                        help="the schedule retries a suspended player after S seconds (default 600)")
    parser.add_argument("--reasoner-cache-mb", type=positive_int, default=512, metavar="MB",
                        help="resident memory of the reasoner workers kept for games no match is using (default "
                        "512); a schedule rotating over many games wants about 30 MB per game")
    parser.add_argument("--registration", default="closed", metavar="open|invite:CODE|closed",
                        help="who may register players through POST /api/members, getting a token to pause, resume, "
                        "rename or delete them: anyone, anyone with the code, or only the admin (default closed)")
    parser.add_argument("--player-networks", default="", metavar="CIDR,...",
                        help="networks the players registered by their owners may be in (default: public addresses "
                        "only, never this manager; e.g. 10.0.0.0/8 for a private site)")
    parser.add_argument("--tournament", action="append", default=[], type=Path, metavar="FILE.yaml",
                        help="start the round robin described in this YAML file (repeatable)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM); running matches are aborted on the way out."""
    try:
        return asyncio.run(_serve(args))
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C, or SIGTERM before serving began
        return 0


def _site_settings(args: argparse.Namespace) -> tuple[ScheduleSettings, RegistrationSettings]:
    """The continuous schedule's and the members' registration settings of the command line; InputError
    for a bad ``--schedule-clocks`` or ``--player-networks``."""
    from ggp.errors import InputError
    from ggp.manager.members import RegistrationSettings, parse_registration
    from ggp.manager.scheduler import ScheduleSettings
    from ggp.manager.urls import UrlPolicy, parse_networks

    try:
        start_clock, play_clock = (int(part) for part in args.schedule_clocks.split(","))
    except ValueError:
        raise InputError(f"--schedule-clocks wants START,PLAY in whole seconds, not {args.schedule_clocks!r}") from None
    schedule = ScheduleSettings(round_s=args.schedule_round, retry_s=args.retry_suspended, start_clock=start_clock,
                                play_clock=play_clock, games=tuple(k for k in args.schedule_games.split(",") if k))
    mode, code = parse_registration(args.registration)
    try:
        networks = parse_networks(args.player_networks)
    except ValueError as exc:
        raise InputError(f"--player-networks: {exc}") from None
    return schedule, RegistrationSettings(mode=mode, code=code, policy=UrlPolicy(networks))


async def _serve(args: argparse.Namespace) -> int:
    from ggp.commands._end_reasons import SbgEndReasons
    from ggp.commands._games import kif_games
    from ggp.commands._manager_glue import (
        board_fluents,
        builtin_launcher,
        game_translators,
        machine_factory,
    )
    from ggp.commands._manager_server import (
        check_exposure,
        how_to_stop,
        load_games,
        open_store,
        start_server,
        stop_on_sigterm,
        wait_for_stop,
    )
    from ggp.commands._piece_images import shape_cache
    from ggp.errors import InputError
    from ggp.files import read_text
    from ggp.manager.members import MEMBERS
    from ggp.manager.reasoning import ReasonerLimits
    from ggp.manager.scheduler import SCHEDULER
    from ggp.manager.service import Manager
    from ggp.manager.tournament import spec_from_yaml
    from ggp.manager.wiring import ManagerSettings
    from ggp.protocol.server import PlayerLimits

    schedule, registration = _site_settings(args)
    stop_on_sigterm()
    check_exposure(args.host, args.expose, args.token)
    specs = [spec_from_yaml(read_text(path), str(path)) for path in args.tournament]
    for directory in args.sbg:
        if not directory.is_dir():
            raise InputError(f"--sbg {str(directory)!r} is not a directory")
    for directory in args.repository:
        if not directory.is_dir():
            raise InputError(f"--repository {str(directory)!r} is not a directory")
    sbg_games = [path for directory in args.sbg for path in sorted(directory.glob("*.sbg"))]
    host = f"[{args.host}]" if ":" in args.host else args.host
    if args.public_url and not args.public_url.startswith(("http://", "https://")):
        raise InputError(f"--public-url must start with http:// or https://, not {args.public_url!r}")
    public_url = args.public_url.rstrip("/") or f"http://{host}:{args.port}"
    settings = ManagerSettings(public_url=public_url, suspend_after=args.suspend_after,
                               step_cap=args.step_cap, step_cap_outcome=args.step_cap_outcome,
                               reasoner=ReasonerLimits(cache_mb=args.reasoner_cache_mb))
    # A long-running manager bounds its built-in players like `ggp player`: each reasons in a worker process.
    launcher = builtin_launcher(engine=args.engine, limits=PlayerLimits())
    manager = Manager(open_store(args.db), machine_factory(args.engine), launcher, settings,
                      translators=game_translators(), fluent_domain=board_fluents,
                      piece_images=shape_cache(args.db), end_reasons=SbgEndReasons())
    server = await start_server(manager, args.host, args.port, args.token)
    try:
        if not args.no_kif:
            await load_games(manager, kif_games())
        await load_games(manager, sbg_games)
        for directory in args.repository:
            stored, broken = await manager.load_repository(directory)
            print(f"repository {directory}: {len(stored)} games served, {len(broken)} broken "
                  f"(listed at /api/repository)", flush=True)
        for spec in specs:
            tournament_id = await manager.start_tournament(spec)
            print(f"tournament {tournament_id} ({spec.name}) started", flush=True)
        server.runner.app[MEMBERS].configure(registration)
        scheduler = server.runner.app[SCHEDULER]
        if args.schedule:
            scheduler.configure(schedule)
            scheduler.start()
            print(f"continuous scheduling on, a round every {schedule.round_s:g} s", flush=True)
        print(f"ggp manager at {server.url} (database {args.db}); {how_to_stop()}", flush=True)
        await wait_for_stop()
    finally:
        await server.runner.app[SCHEDULER].stop()  # no new match while the manager closes
        await server.close()
    return 0
