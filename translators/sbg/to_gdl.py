"""Translate an SBG game into a GDL description (spec sbg.md §9).

Conventions: roles ``white`` then ``black``, white moves first; fluents ``(cell x y owner type)``,
``(control r)`` and ``(step n)`` advanced by ``(succ n n+1)`` facts; moves ``(move x1 y1 x2 y2)`` and
``noop``. Move patterns use the automaton scheme: each rule's Glushkov NFA (see
:mod:`ggp.translators.sbg.automaton`) becomes ``(edge r t i j dx dy on)`` facts (dy already mirrored for
black) and ``(accept r t j)`` facts, and three generic rules grow ``(reach r t x0 y0 q x y)`` one
letter at a time over ``(offx x dx x2)`` / ``(offy y dy y2)`` facts. Grounding is therefore linear
in the (square, state) pairs a piece can really reach from each start square; no rule joins two
arbitrary squares. ``reach`` starts only from the pieces of the side in control, which is all that
``legal`` and the no-move test (``canmove``, §7 rule 4) need.

>>> from ggp.translators.sbg.parser import parse_sbg
>>> game = parse_sbg('<<T>> <BOARD> 1 3 |k| |.| |K| <PIECES> K (0,1,e)^*(0,1,p) & <GOALS> 5 & #k 0 & #K 0 &')
>>> description = translate(game)
>>> [str(rule) for rule in description.rules[:2]]
['(role white)', '(role black)']
>>> sum(1 for rule in description.rules if rule.head == Const("terminal"))
2
"""

from __future__ import annotations

from collections.abc import Iterable

from ggp.gdl.terms import Const, Description, Func, Literal, Not, Rule, Term, Var
from ggp.translators.sbg.automaton import compile_regex
from ggp.translators.sbg.model import SIDES, CaptureGoal, PlacementGoal, SbgGame, owner_of


def _t(item: str | int) -> Term:
    """``?x`` -> Var, anything else -> Const (numbers become their decimal text)."""
    text = str(item)
    return Var(text[1:]) if text.startswith("?") else Const(text)


def _a(name: str, *args: str | int | Term) -> Func | Const:
    """An atom or compound term; a string argument is turned into a Var or Const by :func:`_t`."""
    if not args:
        return Const(name)
    return Func(name, tuple(arg if isinstance(arg, (Const, Var, Func)) else _t(arg) for arg in args))


def _true(*args: str | int | Term) -> Func:
    inner = args[0] if isinstance(args[0], (Func, Const)) else _a(str(args[0]), *args[1:])
    return Func("true", (inner,))


def _rule(head: Func | Const, *body: Literal) -> Rule:
    return Rule(head, tuple(body), arrow=bool(body))


def offset_name(d: int) -> str:
    """The constant naming an offset: ``2`` for 2, ``m1`` for -1 (KIF has no negative numbers)."""
    return str(d) if d >= 0 else f"m{-d}"


def _steps(game: SbgGame) -> tuple[list[Rule], set[int], set[int]]:
    """edge/accept facts for every (owner, type) on the board, plus the dx and dy values used."""
    facts: list[Rule] = []
    dxs: set[int] = set()
    dys: set[int] = set()
    present = sorted({ch for row in game.rows for ch in row if ch != "."})
    for letter in present:
        rule = game.rule_for(letter)
        if rule is None:
            continue
        nfa = compile_regex(rule.regex)
        side, sign, kind = owner_of(letter), (1 if letter.isupper() else -1), letter.lower()
        for i, follow in enumerate(nfa.follow):
            for j in follow:
                step = nfa.letters[j]
                assert step is not None
                dx, dy = step.dx, sign * step.dy
                dxs.add(dx)
                dys.add(dy)
                facts.append(_rule(_a("edge", side, kind, i, j, offset_name(dx), offset_name(dy), step.on)))
        facts.extend(_rule(_a("accept", side, kind, j)) for j in sorted(nfa.accepting))
    return facts, dxs, dys


def _offsets(name: str, size: int, deltas: Iterable[int]) -> list[Rule]:
    return [
        _rule(_a(name, v, offset_name(d), v + d))
        for d in sorted(deltas)
        for v in range(size)
        if 0 <= v + d < size
    ]


def _board_rules(game: SbgGame) -> list[Rule]:
    rules = [_rule(_a("role", side)) for side in SIDES]
    rules += [_rule(_a("opponent", "white", "black")), _rule(_a("opponent", "black", "white"))]
    rules += [_rule(_a("xcoord", x)) for x in range(game.width)]
    rules += [_rule(_a("ycoord", y)) for y in range(game.height)]
    pairs = sorted({(owner_of(ch), ch.lower()) for row in game.rows for ch in row if ch != "."})
    rules += [_rule(_a("ptype", side, kind)) for side, kind in pairs]
    rules += [_rule(_a("succ", n, n + 1)) for n in range(game.turn_limit)]
    rules += [_rule(_a("init", _a("cell", x, y, owner_of(ch), ch.lower()))) for x, y, ch in game.pieces()]
    rules += [_rule(_a("init", _a("control", "white"))), _rule(_a("init", _a("step", 0)))]
    return rules


def _base_input_rules() -> list[Rule]:
    return [
        _rule(_a("base", _a("cell", "?x", "?y", "?r", "?t")), _a("xcoord", "?x"), _a("ycoord", "?y"),
              _a("ptype", "?r", "?t")),
        _rule(_a("base", _a("control", "?r")), _a("role", "?r")),
        _rule(_a("base", _a("step", 0))),
        _rule(_a("base", _a("step", "?n")), _a("succ", "?m", "?n")),
        _rule(_a("input", "?r", _a("move", "?x1", "?y1", "?x2", "?y2")), _a("role", "?r"),
              _a("xcoord", "?x1"), _a("ycoord", "?y1"), _a("xcoord", "?x2"), _a("ycoord", "?y2")),
        _rule(_a("input", "?r", "noop"), _a("role", "?r")),
    ]


def _move_rules() -> list[Rule]:
    reach_from = _a("reach", "?r", "?t", "?x0", "?y0", "?i", "?x", "?y")
    reach_to = _a("reach", "?r", "?t", "?x0", "?y0", "?j", "?x2", "?y2")

    def grow(on: str, *test: Literal) -> Rule:
        return _rule(reach_to, reach_from, _a("edge", "?r", "?t", "?i", "?j", "?dx", "?dy", on),
                     _a("offx", "?x", "?dx", "?x2"), _a("offy", "?y", "?dy", "?y2"), *test)

    return [
        _rule(_a("occupied", "?x", "?y"), _true("cell", "?x", "?y", "?o", "?t")),
        _rule(_a("reach", "?r", "?t", "?x", "?y", 0, "?x", "?y"), _true("control", "?r"),
              _true("cell", "?x", "?y", "?r", "?t")),
        grow("e", Not(_a("occupied", "?x2", "?y2"))),
        # One atom per (side, square) keeps the grounding of the two rules below independent of the
        # number of piece types that could stand on the landing square.
        _rule(_a("enemyat", "?r", "?x", "?y"), _true("cell", "?x", "?y", "?o", "?t"), _a("opponent", "?r", "?o")),
        _rule(_a("ownat", "?r", "?x", "?y"), _true("cell", "?x", "?y", "?r", "?t")),
        grow("p", _a("enemyat", "?r", "?x2", "?y2")),
        grow("w", _a("ownat", "?r", "?x2", "?y2")),
        _rule(_a("legal", "?r", _a("move", "?x0", "?y0", "?x", "?y")), reach_from_accepting := _a(
            "reach", "?r", "?t", "?x0", "?y0", "?j", "?x", "?y"), _a("accept", "?r", "?t", "?j")),
        _rule(_a("canmove", "?r"), reach_from_accepting, _a("accept", "?r", "?t", "?j")),
        _rule(_a("legal", "?r", "noop"), _a("role", "?r"), Not(_true("control", "?r"))),
        _rule(_a("touched", "?x", "?y"), _a("does", "?r", _a("move", "?x", "?y", "?x2", "?y2"))),
        _rule(_a("touched", "?x", "?y"), _a("does", "?r", _a("move", "?x0", "?y0", "?x", "?y"))),
        _rule(_a("next", _a("cell", "?x", "?y", "?r", "?t")), _a("does", "?r", _a("move", "?x0", "?y0", "?x", "?y")),
              _true("cell", "?x0", "?y0", "?r", "?t")),
        _rule(_a("next", _a("cell", "?x", "?y", "?o", "?t")), _true("cell", "?x", "?y", "?o", "?t"),
              Not(_a("touched", "?x", "?y"))),
        _rule(_a("next", _a("control", "?o")), _true("control", "?r"), _a("opponent", "?r", "?o")),
        _rule(_a("next", _a("step", "?n")), _true("step", "?m"), _a("succ", "?m", "?n")),
    ]


def _goal_rules(game: SbgGame) -> list[Rule]:
    rules: list[Rule] = []
    needs: set[int] = set()
    count_goals = False
    for goal in game.active_goals():
        kind = goal.letter.lower()
        if isinstance(goal, PlacementGoal):
            rules += [
                _rule(_a("placegoal", goal.owner, kind, x, y))
                for x, y in goal.squares
                if 0 <= x < game.width and 0 <= y < game.height
            ]
        elif isinstance(goal, CaptureGoal) and goal.count == 0:
            rules.append(_rule(_a("goalholds", goal.owner), Not(_a("hasany", owner_of(goal.letter), kind))))
        elif isinstance(goal, CaptureGoal):
            count_goals = True
            needs.add(goal.count + 1)
            rules.append(_rule(_a("countgoal", owner_of(goal.letter), kind, goal.count + 1)))
    if any(rule.head.name == "placegoal" for rule in rules):
        rules.append(_rule(_a("goalholds", "?r"), _a("placegoal", "?r", "?t", "?x", "?y"),
                           _true("cell", "?x", "?y", "?r", "?t")))
    if any(isinstance(goal, CaptureGoal) and goal.count == 0 for goal in game.active_goals()):
        rules.append(_rule(_a("hasany", "?o", "?t"), _true("cell", "?x", "?y", "?o", "?t")))
    if count_goals:
        rules += _count_rules(game, needs)
    blocked = [Not(_a("timeout")), Not(_a("canmove", "?o"))]
    if rules:
        # §7 rules 1 and 2: the player who just moved is tested first.
        rules += [
            _rule(_a("goalwin", "?m"), _true("control", "?o"), _a("opponent", "?o", "?m"), _a("goalholds", "?m")),
            _rule(_a("goalwin", "?o"), _true("control", "?o"), _a("opponent", "?o", "?m"),
                  Not(_a("goalholds", "?m")), _a("goalholds", "?o")),
            _rule(_a("anygoalwin"), _a("goalwin", "?r")),
            _rule(_a("winner", "?r"), _a("goalwin", "?r")),
        ]
        blocked.insert(0, Not(_a("anygoalwin")))
    rules += [
        _rule(_a("timeout"), _true("step", game.turn_limit)),
        _rule(_a("winner", "?m"), _true("control", "?o"), _a("opponent", "?o", "?m"), *blocked),
        _rule(_a("anywinner"), _a("winner", "?r")),
        _rule(_a("terminal"), _a("anywinner")),
        _rule(_a("terminal"), _a("timeout")),
        _rule(_a("goal", "?r", 100), _a("winner", "?r")),
        _rule(_a("goal", "?r", 0), _a("opponent", "?r", "?o"), _a("winner", "?o")),
        _rule(_a("goal", "?r", 50), _a("role", "?r"), Not(_a("anywinner"))),
    ]
    return rules


def _count_rules(game: SbgGame, needs: set[int]) -> list[Rule]:
    """``(enough o t need)``: o has at least ``need`` pieces of type t (squares scanned in order)."""
    squares = [(x, y) for y in range(game.height) for x in range(game.width)]
    last = len(squares)
    rules = [_rule(_a("sqindex", i, x, y)) for i, (x, y) in enumerate(squares, 1)]
    rules += [_rule(_a("prevsq", i, i - 1)) for i in range(1, last + 1)]
    for need in sorted(needs):
        rules += [_rule(_a("cstep", need, m, m + 1)) for m in range(need)]
        rules.append(_rule(_a("cstep", need, need, need)))
    rules += [
        _rule(_a("atleast", "?o", "?t", 0, 0), _a("countgoal", "?o", "?t", "?need")),
        _rule(_a("atleast", "?o", "?t", "?i", "?k"), _a("prevsq", "?i", "?h"), _a("atleast", "?o", "?t", "?h", "?k")),
        _rule(_a("atleast", "?o", "?t", "?i", "?k"), _a("prevsq", "?i", "?h"), _a("sqindex", "?i", "?x", "?y"),
              _true("cell", "?x", "?y", "?o", "?t"), _a("atleast", "?o", "?t", "?h", "?m"),
              _a("countgoal", "?o", "?t", "?need"), _a("cstep", "?need", "?m", "?k")),
        _rule(_a("enough", "?o", "?t", "?need"), _a("countgoal", "?o", "?t", "?need"),
              _a("atleast", "?o", "?t", last, "?need")),
        _rule(_a("goalholds", "?w"), _a("countgoal", "?o", "?t", "?need"), _a("opponent", "?o", "?w"),
              Not(_a("enough", "?o", "?t", "?need"))),
    ]
    return rules


def translate(game: SbgGame) -> Description:
    """The GDL description of ``game``; ``file`` is the SBG file name with ``.kif``."""
    edges, dxs, dys = _steps(game)
    rules = _board_rules(game)
    rules += _base_input_rules()
    rules += _offsets("offx", game.width, dxs)
    rules += _offsets("offy", game.height, dys)
    rules += edges
    rules += _move_rules()
    rules += _goal_rules(game)
    file = game.file[:-4] + ".kif" if game.file.endswith(".sbg") else game.file
    return Description(tuple(rules), file)
