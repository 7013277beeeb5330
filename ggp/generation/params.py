"""Parameter sets for generating chess-like SBG piece rules (spec rapp.md §4 and its decisions).

The RAPP paper used four parameter sets whose contents were never published; ours vary the piece-rule
generator along the axes the spec's decision names: the longest compound word (1-3 letters), the
probability of riders, of restricted ``on`` conditions (move-only / capture-only patterns) and of
asymmetric (forward-only) vector sets. They are configuration, not facts from the paper.

A YAML or JSON file can override any field of a built-in set::

    base: riders          # optional, default "classic"
    p_rider: 0.6
    max_vector: 2

>>> BUILTIN["classic"].max_word_letters, sorted(BUILTIN)
(1, ['classic', 'compound', 'restricted', 'riders'])
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggp.errors import InputError, SourcePos


@dataclass(frozen=True, slots=True)
class GenParams:
    """How random piece rules and positions are drawn; probabilities are per pattern unless noted.

    ``patterns`` bounds the number of vector patterns in one non-winning piece's rule; ``max_vector``
    bounds |dx| and |dy| of a leaper or rider vector; ``max_word_letters`` > 1 allows compound words
    (bent moves such as "one step orthogonally then one diagonally"); ``p_empty_back`` is the chance that
    a non-king back-row square stays empty; ``p_pawn`` that a front-row square holds a pawn.
    ``mutation_rate`` is the per-child probability of each mutation kind during evolution.
    """

    name: str = "classic"
    sizes: tuple[int, ...] = (6, 7, 8)
    types: tuple[int, int] = (3, 5)
    patterns: tuple[int, int] = (1, 3)
    max_vector: int = 2
    max_word_letters: int = 1
    p_rider: float = 0.3
    p_limited_rider: float = 0.2
    p_restricted_on: float = 0.15
    p_forward_only: float = 0.1
    p_compound: float = 0.0
    p_empty_back: float = 0.0
    p_pawn: float = 0.85
    mutation_rate: float = 0.3

    def check(self, pos: SourcePos | None = None) -> GenParams:
        """Return self, or raise InputError naming the first out-of-range field."""
        problems = []
        if not self.sizes or any(s not in (6, 7, 8) for s in self.sizes):
            problems.append(f"sizes must be a non-empty subset of 6, 7, 8, got {self.sizes!r}")
        if not 3 <= self.types[0] <= self.types[1] <= 5:
            problems.append(f"types must satisfy 3 <= min <= max <= 5, got {self.types!r}")
        if not 1 <= self.patterns[0] <= self.patterns[1] <= 6:
            problems.append(f"patterns must satisfy 1 <= min <= max <= 6, got {self.patterns!r}")
        if not 1 <= self.max_vector <= 3:
            problems.append(f"max_vector must be 1..3, got {self.max_vector!r}")
        if not 1 <= self.max_word_letters <= 3:
            problems.append(f"max_word_letters must be 1..3, got {self.max_word_letters!r}")
        for field in ("p_rider", "p_limited_rider", "p_restricted_on", "p_forward_only", "p_compound",
                      "p_empty_back", "p_pawn", "mutation_rate"):
            value = getattr(self, field)
            if not 0.0 <= value <= 1.0:
                problems.append(f"{field} must be a probability in [0, 1], got {value!r}")
        if self.p_pawn <= 0.0:
            problems.append("p_pawn must be > 0 (every game needs a pawn)")
        if problems:
            raise InputError(f"bad generation parameters {self.name!r}: {problems[0]}", pos)
        return self


BUILTIN: dict[str, GenParams] = {
    "classic": GenParams(name="classic"),
    "riders": GenParams(name="riders", p_rider=0.65, p_limited_rider=0.3, max_vector=2, p_restricted_on=0.1),
    "restricted": GenParams(name="restricted", p_rider=0.35, p_restricted_on=0.5, p_forward_only=0.35,
                            max_vector=3),
    "compound": GenParams(name="compound", max_word_letters=3, p_compound=0.35, p_rider=0.3,
                          p_restricted_on=0.25, p_forward_only=0.2, max_vector=2),
}
"""The four built-in sets: short leapers, many riders, restricted conditions, compound words."""


_TUPLE_FIELDS = {"sizes", "types", "patterns"}


def params_from_mapping(data: dict[str, Any], source: str = "<params>") -> GenParams:
    """Build a parameter set from a mapping: ``base`` names a built-in set, other keys override it."""
    pos = SourcePos(source, 1, 1)
    if not isinstance(data, dict):
        raise InputError(f"parameters must be a mapping of field names to values, got {type(data).__name__}", pos)
    base_name = data.get("base", "classic")
    if base_name not in BUILTIN:
        raise InputError(f"unknown base parameter set {base_name!r}; expected one of {sorted(BUILTIN)}", pos)
    known = {f.name for f in dataclasses.fields(GenParams)}
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key == "base":
            continue
        if key not in known:
            raise InputError(f"unknown parameter {key!r}; expected one of {sorted(known)}", pos)
        if key in _TUPLE_FIELDS:
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) for v in value):
                raise InputError(f"parameter {key!r} must be a list of whole numbers, got {value!r}", pos)
            value = tuple(value)
        elif key == "name":
            value = str(value)
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"parameter {key!r} must be a number, got {value!r}", pos)
        changes[key] = value
    if "name" not in changes:
        changes["name"] = Path(source).stem if source != "<params>" else f"{base_name}+"
    params = dataclasses.replace(BUILTIN[base_name], **changes)
    if len(params.types) != 2 or len(params.patterns) != 2:
        raise InputError("parameters 'types' and 'patterns' must be [min, max] pairs", pos)
    return params.check(pos)


def load_params(path: Path) -> GenParams:
    """Read a YAML or JSON parameter file (JSON is valid YAML); raise InputError on bad content."""
    import yaml  # type: ignore[import-untyped]

    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = getattr(exc, "lineno", None) or (mark.line + 1 if mark is not None else 1)
        column = getattr(exc, "colno", None) or (mark.column + 1 if mark is not None else 1)
        reason = getattr(exc, "problem", None) or getattr(exc, "msg", None) or "bad syntax"
        raise InputError(f"cannot parse parameter file: {reason}", SourcePos(str(path), line, column)) from exc
    return params_from_mapping(data if data is not None else {}, str(path))


def resolve_params(spec: str | None) -> list[GenParams]:
    """``None`` -> all four built-in sets; a built-in name -> that set; otherwise a file path."""
    if spec is None:
        return list(BUILTIN.values())
    if spec in BUILTIN:
        return [BUILTIN[spec]]
    path = Path(spec)
    if not path.is_file():
        raise InputError(f"no parameter set or file named {spec!r}; built-in sets: {sorted(BUILTIN)}")
    return [load_params(path)]
