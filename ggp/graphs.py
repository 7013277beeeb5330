"""Graph algorithms shared by the validator's stratification check and the engines' dependency analyses
(pure functions over any hashable nodes; no project imports)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
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


def strongly_connected_components(
    nodes: Iterable[Node], successors: Callable[[Node], Iterable[Node]]
) -> list[list[Node]]:
    """The strongly connected components of the graph, by Tarjan's algorithm without recursion (deep
    dependency chains of large games would overflow Python's stack).

    Every node reachable from ``nodes`` is visited, roots in the order given, successors in the order
    ``successors`` yields them. Components come out dependencies first: a component is listed after
    every component it reaches. Members are listed in the order they leave Tarjan's stack.

    >>> edges = {"a": ["b"], "b": ["a", "c"], "c": [], "d": ["c"]}
    >>> strongly_connected_components("abcd", lambda n: edges[n])
    [['c'], ['b', 'a'], ['d']]
    """
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    on_stack: set[Node] = set()
    stack: list[Node] = []
    result: list[list[Node]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[Node, Iterator[Node]]] = [(root, iter(successors(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(component)
    return result
