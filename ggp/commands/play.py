"""``ggp play GAME --against SPEC [--as ROLE]``: play any KIF or SBG game in the terminal against any player.

The match is played by the one match loop (:func:`ggp.match.local.play_local`); the person is a
player object, :class:`TerminalPlayer`, that shows the state (a board when the state has one, else
its fluents), numbers the legal moves and reads a choice: the number, the move itself (``(mark 1 1)``
or ``mark 1 1``), or for moves like ``(move 0 1 0 2)`` the squares ``a2a3``. Bad input gets one line
and the question again; ``quit`` or the end of input stops the game. In a GDL-II game the person sees
only their own percepts, never the state or the other roles' moves. Every other role is played by a
registry player (:mod:`ggp.players.registry`: ``random``, ``mcts:iterations=500``, ...); chance by the loop.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ggp.commands._games import DEFAULT_ENGINE, ENGINE_HELP, FORMATS_HELP
from ggp.errors import InputError

if TYPE_CHECKING:
    from ggp.commands._board_text import BoardText
    from ggp.gdl.terms import Term
    from ggp.match.loop import StepInfo
    from ggp.player import Budget
    from ggp.reasoner.machine import Move, Role, State, StateMachine

_ALGEBRAIC = re.compile(r"^([a-z])(\d+)\s*[-x]?\s*([a-z])(\d+)$")
QUIT = frozenset({"quit", "exit", "q"})


def register(subcommands: Any) -> None:
    """Add the ``play`` sub-parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "play", help="play a game in the terminal against any player",
        description="Play a KIF or SBG game in the terminal: the state is shown, the legal moves are numbered; "
        "type a number, the move, or (board moves) squares like a2a3. 'quit' or end of input stops.")
    parser.add_argument("game", metavar="GAME", help=FORMATS_HELP)
    parser.add_argument("--against", action="append", metavar="SPEC",
                        help="the other roles' player (registry spec, e.g. random or mcts:iterations=500; default "
                        "mcts); once for all of them, or once per other role in role order")
    parser.add_argument("--as", dest="role", default=None, metavar="ROLE",
                        help="your role (default the first role that is not chance)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the opponents and of chance")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, help=ENGINE_HELP)
    parser.set_defaults(run=run)


def parse_move(text: str) -> tuple[int, int, int, int] | None:
    """Read 'a2a3' or '0 1 0 2' as (x1, y1, x2, y2), the numbers of a GDL board move; None otherwise.

    >>> parse_move("a2a3"), parse_move("0 1 0 2"), parse_move("z9")
    ((0, 1, 0, 2), (0, 1, 0, 2), None)
    """
    text = text.strip().lower()
    match = _ALGEBRAIC.match(text)
    if match:
        return (ord(match[1]) - ord("a"), int(match[2]) - 1, ord(match[3]) - ord("a"), int(match[4]) - 1)
    parts = text.replace(",", " ").split()
    if len(parts) == 4 and all(part.isdigit() for part in parts):
        x1, y1, x2, y2 = (int(part) for part in parts)
        return (x1, y1, x2, y2)
    return None


def format_move(move: tuple[int, int, int, int]) -> str:
    """(0, 1, 0, 2) -> 'a2a3' (boards up to 26 files)."""
    x1, y1, x2, y2 = move
    return f"{chr(ord('a') + x1)}{y1 + 1}{chr(ord('a') + x2)}{y2 + 1}"


def board_move(move: Term) -> tuple[int, int, int, int] | None:
    """The four numbers of a move like ``(move 0 1 0 2)``, else None."""
    from ggp.gdl.terms import Const, Func

    if isinstance(move, Func) and len(move.args) == 4 and all(
            isinstance(arg, Const) and arg.name.isdigit() for arg in move.args):
        x1, y1, x2, y2 = (int(str(arg)) for arg in move.args)
        return (x1, y1, x2, y2)
    return None


def read_choice(text: str, legal: Sequence[Move]) -> Move:
    """The legal move ``text`` names: a number from 1, the move's text, or squares (a2a3) of a board move.

    Raises :class:`InputError` with one line saying what was expected.

    >>> from ggp.gdl.parser import parse_term
    >>> legal = [parse_term("(move 0 1 0 2)"), parse_term("(move 1 0 0 2)")]
    >>> [str(read_choice(t, legal)) for t in ("2", "(move 0 1 0 2)", "move 1 0 0 2", "a2a3")]
    ['(move 1 0 0 2)', '(move 0 1 0 2)', '(move 1 0 0 2)', '(move 0 1 0 2)']
    >>> read_choice("9", legal)
    Traceback (most recent call last):
    ...
    ggp.errors.InputError: there is no move 9; type a number from 1 to 2
    """
    from ggp.errors import GgpError
    from ggp.gdl.terms import find_move
    from ggp.protocol.messages import parse_reply_move

    text = text.strip()
    if text.isdigit():
        if not 1 <= int(text) <= len(legal):
            raise InputError(f"there is no move {text}; type a number from 1 to {len(legal)}")
        return legal[int(text) - 1]
    squares = parse_move(text)
    if squares is not None:
        found = next((move for move in legal if board_move(move) == squares), None)
        if found is None:
            raise InputError(f"{text!r} is not a legal move now; type a number from 1 to {len(legal)}")
        return found
    try:
        term = parse_reply_move(text if text.startswith("(") or " " not in text else f"({text})")
    except (GgpError, ValueError):
        raise InputError(f"cannot read {text[:60]!r}; type a number from 1 to {len(legal)} or a move") from None
    found = find_move(term, legal)
    if found is None:
        raise InputError(f"{text[:60]!r} is not a legal move now; type a number from 1 to {len(legal)}")
    return found


class Stopped(BaseException):
    """The person ended the game (``quit`` or end of input). A BaseException, so that the match loop,
    which treats a player's Exception as an illegal reply and plays on, lets it through."""


class TerminalPlayer:
    """The person at the terminal as a :class:`~ggp.player.Player` (and a GDL-II player).

    Reads from ``stdin`` and writes to ``stdout``; ``true_state`` gives the match's current state in
    a GDL-II game (the person never sees it; it only yields the legal moves). A forced move (the only
    legal one) is played without asking.
    """

    name = "you"

    def __init__(self, board: BoardText, stdin: TextIO, stdout: TextIO, true_state: Callable[[], State]) -> None:
        self.board = board
        self.stdin = stdin
        self.stdout = stdout
        self.true_state = true_state
        self.machine: StateMachine | None = None
        self.role: Role | None = None

    def _say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        self.machine, self.role = machine, role

    def show(self, state: State) -> None:
        """Print the state: its board (see :mod:`ggp.commands._board_text`) or its fluents."""
        self.board.add(state.facts)
        text = self.board.render(state.facts)
        self._say(text if text is not None else "\n".join(state.sorted_texts()))

    def _ask(self, legal: tuple[Move, ...], turn: str) -> Move:
        if len(legal) == 1:
            return legal[0]
        self._say(f"{turn}: your legal moves")
        labels = []
        for number, move in enumerate(legal, 1):
            squares = board_move(move)
            labels.append(f"{number:>3}) {move}" + (f" {format_move(squares)}" if squares else ""))
        width = max(len(label) for label in labels) + 2
        per_line = max(1, 96 // width)
        for start in range(0, len(labels), per_line):
            self._say("".join(label.ljust(width) for label in labels[start:start + per_line]).rstrip())
        while True:
            print(f"{self.role}> ", end="", file=self.stdout, flush=True)
            line = self.stdin.readline()
            if not line or line.strip().lower() in QUIT:
                raise Stopped
            try:
                return read_choice(line, legal)
            except InputError as exc:
                self._say(str(exc))

    def choose(self, state: State, budget: Budget) -> Move:
        assert self.machine is not None and self.role is not None
        legal = self.machine.legal_moves(state, self.role)
        if len(legal) > 1:
            self._say()
            self.show(state)
        return self._ask(legal, "your move")

    def observe(self, turn: int, last_move: Term | None, percepts: frozenset[Term]) -> None:
        if turn > 0:
            seen = " ".join(sorted(map(str, percepts))) or "nothing"
            self._say(f"turn {turn}: you played {last_move}; you see {seen}")

    def own_legal_moves(self) -> tuple[Move, ...]:
        assert self.machine is not None and self.role is not None
        return self.machine.legal_moves(self.true_state(), self.role)

    def choose_hidden(self, budget: Budget) -> Move:
        return self._ask(self.own_legal_moves(), "your move (you see only your percepts)")

    def stop(self) -> None:
        """Nothing to release."""


def play(game_spec: str, against: Sequence[str], role: str | None, seed: int, engine: str = DEFAULT_ENGINE,
         stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Play ``game_spec`` at the terminal as ``role`` against registry players; returns the exit code (0).

    Raises :class:`InputError` for an unknown role, a wrong number of ``against`` specs or a bad spec.
    """
    from ggp.commands._board_text import BoardText
    from ggp.commands._games import GameMachines, load_game
    from ggp.match.local import Transcript, play_local, refusal
    from ggp.match.rules import CHANCE_ROLE
    from ggp.players.registry import make_player
    from ggp.protocol.messages import uses_sees

    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    game = load_game(game_spec)
    machine = GameMachines.for_self_play(engine).load(game)
    roles = [str(r) for r in machine.roles]
    players_roles = [r for r in roles if r != CHANCE_ROLE]
    role = role or players_roles[0]
    if role not in players_roles:
        raise InputError(f"no role {role!r} to play in {game.name}; choose one of {', '.join(players_roles)}")
    others = [r for r in players_roles if r != role]
    specs = list(against) or ["mcts"]
    if len(specs) == 1:
        specs *= len(others)
    if len(specs) != len(others):
        raise InputError(f"{len(specs)} --against players for {len(others)} other roles ({', '.join(others)}); "
                         "give one for all or one per role")
    gdl2 = uses_sees(game.description)
    for r, spec in zip(others, specs):  # a player that cannot play its role says so before the game starts
        refused = refusal(make_player(spec, seed=seed), machine, roles.index(r), gdl2)
        if refused is not None:
            raise InputError(f"{game.name}: player {spec} cannot play role {r}: {refused}")
    opponents = {r: make_player(spec, seed=seed + i) for i, (r, spec) in enumerate(zip(others, specs))}
    board = BoardText(roles)

    class Narrator(Transcript):
        """Tells the person what the others did (GDL only: in GDL-II they see their percepts instead)."""

        state = machine.initial_state()

        def stepped(self, step: StepInfo) -> None:
            super().stepped(step)
            self.state = step.after
            if not gdl2:
                told = [f"{r} plays {m}" for r, m in zip(roles, step.joint) if r != role and str(m) != "noop"]
                if told:
                    print(f"step {len(self.steps)}: " + ", ".join(told), file=stdout, flush=True)

    narrator = Narrator()
    you = TerminalPlayer(board, stdin, stdout, lambda: narrator.state)
    players = [you if r == role else opponents.get(r) for r in roles]
    described = ", ".join(f"{r} {'(you)' if r == role else specs[others.index(r)] if r in others else '(chance)'}"
                          for r in roles)
    print(f"{game.name}: {described}. Type a number, a move, or squares like a2a3; 'quit' stops.", file=stdout)
    try:
        ending = play_local(machine, players, seed, listener=narrator, gdl2=gdl2)
    except Stopped:
        print("\nstopped.", file=stdout)
        return 0
    if not gdl2 or ending.goals is not None:
        print(file=stdout)
        you.show(narrator.state)
    if ending.goals is None:
        print(f"game over after {ending.steps} steps: {ending.reason} ({ending.detail})", file=stdout)
        return 0
    goals = dict(zip(roles, ending.goals))
    best = max(goals[r] for r in players_roles)
    top = [r for r in players_roles if goals[r] == best]
    verdict = "you won" if top == [role] else "draw" if len(top) > 1 and role in top else "you lost"
    scores = ", ".join(f"{r} {goals[r]}" for r in roles)
    print(f"game over after {ending.steps} steps: {verdict} ({scores})", file=stdout)
    return 0


def run(args: argparse.Namespace) -> int:
    return play(args.game, args.against or [], args.role, args.seed, args.engine)
