"""``ggp arena GAME --player SPEC ... --games N``: in-process matches with seat swapping and a win-rate table.

Players are specs from :mod:`ggp.players.registry` (``mcts:iterations=200``, ``random``), one per role;
seats rotate each game. No HTTP and no clocks: limits come from the specs (``iterations``,
``seconds``, ``depth``). Exit 0 after printing the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from typing import Any

from ggp.commands._args import positive_int
from ggp.commands._games import DEFAULT_ENGINE, ENGINE_HELP, FORMATS_HELP, add_case_option


def register(subcommands: Any) -> None:
    """Add the ``arena`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "arena",
        help="play players against each other in-process and print win rates",
        description="Play N games in-process (seats rotate each game) and print a win-rate table.",
    )
    parser.add_argument("game", metavar="GAME", help=FORMATS_HELP)
    parser.add_argument("--player", action="append", default=[], metavar="SPEC",
                        help="a player spec, one per role (e.g. mcts:iterations=200, random)")
    parser.add_argument("--games", type=positive_int, default=10, metavar="N", help="number of games (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of players and fallbacks (default 0)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help=ENGINE_HELP)
    add_case_option(parser)
    parser.add_argument("--max-steps", type=positive_int, default=1000, metavar="N",
                        help="score a game as it stands after N joint moves (default 1000)")
    parser.add_argument("--json", action="store_true", help="print the games and standings as JSON")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Play the games and print the table."""
    from ggp.arena import format_table, player_roles, run_arena, standings
    from ggp.commands._games import GameMachines, load_game
    from ggp.errors import InputError
    from ggp.match.local import players_problem, seating_problem
    from ggp.players.registry import make_player
    from ggp.protocol.messages import uses_sees

    if not args.player:
        raise ValueError("give one --player per role, e.g. --player mcts:iterations=200 --player random")
    for spec in args.player:
        make_player(spec)  # a bad spec fails before any game starts
    # The one machine factory of every command: an SBG game plays on the SBG engine, as in ggp evaluate.
    loaded = load_game(args.game, case_sensitive=args.case_sensitive)
    machine = GameMachines(args.engine).load(loaded)
    gdl2 = uses_sees(loaded.description)  # each player then sees only its percepts, as in ggp match
    seating = seating_problem(machine.roles, len(args.player))
    refused = seating or players_problem(machine, args.player, lambda spec, seed: make_player(spec, seed=seed),
                                         seed=args.seed, gdl2=gdl2)
    if refused is not None:  # refused up front, in one line: nobody is scored on moves it never chose
        raise InputError(f"{args.game}: {refused}")
    names = _names(args.player)
    roles = [machine.roles[i] for i in player_roles(machine)]
    makers = [partial(make_player, spec) for spec in args.player]

    def progress(game: int, result: Any) -> None:
        if args.quiet or args.json:
            return
        seats = ", ".join(f"{role}={names[e]}" for role, e in zip(roles, result.seats))
        goals = " ".join(map(str, result.goals))
        print(f"game {game + 1}: {seats}: goals {goals} after {result.length} steps", file=sys.stderr)

    results = run_arena(machine, makers, args.games, args.seed, args.max_steps, progress, gdl2)
    table = standings(results, names)
    if args.json:
        print(json.dumps({
            "game": args.game,
            "roles": [str(role) for role in roles],
            "players": names,
            "games": [{"seats": list(g.seats), "goals": list(g.goals), "length": g.length,
                       "endReason": g.end_reason, "errors": g.errors,
                       "fallbacks": list(g.fallbacks),
                       **({"configurations": list(g.configurations)} if g.configurations else {})} for g in results],
            "standings": [{"player": s.name, "games": s.games, "wins": s.wins, "draws": s.draws,
                           "losses": s.losses, "winRate": s.win_rate, "score": s.score,
                           "meanGoal": s.mean_goal, "fallbacks": s.fallbacks} for s in table],
        }, indent=2))
    else:
        print(f"{args.game}: {args.games} games, seats rotating")
        print(format_table(table))
    return 0


def _names(specs: list[str]) -> list[str]:
    """The specs as names, numbered when the same spec plays more than one seat."""
    return [f"{spec}#{i + 1}" if specs.count(spec) > 1 else spec for i, spec in enumerate(specs)]
