"""KIF reader: text -> s-expressions (lark) -> GDL rules.

lark tokenises and checks the bracket structure; the step from s-expressions to rules is plain
Python, so every problem gets one message with a ``file:line:column`` position. Reading is bounded:
input size and nesting depth have limits, so hostile input cannot hang the process or exhaust the
stack.

>>> description = parse_kif("(role x) (<= (legal x (Mark ?C)) (true (Cell ?C)))")
>>> [str(rule) for rule in description.rules]
['(role x)', '(<= (legal x (mark ?c)) (true (cell ?c)))']
>>> parse_term("( move 1 1 )")
(move 1 1)
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import lark

from ggp.errors import GdlSyntaxError, SourcePos
from ggp.gdl.terms import (
    KEYWORDS,
    RESERVED,
    Atom,
    Const,
    Description,
    Distinct,
    Func,
    Literal,
    Not,
    Or,
    ParseNote,
    Rule,
    Term,
    Var,
)

log = logging.getLogger(__name__)

MAX_CHARS = 4_000_000
"""Longest text accepted by default. The largest real games are well under 1 MB (ggp.org corpus: 46 KB;
a translated 8x8 SBG game: about 20 KB); parsing runs at roughly 0.5 MB per CPU second, so the limit
keeps the worst accepted input to seconds rather than minutes."""

MAX_DEPTH = 200
"""Deepest bracket nesting accepted by default (real games stay below 20)."""

_GRAMMAR = r"""
start: _item*
_item: WORD | VAR | list
list: LPAR _item* RPAR
LPAR: "("
RPAR: ")"
VAR: /\?[^\s();]*/
WORD: /[^\s();?][^\s();]*/
COMMENT: /;[^\n]*/
%ignore COMMENT
%ignore /[ \t\r\n\f\v]+/
"""


@dataclass(frozen=True, slots=True)
class Word:
    """A word token: ``text`` as written, ``pos`` where it starts."""

    text: str
    pos: SourcePos

    @property
    def is_var(self) -> bool:
        return self.text.startswith("?")


@dataclass(frozen=True, slots=True)
class SList:
    """A bracketed list of s-expressions."""

    items: tuple[SExpr, ...]
    pos: SourcePos
    depth: int


SExpr = Word | SList


class _Builder(lark.Transformer[lark.Token, list["SExpr"]]):
    """Builds s-expressions while lark reduces, so no parse tree is kept."""

    def __init__(self, file: str, max_depth: int) -> None:
        super().__init__()
        self.aim(file, max_depth)

    def aim(self, file: str, max_depth: int) -> None:
        self._file = file
        self._max_depth = max_depth

    def _word(self, token: lark.Token) -> Word:
        return Word(str(token), SourcePos(self._file, token.line or 0, token.column or 0))

    def start(self, children: list[Any]) -> list[SExpr]:
        return [self._wrap(child) for child in children]

    def list(self, children: list[Any]) -> SList:
        lpar = children[0]
        items = tuple(self._wrap(child) for child in children[1:-1])
        depth = 1 + max((item.depth for item in items if isinstance(item, SList)), default=0)
        pos = SourcePos(self._file, lpar.line, lpar.column)
        if depth > self._max_depth:
            raise _TooDeep(pos)
        return SList(items, pos, depth)

    def _wrap(self, child: Any) -> SExpr:
        return self._word(child) if isinstance(child, lark.Token) else child


class _TooDeep(Exception):
    def __init__(self, pos: SourcePos) -> None:
        self.pos = pos


_LOCAL = threading.local()


def _parser_for(file: str, max_depth: int) -> lark.Lark:
    """One compiled parser per thread; its builder is re-aimed at each call's file."""
    cached: tuple[lark.Lark, _Builder] | None = getattr(_LOCAL, "parser", None)
    if cached is None:
        builder = _Builder(file, max_depth)
        cached = (lark.Lark(_GRAMMAR, parser="lalr", lexer="basic", transformer=builder), builder)
        _LOCAL.parser = cached
    cached[1].aim(file, max_depth)
    return cached[0]


def read_sexprs(
    text: str, file: str = "<string>", *, max_chars: int = MAX_CHARS, max_depth: int = MAX_DEPTH
) -> list[SExpr]:
    """Read KIF text into s-expressions.

    Raises :class:`GdlSyntaxError` for binary or oversized input, unbalanced brackets, stray
    characters and nesting deeper than ``max_depth``.
    """
    if len(text) > max_chars:
        raise GdlSyntaxError(
            f"input has {len(text):,} characters, more than the limit of {max_chars:,}",
            SourcePos(file, 1, 1),
        )
    nul = text.find("\x00")
    if nul >= 0:
        raise GdlSyntaxError("binary data (a NUL byte) is not KIF text", _pos_at(text, nul, file))
    parser = _parser_for(file, max_depth)
    try:
        result = cast(list[SExpr], parser.parse(text))
    except _TooDeep as exc:
        raise GdlSyntaxError(f"brackets nested deeper than the limit of {max_depth}", exc.pos) from None
    except lark.UnexpectedCharacters as exc:
        bad = text[exc.pos_in_stream] if exc.pos_in_stream is not None else "?"
        raise GdlSyntaxError(
            f"unexpected character {bad!r}", SourcePos(file, exc.line, exc.column)
        ) from None
    except lark.UnexpectedEOF:
        raise GdlSyntaxError("unbalanced '(': this list is never closed", _unclosed(text, file)) from None
    except lark.UnexpectedToken as exc:
        if exc.token.type == "$END":
            raise GdlSyntaxError(
                "unbalanced '(': this list is never closed", _unclosed(text, file)
            ) from None
        raise GdlSyntaxError(
            f"unexpected {str(exc.token)!r}: no '(' to close",
            SourcePos(file, exc.token.line or 0, exc.token.column or 0),
        ) from None
    except lark.LarkError as exc:  # pragma: no cover - lark raises the subclasses above
        raise GdlSyntaxError(f"cannot read KIF: {exc}", SourcePos(file, 1, 1)) from None
    return result


def _pos_at(text: str, offset: int, file: str) -> SourcePos:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return SourcePos(file, line, column)


def _unclosed(text: str, file: str) -> SourcePos:
    """Position of the last '(' left open at the end of ``text`` (comments skipped)."""
    stack: list[int] = []
    in_comment = False
    for offset, char in enumerate(text):
        if in_comment:
            in_comment = char != "\n"
        elif char == ";":
            in_comment = True
        elif char == "(":
            stack.append(offset)
        elif char == ")" and stack:
            stack.pop()
    return _pos_at(text, stack[-1] if stack else len(text), file)


class _Converter:
    """Turns s-expressions into terms and rules, collecting parse notes.

    Names are held lower-case (GDL ignores case), except with ``case_sensitive``, where only the
    keywords and ``not``/``or``/``distinct`` are, as in ggp-base.
    """

    def __init__(self, case_sensitive: bool = False) -> None:
        self.case_sensitive = case_sensitive
        self.notes: list[ParseNote] = []
        self._spellings: dict[str, dict[str, SourcePos]] = {}
        self._parenthesised: set[str] = set()
        """Names written as ``(name)`` with no arguments: read as the constant, written back with parentheses."""

    def name(self, word: Word) -> str:
        lowered = word.text.lower()
        if lowered != word.text or lowered in self._spellings:
            self._spellings.setdefault(lowered, {}).setdefault(word.text, word.pos)
        else:
            self._spellings[lowered] = {word.text: word.pos}
        if self.case_sensitive and lowered not in KEYWORDS and lowered not in RESERVED:
            return word.text
        return lowered

    def spelling_table(self) -> tuple[tuple[str, str], ...]:
        """(name, first spelling in the source) for the names written with capitals somewhere, and
        ``(name, "(Spelling)")`` for names written as ``(name)`` with no arguments (ggp-base keeps those
        as zero-argument functions, so a move must be answered in that form)."""
        table: list[tuple[str, str]] = []
        if self.case_sensitive:
            return ()  # names are held as written: nothing to map back
        for name, spellings in self._spellings.items():
            first = min(spellings, key=lambda s: (spellings[s].line, spellings[s].column))
            if name in self._parenthesised:
                table.append((name, f"({first})"))
            elif first != name:
                table.append((name, first))
        return tuple(sorted(table))

    def capitalisation_notes(self) -> list[ParseNote]:
        notes = []
        for name, spellings in self._spellings.items():
            if len(spellings) > 1:
                first = min(spellings.values(), key=lambda pos: (pos.line, pos.column))
                shown = ", ".join(repr(s) for s in sorted(spellings))
                notes.append(
                    ParseNote("capitalisation", f"{name!r} is written in several ways: {shown}", first)
                )
        return notes

    def head_word(self, item: SList, what: str) -> Word:
        if not item.items:
            raise GdlSyntaxError(f"empty list '()' where {what} was expected", item.pos)
        head = item.items[0]
        if isinstance(head, SList):
            raise GdlSyntaxError(
                f"a list cannot name a relation or function; expected a word in {what}", head.pos
            )
        if head.is_var:
            raise GdlSyntaxError(f"variable {head.text!r} used as a relation or function name", head.pos)
        if head.text == "<=":
            raise GdlSyntaxError(f"'<=' inside {what}; rules cannot be nested", head.pos)
        return head

    def term(self, item: SExpr) -> Term:
        if isinstance(item, Word):
            if item.is_var:
                return self.var(item)
            if item.text == "<=":
                raise GdlSyntaxError("'<=' used as a term", item.pos)
            return Const(self.name(item))
        head = self.head_word(item, "a term")
        args = tuple(self.term(arg) for arg in item.items[1:])
        if not args:
            self._zero_args(head)
        return Func(self.name(head), args)

    def var(self, word: Word) -> Var:
        if word.text == "?":
            raise GdlSyntaxError("'?' must be followed by a variable name", word.pos)
        return Var(word.text[1:] if self.case_sensitive else word.text[1:].lower())

    def atom(self, item: SExpr, what: str) -> Atom:
        if isinstance(item, Word):
            if item.is_var:
                raise GdlSyntaxError(f"variable {item.text!r} cannot stand as {what}", item.pos)
            if item.text == "<=":
                raise GdlSyntaxError(f"'<=' cannot stand as {what}", item.pos)
            return Const(self.name(item))
        head = self.head_word(item, what)
        args = tuple(self.term(arg) for arg in item.items[1:])
        if not args:
            self._zero_args(head)
        return Func(self.name(head), args)

    def literal(self, item: SExpr) -> Literal:
        if isinstance(item, SList) and item.items and isinstance(item.items[0], Word):
            keyword = item.items[0].text.lower()
            args = item.items[1:]
            if keyword == "not" and len(args) == 1:
                self.name(item.items[0])
                return Not(self.literal(args[0]))
            if keyword == "distinct" and len(args) == 2:
                self.name(item.items[0])
                return Distinct(self.term(args[0]), self.term(args[1]))
            if keyword == "or":
                self.name(item.items[0])
                return Or(tuple(self.literal(arg) for arg in args))
        return self.atom(item, "a literal")

    def sentence(self, item: SExpr) -> Rule:
        if isinstance(item, SList) and item.items and isinstance(item.items[0], Word) and (
            item.items[0].text == "<="
        ):
            if len(item.items) < 2:
                raise GdlSyntaxError("'<=' rule without a head", item.pos)
            head = self.atom(item.items[1], "a rule head")
            body = tuple(self.literal(lit) for lit in item.items[2:])
            return Rule(head, body, item.pos, arrow=True)
        pos = item.pos
        return Rule(self.atom(item, "a sentence"), (), pos)

    def _zero_args(self, head: Word) -> None:
        self._parenthesised.add(head.text.lower())
        self.notes.append(
            ParseNote(
                "zero-arity-parens",
                f"'({head.text})' has no arguments; write the bare name {head.text.lower()!r}",
                head.pos,
            )
        )


def _words(item: SExpr) -> Iterator[Word]:
    stack = [item]
    while stack:
        node = stack.pop()
        if isinstance(node, Word):
            yield node
        else:
            stack.extend(reversed(node.items))


def case_merges(items: list[SExpr]) -> tuple[tuple[str, ...], ...]:
    """The spellings that folding case would merge into one symbol: names (keywords and ``not``/``or``/
    ``distinct`` aside, which ignore case in every reader) written in several ways anywhere; each group
    sorted, in source order.

    Variables are not symbols: ``?X`` and ``?x`` in one rule are one variable in GDL, and such a rule is
    nearly always a typo of its author's (the seed game's ``?otherPlayer``/``?otherplayer``, whose known
    values hold only when they are one), so they alone never switch a game to case-sensitive reading.

    >>> case_merges(read_sexprs("(type t2 VerticalTerrorist) (<= (p ?X) (verticalTerrorist ?x) (ROLE r))"))
    (('VerticalTerrorist', 'verticalTerrorist'),)
    """
    names: dict[str, dict[str, None]] = {}
    for item in items:
        for word in _words(item):
            lowered = word.text.lower()
            if not word.is_var and lowered not in KEYWORDS and lowered not in RESERVED:
                names.setdefault(lowered, {})[word.text] = None
    return tuple(tuple(sorted(spellings)) for spellings in names.values() if len(spellings) > 1)


_WARNED: set[int] = set()
"""Hashes of the games warned about: one line per game and process, however often it is read (a file,
then the START message of an in-process player: rules compare without their positions)."""
_WARNED_LOCK = threading.Lock()


def _warn_case_sensitive(file: str, merges: tuple[tuple[str, ...], ...], rules: tuple[Rule, ...]) -> None:
    """The one warning line of a game read case-sensitively because folding would merge ``merges``."""
    with _WARNED_LOCK:
        first = hash(rules) not in _WARNED
        _WARNED.add(hash(rules))
    if first:
        shown = "; ".join(" and ".join(repr(spelling) for spelling in group) for group in merges[:3])
        more = f" (and {len(merges) - 3} more)" if len(merges) > 3 else ""
        log.warning("%s: names read case-sensitively, as ggp-base reads them: folding case would merge %s%s "
                    "(--fold-case, or case_sensitive=False, reads them as one, as GDL says)", file, shown, more)


def description_from_sexprs(
    items: list[SExpr], file: str = "<string>", *, case_sensitive: bool | None = None
) -> Description:
    """Convert already-read s-expressions (e.g. the rules inside a START message) into rules;
    ``case_sensitive`` as in :func:`parse_kif`."""
    merges = case_merges(items) if case_sensitive is None else ()
    as_written = bool(merges) if case_sensitive is None else case_sensitive
    converter = _Converter(as_written)
    rules = tuple(converter.sentence(item) for item in items)
    if merges:
        _warn_case_sensitive(file, merges, rules)
    notes = tuple(converter.notes + converter.capitalisation_notes())
    return Description(rules, file, notes, converter.spelling_table(), as_written)


def parse_kif(
    text: str,
    file: str = "<string>",
    *,
    max_chars: int = MAX_CHARS,
    max_depth: int = MAX_DEPTH,
    case_sensitive: bool | None = None,
) -> Description:
    """Parse a whole game description.

    With ``case_sensitive=False`` names are compared case-insensitively, as GDL says: they are held
    lower-case (the source's spelling is kept in ``Description.spellings``). With ``True`` they are held
    as written and ``Cell`` and ``cell`` are two names, as in ggp-base (only the GDL keywords and
    ``not``/``or``/``distinct`` ignore case); variables keep their case too. The default, ``None``,
    folds case unless that would merge two symbols the text writes apart (:func:`case_merges`): then
    the two readings are two different games, and the text is read case-sensitively, as ggp-base (the
    reference every trace was recorded with) reads it, with one warning line saying so. Raises
    :class:`GdlSyntaxError` (a ``ValueError``) with a position for anything that is not well-formed
    KIF, including an empty description.

    >>> [str(rule) for rule in parse_kif("(ROLE x) (Cell A)").rules]
    ['(role x)', '(cell a)']
    >>> [str(rule) for rule in parse_kif("(ROLE x) (Cell A)", case_sensitive=True).rules]
    ['(role x)', '(Cell A)']
    >>> [str(rule) for rule in parse_kif("(role x) (Cell A) (cell a)").rules]  # two facts, not one
    ['(role x)', '(Cell A)', '(cell a)']
    """
    items = read_sexprs(text, file, max_chars=max_chars, max_depth=max_depth)
    if not items:
        raise GdlSyntaxError("empty description: no sentences found", SourcePos(file, 1, 1))
    return description_from_sexprs(items, file, case_sensitive=case_sensitive)


def sexpr_to_term(item: SExpr) -> Term:
    """Convert one s-expression into a term (lower-cased)."""
    return _Converter().term(item)


QUICK_MAX_CHARS = 256
"""Longest text :func:`quick_term` reads itself (a move of a real game is well under 100 characters)."""

_QUICK_TEXT = re.compile(r"[ \t\r\n()!-'*-:<->@-~]+")
"""Spaces, tabs, line breaks, brackets and printable ASCII other than ``;`` (a comment) and ``?`` (a
variable): text made only of these has no comment, variable, NUL or other control character."""

_QUICK_TOKEN = re.compile(r"[()]|[^ \t\r\n()]+")


def quick_term(text: str) -> Term | None:
    """The one ground term ``text`` holds, read without lark (about ten times faster on a short move),
    or ``None`` when the text is not a plain case of one: longer than :data:`QUICK_MAX_CHARS`, a comment,
    a variable, any character but printable ASCII and space, tab or line break, an empty list, a list or
    ``<=`` where a name goes, unbalanced brackets, or more or fewer than one term.

    Where it answers, the answer equals :func:`parse_term`'s (a property test holds it to that); for
    ``None`` ask :func:`parse_term`, which then gives the error and its position, or the term.

    >>> quick_term(" ( MARK 1  1 ) "), quick_term("noop"), quick_term("(mark ?x 1)"), quick_term("(a) b")
    ((mark 1 1), noop, None, None)
    """
    if len(text) > QUICK_MAX_CHARS or _QUICK_TEXT.fullmatch(text) is None:
        return None
    tokens = _QUICK_TOKEN.findall(text)
    if len(tokens) == 1:
        word = tokens[0]
        return None if word in ("(", ")", "<=") else Const(word.lower())
    if not tokens or tokens[0] != "(" or tokens[-1] != ")":
        return None
    heads: list[str] = []
    args: list[list[Term]] = []
    last = len(tokens) - 1
    for index, token in enumerate(tokens):
        if token == "(":
            if len(heads) == MAX_DEPTH:
                return None
            heads.append("")
            args.append([])
        elif token == ")":
            if not heads or not heads[-1]:  # unbalanced, or '()'
                return None
            term = Func(heads.pop(), tuple(args.pop()))
            if not heads:
                return term if index == last else None  # a second term follows
            args[-1].append(term)
        elif token == "<=" or not heads:
            return None
        elif not heads[-1]:
            if args[-1]:  # a list where the name goes
                return None
            heads[-1] = token.lower()
        else:
            args[-1].append(Const(token.lower()))
    return None


def parse_term(text: str, file: str = "<string>") -> Term:
    """Parse exactly one term, e.g. a move sent over the protocol."""
    items = read_sexprs(text, file)
    if len(items) != 1:
        raise GdlSyntaxError(f"expected exactly one term, found {len(items)}", SourcePos(file, 1, 1))
    return sexpr_to_term(items[0])


def parse_literal(text: str, file: str = "<string>") -> Literal:
    """Parse exactly one literal (used by tests and tools)."""
    items = read_sexprs(text, file)
    if len(items) != 1:
        raise GdlSyntaxError(f"expected exactly one literal, found {len(items)}", SourcePos(file, 1, 1))
    return _Converter().literal(items[0])
