"""f_NLD's English descriptions: the :class:`Description` value, the words it allows and its text.

The same :class:`~ggp.generation.nld_words.Part` values give the English sentence
(:meth:`Description.text`) and the set of words the sentence allows (:meth:`Description.moves`, the
interpreter), so a test can check that the text allows exactly the piece's moves.
:func:`merged_sentences` joins a piece's descriptions with "or", as the thesis's repair pass does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ggp.generation.nld_words import _N_OPS, _OUTWARDS, Part, Word, _end


@dataclass(frozen=True, slots=True)
class Description:
    """One English description: one or two :class:`Part` values, or the generic fallback for ``word``."""

    parts: tuple[Part, ...]
    cost: int
    word: Word = ()

    @property
    def generic(self) -> bool:
        """True for the fallback "moves to (x,y) if ..." description of a single word."""
        return not self.parts

    def moves(self, width: int, height: int) -> frozenset[Word]:
        """Every word the description allows on the board (the interpreter of its text)."""
        if self.generic:
            return frozenset({self.word})
        first = self.parts[0].words(width, height)
        if len(self.parts) == 1:
            return first
        return frozenset(p + s for p in first for s in self.parts[1].words(width, height, _end(p)))

    def text(self) -> str:
        """The English sentence of this description."""
        if self.generic:
            return _generic_text(self.word)
        texts = [_part_text(p, later=i > 0) for i, p in enumerate(self.parts)]
        return _capital(", then ".join(texts))


# --- English --------------------------------------------------------------------------------------

_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
_PHRASES = {
    "forwards": "forwards", "backwards": "backwards", "sideways": "sideways only",
    "not horizontal": "never horizontally", "only odd": "an odd number of steps only",
    "only even": "an even number of steps only",
    "over own piece instead": "with an own piece instead on every square it would find empty",
    "captures own instead": "capturing own pieces instead of opponent ones",
    "over own pieces, ending normally": "passing over own pieces only",
    "over opponent pieces instead": "with an opponent piece on every square it would find empty",
    "over opponent pieces, ending normally": "passing over opponent pieces only",
}
_VERB_OPS = frozenset({"only capture", "without capture", *_N_OPS, *_OUTWARDS})
_UNIT = {(1, 0): "horizontally", (0, 1): "vertically", (1, 1): "diagonally"}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _squares(d: int) -> str:
    return f"{_NUMBERS.get(d, str(d))} square{'s' if d > 1 else ''}"


def _direction(key: tuple[int, int]) -> str | None:
    a, b = key
    unit = (a // max(a, b), b // max(a, b))
    return _UNIT.get(unit) if a == b or a == 0 or b == 0 else None


def _target(p: Part) -> str:
    """What the part reaches, without the verb: "one square diagonally", "any number of (2,1) steps"."""
    a, b = p.key
    direction = _direction(p.key)
    if p.kind != "rider":
        if direction and p.kind == "leaper":
            return f"{_squares(max(a, b))} {direction}"
        if direction:
            return f"{_squares(max(a, b))} horizontally or vertically"
        return f"over vector ({a},{b})" + (f" or ({b},{a})" if p.kind == "leaper2" else "")
    count = ("up to {n}" if "max N times" in p.operators else "at least {n}" if "min N times" in p.operators
             else "exactly {n}" if "exactly N times" in p.operators else "any number of").format(n=p.n)
    if direction and (a, b) in _UNIT:
        unit = "square" if count.startswith("exactly 1") else "squares"
        return f"{count} {unit} {direction}"
    return f"{count} ({a},{b}) steps"


def _verb(p: Part) -> str:
    if "only capture" in p.operators:
        return "captures"
    if "without capture" in p.operators:
        return "moves"
    return "rides" if p.kind == "rider" else "leaps"


def _part_text(p: Part, *, later: bool = False) -> str:
    outward = next((o for o in p.operators if o in _OUTWARDS), "")
    head = " ".join(x for x in (_verb(p), outward, _target(p)) if x)
    extras = [_PHRASES[o] for o in p.operators if o not in _VERB_OPS]
    return ", ".join([head, *extras])


def _generic_text(word: Word) -> str:
    x = y = 0
    squares = []
    for letter in word:
        x, y = x + letter.dx, y + letter.dy
        squares.append((x, y, letter.on))
    names = {"e": "empty", "p": "an opponent piece", "w": "an own piece"}
    *conditions, (dx, dy, on) = squares
    text = f"Moves to ({dx},{dy}) onto {names[on]}"
    if conditions:
        text += " if " + ", ".join(f"({cx},{cy}) holds {names[con]}" for cx, cy, con in conditions)
    return text


_NAMED: tuple[tuple[str, frozenset[tuple[str, tuple[int, int]]]], ...] = (
    ("queen", frozenset({("rider", (1, 0)), ("rider", (0, 1)), ("rider", (1, 1))})),
    ("king", frozenset({("leaper", (1, 0)), ("leaper", (0, 1)), ("leaper", (1, 1))})),
    ("rook", frozenset({("rider", (1, 0)), ("rider", (0, 1))})),
    ("knight", frozenset({("leaper", (1, 2)), ("leaper", (2, 1))})),
    ("knight", frozenset({("leaper2", (1, 2))})),
    ("knight", frozenset({("leaper2", (2, 1))})),
    ("wazir", frozenset({("leaper", (1, 0)), ("leaper", (0, 1))})),
    ("dabbaba", frozenset({("leaper", (2, 0)), ("leaper", (0, 2))})),
    ("bishop", frozenset({("rider", (1, 1))})),
    ("ferz", frozenset({("leaper", (1, 1))})),
    ("alfil", frozenset({("leaper", (2, 2))})),
)


def _merge_key(p: Part) -> tuple[str, tuple[str, ...], int]:
    return ("rider" if p.kind == "rider" else "leaper", p.operators, p.n)


def _merged_targets(parts: Sequence[Part]) -> str:
    """Targets of parts that share verb and operators, joined with "or" ("in every direction")."""
    by_distance: dict[int, list[str]] = {}
    others: list[str] = []
    for p in parts:
        direction = _direction(p.key)
        if p.kind == "leaper" and direction:
            by_distance.setdefault(max(p.key), []).append(direction)
        elif p.kind == "leaper2" and direction:
            by_distance.setdefault(max(p.key), []).extend(["horizontally", "vertically"])
        else:
            others.append(_target(p))
    texts = []
    for d, dirs in by_distance.items():
        ordered = [x for x in ("horizontally", "vertically", "diagonally") if x in dirs]
        where = "in every direction" if len(ordered) == 3 else " or ".join(ordered)
        texts.append(f"{_squares(d)} {where}")
    riders = [t for t in others if t.endswith(("horizontally", "vertically", "diagonally"))]
    vectors = [t.removeprefix("over vector ").replace(" or ", ", ") for t in others if t.startswith("over vector ")]
    rest = [t for t in others if t not in riders and not t.startswith("over vector ")]
    if vectors:
        listed = ", ".join(vectors).split(", ")
        rest.insert(0, "over vector " + (", ".join(listed[:-1]) + " or " + listed[-1] if len(listed) > 1 else listed[0]))
    if riders:
        count = riders[0].rsplit(" ", 1)[0]
        same = all(t.rsplit(" ", 1)[0] == count for t in riders)
        if same and len(riders) > 1:
            dirs = [t.rsplit(" ", 1)[1] for t in riders]
            where = "in every direction" if len(set(dirs)) == 3 else " or ".join(dirs)
            riders = [f"{count} {where}"]
    return " or ".join([*texts, *riders, *rest])


def _merged_simple(parts: Sequence[Part], *, later: bool = False) -> str:
    p = parts[0]
    outward = next((o for o in p.operators if o in _OUTWARDS), "")
    head = " ".join(x for x in (_verb(p), outward, _merged_targets(parts)) if x)
    extras = [_PHRASES[o] for o in p.operators if o not in _VERB_OPS]
    return ", ".join([head, *extras])


def merged_sentences(descriptions: Sequence[Description]) -> list[str]:
    """Sentences for a piece: plain named pieces first ("Moves like a king and a knight"), then one-part
    descriptions sharing verb and operators joined with "or", then two-part ones grouped by their first
    part ("X, then Y or Z"), then the generic ones."""
    singles = [d.parts[0] for d in descriptions if len(d.parts) == 1]
    plain = {(p.kind, p.key) for p in singles if not p.operators}
    names = []
    for name, needed in _NAMED:
        if needed <= plain:
            names.append(name)
            plain -= needed
    used = {(p.kind, p.key) for p in singles if not p.operators} - plain
    sentences = []
    if names:
        article = ["an" if n[0] in "aeiou" else "a" for n in names]
        sentences.append("Moves like " + " and ".join(f"{a} {n}" for a, n in zip(article, names)))
    groups: dict[tuple[str, tuple[str, ...], int], list[Part]] = {}
    for p in singles:
        if p.operators or (p.kind, p.key) not in used:
            groups.setdefault(_merge_key(p), []).append(p)
    sentences += [_capital(_merged_simple(parts)) for parts in groups.values()]
    doubles: dict[Part, list[Part]] = {}
    for d in descriptions:
        if len(d.parts) == 2:
            doubles.setdefault(d.parts[0], []).append(d.parts[1])
    for first, seconds in doubles.items():
        by_ops: dict[tuple[str, tuple[str, ...], int], list[Part]] = {}
        for s in seconds:
            by_ops.setdefault(_merge_key(s), []).append(s)
        tails = " or ".join(_merged_simple(group, later=True) for group in by_ops.values())
        sentences.append(_capital(f"{_part_text(first)}, then {tails}"))
    sentences += [d.text() for d in descriptions if d.generic]
    return sentences
