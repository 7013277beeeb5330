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

A player registered by its owner (:mod:`ggp.manager.members`) must pass :func:`owner_url_problem` too,
given the addresses its host resolves to: the URL may not point at the manager itself, at a port that
is not for HTTP (the ports browsers refuse, the Fetch standard's "bad ports": SSH, SMTP, ...), or at an
address outside the allowed networks (by default the public internet only: no loopback, private,
link-local or reserved address, so a stranger cannot make the manager post to the site's own internal
services). The admin's own registrations are not limited this way (a test player on 127.0.0.1 is fine).

>>> policy = UrlPolicy(own=frozenset({("ggp.example.org", 443)}))
>>> owner_url_problem("http://198.51.100.7:22/", ["198.51.100.7"], policy)
'port 22 is not for HTTP (browsers refuse it too); use 80, 443 or a port above 1023 that is not reserved'
>>> owner_url_problem("http://10.1.2.3:9147/", ["10.1.2.3"], policy)
'the address 10.1.2.3 is outside the networks this site allows for players (public addresses only)'
>>> owner_url_problem("https://ggp.example.org/", ["93.184.216.34"], policy)
'the URL points at this manager itself'
>>> owner_url_problem("http://93.184.216.34:9147/", ["93.184.216.34"], policy) is None
True
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
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


BAD_PORTS = frozenset({
    0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
    109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526,
    530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045,
    4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
})
"""Ports that are not for HTTP: the Fetch standard's "bad ports" (browsers refuse them), plus 0."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class UrlPolicy:
    """Where a player registered by its owner may be: ``networks`` (empty: public addresses only) and
    ``own``, the (host, port) pairs this manager is reached at (its public URL, the Host of the request)."""

    networks: tuple[Network, ...] = ()
    own: frozenset[tuple[str, int]] = frozenset()


def parse_networks(text: str) -> tuple[Network, ...]:
    """``CIDR,CIDR,...`` (e.g. ``10.0.0.0/8,2001:db8::/32``) as networks; raises ``ValueError`` naming a bad one.

    >>> parse_networks("10.0.0.0/8, 192.0.2.1")
    (IPv4Network('10.0.0.0/8'), IPv4Network('192.0.2.1/32'))
    """
    networks = []
    for part in (p.strip() for p in text.split(",")):
        if part:
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part!r} is not a network (CIDR such as 10.0.0.0/8, or an address)") from None
    return tuple(networks)


def url_port(url: str) -> int:
    """The port of an accepted URL (80 or 443 when it names none)."""
    parts = urlsplit(url)
    return parts.port if parts.port is not None else (443 if parts.scheme == "https" else 80)


def owner_url_problem(url: str, addresses: Sequence[str], policy: UrlPolicy) -> str | None:
    """Why an owner may not register ``url`` (already accepted by :func:`url_problem`), whose host resolved
    to ``addresses``, or ``None``."""
    host = (urlsplit(url).hostname or "").lower().removesuffix(".")
    port = url_port(url)
    if port in BAD_PORTS:
        return f"port {port} is not for HTTP (browsers refuse it too); use 80, 443 or a port above 1023 that is not reserved"
    own_ports = {own_port for _, own_port in policy.own}
    for own_host, own_port in policy.own:
        if port == own_port and host == own_host.lower():
            return "the URL points at this manager itself"
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if port in own_ports and (address.is_loopback or address.is_unspecified or any(
                _same_address(address, own_host) for own_host, _ in policy.own)):
            return "the URL points at this manager itself"
        allowed = any(address in network for network in policy.networks) if policy.networks else address.is_global
        if not allowed:
            where = ", ".join(map(str, policy.networks)) if policy.networks else "public addresses only"
            return f"the address {address} is outside the networks this site allows for players ({where})"
    return None


def _same_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address, host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")) == address
    except ValueError:
        return False
