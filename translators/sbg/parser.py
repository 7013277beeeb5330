"""Read SBG text (spec sbg.md §2) into an :class:`~ggp.translators.sbg.model.SbgGame`.

Syntax errors and the §8 errors raise :class:`~ggp.errors.SbgError` with the line and column of the
offending text; the §8 warnings are returned on ``game.warnings``.

>>> game = parse_sbg('''<<Tiny>> <BOARD> 2 2 |k.| |K.|
... <PIECES> K (1,0,e) + (0,1,p) & <GOALS> 10 & #k 0 & #K 0 &''')
>>> game.width, game.height, game.cell(0, 0), game.turn_limit
(2, 2, 'K', 10)
"""

from __future__ import annotations

from dataclasses import dataclass

from ggp.errors import SbgError, SourcePos
from ggp.translators.sbg.model import (
    Alt,
    CaptureGoal,
    Cat,
    Goal,
    Letter,
    On,
    PieceRule,
    PlacementGoal,
    Regex,
    Rep,
    SbgGame,
    Sym,
)

MAX_CHARS = 1_000_000
MAX_SIDE = 64
MAX_DEPTH = 100
MAX_LETTERS = 5_000
"""Upper bound on the letters of one rule once ``^n`` is unrolled (keeps NFAs and GDL small)."""

_DIGITS = frozenset("0123456789")
_KEYWORDS = ("<BOARD>", "<PIECES>", "<GOALS>", "<<", ">>")
_SINGLE = "|.()+,^*&@#-"


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "kw", "num", "letter", "sym", "name", "eof"
    text: str
    pos: SourcePos


class _Lexer:
    """Splits text into tokens, skipping whitespace and both comment styles."""

    def __init__(self, text: str, file: str) -> None:
        self.text, self.file = text, file
        self.i, self.line, self.col = 0, 1, 1

    def _pos(self) -> SourcePos:
        return SourcePos(self.file, self.line, self.col)

    def _advance(self, n: int) -> None:
        for ch in self.text[self.i : self.i + n]:
            if ch == "\n":
                self.line, self.col = self.line + 1, 1
            else:
                self.col += 1
        self.i += n

    def _skip(self) -> None:
        text = self.text
        while self.i < len(text):
            if text[self.i].isspace():
                self._advance(1)
            elif text.startswith("//", self.i):
                end = text.find("\n", self.i)
                self._advance((len(text) if end < 0 else end) - self.i)
            elif text.startswith("/*", self.i):
                start = self._pos()
                end = text.find("*/", self.i + 2)
                if end < 0:
                    raise SbgError("unterminated '/*' comment", start)
                self._advance(end + 2 - self.i)
            else:
                return

    def tokens(self) -> list[_Token]:
        result: list[_Token] = []
        text = self.text
        while True:
            self._skip()
            pos = self._pos()
            if self.i >= len(text):
                result.append(_Token("eof", "", pos))
                return result
            if text.startswith("<<", self.i):
                # The name is raw text up to ">>" (letters, digits and spaces).
                end = text.find(">>", self.i + 2)
                if end < 0:
                    raise SbgError("unterminated game name: expected '>>'", pos)
                result.append(_Token("kw", "<<", pos))
                self._advance(2)
                name_pos = self._pos()
                name = text[self.i : end]
                if not name.strip():
                    raise SbgError("the game name between '<<' and '>>' is empty", name_pos)
                bad = next((ch for ch in name if not (ch.isascii() and (ch.isalnum() or ch == " "))), None)
                if bad is not None:
                    raise SbgError(f"game names hold letters, digits and spaces only, not {bad!r}", name_pos)
                result.append(_Token("name", name, name_pos))
                self._advance(end - self.i)
                result.append(_Token("kw", ">>", self._pos()))
                self._advance(2)
                continue
            kw = next((k for k in _KEYWORDS if text.startswith(k, self.i)), None)
            ch = text[self.i]
            if kw is not None:
                result.append(_Token("kw", kw, pos))
                self._advance(len(kw))
            elif ch in _DIGITS:  # ASCII only: str.isdigit() accepts '⓹', which int() refuses
                j = self.i
                while j < len(text) and text[j] in _DIGITS:
                    j += 1
                if j - self.i > 9:
                    raise SbgError(f"number {text[self.i:j]!r} is too large", pos)
                result.append(_Token("num", text[self.i : j], pos))
                self._advance(j - self.i)
            elif ch.isascii() and ch.isalpha():
                result.append(_Token("letter", ch, pos))
                self._advance(1)
            elif ch in _SINGLE:
                result.append(_Token("sym", ch, pos))
                self._advance(1)
            else:
                what = "section keyword" if ch == "<" else "character"
                raise SbgError(f"unexpected {what} {text[self.i:self.i + 8].split()[0]!r}", pos)


def _describe(token: _Token) -> str:
    return "end of file" if token.kind == "eof" else repr(token.text)


class _Parser:
    def __init__(self, tokens: list[_Token], file: str) -> None:
        self.tokens, self.k, self.file = tokens, 0, file
        self.depth = 0

    @property
    def tok(self) -> _Token:
        return self.tokens[self.k]

    def next(self) -> _Token:
        token = self.tokens[self.k]
        if token.kind != "eof":
            self.k += 1
        return token

    def fail(self, expected: str, token: _Token | None = None) -> SbgError:
        token = token or self.tok
        return SbgError(f"expected {expected}, found {_describe(token)}", token.pos)

    def is_sym(self, text: str) -> bool:
        return self.tok.kind == "sym" and self.tok.text == text

    def expect_sym(self, text: str, what: str | None = None) -> _Token:
        if not self.is_sym(text):
            raise self.fail(what or repr(text))
        return self.next()

    def expect_kw(self, kw: str) -> _Token:
        if self.tok.kind == "kw" and self.tok.text == kw:
            return self.next()
        if kw.startswith("<") and kw.endswith(">") and len(kw) > 2:
            raise SbgError(f"missing section {kw!r} (found {_describe(self.tok)})", self.tok.pos)
        raise self.fail(repr(kw))

    def nat(self, what: str) -> tuple[int, SourcePos]:
        if self.tok.kind != "num":
            raise self.fail(what)
        token = self.next()
        return int(token.text), token.pos

    def integer(self, what: str) -> int:
        if self.is_sym("-"):
            self.next()
            return -self.nat(what)[0]
        return self.nat(what)[0]

    # --- sections ---------------------------------------------------------------------------

    def game(self) -> SbgGame:
        self.expect_kw("<<")
        name_token = self.next()
        self.expect_kw(">>")
        self.expect_kw("<BOARD>")
        width, height, rows = self.board()
        self.expect_kw("<PIECES>")
        rules = self.pieces()
        self.expect_kw("<GOALS>")
        if self.tok.kind != "num":
            raise SbgError(
                f"expected the turn limit after '<GOALS>' (a game without one never ends), found {_describe(self.tok)}",
                self.tok.pos,
            )
        limit, limit_pos = self.nat("the turn limit")
        if limit < 1:
            raise SbgError(f"turn limit must be at least 1, not {limit}", limit_pos)
        self.expect_sym("&", "'&' after the turn limit")
        goals = self.goals()
        if self.tok.kind != "eof":
            raise self.fail("a goal ('@' or '#') or end of file")
        return SbgGame(name_token.text, width, height, rows, rules, limit, goals, self.file)

    def board(self) -> tuple[int, int, tuple[str, ...]]:
        width, wpos = self.nat("the board width")
        height, hpos = self.nat("the board height")
        if not 1 <= width <= MAX_SIDE:
            raise SbgError(f"board width must be 1..{MAX_SIDE}, not {width}", wpos)
        if not 1 <= height <= MAX_SIDE:
            raise SbgError(f"board height must be 1..{MAX_SIDE}, not {height}", hpos)
        rows: list[str] = []
        while self.is_sym("|"):
            start = self.next()
            cells: list[str] = []
            while not self.is_sym("|"):
                token = self.tok
                if token.kind == "letter" or (token.kind == "sym" and token.text == "."):
                    cells.append(self.next().text)
                elif token.kind in ("eof", "kw"):
                    raise SbgError(f"row {len(rows) + 1} is not closed with '|'", start.pos)
                else:
                    raise SbgError(
                        f"unknown piece letter {token.text!r}: cells are '.' or letters A-Z, a-z", token.pos
                    )
            self.next()
            if len(cells) != width:
                raise SbgError(f"row {len(rows) + 1} has {len(cells)} cells but the board width is {width}", start.pos)
            rows.append("".join(cells))
        if len(rows) != height:
            raise SbgError(f"board has {len(rows)} rows but its height is {height}", hpos)
        return width, height, tuple(rows)

    def pieces(self) -> tuple[PieceRule, ...]:
        rules: list[PieceRule] = []
        seen: dict[str, SourcePos] = {}
        while self.tok.kind == "letter":
            token = self.next()
            if not token.text.isupper():
                raise SbgError(
                    f"unknown piece letter {token.text!r}: rules are written with the upper-case letter", token.pos
                )
            if token.text in seen:
                first = seen[token.text]
                raise SbgError(
                    f"two rules for piece {token.text!r} (the first is at line {first.line})", token.pos
                )
            seen[token.text] = token.pos
            regex = self.regex()
            self.expect_sym("&", "'+', a letter '(dx,dy,on)' or '&' ending the rule")
            if _unrolled_letters(regex) > MAX_LETTERS:
                raise SbgError(f"rule for {token.text!r} has more than {MAX_LETTERS} letters once unrolled", token.pos)
            rules.append(PieceRule(token.text, regex, token.pos))
        if self.tok.kind not in ("kw", "eof"):
            raise self.fail("a piece letter A-Z or '<GOALS>'")
        return tuple(rules)

    def goals(self) -> tuple[Goal, ...]:
        goals: list[Goal] = []
        while self.is_sym("@") or self.is_sym("#"):
            mark = self.next()
            if self.tok.kind != "letter":
                raise self.fail("a piece letter after " + repr(mark.text))
            letter = self.next().text
            if mark.text == "#":
                count, _ = self.nat("the number of pieces left")
                goals.append(CaptureGoal(letter, count, mark.pos))
            else:
                squares = [self.square()]
                while self.is_sym(","):
                    self.next()
                    squares.append(self.square())
                goals.append(PlacementGoal(letter, tuple(squares), mark.pos))
            self.expect_sym("&", "'&' ending the goal")
        return tuple(goals)

    def square(self) -> tuple[int, int]:
        x, _ = self.nat("a square 'x y'")
        y, _ = self.nat("the y coordinate of a square")
        return x, y

    # --- regular expressions ----------------------------------------------------------------

    def regex(self) -> Regex:
        options = [self.concat()]
        while self.is_sym("+"):
            self.next()
            options.append(self.concat())
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def concat(self) -> Regex:
        parts = [self.factor()]
        while self.is_sym("("):
            parts.append(self.factor())
        return parts[0] if len(parts) == 1 else Cat(tuple(parts))

    def factor(self) -> Regex:
        if not self.is_sym("("):
            raise self.fail("a letter '(dx,dy,on)' or '('")
        open_token = self.next()
        base: Regex
        if self.is_sym("-") or self.tok.kind == "num":
            base = Sym(self.letter(open_token))
        elif self.is_sym("("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise SbgError(f"move expression nested deeper than {MAX_DEPTH} parentheses", open_token.pos)
            base = self.regex()
            self.depth -= 1
            if not self.is_sym(")"):
                if self.tok.kind in ("eof", "kw") or self.is_sym("&"):
                    raise SbgError(f"unbalanced brackets: '(' is never closed (found {_describe(self.tok)})", open_token.pos)
                raise self.fail("')' or '+'")
            self.next()
        else:
            raise SbgError(f"malformed move letter: expected '(dx,dy,on)' or '(' after '(', found {_describe(self.tok)}",
                           self.tok.pos)
        powers = 0
        while self.is_sym("^"):
            caret = self.next()
            powers += 1
            if powers > MAX_DEPTH:
                raise SbgError(f"more than {MAX_DEPTH} powers in a row", caret.pos)
            if self.is_sym("*"):
                self.next()
                base = Rep(base, None)
            elif self.tok.kind == "num":
                count, pos = self.nat("a count")
                if count == 0:
                    raise SbgError("'^0' is not allowed: a power needs n >= 1 (or '^*')", pos)
                base = Rep(base, count)
            else:
                raise SbgError(f"expected a count or '*' after '^', found {_describe(self.tok)}", caret.pos)
        return base

    def letter(self, open_token: _Token) -> Letter:
        def bad(what: str) -> SbgError:
            return SbgError(f"malformed move letter: expected {what}, found {_describe(self.tok)}", self.tok.pos)

        if not (self.is_sym("-") or self.tok.kind == "num"):
            raise bad("an integer dx")
        dx = self.integer("dx")
        if not self.is_sym(","):
            raise bad("',' after dx")
        self.next()
        if not (self.is_sym("-") or self.tok.kind == "num"):
            raise bad("an integer dy")
        dy = self.integer("dy")
        if not self.is_sym(","):
            raise bad("',' after dy")
        self.next()
        if self.tok.kind != "letter" or self.tok.text not in ("e", "p", "w"):
            raise bad("'e', 'p' or 'w'")
        on: On = self.next().text  # type: ignore[assignment]
        if not self.is_sym(")"):
            if self.tok.kind in ("eof", "kw") or self.is_sym("&"):
                raise SbgError("unbalanced brackets: '(' of a letter is never closed", open_token.pos)
            raise bad("')' closing the letter")
        self.next()
        return Letter(dx, dy, on)


def _unrolled_letters(regex: Regex) -> int:
    if isinstance(regex, Sym):
        return 1
    if isinstance(regex, Rep):
        return _unrolled_letters(regex.child) * (regex.count or 1)
    children = regex.parts if isinstance(regex, Cat) else regex.options
    return sum(_unrolled_letters(child) for child in children)


def parse_sbg_syntax(text: str, file: str = "<string>") -> SbgGame:
    """Parse the text only (no §8 semantic checks, no warnings); raises SbgError for syntax errors."""
    if len(text) > MAX_CHARS:
        raise SbgError(f"file has {len(text):,} characters, more than the limit of {MAX_CHARS:,}", SourcePos(file, 1, 1))
    tokens = _Lexer(text, file).tokens()
    parser = _Parser(tokens, file)
    # Stray ')' anywhere shows up as an unexpected token; report it as unbalanced.
    try:
        return parser.game()
    except SbgError as exc:
        token = parser.tok
        if token.kind == "sym" and token.text == ")" and exc.pos == token.pos:
            raise SbgError("unbalanced brackets: ')' without a matching '('", token.pos) from None
        raise


def parse_sbg(text: str, file: str = "<string>") -> SbgGame:
    """Parse SBG text and run the §8 checks.

    Raises :class:`SbgError` (a ``ValueError``) with a line and column for every §8 error; the
    warnings are on the returned game's ``warnings``.
    """
    from ggp.translators.sbg.checks import check_game

    return check_game(parse_sbg_syntax(text, file))
