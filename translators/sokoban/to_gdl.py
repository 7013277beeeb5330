"""Translate a Sokoban level into a one-player GDL game (project Sokoban specification, section 3).

The rules are the same for every level; the level contributes static facts over its interior cells
only (``floor``, ``target``, ``nb``), the ``init`` fluents, and a step counter ``succ 0..H`` with
``(horizon H)`` that ends the game. Goal is binary: 100 when every target holds a box, else 0.

>>> from ggp.gdl.printer import to_kif
>>> from ggp.translators.sokoban.level import parse_level
>>> game = translate(parse_level("#####\\n#@$.#\\n#####\\n"), step_limit=2)
>>> [str(r) for r in game.rules if r.is_fact and r.head.name in ("init", "target", "horizon")]
['(target 3 1)', '(horizon 2)', '(init (pos 1 1))', '(init (box 2 1))', '(init (step 0))']
"""

from __future__ import annotations

from ggp.gdl.terms import Const, Description, Func, Literal, Not, Rule, Term, Var
from ggp.translators.sokoban.level import DIRECTIONS, Level

ROLE = Const("player")


def _term(item: str | int | Term) -> Term:
    if isinstance(item, (Const, Var, Func)):
        return item
    text = str(item)
    return Var(text[1:]) if text.startswith("?") else Const(text)


def _f(name: str, *args: str | int | Term) -> Func:
    """``_f("nb", "?d", 1, 2)`` is ``(nb ?d 1 2)``: strings starting with ``?`` are variables."""
    return Func(name, tuple(_term(a) for a in args))


def _true(name: str, *args: str | int | Term) -> Func:
    return _f("true", _f(name, *args))


def _rule(head: Const | Func, *body: Literal) -> Rule:
    return Rule(head, tuple(body), arrow=True)


def default_horizon(level: Level, solution_length: int | None = None) -> int:
    """H = 2 * l when a solution of l moves is known, else 4 * w * h (specification, section 3)."""
    if solution_length is not None:
        return max(2 * solution_length, 1)
    return 4 * level.width * level.height


def _game_rules() -> list[Rule]:
    """The level-independent rules, written as in the specification."""
    does = _f("does", ROLE, _f("move", "?d"))
    pos, nb = _true("pos", "?x", "?y"), _f("nb", "?d", "?x", "?y", "?a", "?b")
    return [
        _rule(_f("free", "?x", "?y"), _f("floor", "?x", "?y"), Not(_true("box", "?x", "?y"))),
        _rule(_f("legal", ROLE, _f("move", "?d")), pos, nb, _f("free", "?a", "?b")),
        _rule(
            _f("legal", ROLE, _f("move", "?d")), pos, nb, _true("box", "?a", "?b"),
            _f("nb", "?d", "?a", "?b", "?c", "?e"), _f("free", "?c", "?e"),
        ),
        _rule(
            _f("pushed", "?a", "?b", "?c", "?e"), does, pos, nb, _true("box", "?a", "?b"),
            _f("nb", "?d", "?a", "?b", "?c", "?e"),
        ),
        _rule(_f("next", _f("pos", "?a", "?b")), does, pos, nb),
        _rule(_f("next", _f("box", "?c", "?e")), _f("pushed", "?a", "?b", "?c", "?e")),
        _rule(_f("moved", "?a", "?b"), _f("pushed", "?a", "?b", "?c", "?e")),
        _rule(_f("next", _f("box", "?x", "?y")), _true("box", "?x", "?y"), Not(_f("moved", "?x", "?y"))),
        _rule(_f("next", _f("step", "?m")), _true("step", "?n"), _f("succ", "?n", "?m")),
        _rule(Const("open"), _f("target", "?x", "?y"), Not(_true("box", "?x", "?y"))),
        _rule(Const("terminal"), Not(Const("open"))),
        _rule(Const("terminal"), _true("step", "?n"), _f("horizon", "?n")),
        _rule(_f("goal", ROLE, 100), Not(Const("open"))),
        _rule(_f("goal", ROLE, 0), Const("open")),
    ]


def translate(level: Level, step_limit: int | None = None, *, solution_length: int | None = None) -> Description:
    """The level as a GDL game description; the game ends after ``step_limit`` moves at the latest.

    ``step_limit`` defaults to :func:`default_horizon` (``2 * solution_length`` when a solution
    length is given, else ``4 * w * h``). Raises ``ValueError`` for a step limit below 1.
    """
    horizon = default_horizon(level, solution_length) if step_limit is None else step_limit
    if horizon < 1:
        raise ValueError(f"step limit must be at least 1, got {horizon}")
    cells = sorted(level.floor, key=lambda c: (c[1], c[0]))
    facts: list[Func] = [_f("role", ROLE)]
    facts += [_f("floor", x, y) for x, y in cells]
    facts += [_f("target", x, y) for x, y in sorted(level.goals, key=lambda c: (c[1], c[0]))]
    for x, y in cells:
        for name, (dx, dy) in DIRECTIONS.items():
            if (x + dx, y + dy) in level.floor:
                facts.append(_f("nb", name, x, y, x + dx, y + dy))
    facts += [_f("succ", n, n + 1) for n in range(horizon)]
    facts.append(_f("horizon", horizon))
    facts += [_f("base", _f("pos", x, y)) for x, y in cells]
    facts += [_f("base", _f("box", x, y)) for x, y in cells]
    facts += [_f("base", _f("step", n)) for n in range(horizon + 1)]
    facts += [_f("input", ROLE, _f("move", name)) for name in DIRECTIONS]
    facts.append(_f("init", _f("pos", *level.player)))
    facts += [_f("init", _f("box", x, y)) for x, y in sorted(level.boxes, key=lambda c: (c[1], c[0]))]
    facts.append(_f("init", _f("step", 0)))
    rules = [Rule(fact) for fact in facts] + _game_rules()
    return Description(tuple(rules), file=level.title or "<sokoban>")


def move_term(letter: str) -> Func:
    """The GDL move for one LURD letter: ``"U"`` or ``"u"`` gives ``(move up)``."""
    names = {"u": "up", "d": "down", "l": "left", "r": "right"}
    return _f("move", names[letter.lower()])
