"""One way for every command to read a game: GDL (KIF), Simplified Boardgames or a Sokoban level,
chosen by the file's extension and translated to GDL on the fly; a bare name is a game of ``kif/``.

- ``.kif``, ``.gdl``: GDL (KIF), read as it is;
- ``.sbg``: Simplified Boardgames, translated by :mod:`ggp.translators.sbg`;
- ``.sok``, ``.xsb``, ``.txt``: Sokoban levels in the standard text format (``ggp generate sokoban``
  writes ``.txt``), translated by :mod:`ggp.translators.sokoban`.

A Sokoban file may hold several levels: ``levels.txt#3`` is its third (the first by default).

:class:`GameMachines` is the one machine factory of every command (arena, match, play, evaluate, evolve,
and the manager's referee and seats in serve and demo): SBG games are played on the SBG engine (rapp.md §8:
its min-max is compiled, and tests check it plays exactly like the GDL translation), the others by a
reasoner engine. A manager or a player that gets a game as GDL (a START message) finds its SBG text in
:func:`register_sbg`'s table when the command read the game as SBG in this process.
"""

from __future__ import annotations

import difflib
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

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
    close = closest_games(spec)
    hint = f"did you mean {' or '.join(close)}?" if close else "e.g. ticTacToe"
    raise ValueError(f"no game {spec!r}: not a file, and not a key in kif/ ({hint})")


GAME_DIRS = (Path("games"), Path(__file__).resolve().parents[2] / "games")
"""Where the shipped game files are (``games/*.sbg``), for :func:`closest_games`' hints."""


def closest_games(spec: str, count: int = 3) -> list[str]:
    """The game files (in ``games/``, as a command takes them) and ``kif/`` keys whose names are closest to
    ``spec``: ``gardner`` -> ``games/gardner.sbg``.

    >>> closest_games("gardner")[0]
    'games/gardner.sbg'
    """
    names: dict[str, str] = {}
    for root in reversed(KIF_DIRS):  # the working directory's names win
        if root.is_dir():
            names.update({key.name: key.name for key in root.iterdir() if (key / f"{key.name}.kif").is_file()})
    for root in reversed(GAME_DIRS):
        if root.is_dir():
            shown = root if not root.is_absolute() else _relative(root)
            suffixes = KIF_SUFFIXES + SBG_SUFFIXES + SOKOBAN_SUFFIXES
            names.update({path.name: str(shown / path.name) for path in root.iterdir() if path.suffix in suffixes})
    stems = {Path(name).stem: name for name in names}
    wanted = Path(spec).name
    matches = difflib.get_close_matches(wanted, list(stems), n=count, cutoff=0.6)
    return list(dict.fromkeys(names[stems[match]] for match in matches))


def _relative(path: Path) -> Path:
    """``path`` relative to the working directory when it is under it, else as it is."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


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


GameKind = Literal["kif", "sbg", "sokoban"]
KIND_NAMES: dict[GameKind, str] = {"kif": "a GDL (KIF) game", "sbg": "a Simplified Boardgames (SBG) game",
                                   "sokoban": "a Sokoban level"}
KIND_EXAMPLES: dict[GameKind, str] = {
    "kif": "a GDL game (.kif, e.g. kif/ticTacToe/ticTacToe.kif)",
    "sbg": "an SBG game (.sbg, e.g. games/gardner.sbg)",
    "sokoban": "a Sokoban level (.sok, .xsb or .txt)",
}


def game_kind(path: Path, text: str) -> GameKind | None:
    r"""What kind of game a file holds: by its extension, and for ``.txt`` or an unknown one by its first
    line that is neither blank nor a ``;`` comment (KIF and Sokoban files both comment with ``;``): KIF
    starts with ``(``, SBG with ``<<``; ``None`` when nothing tells.

    >>> game_kind(Path("a.txt"), "; title\n#####\n#@$.#\n#####"), game_kind(Path("a.txt"), ";; tic\n(role x)")
    ('sokoban', 'kif')
    """
    suffix = path.suffix.lower()
    if suffix in KIF_SUFFIXES:
        return "kif"
    if suffix in SBG_SUFFIXES:
        return "sbg"
    first = next((line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(";")), "")
    if first.startswith("("):
        return "kif"
    if first.startswith("<<"):
        return "sbg"
    return "sokoban" if suffix in SOKOBAN_SUFFIXES else None


def read_game_text(path: Path, wanted: GameKind, command: str) -> str:
    """The text of ``path`` when it holds a game of the kind ``command`` needs; a file of another kind is
    one :class:`InputError` naming both (``ggp nld`` given a KIF file says it needs an SBG game instead of
    failing on the first character)."""
    from ggp.files import read_text

    text = read_text(path)
    kind = game_kind(path, text)
    if kind is not None and kind != wanted:
        raise InputError(f"{path}: this is {KIND_NAMES[kind]}; ggp {command} needs {KIND_EXAMPLES[wanted]}")
    return text


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
        register_sbg(description, text, str(path))
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


_SBG_TEXTS: dict[Description, tuple[str, str]] = {}
"""The SBG text (and file name) of every game this process translated from SBG, by its GDL rules."""
_SBG_LOCK = threading.Lock()
_PENDING: dict[str, str] = {}
"""SBG texts (to their file names) known to this process but not translated yet."""
_TRANSLATING = threading.Lock()
_MACHINES: dict[tuple[str, Description], StateMachine] = {}
_LOCK = threading.Lock()


def register_sbg(description: Description, text: str, file: str) -> None:
    """Remember that ``description`` is the translation of the SBG game ``text``, so a machine asked for by
    its GDL rules (a START message to a built-in player, the manager's referee) plays on the SBG engine."""
    with _SBG_LOCK:
        _SBG_TEXTS[description] = (text, file)


def add_sbg_source(text: str, file: str) -> None:
    """Remember an SBG game without translating it now (``ggp serve``/``ggp demo`` at start-up): the first
    lookup by GDL rules that misses translates it (:func:`sbg_text`)."""
    with _SBG_LOCK:
        if text not in {known for known, _ in _SBG_TEXTS.values()}:
            _PENDING[text] = file


def sbg_text(description: Description) -> tuple[str, str] | None:
    """The SBG text and file name :func:`register_sbg` recorded for these rules, else ``None``. SBG texts
    not translated yet (:func:`add_sbg_source`, or that came with a pickled :class:`GameMachines` to a
    player's worker process) are translated here, on the first lookup that misses."""
    with _SBG_LOCK:
        found = _SBG_TEXTS.get(description)
        if found is not None or not _PENDING:
            return found
    with _TRANSLATING:  # one thread translates what is pending; a concurrent lookup waits for it
        with _SBG_LOCK:
            pending = list(_PENDING.items())
            _PENDING.clear()
        from ggp.translators.sbg.parser import parse_sbg
        from ggp.translators.sbg.to_gdl import translate

        for text, file in pending:
            try:
                register_sbg(translate(parse_sbg(text, file)), text, file)
            except InputError as exc:  # the game was checked when it was added; say so rather than stop a match
                log.warning("SBG game %s not translated: %s", file, exc)
    with _SBG_LOCK:
        return _SBG_TEXTS.get(description)


def _unpickled(engine: str, texts: tuple[tuple[str, str], ...]) -> GameMachines:
    """A :class:`GameMachines` in another process, with the SBG texts its sender had registered."""
    with _SBG_LOCK:
        known = {text for text, _ in _SBG_TEXTS.values()}
        _PENDING.update((text, file) for text, file in texts if text not in known)
    return GameMachines(engine)


@dataclass(frozen=True, slots=True)
class GameMachines:
    """The one machine factory of the commands: the SBG engine for an SBG game, else ``engine``.

    Called on a game text (``key``, ``kif``, ``sbg``: self-play, ``ggp play``) or on GDL rules (the
    manager's referee and its built-in players, ``ggp match``, ``ggp arena``): rules registered by
    :func:`register_sbg` (every command that reads an ``.sbg`` file) play on the SBG engine too. GDL
    machines are built by :func:`~ggp.reasoner.engines.make_machine` with ``engine`` as given; rules
    are built once per process and engine (the built-in players of one process share them, the clingo
    machine serialises queries with a lock; self-play caches its machines itself). A value, so it
    pickles (worker processes, Ray tasks), taking the registered SBG texts along.
    Raises what ``make_machine`` raises.
    """

    engine: str = DEFAULT_ENGINE

    def __reduce__(self) -> tuple[Any, tuple[str, tuple[tuple[str, str], ...]]]:
        # The registered SBG texts travel with the factory (to a player's worker process under `ggp serve`),
        # so rules that arrive there as GDL still play on the SBG engine.
        with _SBG_LOCK:
            texts = dict(_PENDING) | {text: file for text, file in _SBG_TEXTS.values()}
        return (_unpickled, (self.engine, tuple(texts.items())))

    @classmethod
    def for_self_play(cls, engine: str = DEFAULT_ENGINE) -> GameMachines:
        """The factory of commands that play many matches on one game (evaluate, evolve, play): ``auto``
        means the compiled circuit first, as :class:`~ggp.reasoner.engines.KifMachines` resolves it."""
        from ggp.reasoner.engines import KifMachines

        return cls(KifMachines(engine).resolved)

    def load(self, game: LoadedGame) -> StateMachine:
        """The machine of a game a command read with :func:`load_game`; GDL rules are validated first
        (:class:`~ggp.errors.GdlValidationError` with its position)."""
        if game.sbg is None:
            from ggp.gdl.validator import check_or_raise

            check_or_raise(game.description)
        return self(game.description)

    def __call__(self, game: GameText | Description) -> StateMachine:
        from ggp.translators.sbg.machine import SbgStateMachine
        from ggp.translators.sbg.parser import parse_sbg

        if isinstance(game, Description):
            found = sbg_text(game)
            if found is not None:
                return SbgStateMachine(parse_sbg(*found))
            return self._gdl(game, validate=False)  # rules given as GDL were validated by their reader
        if game.sbg is not None:
            return SbgStateMachine(parse_sbg(game.sbg, game.key))
        from ggp.gdl.parser import parse_kif

        return self._gdl(parse_kif(game.kif, game.key), validate=True)

    def _gdl(self, description: Description, *, validate: bool) -> StateMachine:
        from ggp.reasoner.engines import make_machine

        if validate:  # a game text: self-play keeps its own cache of machines (machine_for), bounded
            return make_machine(description, self.engine)
        key = (self.engine, description)
        with _LOCK:  # held while building, so concurrent seats of one game ground it once
            machine = _MACHINES.get(key)
            if machine is None:
                machine = _MACHINES[key] = make_machine(description, self.engine, validate=False)
        return machine
