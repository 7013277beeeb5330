"""``ggp bench GAME.kif``: flat random playouts for a fixed time; prints the reasoner's speed.

Reports playouts/s, states/s, the mean playout depth and the mean time of one state step (legal
moves + next state), and which engine it measured. With ``--engine auto`` (the default) that is the engine
a player's search runs on: the compiled circuit once its background build is done (waited for), else the
quick engine that plays until then. Engines with a batch ``random_playouts`` (the circuit) are measured through it
when ``--batch`` is given. Speed claims in this project come from this command, not from tests.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ggp.commands._args import non_negative_int, positive_float
from ggp.commands._games import DEFAULT_ENGINE, ENGINE_HELP, FORMATS_HELP, add_case_option, add_limit_options, grounding_limits
from ggp.gdl.terms import Description
from ggp.reasoner.machine import StateMachine


def register(subcommands: Any) -> None:
    """Add the ``bench`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "bench",
        help="measure a reasoner with flat random playouts",
        description="Run seeded random playouts for a fixed time and report playouts/s, states/s, "
        "mean depth and the time of one state step (legal + next).",
    )
    parser.add_argument("game", metavar="GAME", help=FORMATS_HELP)
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help=ENGINE_HELP)
    add_case_option(parser)
    add_limit_options(parser)
    parser.add_argument("--seconds", type=positive_float, default=10.0, metavar="S", help="time to run (default 10)")
    parser.add_argument("--batch", type=non_negative_int, default=0, metavar="B",
                        help="playouts per batch call for engines that offer random_playouts (default 0: off)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--depth", type=non_negative_int, default=1000, metavar="D",
                        help="cut playouts after D joint moves (default 1000)")
    parser.add_argument("--quick", action="store_true",
                        help="with --engine auto: measure the engine a player plays on until the circuit is built "
                             "(auto's choice by grounding), not the circuit")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Ground the game, run the playouts, print the figures; 0 on success."""
    import time

    from ggp.commands._games import load_game
    from ggp.reasoner.benchmark import bench
    from ggp.reasoner.engines import engine_name, make_machine

    description = load_game(args.game, case_sensitive=args.case_sensitive).description
    started = time.perf_counter()
    if args.engine == "auto" and not args.quick:
        machine, chosen = players_machine(description)
    else:
        machine = make_machine(description, args.engine, grounding_limits(args))
        chosen = engine_name(machine)
    setup = time.perf_counter() - started
    result = bench(machine, seconds=args.seconds, seed=args.seed, max_depth=args.depth, batch=args.batch,
                   engine=engine_name(machine))
    if args.json:
        data = {"game": str(args.game), "setup_seconds": setup, "chosen": chosen, **result.as_dict()}
        print(json.dumps(data))
        return 0
    print(f"game        {args.game}")
    print(f"engine      {chosen}{' (batched)' if result.batched else ''}")
    print(f"setup       {setup:.2f} s")
    print(f"playouts    {result.playouts} in {result.seconds:.2f} s ({result.playouts_per_second:.1f}/s)")
    print(f"states      {result.states} ({result.states_per_second:.0f}/s)")
    print(f"mean depth  {result.mean_depth:.1f}")
    kind = "legal + next" + (", batched" if result.batched else "")
    print(f"state step  {result.state_step_seconds * 1e6:.3g} us ({kind}); "
          f"cpu {result.cpu_step_seconds * 1e6:.3g} us per state")
    return 0


def players_machine(description: Description) -> tuple[StateMachine, str]:
    """The machine a player of ``--engine auto`` ends up playing on, and a line that says which: the
    compiled circuit once its background build is done (waited for: the quick engine that plays until then
    is not what a player's search runs on), else the quick engine, with the reason the circuit did not build."""
    from ggp.reasoner.engines import engine_name
    from ggp.reasoner.upgrade import UpgradingMachine, playing_machine

    machine = playing_machine(description, "auto")
    if not isinstance(machine, UpgradingMachine):
        return machine, f"{engine_name(machine)} (auto: what a player uses)"
    quick = engine_name(machine.quick)  # not machine.current: a circuit kept on disk can be loaded already
    machine.wait()
    if machine.upgraded:
        return machine.current, f"{engine_name(machine.current)} (auto: a player plays on {quick} until it is built)"
    return machine.current, f"{quick} (auto: what a player uses; the circuit did not build: {machine.failure})"
