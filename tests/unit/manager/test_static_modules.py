"""The web UI's scripts (ggp/manager/static/*.js): every one is loaded by the page, each stays small
(at most 600 lines, no function over 80), and the page's helpers keep the UI's no-innerHTML rule."""

from __future__ import annotations

import re

from ggp.manager.app import STATIC_DIR

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

_OPENS = re.compile(r"^(\s*)(?:async\s+)?function\s+(\w+)\s*\(.*\{$"
                    r"|^(\s*)(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\(.*\)\s*=>\s*\{$")


def page_scripts() -> list[str]:
    """The scripts index.html loads, in order (``board.js``, ...)."""
    return re.findall(r'<script src="/static/([\w.]+)"></script>', (STATIC_DIR / "index.html").read_text())


def function_lengths(text: str) -> dict[str, int]:
    """Lines of each named function (``function f(...) {`` or ``const f = (...) => {``) that opens at the end of
    a line and closes with a ``}`` at its own indentation (the layout of every script here)."""
    lines = text.splitlines()
    lengths: dict[str, int] = {}
    for start, line in enumerate(lines):
        found = _OPENS.match(line)
        if found is None:
            continue
        indent, name = found.group(1) or found.group(3) or "", found.group(2) or found.group(4)
        end = next(i for i in range(start + 1, len(lines)) if lines[i] in (indent + "}", indent + "};"))
        lengths[f"{name}:{start + 1}"] = end - start + 1
    return lengths


def test_the_page_loads_every_script_once_and_nothing_else() -> None:
    scripts = page_scripts()
    assert sorted(scripts) == sorted(path.name for path in STATIC_DIR.glob("*.js"))
    assert len(set(scripts)) == len(scripts)
    assert scripts[-1] == "app.js" and scripts.index("ui.js") < min(scripts.index(s) for s in scripts if s not in
                                                                   ("board.js", "percepts.js", "human.js", "ui.js"))


def test_every_script_is_at_most_600_lines_with_no_function_over_80() -> None:
    for path in STATIC_DIR.glob("*.js"):
        text = path.read_text()
        assert len(text.splitlines()) <= MAX_MODULE_LINES, path.name
        lengths = function_lengths(text)
        assert lengths, path.name  # the reader found this script's functions
        long = {name: n for name, n in lengths.items() if n > MAX_FUNCTION_LINES}
        assert not long, f"{path.name}: functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_the_function_reader_measures_declarations_and_arrow_functions() -> None:
    text = "function a(x) {\n  return x;\n}\n\nconst b = async (y) => {\n  f();\n  g();\n};\n"
    assert function_lengths(text) == {"a:1": 3, "b:5": 4}
