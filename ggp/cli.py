"""The ``ggp`` command line.

Each subcommand lives in its own module under :mod:`ggp.commands` and exposes
``register(subcommands)``, which adds an argparse sub-parser whose ``run`` default returns an exit
code. Modules import heavy dependencies inside ``run`` so that ``ggp --help`` stays fast.

Exit codes: 0 success, 1 a problem with the input or the run, 2 a usage error (argparse).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import logging
import pkgutil
import sys
from collections.abc import Sequence

import ggp.commands
from ggp import __version__
from ggp.errors import GgpError


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every subcommand found in :mod:`ggp.commands`."""
    parser = argparse.ArgumentParser(prog="ggp", description="General Game Playing toolkit")
    parser.add_argument("--version", action="version", version=f"ggp {__version__}")
    parser.add_argument("--debug", action="store_true", help="debug logs and full tracebacks")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(ggp.commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"ggp.commands.{info.name}")
        module.register(subcommands)
    return parser


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parser.parse_args``, except that an unknown option of a subcommand is refused with that
    subcommand's usage (not the top-level one) and a hint at the closest option it has (exit 2)."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        command = _command_parser(parser, args)
        command.error(f"unrecognized arguments: {' '.join(extras)}{_closest_option(command, extras)}")
    return args


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub-)sub-parser that read the command line ``args`` came from."""
    while True:
        groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, groups[0].dest, None) if groups else None
        if not groups or not isinstance(name, str) or name not in groups[0].choices:
            return parser
        parser = groups[0].choices[name]


def _closest_option(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """`` (did you mean --matches?)`` for the first unknown ``--option`` that is close to one of the parser's.

    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--matches")
    >>> _closest_option(parser, ["--matchs", "2"])
    ' (did you mean --matches?)'
    >>> _closest_option(parser, ["--colour"])
    ''
    """
    known = [option for action in parser._actions for option in action.option_strings if option.startswith("--")]
    for extra in extras:
        if extra.startswith("--"):
            close = difflib.get_close_matches(extra.split("=", 1)[0], known, n=1)
            if close:
                return f" (did you mean {close[0]}?)"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ggp`` console script; returns the process exit code."""
    parser = build_parser()
    args = parse_args(parser, argv)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        engine = getattr(args, "engine", None)
        if isinstance(engine, str):  # every command's --engine, refused before any game is read
            from ggp.reasoner.engines import check_engine

            check_engine(engine)
        return int(args.run(args))
    except KeyboardInterrupt:
        print(f"ggp {args.command}: interrupted", file=sys.stderr)
        return 130
    except (GgpError, OSError, ValueError) as exc:
        if args.debug:
            raise
        print(f"ggp {args.command}: {describe_error(exc)}", file=sys.stderr)
        return 1


def describe_error(exc: BaseException) -> str:
    """One line for an error: an OS error names its file and says what went wrong in plain words.

    >>> describe_error(FileNotFoundError(2, "No such file or directory", "games/nope.sbg"))
    'games/nope.sbg: no such file or directory'
    """
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return f"{where}{exc.strerror[0].lower()}{exc.strerror[1:]}"
    return str(exc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
