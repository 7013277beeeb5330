"""Small graph helpers shared by the engines' dependency analyses."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

Node = TypeVar("Node", bound=Hashable)


def reachable(start: Iterable[Node], edges: Mapping[Node, Iterable[Node]]) -> set[Node]:
    """Every node reachable from ``start`` along ``edges`` (the start nodes included).

    >>> sorted(reachable(["a"], {"a": ["b"], "b": ["c", "a"], "d": ["a"]}))
    ['a', 'b', 'c']
    """
    seen = set(start)
    stack = list(seen)
    while stack:
        for node in edges.get(stack.pop(), ()):
            if node not in seen:
                seen.add(node)
                stack.append(node)
    return seen
