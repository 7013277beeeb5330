"""Match records in the ggp.org match JSON format (protocol.md §7), with our ``x-`` fields.

A :class:`MatchRecord` is a frozen value: the runner builds a new one after every step, the store
persists it and the web UI replays it. ``to_json``/``from_json`` are a round-trip pair.

>>> record = MatchRecord(match_id="m1", start_time_ms=0, random_token="t" * 32, start_clock=10,
...     play_clock=5, game_meta_url="http://127.0.0.1:9140/games/nim/v1/", roles=("a", "b"),
...     player_names=("random", "random"), player_types=("random", "random"), seed=1, game_key="nim")
>>> from_json(to_json(record)) == record
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ggp.errors import InputError
from ggp.match.rules import END_REASONS, FALLBACK, EndReason
from ggp.player import clean_configuration

__all__ = ["END_REASONS", "FALLBACK", "EndReason", "MatchRecord", "from_dict", "from_json", "state_text", "to_dict", "to_json"]


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match: its header, the history so far, and how it ended.

    ``states`` hold the state strings of protocol.md §7 (fluents sorted), ``moves`` one joint move per
    step in role order, ``errors`` one row per state with one code per role (``""``, ``TO``, ``CE``,
    ``IL <move>``, ``IL null``). Times are milliseconds since the Unix epoch.

    GDL-II matches (``gdl2``) also keep ``percepts``: one row per joint move, holding for each role
    the sorted texts of what it saw after that move (``x-percepts`` in JSON).

    ``configurations`` holds, per role, what its player reported choosing for the match by itself in its
    ``ready`` to START (the ``X-GGP-Configuration`` header: the default ``mcts``'s self-configuration, one
    line of at most :data:`~ggp.player.MAX_CONFIGURATION_CHARS` characters; ``""`` for a player that
    reported nothing); ``()`` when no player reported anything (``x-configurations`` in JSON, then absent).
    """

    match_id: str
    start_time_ms: int
    random_token: str
    start_clock: int
    play_clock: int
    game_meta_url: str
    roles: tuple[str, ...]
    player_names: tuple[str, ...]
    player_types: tuple[str, ...]
    seed: int
    game_key: str
    rules_hash: str = ""
    states: tuple[str, ...] = ()
    moves: tuple[tuple[str, ...], ...] = ()
    state_times: tuple[int, ...] = ()
    errors: tuple[tuple[str, ...], ...] = ()
    is_completed: bool = False
    is_aborted: bool = False
    goal_values: tuple[int, ...] | None = None
    end_reason: EndReason | None = None
    abort_detail: str = ""
    scrambled: bool = False
    tournament: str = ""
    gdl2: bool = False
    percepts: tuple[tuple[tuple[str, ...], ...], ...] = ()
    configurations: tuple[str, ...] = ()
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    @property
    def finished(self) -> bool:
        """True once the match completed or was aborted."""
        return self.is_completed or self.is_aborted

    @property
    def step(self) -> int:
        """Number of joint moves played so far."""
        return len(self.moves)

    def with_step(self, joint: Sequence[str], state: str, time_ms: int, errors: Sequence[str],
                  percepts: Sequence[Sequence[str]] | None = None) -> MatchRecord:
        """A copy with one more joint move, its successor state, its time, its error row and (GDL-II) percepts."""
        return replace(
            self,
            moves=self.moves + (tuple(joint),),
            states=self.states + (state,),
            state_times=self.state_times + (time_ms,),
            errors=self.errors + (tuple(errors),),
            percepts=self.percepts if percepts is None else self.percepts + (tuple(tuple(p) for p in percepts),),
        )


def state_text(fluents: Sequence[str]) -> str:
    """A state as the ggp.org format writes it: its fluents sorted, inside one list.

    >>> state_text(["(control x)", "(cell 1 1 b)"])
    '( (cell 1 1 b) (control x) )'
    """
    return "( " + " ".join(sorted(fluents)) + " )" if fluents else "( )"


def game_version(record: MatchRecord) -> int | None:
    """The game version a match was played with, read from its ``gameMetaURL`` (``.../v<N>/``), or
    ``None`` when the URL has none (a record from elsewhere).

    >>> game_version(MatchRecord("m", 0, "", 1, 1, "http://h/games/nim/v3/", ("a",), ("p",), ("random",), 0, "nim"))
    3
    """
    found = re.search(r"/v(\d+)/?$", record.game_meta_url)
    return int(found.group(1)) if found else None


def to_dict(record: MatchRecord) -> dict[str, Any]:
    """The record as a JSON-ready dict: no ``None`` values, project fields prefixed ``x-``."""
    data: dict[str, Any] = {
        "matchId": record.match_id,
        "startTime": record.start_time_ms,
        "randomToken": record.random_token,
        "startClock": record.start_clock,
        "playClock": record.play_clock,
        "states": list(record.states),
        "moves": [list(joint) for joint in record.moves],
        "stateTimes": list(record.state_times),
        "gameMetaURL": record.game_meta_url,
        "errors": [list(row) for row in record.errors],
        "isCompleted": record.is_completed,
        "isAborted": record.is_aborted,
        "playerNamesFromHost": list(record.player_names),
        "scrambled": record.scrambled,
        "x-seed": record.seed,
        "x-rulesHash": record.rules_hash,
        "x-fallback": FALLBACK,
        "x-playerTypes": list(record.player_types),
        "x-roles": list(record.roles),
        "x-gameKey": record.game_key,
    }
    if record.goal_values is not None:
        data["goalValues"] = list(record.goal_values)
    if record.end_reason is not None:
        data["x-endReason"] = record.end_reason
    if record.abort_detail:
        data["x-abortDetail"] = record.abort_detail
    if record.tournament:
        data["tournamentNameFromHost"] = record.tournament
    if record.gdl2:
        data["x-gdl2"] = True
        data["x-percepts"] = [[list(seen) for seen in row] for row in record.percepts]
    if record.configurations:
        data["x-configurations"] = list(record.configurations)
    for key, value in record.extra:
        data[key] = value
    return data


def to_json(record: MatchRecord, *, indent: int | None = None) -> str:
    """The record as ggp.org match JSON text."""
    return json.dumps(to_dict(record), indent=indent)


def _need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in data:
        raise InputError(f"match JSON lacks the required field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InputError(f"match JSON field {key!r} has the wrong type {type(value).__name__!r}")
    return value


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"match JSON field {key!r} must be a list of strings")
    return tuple(value)


def _rows(value: Any, key: str) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list):
        raise InputError(f"match JSON field {key!r} must be a list of lists of strings")
    return tuple(_strings(row, key) for row in value)


def _percepts(value: Any, steps: int) -> tuple[tuple[tuple[str, ...], ...], ...]:
    if not isinstance(value, list) or len(value) > steps:
        raise InputError("match JSON field 'x-percepts' must be a list (one entry per joint move) of lists per role")
    return tuple(_rows(row, "x-percepts") for row in value)


def _configurations(value: Any, players: int) -> tuple[str, ...]:
    """``x-configurations``: one line per player (a record from elsewhere is read, never trusted: each line is
    cleaned and bounded as the manager bounds what it receives)."""
    lines = _strings(value, "x-configurations")
    if lines and len(lines) != players:
        raise InputError(f"match JSON field 'x-configurations' has {len(lines)} entries for {players} players")
    return tuple(clean_configuration(line) for line in lines)


def from_dict(data: Mapping[str, Any]) -> MatchRecord:
    """Rebuild a record from parsed match JSON; raises :class:`InputError` naming a bad field.

    Records written by other hosts load too: missing project fields get neutral defaults.
    """
    if not isinstance(data, Mapping):
        raise InputError("match JSON must be an object")
    for key, value in data.items():
        if value is None:
            raise InputError(f"match JSON field {key!r} is null, which the format forbids")
    states = _strings(_need(data, "states", list), "states")
    moves = _rows(_need(data, "moves", list), "moves")
    times = _need(data, "stateTimes", list)
    if not all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in times):
        raise InputError("match JSON field 'stateTimes' must be a list of numbers")
    if len(states) != len(moves) + 1 and states:
        raise InputError(f"match JSON has {len(states)} states but {len(moves)} moves; expected one more state")
    errors = _rows(data.get("errors", []), "errors")
    goals = data.get("goalValues")
    if goals is not None and (not isinstance(goals, list) or not all(isinstance(g, int) for g in goals)):
        raise InputError("match JSON field 'goalValues' must be a list of integers")
    end_reason = data.get("x-endReason")
    if end_reason is not None and end_reason not in END_REASONS:
        raise InputError(f"match JSON field 'x-endReason' is {end_reason!r}; expected one of {END_REASONS}")
    names = _strings(data.get("playerNamesFromHost", []), "playerNamesFromHost")
    roles = _strings(data.get("x-roles", [f"role{i}" for i in range(len(names))]), "x-roles")
    known = {
        "matchId", "startTime", "randomToken", "startClock", "playClock", "states", "moves", "stateTimes",
        "gameMetaURL", "errors", "isCompleted", "isAborted", "goalValues", "playerNamesFromHost", "scrambled",
        "x-seed", "x-rulesHash", "x-fallback", "x-playerTypes", "x-roles", "x-gameKey", "x-endReason",
        "x-abortDetail", "tournamentNameFromHost", "x-gdl2", "x-percepts", "x-configurations",
    }
    seed = data.get("x-seed", 0)
    if not isinstance(seed, int):
        raise InputError("match JSON field 'x-seed' must be an integer")
    return MatchRecord(
        match_id=_need(data, "matchId", str),
        start_time_ms=int(_need(data, "startTime", (int, float))),
        random_token=_need(data, "randomToken", str),
        start_clock=int(_need(data, "startClock", (int, float))),
        play_clock=int(_need(data, "playClock", (int, float))),
        game_meta_url=_need(data, "gameMetaURL", str),
        roles=roles,
        player_names=names,
        player_types=_strings(data.get("x-playerTypes", ["remote"] * len(names)), "x-playerTypes"),
        seed=seed,
        game_key=str(data.get("x-gameKey", "")),
        rules_hash=str(data.get("x-rulesHash", "")),
        states=states,
        moves=moves,
        state_times=tuple(int(t) for t in times),
        errors=errors,
        is_completed=bool(data.get("isCompleted", False)),
        is_aborted=bool(data.get("isAborted", False)),
        goal_values=tuple(goals) if goals is not None else None,
        end_reason=end_reason,
        abort_detail=str(data.get("x-abortDetail", "")),
        scrambled=bool(data.get("scrambled", False)),
        tournament=str(data.get("tournamentNameFromHost", "")),
        gdl2=bool(data.get("x-gdl2", False)),
        percepts=_percepts(data.get("x-percepts", []), len(moves)),
        configurations=_configurations(data.get("x-configurations", []), len(names)),
        extra=tuple((k, v) for k, v in data.items() if k not in known),
    )


def from_json(text: str) -> MatchRecord:
    """Parse match JSON text; raises :class:`InputError` for bad JSON or a bad field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    return from_dict(data)
