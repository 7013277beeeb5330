"""Canonical KIF writer: lower case, single spaces, one sentence per line, body literals indented.

>>> from ggp.gdl.parser import parse_kif
>>> print(to_kif(parse_kif("(ROLE x)(<= terminal (true (done)))")), end="")
(role x)
(<= terminal
    (true (done)))
"""

from __future__ import annotations

from ggp.gdl.terms import Description, Rule


def rule_to_kif(rule: Rule) -> str:
    """One rule: a fact on one line; a rule with its head first and each body literal below it."""
    if not rule.body and not rule.arrow:
        return str(rule.head)
    if not rule.body:
        return f"(<= {rule.head})"
    body = "\n    ".join(str(literal) for literal in rule.body)
    return f"(<= {rule.head}\n    {body})"


def to_kif(description: Description) -> str:
    """The whole description as KIF text ending in a newline."""
    return "".join(rule_to_kif(rule) + "\n" for rule in description.rules)
