"""Which player URLs the manager accepts: ``http(s)://host[:port][/path]`` with a plain host.

Refused: credentials (``user:pass@``: they would be stored and shown in every match record), and hosts
that only look like names but are numbers, which browsers and ``getaddrinfo`` read as IPv4 addresses in
disguise (``0x7f000001``, ``2130706433``, ``0177.0.0.1``, ``127.1``): a URL names its address the one
way everybody reads alike, a dotted quad, a bracketed IPv6 address or a DNS name.

>>> url_problem("http://127.0.0.1:9147/") is None, url_problem("https://player.example.org/ggp") is None
(True, True)
>>> url_problem("http://0x7f000001:9147/")
"the host '0x7f000001' is a number in disguise; write an IPv4 address as four decimal numbers"
>>> url_problem("http://me:secret@127.0.0.1/")
'a player URL may not carry a user name or password'
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

MAX_URL_CHARS = 500
"""Longest player URL accepted."""

_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")
_NUMERIC = re.compile(r"0x[0-9a-f]*|[0-9]+")
"""A last host label that makes a URL parser read the whole host as an IPv4 address (WHATWG URL)."""


def url_problem(url: str) -> str | None:
    """Why ``url`` is not accepted as a player URL, or ``None`` when it is."""
    if len(url) > MAX_URL_CHARS or not url.isascii() or any(c.isspace() or not c.isprintable() for c in url):
        return f"a player URL is an http:// or https:// URL of at most {MAX_URL_CHARS} printable characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
    except ValueError:
        return "the URL does not parse (check the host and the port)"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "a player URL must start with http:// or https:// and name a host"
    if "@" in parts.netloc:
        return "a player URL may not carry a user name or password"
    host = (parts.hostname or "").lower()
    if parts.netloc.startswith("["):
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f"the host {host!r} is not an IPv6 address"
        return None
    labels = host.removesuffix(".").split(".")
    if _NUMERIC.fullmatch(labels[-1]):
        try:
            if str(ipaddress.IPv4Address(host)) == host:
                return None
        except ValueError:
            pass
        return f"the host {host!r} is a number in disguise; write an IPv4 address as four decimal numbers"
    if not all(_LABEL.fullmatch(label) for label in labels):
        return f"the host {host!r} is not a host name"
    return None
