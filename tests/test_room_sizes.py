"""No room over 600 lines and no function over 80 (issue 40): a file or a function that grows past its
bound is split into parts whose names say their job, not waved through.

The project's own source is checked: ``ggp/`` (without the ``ggp/players`` and ``ggp/translators``
links, which are checked where they point), ``players/``, ``translators/``, ``benchmarks/``, ``scripts/``
and ``tests/``; their Python files, the web UI's JavaScript under ``ggp/`` and every C source and header.
A Python function is measured from its ``def`` line to its last line (nested functions count on their own);
a C function from the first line of its definition (at the start of a line) to its closing brace (the first
``}`` at the start of a line after it), as the project's C is written.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
TOPS = ("ggp", "players", "translators", "benchmarks", "scripts", "tests")
LINKS = ("ggp/players", "ggp/translators")

PENDING: set[str] = set()
"""Files (by path) and functions (``path::qualified name``) known to break the rule."""


def source_files() -> Iterator[Path]:
    """Every checked file: Python, ``ggp/**/*.js``, C sources and headers, under the checked folders."""
    for top in TOPS:
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(LINKS) or "__pycache__" in path.parts or not path.is_file():
                continue
            if path.suffix in (".py", ".c", ".h") or (path.suffix == ".js" and top == "ggp"):
                yield path


def long_functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """``(qualified name, lines)`` of every function in ``tree`` (methods and nested ones included)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = prefix + node.name
            assert node.end_lineno is not None
            yield name, node.end_lineno - node.lineno + 1
            yield from long_functions(node, name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from long_functions(node, prefix + node.name + ".")
        else:
            yield from long_functions(node, prefix)


def long_c_functions(text: str) -> Iterator[tuple[str, int]]:
    """``(name, lines)`` of every function defined in C source ``text`` (see the module notes); a prototype
    (its signature ends with ``;`` before any ``{``) is no definition."""
    start: int | None = None
    name, body = "", False
    for number, line in enumerate(text.splitlines()):
        if start is None:
            opens = re.match(r"[A-Za-z_][\w\s*]*?\b(\w+)\(", line)
            if opens is None or line.startswith(("typedef", "#", "struct", "static const")):
                continue
            start, name, body = number, opens.group(1), False
        if not body and "{" in line:
            body = True
        elif not body and line.rstrip().endswith(";"):
            start = None
            continue
        if body and (line.startswith("}") or (number == start and line.rstrip().endswith("}"))):
            yield name, number - start + 1  # (a one-line function ends on its own line)
            start = None


def oversized() -> dict[str, int]:
    """Every file over :data:`MAX_FILE_LINES` and function over :data:`MAX_FUNCTION_LINES`, with its lines."""
    found: dict[str, int] = {}
    for path in source_files():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_FILE_LINES:
            found[rel] = lines
        functions = long_functions(ast.parse(text, filename=rel)) if path.suffix == ".py" else \
            long_c_functions(text) if path.suffix in (".c", ".h") else iter(())
        for name, size in functions:
            if size > MAX_FUNCTION_LINES:
                found[f"{rel}::{name}"] = size
    return found


def test_no_file_over_600_lines_and_no_function_over_80() -> None:
    breaking = {name: lines for name, lines in oversized().items() if name not in PENDING}
    assert not breaking, "split these (file lines, or path::function lines):\n" + "\n".join(
        f"  {name}: {lines} lines" for name, lines in sorted(breaking.items()))


def test_every_pending_entry_still_breaks_the_rule() -> None:
    stale = PENDING - oversized().keys()
    assert not stale, f"these are within bounds now: remove them from PENDING: {sorted(stale)}"


def test_c_functions_are_measured_from_signature_to_closing_brace_and_prototypes_are_skipped() -> None:
    source = "\n".join([
        "#include <stdint.h>", "static int twice(int x);", "void ggp_free(void *p) { free(p); }",
        "int32_t ggp_long(const int *p,", "                 int n);",
        "static inline int twice(int x) {", "  return 2 * x;", "}", "typedef struct {", "  int a;", "} pair_t;",
        "GGP_LOCAL void fill(int *out,", "                    int n) {", *["  out[0] = n;"] * 81, "}",
    ])
    assert dict(long_c_functions(source)) == {"ggp_free": 1, "twice": 3, "fill": 84}


def test_the_walk_sees_the_project() -> None:
    seen = {path.relative_to(ROOT).as_posix() for path in source_files()}
    assert {"ggp/cli.py", "players/mcts.py", "translators/sbg/minimax.c", "ggp/manager/static/app.js",
            "benchmarks/hostile.py", "tests/test_room_sizes.py"} <= seen
    assert not any(name.startswith(LINKS) for name in seen)
