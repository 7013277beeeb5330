"""Tournament specifications (from JSON or YAML) and round-robin schedules with seat rotation.

>>> round_robin(["a", "b", "c"], roles=2, per_pairing=2)
[('a', 'b'), ('b', 'a'), ('a', 'c'), ('c', 'a'), ('b', 'c'), ('c', 'b')]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml  # type: ignore[import-untyped]

from ggp.errors import InputError
from ggp.manager.fields import reject_unknown
from ggp.protocol.limits import MAX_PLAY_CLOCK_S, MAX_START_CLOCK_S, MIN_CLOCK_S

MAX_MATCHES = 400
"""The most matches one tournament may schedule (a typo in ``players`` must not queue thousands);
docs/manager.md quotes it."""

MAX_PLAYER_ENTRIES = 64
"""The most entries ``players`` may list, repeats included, checked before anything is built from them."""

MAX_TOURNAMENT_BODY = 64 * 1024
"""Largest tournament description (JSON or YAML) the manager parses: 64 entries of 500-character URLs fit."""

MAX_SEED = 2**63 - 1
"""Largest seed of a match or tournament (SQLite's INTEGER range); seeds are whole numbers from 0."""


def round_robin(players: Sequence[str], roles: int, per_pairing: int) -> list[tuple[str, ...]]:
    """Seatings for every group of ``roles`` distinct players, ``per_pairing`` matches per group.

    Match ``i`` of a group uses the group rotated ``i`` places, so seats (and first-move advantage)
    rotate. A one-role game gives each player ``per_pairing`` solo matches. Raises
    :class:`InputError` when there are fewer distinct players than roles, or when the schedule would
    hold more than :data:`MAX_MATCHES` matches (counted before any is built).
    """
    if roles < 1 or per_pairing < 1:
        raise InputError("a tournament needs at least one role and one match per pairing")
    distinct = list(dict.fromkeys(players))
    if len(distinct) < roles:
        raise InputError(f"the game has {roles} roles but only {len(distinct)} distinct players were given")
    count = math.comb(len(distinct), roles) * per_pairing
    if count > MAX_MATCHES:
        raise InputError(f"this tournament would schedule {count} matches, over the limit of {MAX_MATCHES}; "
                         "give fewer players or fewer matches per pairing")
    schedule: list[tuple[str, ...]] = []
    for group in itertools.combinations(distinct, roles):
        for i in range(per_pairing):
            shift = i % roles
            schedule.append(tuple(group[shift:] + group[:shift]))
    return schedule


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What a tournament plays: one game, its players, clocks, matches per pairing and a seed."""

    name: str
    game: str
    players: tuple[str, ...]
    per_pairing: int = 2
    start_clock: int = 10
    play_clock: int = 5
    seed: int = 0
    parallel: int = 4


def _int(data: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InputError(f"tournament field {key!r} must be a whole number from {low} to {high}, found {value!r}")
    return value


def spec_from_mapping(data: Any) -> TournamentSpec:
    """Validate a tournament description (parsed JSON or YAML); raises :class:`InputError`."""
    if not isinstance(data, Mapping):
        raise InputError("a tournament must be a mapping with 'game' and 'players'")
    reject_unknown(data, ("name", "game", "players", "matches_per_pairing", "startclock", "playclock", "seed",
                          "parallel"), "tournament ")
    game = data.get("game")
    if not isinstance(game, str) or not game:
        raise InputError("tournament field 'game' must be a game key")
    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise InputError("tournament field 'players' must be a non-empty list of player names")
    if len(players) > MAX_PLAYER_ENTRIES:  # before looking at the entries: a long list is refused unread
        raise InputError(f"tournament field 'players' may list at most {MAX_PLAYER_ENTRIES} entries, "
                         f"found {len(players)}")
    if not all(isinstance(p, str) and p for p in players):
        raise InputError("tournament field 'players' must be a non-empty list of player names")
    name = data.get("name", f"{game} round robin")
    if not isinstance(name, str) or len(name) > 200:
        raise InputError("tournament field 'name' must be a string of at most 200 characters")
    return TournamentSpec(
        name=name,
        game=game,
        players=tuple(players),
        per_pairing=_int(data, "matches_per_pairing", 2, 1, 1000),
        start_clock=_int(data, "startclock", 10, MIN_CLOCK_S, MAX_START_CLOCK_S),
        play_clock=_int(data, "playclock", 5, MIN_CLOCK_S, MAX_PLAY_CLOCK_S),
        seed=_int(data, "seed", 0, 0, MAX_SEED),
        parallel=_int(data, "parallel", 4, 1, 256),
    )


def spec_from_yaml(text: str, file: str = "<yaml>") -> TournamentSpec:
    """Read a tournament YAML file's text; raises :class:`InputError` naming the file."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{file}:{mark.line + 1}:{mark.column + 1}" if mark is not None else file
        raise InputError(f"{where}: not valid YAML") from None
    except RecursionError:
        raise InputError(f"{file}: YAML nested too deeply") from None
    try:
        return spec_from_mapping(data)
    except InputError as exc:
        raise InputError(f"{file}: {exc}") from None
