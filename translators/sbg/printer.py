"""Write an :class:`~ggp.translators.sbg.model.SbgGame` back as SBG text; ``parse_sbg_syntax(to_sbg(g)) == g``.

>>> from ggp.translators.sbg.parser import parse_sbg_syntax
>>> game = parse_sbg_syntax('<<A>> <BOARD> 1 2 |k| |K| <PIECES> K ((0,1,p)^2)^* + (1,0,e)(0,1,w) & <GOALS> 9 & #k 0 &')
>>> print(to_sbg(game), end="")
<<A>>
<BOARD> 1 2
|k|
|K|
<PIECES>
K ((0,1,p)^2)^* + (1,0,e)(0,1,w) &
<GOALS> 9 &
#k 0 &
"""

from __future__ import annotations

from ggp.translators.sbg.model import Alt, CaptureGoal, Cat, Regex, Rep, SbgGame, Sym


def regex_to_sbg(regex: Regex) -> str:
    """A move expression with just the parentheses needed to read back the same tree."""
    if isinstance(regex, Sym):
        return str(regex.letter)
    if isinstance(regex, Rep):
        inner = regex_to_sbg(regex.child) if isinstance(regex.child, Sym) else f"({regex_to_sbg(regex.child)})"
        return f"{inner}^{'*' if regex.count is None else regex.count}"
    if isinstance(regex, Cat):
        return "".join(
            f"({regex_to_sbg(part)})" if isinstance(part, (Cat, Alt)) else regex_to_sbg(part) for part in regex.parts
        )
    return " + ".join(
        f"({regex_to_sbg(option)})" if isinstance(option, Alt) else regex_to_sbg(option) for option in regex.options
    )


def to_sbg(game: SbgGame) -> str:
    """The game as SBG text ending in a newline (comments are not kept)."""
    lines = [f"<<{game.name}>>", f"<BOARD> {game.width} {game.height}"]
    lines += [f"|{row}|" for row in game.rows]
    lines.append("<PIECES>")
    lines += [f"{rule.letter} {regex_to_sbg(rule.regex)} &" for rule in game.rules]
    lines.append(f"<GOALS> {game.turn_limit} &")
    for goal in game.goals:
        if isinstance(goal, CaptureGoal):
            lines.append(f"#{goal.letter} {goal.count} &")
        else:
            squares = ", ".join(f"{x} {y}" for x, y in goal.squares)
            lines.append(f"@{goal.letter} {squares} &")
    return "\n".join(lines) + "\n"
