"""One way for every command to read a game: GDL (KIF), Simplified Boardgames or a Sokoban level,
chosen by the file's extension and translated to GDL on the fly; a bare name is a game of ``kif/``.

- ``.kif``, ``.gdl``: GDL (KIF), read as it is;
- ``.sbg``: Simplified Boardgames, translated by :mod:`ggp.translators.sbg`;
- ``.sok``, ``.xsb``, ``.txt``: Sokoban levels in the standard text format (``ggp generate sokoban``
  writes ``.txt``), translated by :mod:`ggp.translators.sokoban`.

A Sokoban file may hold several levels: ``levels.txt#3`` is its third (the first by default).

:class:`GameMachines` is the machine factory of self-play: SBG games are played on the SBG engine
(rapp.md §8: its min-max is compiled, and tests check it plays exactly like the GDL translation), the
others by a reasoner engine.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ggp.commands._args import positive_float, positive_int
from ggp.errors import InputError
from ggp.gdl.terms import Description
from ggp.reasoner.machine import GroundingLimits, StateMachine

log = logging.getLogger(__name__)

KIF_SUFFIXES = (".kif", ".gdl")
SBG_SUFFIXES = (".sbg",)
SOKOBAN_SUFFIXES = (".sok", ".xsb", ".txt")
DEFAULT_ENGINE = "auto"
"""Every command that reasons defaults to ``auto`` (ggp.reasoner.auto: ground once when that fits its
budget, else reason per state, else prove top-down; the choice is logged at INFO)."""
ENGINE_HELP = ("reasoner engine: auto (the default: ground once with clingo when that fits 10 s and 2M atoms, else "
               "per-state, else the top-down prover), clingo, circuit, naive, per-state or prover")
EVALUATION_ENGINE_HELP = ("reasoner engine for GDL games (SBG games play on the SBG engine): auto (the default: the "
                          "compiled circuit, and for a game it cannot compile the reasoner's auto: ground once, "
                          "else per-state, else the top-down prover), clingo, circuit, circuit:interpreter (no "
                          "per-game C compilation: for big games), per-state or prover")
CASE_HELP = ("read KIF names case-sensitively, as ggp-base does (only GDL keywords ignore case); by default only a "
             "game whose names folding case would merge is read so (docs/reasoner.md)")
FOLD_CASE_HELP = "read KIF names case-insensitively, as GDL says, even where that merges two names the text writes apart"
FORMATS_HELP = "a game: FILE.kif, FILE.sbg, a Sokoban level FILE.sok/.xsb/.txt[#K], or a name in kif/ (e.g. ticTacToe)"


@dataclass(frozen=True, slots=True)
class LoadedGame:
    """A game read from a file: its name, its rules as GDL (parsed and as text) and, for SBG games, the
    turn limit that ends a game as a draw (self-play reports such ends separately)."""

    name: str
    path: Path
    description: Description
    kif: str
    turn_limit: int | None = None
    sbg: str | None = None
    """The SBG text, for SBG games."""


KIF_DIRS = (Path("kif"), Path(__file__).resolve().parents[2] / "kif")
"""Where a bare game name is looked up: ``kif/`` of the working directory, then of the repository."""


def find_game(spec: str) -> Path:
    """A KIF file path, or the key of a game in ``kif/<key>/<key>.kif``; raises ``ValueError``."""
    path = Path(spec)
    if path.is_file():
        return path
    for root in KIF_DIRS:
        candidate = root / spec / f"{spec}.kif"
        if candidate.is_file():
            return candidate
    raise ValueError(f"no game {spec!r}: not a file, and not a key in kif/ (e.g. ticTacToe)")


def kif_games() -> list[Path]:
    """The games in the first ``kif/`` directory that exists."""
    for root in KIF_DIRS:
        games = sorted(root.glob("*/*.kif"))
        if games:
            return games
    return []


def game_path(spec: str | Path) -> tuple[Path, int]:
    """The file a game spec names and the Sokoban level number (``FILE#K``); raises InputError."""
    text = str(spec)
    level = 1
    base, _, number = text.rpartition("#")
    if base and number.isdigit():
        text, level = base, int(number)
    path = Path(text)
    if not path.is_file() and not path.suffix:
        try:
            return find_game(text), level
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if not path.is_file():
        raise InputError(f"{text}: no such file or directory")
    return path, level


def add_limit_options(parser: Any) -> None:
    """``--max-seconds`` and ``--max-memory-mb``: the grounding limits of the commands that build a machine."""
    parser.add_argument("--max-seconds", type=positive_float, default=None, metavar="S",
                        help="time limit of each grounding phase, in a child process (default 60; auto's "
                        "ground-once attempt is capped at 10)")
    parser.add_argument("--max-memory-mb", type=positive_int, default=None, metavar="MB",
                        help="memory limit of each grounding phase's child process (default 4096)")


def grounding_limits(args: Any) -> GroundingLimits | None:
    """The limits the options give, or None (each engine's defaults) when neither is given."""
    if args.max_seconds is None and args.max_memory_mb is None:
        return None
    defaults = GroundingLimits()
    return GroundingLimits(seconds=args.max_seconds or defaults.seconds,
                           memory_mb=args.max_memory_mb or defaults.memory_mb)


def add_case_option(parser: Any) -> None:
    """``--case-sensitive`` / ``--fold-case`` of the commands that read KIF: ``args.case_sensitive`` is
    True, False, or None (the default: fold case unless that merges two names, :func:`~ggp.gdl.parser.parse_kif`)."""
    case = parser.add_mutually_exclusive_group()
    case.add_argument("--case-sensitive", dest="case_sensitive", action="store_const", const=True, default=None,
                      help=CASE_HELP)
    case.add_argument("--fold-case", dest="case_sensitive", action="store_const", const=False, help=FOLD_CASE_HELP)


def load_game(spec: str | Path, *, case_sensitive: bool | None = None) -> LoadedGame:
    """Read and, when needed, translate the game ``spec`` names; raises a positioned InputError.

    ``case_sensitive`` is :func:`ggp.gdl.parser.parse_kif`'s: True reads a KIF file's names as written,
    False folds them, None (the default) folds them unless that would merge two names the file writes
    apart. It does not apply to translated games, whose names the translators write.
    """
    from ggp.files import read_text
    from ggp.gdl.parser import parse_kif
    from ggp.gdl.printer import to_kif

    path, level = game_path(spec)
    suffix = path.suffix.lower()
    name = path.stem
    if suffix in KIF_SUFFIXES:
        text = read_text(path)
        return LoadedGame(name, path, parse_kif(text, str(path), case_sensitive=case_sensitive), text)
    if suffix in SBG_SUFFIXES:
        from ggp.translators.sbg.parser import parse_sbg
        from ggp.translators.sbg.to_gdl import translate

        text = read_text(path)
        game = parse_sbg(text, str(path))
        for warning in game.warnings:
            log.warning("%s", warning)
        description = translate(game)
        return LoadedGame(name, path, description, to_kif(description), game.turn_limit, text)
    if suffix in SOKOBAN_SUFFIXES:
        from ggp.translators.sokoban.level import parse_level
        from ggp.translators.sokoban.to_gdl import translate as translate_level

        description = translate_level(parse_level(read_text(path), str(path), level))
        return LoadedGame(f"{name}-{level}" if level > 1 else name, path, description, to_kif(description))
    raise InputError(
        f"{path}: unknown game format {suffix or '(no extension)'!r}; use .kif (GDL), .sbg (Simplified "
        "Boardgames) or .sok/.xsb/.txt (Sokoban levels)"
    )


class GameText(Protocol):
    """A game as self-play knows it (:class:`ggp.evaluation.selfplay.GameSource`)."""

    @property
    def key(self) -> str: ...

    @property
    def kif(self) -> str: ...

    @property
    def sbg(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class GameMachines:
    """Picklable machine factory: the SBG engine for a game with SBG text, else ``KifMachines(engine)``."""

    engine: str = "auto"

    def __call__(self, game: GameText) -> StateMachine:
        if game.sbg is not None:
            from ggp.translators.sbg.machine import SbgStateMachine
            from ggp.translators.sbg.parser import parse_sbg

            return SbgStateMachine(parse_sbg(game.sbg, game.key))
        from ggp.reasoner.engines import KifMachines

        return KifMachines(self.engine)(game)
