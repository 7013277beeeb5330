"""``ggp validate FILE...``: static GDL checks (and, with ``--simulate``, random playouts) on KIF files.

Exit code 0 when every file is valid (warnings allowed), 1 when any file has an error (a file that
cannot be read or parsed included), 2 for usage errors (argparse).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ggp.commands._args import positive_int
from ggp.commands._games import DEFAULT_ENGINE, ENGINE_HELP, add_case_option, add_limit_options, grounding_limits

if TYPE_CHECKING:
    from ggp.gdl.terms import Description
    from ggp.gdl.validator import Finding
    from ggp.reasoner.machine import GroundingLimits

DEFAULT_DEPTH = 1000
"""Step bound of each simulated playout (spec §6.3)."""

_SIMULATE_MODULE = "ggp.reasoner.simulate"


class _SimulateChecks(Protocol):
    """Signature of ``ggp.reasoner.simulate.simulate_checks`` (random-playout checks, spec §6.3)."""

    def __call__(self, description: Description, *, playouts: int, depth: int, seed: int,
                 strict: bool, engine: str, limits: GroundingLimits | None, counts: Any) -> list[Finding]: ...


def register(subcommands: Any) -> None:
    """Add the ``validate`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "validate",
        help="check KIF game descriptions against the GDL restrictions",
        description="Check KIF files against GDL's static restrictions; report every problem. "
        "Exit 0 if all files are valid (warnings allowed), 1 if any has an error.",
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE",
                        help="game files: .kif, or .sbg / Sokoban levels, validated as their GDL translation")
    parser.add_argument("--json", action="store_true", help="print findings as one JSON list")
    parser.add_argument("--strict", action="store_true",
                        help="goal values outside 0..100 and negative cycles on relations (locally stratified "
                        "games) are errors")
    parser.add_argument("--simulate", type=positive_int, metavar="N", default=None,
                        help="also run N seeded random playouts (simulation checks)")
    parser.add_argument("--depth", type=positive_int, metavar="D", default=DEFAULT_DEPTH,
                        help=f"step bound of each playout (default {DEFAULT_DEPTH})")
    parser.add_argument("--seed", type=int, metavar="S", default=0, help="random seed (default 0)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help="with --simulate: " + ENGINE_HELP)
    add_case_option(parser)
    add_limit_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Validate each file, print the findings, and return the exit code."""
    simulate: _SimulateChecks | None = None
    if args.simulate is not None:
        try:
            # Imported by name: the reasoner side owns this module and it may be absent.
            module = importlib.import_module(_SIMULATE_MODULE)
        except ModuleNotFoundError as exc:
            if exc.name != _SIMULATE_MODULE:
                raise
            print(f"ggp validate: --simulate needs {_SIMULATE_MODULE}, which is not available",
                  file=sys.stderr)
            return 1
        simulate = module.simulate_checks

    report: list[tuple[str, Finding]] = []
    failed = False
    for path in args.files:
        name = str(path)
        findings, simulated = _check_file(path, args, simulate)
        errors = sum(f.severity == "error" for f in findings)
        failed = failed or errors > 0
        report.extend((name, f) for f in findings)
        if not args.json:
            for finding in findings:
                print(finding if finding.pos else f"{name}: {finding}")
            verdict = "invalid" if errors else "valid"
            note = ", not simulated" if simulate is not None and simulated is None else simulated or ""
            print(f"{name}: {verdict}, {_count(errors, 'error')}, "
                  f"{_count(len(findings) - errors, 'warning')}{note}")
    if args.json:
        print(json.dumps([_as_json(name, f) for name, f in report], indent=1))
    return 1 if failed else 0


def _check_file(path: Path, args: argparse.Namespace,
                simulate: _SimulateChecks | None) -> tuple[list[Finding], str | None]:
    """The findings for one file, and, when it was simulated (only statically valid games are), what the
    playouts did (:func:`_playouts_note`); ``None`` when it was not."""
    from ggp.commands._games import KIF_SUFFIXES, load_game
    from ggp.errors import GgpError, InputError
    from ggp.files import read_text
    from ggp.gdl.parser import parse_kif
    from ggp.gdl.validator import Finding, validate

    try:
        if path.suffix.lower() in KIF_SUFFIXES or not path.is_file():
            description = parse_kif(read_text(path), str(path), case_sensitive=args.case_sensitive)
        else:
            description = load_game(path, case_sensitive=args.case_sensitive).description
    except InputError as exc:
        return [Finding("error", "syntax", exc.message, exc.pos)], None
    except OSError as exc:
        return [Finding("error", "io", f"cannot read the file: {exc.strerror or exc}")], None
    findings = validate(description, strict=args.strict)
    if simulate is None or any(f.severity == "error" for f in findings):
        return findings, None
    counts = _PlayoutCount()
    started = time.monotonic()
    try:
        findings += simulate(description, playouts=args.simulate, depth=args.depth, seed=args.seed,
                             strict=args.strict, engine=args.engine, limits=grounding_limits(args), counts=counts)
    except GgpError as exc:
        findings.append(Finding("error", "simulate", str(exc)))
    return findings, _playouts_note(counts.played, counts.failed, args.simulate, time.monotonic() - started)


class _PlayoutCount:
    """Filled by the simulation (``ggp.reasoner.simulate.PlayoutCount``'s fields), which may be absent."""

    def __init__(self) -> None:
        self.played = 0
        self.failed = 0


def _playouts_note(played: int, failed: int, asked: int, seconds: float) -> str:
    """``; 20 random playouts in 0.4 s, none failed`` (a game that cannot be grounded plays none).

    >>> _playouts_note(20, 0, 20, 0.42)
    '; 20 random playouts in 0.4 s, none failed'
    >>> _playouts_note(3, 1, 3, 2.0)
    '; 3 random playouts in 2.0 s, 1 failed (its error is above)'
    >>> _playouts_note(0, 0, 5, 0.1)
    '; none of the 5 random playouts was played (the error above stopped them)'
    """
    if played == 0:
        return f"; none of the {asked} random playouts was played (the error above stopped them)"
    errors = "its error is" if failed == 1 else "their errors are"
    outcome = f"{failed} failed ({errors} above)" if failed else "none failed"
    return f"; {_count(played, 'random playout')} in {seconds:.1f} s, {outcome}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _as_json(file: str, finding: Finding) -> dict[str, object]:
    return {
        "file": file,
        "severity": finding.severity,
        "check": finding.check,
        "message": finding.message,
        "line": finding.pos.line if finding.pos else None,
        "column": finding.pos.column if finding.pos else None,
        "rule": finding.rule,
    }
