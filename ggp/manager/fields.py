"""Strict request bodies: JSON that does not decode is a 400 saying so (:func:`read_json`), and a field
the API does not know is a 400 naming it, never silently dropped (a typo such as ``"playclok"`` would
otherwise start a match with the default clock).

>>> reject_unknown({"game": "nim", "playclok": 3}, ("game", "players", "playclock"))
Traceback (most recent call last):
...
ggp.errors.InputError: unknown field 'playclok'; expected game, players or playclock
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from aiohttp import web

from ggp.errors import InputError


async def read_json(request: web.Request) -> Any:
    """The request body as JSON; :class:`InputError` (400) when it is not JSON or nested too deeply."""
    try:
        return await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError("the request body is not valid JSON") from None
    except RecursionError:
        raise InputError("the request body is JSON nested too deeply") from None


def reject_unknown(data: Mapping[str, Any], allowed: Iterable[str], what: str = "") -> None:
    """Raise :class:`InputError` naming every key of ``data`` not in ``allowed`` (``what`` prefixes
    the message, e.g. ``"tournament "``)."""
    known = list(dict.fromkeys(allowed))
    unknown = [str(key) for key in data if key not in known]
    if not unknown:
        return
    names = ", ".join(repr(name[:60]) for name in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
    expected = ", ".join(known[:-1]) + f" or {known[-1]}" if len(known) > 1 else "".join(known)
    plural = "s" if len(unknown) > 1 else ""
    raise InputError(f"unknown {what}field{plural} {names}; expected {expected}")
