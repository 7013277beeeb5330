"""Genetic operators on generated chess-like games (spec rapp.md §6 and its decisions).

All operators work on white's two rows (black is always the mirror image) and return games that keep
the §4 restrictions; :func:`repair` restores them after crossover.

- :func:`crossover`: uniform crossover of white's two rows except the king square; the child takes the
  first parent's size, turn limit and king square; every other square comes from either parent with
  probability ½ (a square the second parent lacks, on a wider first parent, comes from the first).
  Each piece type's rule comes from the parent that supplied more of that type's squares (the first
  parent on a tie).
- :func:`mutate_piece` regenerates the rule of a random piece type (king and pawn included).
- :func:`mutate_position` changes one random non-king square: a front-row square toggles pawn/empty,
  a back-row square becomes another existing type or a new type (when fewer than 5 exist).
- :func:`novelty_key` names a game up to renaming of its non-winning letters, for the novelty guard.
"""

from __future__ import annotations

import random
from collections import Counter

from ggp.generation.generator import (
    KING,
    PAWN,
    TYPE_LETTERS,
    assemble,
    white_rows,
)
from ggp.generation.params import GenParams
from ggp.generation.rules import random_king, random_pawn, random_piece
from ggp.translators.sbg.model import Alt, Cat, Regex, Rep, SbgGame, Sym
from ggp.translators.sbg.printer import regex_to_sbg

MIN_TYPES, MAX_TYPES = 3, 5


def rules_of(game: SbgGame) -> dict[str, Regex]:
    """Rules by upper-case letter."""
    return {rule.letter: rule.regex for rule in game.rules}


def _types(back: str) -> Counter[str]:
    return Counter(ch for ch in back if ch not in (".", KING))


def repair(
    rng: random.Random, params: GenParams, name: str, back: str, front: str, height: int,
    rules: dict[str, Regex], limit: int,
) -> SbgGame:
    """Restore §4: one king on the back row, front row pawns/empty with a pawn, 3..5 other types."""
    back_list = list(back)
    kings = [x for x, ch in enumerate(back_list) if ch == KING]
    for x in kings[1:]:
        back_list[x] = "."
    if not kings:
        back_list[rng.randrange(len(back_list))] = KING
    front_list = [PAWN if ch == PAWN else "." for ch in front]
    if PAWN not in front_list:
        front_list[rng.randrange(len(front_list))] = PAWN
    board = min(len(back_list), height)
    counts = _types("".join(back_list))
    # Too many types: the rarest ones take the letter of a kept type.
    while len(counts) > MAX_TYPES:
        ranked = sorted(counts, key=lambda ch: (counts[ch], ch))
        gone, keep = ranked[0], ranked[-1]
        back_list = [keep if ch == gone else ch for ch in back_list]
        counts = _types("".join(back_list))
    # Too few types: empty squares first, then duplicated squares, become new types.
    while len(counts) < MIN_TYPES:
        free = [x for x, ch in enumerate(back_list) if ch == "."]
        if not free:
            free = [x for x, ch in enumerate(back_list) if ch != KING and counts[ch] > 1]
        x = rng.choice(free)
        letter = rng.choice([ch for ch in TYPE_LETTERS if ch not in counts])
        rules[letter] = random_piece(rng, params, board)
        back_list[x] = letter
        counts = _types("".join(back_list))
    return assemble(name, "".join(back_list), "".join(front_list), height, rules, limit)


def crossover(rng: random.Random, params: GenParams, first: SbgGame, second: SbgGame, name: str) -> SbgGame:
    """Uniform crossover of white's two rows (see the module docstring), then :func:`repair`."""
    back1, front1 = white_rows(first)
    back2, front2 = white_rows(second)
    king = back1.index(KING)
    back, front, source = list(back1), list(front1), Counter[tuple[str, int]]()
    for x in range(len(back1)):
        for row, row1, row2 in ((back, back1, back2), (front, front1, front2)):
            if row is back and x == king:
                continue
            take_second = x < len(row2) and rng.random() < 0.5 and not (row is back and row2[x] == KING)
            row[x] = row2[x] if take_second else row1[x]
            if row[x] != ".":
                source[(row[x], 2 if take_second else 1)] += 1
    rules1, rules2 = rules_of(first), rules_of(second)
    rules: dict[str, Regex] = {}
    for letter in {ch for ch in back + front if ch != "."}:
        from_second = letter in rules2 and (letter not in rules1 or source[(letter, 2)] > source[(letter, 1)])
        if letter == KING:
            from_second = False
        rules[letter] = rules2[letter] if from_second else rules1[letter]
    return repair(rng, params, name, "".join(back), "".join(front), first.height, rules, first.turn_limit)


def mutate_piece(rng: random.Random, params: GenParams, game: SbgGame) -> SbgGame:
    """Regenerate the rule of one random piece type."""
    rules = rules_of(game)
    letter = rng.choice(sorted(rules))
    board = min(game.width, game.height)
    maker = random_king if letter == KING else random_pawn if letter == PAWN else random_piece
    for _ in range(20):
        regex = maker(rng, params, board)
        if regex != rules[letter]:
            break
    rules[letter] = regex
    back, front = white_rows(game)
    return assemble(game.name, back, front, game.height, rules, game.turn_limit)


def mutate_position(rng: random.Random, params: GenParams, game: SbgGame) -> SbgGame:
    """Change the content of one random non-king square, keeping the §4 restrictions."""
    back, front = (list(row) for row in white_rows(game))
    rules = rules_of(game)
    squares = [("back", x) for x, ch in enumerate(back) if ch != KING] + [("front", x) for x in range(len(front))]
    row, x = rng.choice(squares)
    if row == "front":
        front[x] = "." if front[x] == PAWN else PAWN
    else:
        counts = _types("".join(back))
        choices = [ch for ch in counts if ch != back[x]]
        if len(counts) < MAX_TYPES:
            choices.append("new")
        choice = rng.choice(choices)
        if choice == "new":
            choice = rng.choice([ch for ch in TYPE_LETTERS if ch not in rules])
            rules[choice] = random_piece(rng, params, min(game.width, game.height))
        back[x] = choice
    return repair(rng, params, game.name, "".join(back), "".join(front), game.height, rules, game.turn_limit)


def _canonical(regex: Regex) -> str:
    """Rule text with union options sorted, so option order does not matter."""
    if isinstance(regex, Alt):
        return "{" + "|".join(sorted(_canonical(option) for option in regex.options)) + "}"
    if isinstance(regex, Cat):
        return "".join(f"[{_canonical(part)}]" for part in regex.parts)
    if isinstance(regex, Rep):
        return f"[{_canonical(regex.child)}]^{regex.count or '*'}"
    assert isinstance(regex, Sym)
    return regex_to_sbg(regex)


def novelty_key(game: SbgGame) -> tuple[object, ...]:
    """Equal for games with the same size, position and rules up to renaming of the non-winning letters.

    Letters are renamed in order of first appearance on white's back row; the turn limit and name
    are ignored.
    """
    back, front = white_rows(game)
    rename: dict[str, str] = {KING: KING, PAWN: PAWN}
    for ch in back:
        if ch != "." and ch not in rename:
            rename[ch] = f"t{len(rename) - 2}"
    rules = rules_of(game)
    position = tuple(rename.get(ch, ch) for ch in back + front)
    pieces = tuple(sorted((rename[letter], _canonical(regex)) for letter, regex in rules.items() if letter in rename))
    return game.width, game.height, position, pieces
