"""``ggp match GAME --player P --player P``: run one match without the server and print the result.

A player is ``random`` (played by the manager itself, never contacted), an ``http://`` URL of a
running player, or a built-in player spec (``legal``, ``mcts:iterations=200``, ``minimax:h=WGCM``, ...)
started as an in-process HTTP player on a loopback port; an SBG game plays on the SBG engine, as in
every command. A player that refuses the game (START answered ``error: <reason>``) ends the match
with that reason. An ``http://`` player is pinged (INFO, as a GGP host and the manager's scheduler do)
before anything starts: one that does not answer stops the command in one line. A player lost during the
match has its moves played for it (the match's one WARNING and the result line count them).
``--out`` writes the ggp.org match JSON. Exit 0 when the match completed, 1 when it
was aborted or the input is bad.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
from pathlib import Path
from typing import Any

from ggp.commands._args import positive_int
from ggp.commands._games import FORMATS_HELP


def register(subcommands: Any) -> None:
    """Add the ``match`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "match", help="run one match against players and print the result",
        description="Run one match (no server): START, PLAY until terminal, STOP. Players are 'random', "
        "an http:// URL, or a built-in type (legal, mcts, monte_carlo, alphabeta), one per role in role order.")
    parser.add_argument("game", metavar="GAME", help=FORMATS_HELP)
    parser.add_argument("--player", action="append", default=[], metavar="P",
                        help="one per role, in role order (a role named 'random' may be left out: chance)")
    parser.add_argument("--startclock", type=positive_int, default=10, metavar="S", help="start clock in seconds (default 10)")
    parser.add_argument("--playclock", type=positive_int, default=5, metavar="S", help="play clock in seconds (default 5)")
    parser.add_argument("--seed", type=int, default=None, help="seed for fallbacks and the random player")
    parser.add_argument("--step-cap", type=positive_int, default=1000, metavar="N",
                        help="end a match after N joint moves (default 1000)")
    parser.add_argument("--step-cap-outcome", choices=("draw", "abort"), default="draw",
                        help="a match at the step cap is a draw (every role 50; the default) or aborted")
    parser.add_argument("--engine", default="auto",
                        help="reasoner engine (default auto: ground once if that fits, else per state)")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE", help="write the match JSON here")
    parser.add_argument("--quiet", action="store_true", help="print only the final line")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the match; 0 when it completed."""
    return asyncio.run(_run(args))


class _Printer:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def match_event(self, record: Any, event: str) -> None:
        if self.quiet or event not in ("start", "step"):
            return
        errors = record.errors[-1]
        shown = [f"{move}{' [' + code + ']' if code else ''}" for move, code in
                 zip(record.moves[-1] if record.moves else [""] * len(errors), errors)]
        if event == "start":
            if any(errors):
                print(f"start: {', '.join(f'{r} {c}' for r, c in zip(record.roles, errors) if c)}")
            return
        print(f"step {record.step}: {' | '.join(shown)}")
        if record.gdl2 and record.percepts:
            seen = [f"{role} sees {' '.join(p)}" for role, p in zip(record.roles, record.percepts[-1]) if p]
            if seen:
                print(f"        {'; '.join(seen)}")


def _check_builtin_players(machine: Any, specs: list[str], gdl2: bool, game: str) -> None:
    """Refuse, in one line and before any player is launched, a built-in player that cannot play its role
    (the refusal it would answer to START, :func:`ggp.match.local.refusal`)."""
    from ggp.errors import InputError
    from ggp.match.local import refusal
    from ggp.players.registry import make_player

    for index, spec in enumerate(specs):
        if spec == "random" or spec.startswith(("http://", "https://")):
            continue
        reason = refusal(make_player(spec), machine, index, gdl2)
        if reason is not None:
            raise InputError(f"{game}: player {spec} cannot play role {machine.roles[index]}: {reason}")


async def _check_reachable(transport: Any, specs: list[str]) -> None:
    """Ping every ``http://`` player (:func:`ggp.manager.runner.ping_url`); raise :class:`InputError`
    naming the first that cannot be reached (no answer, or no connection)."""
    from ggp.errors import InputError
    from ggp.manager.runner import PING_S, ping_url

    urls = [spec for spec in specs if spec.startswith(("http://", "https://"))]
    replies = await asyncio.gather(*(ping_url(transport, url, url) for url in urls))
    for url, reply in zip(urls, replies):
        if reply["status"] == "TO":
            raise InputError(f"player {url} did not answer a ping (INFO) within {PING_S:g} s; is it running?")
        if reply["status"] == "CE":
            raise InputError(f"player {url} cannot be reached: {reply.get('note', '')}; is it running?")


def _error_counts(record: Any, roles: list[str]) -> str:
    """``xplayer 10 (its moves in 9 of 9 steps played for it)``, or ``none``: each role's messages that
    failed, and how many of its moves the manager played for it."""
    parts = []
    for index, role in enumerate(roles):
        failed = sum(1 for row in record.errors if row[index])
        if failed:
            played = sum(1 for row in record.errors[1:] if row[index])
            steps = len(record.errors) - 1
            parts.append(f"{role} {failed} (its moves in {played} of {steps} steps played for it)" if played
                         else f"{role} {failed}")
    return ", ".join(parts) or "none"


async def _run(args: argparse.Namespace) -> int:
    from ggp.commands._games import load_game
    from ggp.commands._manager_glue import builtin_launcher, machine_factory
    from ggp.manager.launcher import AppLauncher, LaunchedPlayer
    from ggp.manager.records import to_json
    from ggp.manager.runner import CHANCE_ROLE, RANDOM_SEAT, HttpTransport, MatchConfig, Seat, run_match
    from ggp.manager.service import GameRejected, game_problems
    from ggp.protocol.messages import uses_sees

    loaded = load_game(args.game)
    description, path = loaded.description, loaded.path
    problems = game_problems(description)
    if problems:
        raise GameRejected(problems)
    machine = await asyncio.to_thread(machine_factory(args.engine), description)
    roles = [str(role) for role in machine.roles]
    if CHANCE_ROLE in roles and len(args.player) == len(roles) - 1:
        args.player.insert(roles.index(CHANCE_ROLE), "random")  # chance is the manager's own seat
    if len(args.player) != len(roles):
        raise ValueError(f"{path.name} has {len(roles)} roles {roles}; give one --player per role")
    _check_builtin_players(machine, args.player, uses_sees(description), path.name)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    async with HttpTransport() as transport:
        await _check_reachable(transport, args.player)
    launchers: dict[str, AppLauncher] = {}
    launched: list[LaunchedPlayer] = []
    try:
        seats = []
        for spec in args.player:
            if spec == "random":
                seats.append(RANDOM_SEAT)
            elif spec.startswith(("http://", "https://")):
                seats.append(Seat(spec, spec, "remote"))
            else:  # a registry spec: its type, and options (minimax:h=WGCM,depth=2) for every player of it
                kind, _, options = spec.partition(":")
                launcher = launchers.get(options) or builtin_launcher(seed, options=options, engine=args.engine)
                if launcher is None:
                    raise ValueError(f"built-in player {spec!r} needs the player server (ggp.protocol.server)")
                launchers[options] = launcher
                started = await launcher.launch(kind)
                launched.append(started)
                seats.append(Seat(spec, started.url, f"builtin:{spec}"))
        key = loaded.name
        config = MatchConfig(
            match_id=f"{key}.{secrets.token_hex(4)}", game_key=key, description=description, seats=tuple(seats),
            start_clock=args.startclock, play_clock=args.playclock, seed=seed,
            game_meta_url=path.resolve().as_uri(), step_cap=args.step_cap,
            step_cap_outcome=args.step_cap_outcome,
        )
        async with HttpTransport() as transport:
            record = await run_match(machine, config, transport, _Printer(args.quiet))
    finally:
        for player in launched:
            await player.close()
    if args.out is not None:
        args.out.write_text(to_json(record, indent=1) + "\n")
    errors = _error_counts(record, roles)
    if record.is_completed:
        goals = ", ".join(f"{role}={goal}" for role, goal in zip(roles, record.goal_values or ()))
        how = "a draw at the step cap" if record.end_reason == "step_cap" else "completed"
        print(f"{record.match_id}: {how} after {record.step} steps (seed {seed}); goals {goals}; errors: {errors}")
        return 0
    print(f"{record.match_id}: aborted after {record.step} steps ({record.abort_detail}); errors: {errors}")
    return 1
