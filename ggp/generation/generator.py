"""Random chess-like SBG games under the RAPP restrictions (spec rapp.md §4 and its decisions).

Every generated game has: width and height in {6, 7, 8}; white on rows y = 0 (back) and y = 1 (front),
black on the mirror image in the horizontal midline (same files, lower-case letters); a front row of
pawns ``P`` and empty squares (at least one pawn, so the pawn goal is never an ignored goal); a back
row with exactly one king ``K`` and 3..5 other piece types, each present at least once; goals ``@P``
on black's back row, ``@p`` on white's back row, ``#K 0`` and ``#k 0``; turn limit 3·w·h + 0..19 plies.
King and pawn rules are generated as well (a pawn always has a forward move).

:func:`generate_game` redraws until the game passes :func:`check_generated`: the printed text parses
back to the same game with the §8 checks and no warnings, and, with ``gdl=True``, its GDL
translation has no validator errors.

>>> game = generate_game(random.Random(3), BUILTIN["classic"], name="Doc")
>>> (game.width in (6, 7, 8), game.rows[-1].count("K"), game.turn_limit >= 3 * game.width * game.height)
(True, 1, True)
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence

from ggp.errors import SbgError
from ggp.generation.params import BUILTIN, GenParams
from ggp.generation.rules import random_king, random_pawn, random_piece
from ggp.translators.sbg.model import CaptureGoal, Goal, PieceRule, PlacementGoal, Regex, SbgGame

KING = "K"
PAWN = "P"
TYPE_LETTERS = "ABCDEFGHIJLMNOQRSTUVWXYZ"
"""Letters for non-winning piece types (K and P are reserved)."""

MAX_ATTEMPTS = 200


def turn_limit(rng: random.Random, width: int, height: int) -> int:
    """RAPP's turn limit: 3 × width × height + random(0..19) plies."""
    return 3 * width * height + rng.randrange(20)


def goals_for(width: int, height: int) -> tuple[Goal, ...]:
    """Pawn on the opponent's back row, or capture of the enemy king (sbg.md §6)."""
    return (
        PlacementGoal(PAWN, tuple((x, height - 1) for x in range(width))),
        PlacementGoal(PAWN.lower(), tuple((x, 0) for x in range(width))),
        CaptureGoal(KING, 0),
        CaptureGoal(KING.lower(), 0),
    )


def board_rows(back: str, front: str, height: int) -> tuple[str, ...]:
    """All rows (top first) from white's back and front rows, black mirrored in the midline."""
    width = len(back)
    middle = ["." * width] * (height - 4)
    return (back.lower(), front.lower(), *middle, front, back)


def white_rows(game: SbgGame) -> tuple[str, str]:
    """White's (back, front) rows of a generated game."""
    return game.rows[-1], game.rows[-2]


def assemble(
    name: str, back: str, front: str, height: int, rules: dict[str, Regex], limit: int
) -> SbgGame:
    """A game from white's two rows and the rules of the types on them (rules order: K, P, then A..Z)."""
    present = {ch for ch in back + front if ch != "."}
    order = sorted(present, key=lambda ch: (ch != KING, ch != PAWN, ch))
    return SbgGame(
        name=name,
        width=len(back),
        height=height,
        rows=board_rows(back, front, height),
        rules=tuple(PieceRule(letter, rules[letter]) for letter in order),
        turn_limit=limit,
        goals=goals_for(len(back), height),
    )


def clean_name(text: str) -> str:
    """A game name SBG accepts (letters, digits, spaces)."""
    cleaned = re.sub(r"[^A-Za-z0-9 ]+", " ", text).strip()
    return re.sub(r" +", " ", cleaned) or "Generated"


def random_position(rng: random.Random, params: GenParams, width: int, letters: Sequence[str]) -> tuple[str, str]:
    """White's back and front rows: one king, every type at least once, pawns and empties in front."""
    back = ["."] * width
    king = rng.randrange(width)
    back[king] = KING
    others = [x for x in range(width) if x != king]
    rng.shuffle(others)
    for x, letter in zip(others, letters):
        back[x] = letter
    for x in others[len(letters):]:
        back[x] = "." if rng.random() < params.p_empty_back else rng.choice(letters)
    front = [PAWN if rng.random() < params.p_pawn else "." for _ in range(width)]
    if PAWN not in front:
        front[rng.randrange(width)] = PAWN
    return "".join(back), "".join(front)


def random_rules(
    rng: random.Random, params: GenParams, board: int, letters: Sequence[str]
) -> dict[str, Regex]:
    """Rules for the king, the pawn and each non-winning type, all distinct."""
    rules = {KING: random_king(rng, params, board), PAWN: random_pawn(rng, params, board)}
    for letter in letters:
        for _ in range(20):
            regex = random_piece(rng, params, board)
            if regex not in rules.values():
                break
        rules[letter] = regex
    return rules


def draw_game(rng: random.Random, params: GenParams, name: str) -> SbgGame:
    """One random game; it still has to pass :func:`check_generated`."""
    width = rng.choice(params.sizes)
    height = rng.choice(params.sizes)
    count = rng.randint(*params.types)
    letters = rng.sample(TYPE_LETTERS, count)
    back, front = random_position(rng, params, width, letters)
    rules = random_rules(rng, params, min(width, height), letters)
    return assemble(name, back, front, height, rules, turn_limit(rng, width, height))


def check_generated(game: SbgGame, *, gdl: bool = True) -> SbgGame:
    """Return the parsed game if it round-trips, passes §8 without warnings and (optionally) its GDL validates.

    Raises SbgError saying what failed.
    """
    from ggp.translators.sbg.parser import parse_sbg
    from ggp.translators.sbg.printer import to_sbg

    parsed = parse_sbg(to_sbg(game), f"{game.name}.sbg")
    if parsed != game:
        raise SbgError(f"game {game.name!r} does not read back as itself")
    if parsed.warnings:
        raise SbgError(f"game {game.name!r}: {parsed.warnings[0].message}")
    if gdl:
        from ggp.gdl.validator import validate
        from ggp.translators.sbg.to_gdl import translate

        errors = [f for f in validate(translate(parsed)) if f.severity == "error"]
        if errors:
            raise SbgError(f"game {game.name!r}: translated GDL is invalid: {errors[0].message}")
    return parsed


def generate_game(
    rng: random.Random, params: GenParams | None = None, *, name: str = "Generated", gdl: bool = True
) -> SbgGame:
    """A valid random game (see the module docstring); raises SbgError if none is found in 200 draws."""
    params = params or BUILTIN["classic"]
    last: SbgError | None = None
    for _ in range(MAX_ATTEMPTS):
        try:
            return check_generated(draw_game(rng, params, clean_name(name)), gdl=gdl)
        except SbgError as exc:
            last = exc
    raise SbgError(f"no valid game after {MAX_ATTEMPTS} draws with parameters {params.name!r}: {last}")


def generate_games(
    count: int, seed: int, params_sets: Sequence[GenParams], *, gdl: bool = True
) -> Iterator[tuple[SbgGame, GenParams]]:
    """``count`` games, cycling through the parameter sets; game i is drawn from seed (seed, i)."""
    for index in range(count):
        params = params_sets[index % len(params_sets)]
        rng = random.Random(f"{seed}:{index}")
        yield generate_game(rng, params, name=f"Gen {params.name} {seed} {index}", gdl=gdl), params
