"""``ggp generate FORMAT ...``: generate levels or games.

Each format is a sub-sub-command. To add one (e.g. ``sbg``), write a ``_register_<name>(formats)``
function that adds its sub-parser with ``set_defaults(run=...)`` and append it to
``FORMAT_REGISTRARS``; nothing else changes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ggp.commands._args import positive_float, positive_int, size_arg


def _run_sokoban(args: argparse.Namespace) -> int:
    """Every method through the registry; the levels are written in one atomic write at the end."""
    from ggp.commands._games import read_game_text
    from ggp.files import write_atomic
    from ggp.translators.sokoban.candidates import GenerationStats
    from ggp.translators.sokoban.generator import SymSettings
    from ggp.translators.sokoban.level import levels_to_text
    from ggp.translators.sokoban.methods import SOLUTION_KIND, MethodOptions, generate
    from ggp.translators.sokoban.methods.layout import parse_layout
    from ggp.translators.sokoban.solver import SolverLimits

    layout = None
    if args.layout is not None:
        if args.method != "pdb":
            raise ValueError("--layout works only with --method pdb")
        layout = parse_layout(read_game_text(args.layout, "sokoban", "generate sokoban --layout"), str(args.layout))
    width, height = args.size or (None, None)
    sym = None
    if args.method == "sym":
        w, h = args.size or (8, 8)
        sym = SymSettings(
            width=w, height=h, boxes=args.boxes, forward=args.forward, backward=args.backward,
            box=args.box_strategy, push=args.push_strategy, pull=args.pull_strategy, path=args.path_strategy,
        )
    limits = SolverLimits(max_nodes=args.max_nodes, max_seconds=args.max_seconds)
    options = MethodOptions(
        width=width, height=height, boxes=args.boxes, keep_trivial=args.keep_trivial, limits=limits,
        max_attempts=args.max_attempts, sym=sym, layout=layout, variant=args.variant, pattern=args.pattern,
        expansions=args.expansions, memory_mb=args.memory_mb, iterations=args.iterations, policy=args.policy,
    )
    stats = GenerationStats()
    report = sys.stdout if args.out else sys.stderr
    found = []
    kind = SOLUTION_KIND[args.method]
    for item in generate(args.method, options, args.count, args.seed, stats):
        d = item.difficulty
        line = (
            f"pushes {d.pushes} moves {d.moves} PSH {d.psh:.3f} LEN {d.len:.3f} fill {d.fill:.3f} "
            f"size {d.width}x{d.height} non-trivial {'yes' if d.non_trivial else 'no'}"
        )
        print(f"{item.level.title}: {line}", file=report)
        found.append((item, f"{line}\n{kind} solution ({len(item.solution)} moves): {item.solution}"))
    for message in stats.messages:
        print(f"ggp generate: {message}", file=sys.stderr)
    text = levels_to_text([item.level for item, _ in found], [comment for _, comment in found])
    if args.out:
        write_atomic(args.out, text)
    else:
        sys.stdout.write(text)
    outcomes = ", ".join(f"{name} {n}" for name, n in sorted(stats.outcomes.items()))
    print(f"{len(found)} level(s) from {stats.attempts} attempts ({outcomes})", file=report)
    if len(found) < args.count:
        too_large = stats.outcomes["too-large"]
        hint = (
            f"; {too_large} candidate(s) were too large for the solver limits ({limits.max_nodes:,} search "
            f"states, {limits.max_seconds:g} s): raise --max-nodes/--max-seconds or use a smaller --size"
            if too_large else ""
        )
        advice = "raise --max-attempts or use --keep-trivial"
        if args.method == "mcts" and not args.keep_trivial:
            advice = ("MCTS's payout does not reward difficulty and its levels are almost never non-trivial "
                      "(docs/sokoban_methods.md): use --keep-trivial")
        print(f"ggp generate: only {len(found)} of {args.count} levels found; {advice}{hint}", file=sys.stderr)
        return 1
    return 0


def _register_sokoban(formats: Any) -> None:
    parser: argparse.ArgumentParser = formats.add_parser(
        "sokoban", help="generate Sokoban levels (SYM, PDB, MCTS or PPO)",
        description="Generate solvable Sokoban levels with one of the thesis's four methods, scored with "
        "optimal push and move counts (PSH, LEN) and checked by the optimal solver.",
    )
    parser.add_argument("--method", choices=("sym", "pdb", "mcts", "ppo"), default="sym",
                        help="sym = SYM reverse play (default); pdb = greedy best-first search over pulls from a "
                        "solved layout; mcts = Monte Carlo tree search over a level-building game; ppo = a trained "
                        "PCGRL policy edits random boards (needs the rl extra; keeps trivial levels too)")
    parser.add_argument("--size", type=size_arg, default=None, metavar="WxH",
                        help="interior size (default 8x8; with --method ppo the policy's size)")
    parser.add_argument("--boxes", type=positive_int, default=3, metavar="B",
                        help="boxes (default 3; the most for mcts; a --layout fixes its own)")
    parser.add_argument("--count", type=positive_int, default=1, metavar="N", help="levels to produce (default 1)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE",
                        help="write the levels here (default: standard output, report on standard error)")
    parser.add_argument("--keep-trivial", action="store_true", help="also keep levels with PSH or LEN <= 0.5")
    parser.add_argument("--max-attempts", type=positive_int, default=None, metavar="M",
                        help="give up after M attempts (default 200 per level; 20 for pdb and mcts)")
    parser.add_argument("--max-nodes", type=positive_int, default=200_000, metavar="N",
                        help="solver state limit per level; larger levels are skipped (200000)")
    parser.add_argument("--max-seconds", type=float, default=20.0, metavar="S",
                        help="solver time limit per search (20)")
    sym = parser.add_argument_group("sym")
    sym.add_argument("--forward", type=positive_int, default=24, metavar="F", help="forward iterations (24)")
    sym.add_argument("--backward", type=int, default=20, metavar="K", help="backward iterations (20)")
    sym.add_argument("--box-strategy", choices=("random", "least-pushed", "in-order"), default="least-pushed")
    sym.add_argument("--push-strategy", choices=("random", "farthest", "most-obstacles"), default="farthest")
    sym.add_argument("--pull-strategy", choices=("random", "farthest", "most-obstacles", "most-access"),
                     default="farthest")
    sym.add_argument("--path-strategy", choices=("direct", "closest-active-tile"), default="closest-active-tile")
    pdb = parser.add_argument_group("pdb")
    pdb.add_argument("--layout", type=Path, default=None, metavar="FILE",
                     help="solved layout: walls, goals ('.' or '*') and the player (default: a random room per attempt)")
    pdb.add_argument("--variant", choices=("simple", "novelty", "compound"), default="compound",
                     help="node order: simple [kC, h], novelty [w(h), h], compound [w(h), kC, h] (default)")
    pdb.add_argument("--pattern", type=int, choices=range(1, 6), default=3, metavar="K",
                     help="pattern database size k of h^PDB_k, 1..5 (default 3)")
    pdb.add_argument("--expansions", type=positive_int, default=4000, metavar="N",
                     help="node expansions per search (4000)")
    pdb.add_argument("--memory-mb", type=positive_float, default=256.0, metavar="MB",
                     help="cap on the search's estimated memory; the search stops there with its best level (256)")
    mcts = parser.add_argument_group("mcts")
    mcts.add_argument("--iterations", type=positive_int, default=1500, metavar="N",
                      help="tree iterations per search (1500)")
    ppo = parser.add_argument_group("ppo")
    ppo.add_argument("--policy", type=Path, default=None, metavar="FILE",
                     help="PPO policy from 'ggp train-sokoban' (default: the shipped 5x5 turtle policy)")
    parser.set_defaults(run=_run_sokoban)


def _run_sbg(args: argparse.Namespace) -> int:
    from ggp.generation.generator import generate_games
    from ggp.generation.nld import game_nld
    from ggp.generation.params import resolve_params
    from ggp.translators.sbg.printer import to_sbg

    params = resolve_params(args.params)
    args.out.mkdir(parents=True, exist_ok=True)
    for index, (game, used) in enumerate(generate_games(args.count, args.seed, params)):
        path = args.out / f"gen_{args.seed}_{index:04d}.sbg"
        path.write_text(to_sbg(game), encoding="utf-8")
        if args.kif:
            from ggp.gdl.printer import to_kif
            from ggp.translators.sbg.to_gdl import translate

            path.with_suffix(".kif").write_text(to_kif(translate(game)), encoding="utf-8")
        types = len(game.types_on_board()) - 2
        print(f"{path}: {game.width}x{game.height}, king, pawn and {types} other types, turn limit {game.turn_limit}, "
              f"params {used.name}, f_NLD {game_nld(game).value}")
    print(f"{args.count} game(s) written to {args.out}")
    return 0


def _register_sbg(formats: Any) -> None:
    parser: argparse.ArgumentParser = formats.add_parser(
        "sbg", help="generate chess-like Simplified Boardgames (RAPP restrictions)",
        description="Generate random chess-like SBG games: mirrored two-row setups with one king, pawns in "
        "front, 3..5 other piece types, king-capture and pawn-promotion-square goals (rapp.md section 4).",
    )
    parser.add_argument("--count", type=positive_int, default=1, metavar="N", help="games to produce (default 1)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--params", default=None, metavar="SET|FILE",
                        help="built-in parameter set (classic, riders, restricted, compound) or a YAML/JSON "
                        "file; default: the four built-in sets in turn")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for the .sbg files")
    parser.add_argument("--kif", action="store_true", help="also write each game's GDL translation (.kif)")
    parser.set_defaults(run=_run_sbg)


FORMAT_REGISTRARS: list[Callable[[Any], None]] = [_register_sokoban, _register_sbg]
"""One function per format; each adds its sub-sub-command to ``ggp generate``."""


def register(subcommands: Any) -> None:
    """Add the ``generate`` sub-parser and one sub-sub-parser per format."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "generate", help="generate levels or games (sokoban, sbg, ...)",
        description="Generate new levels or games in a given format.",
    )
    formats = parser.add_subparsers(dest="format", required=True, metavar="FORMAT")
    for registrar in FORMAT_REGISTRARS:
        registrar(formats)
