"""UpgradingMachine: play at once on the machine that builds fast, switch to the compiled circuit when
its build finishes in the background.

A player must answer START within the start clock and then play well. Grounding once with clingo
takes a fraction of a second on most games, but its queries are 50-100x slower than the compiled
circuit's (MCTS on breakthrough: about 40 iterations a second against 5,000), while compiling the
circuit can take longer than the start clock (checkers: 8-17 s). So the player server builds the
quick machine, answers, and compiles the circuit in a daemon thread; every question goes to whichever
machine is current, and the switch is one reference assignment. States, moves and roles are the same
terms on both machines (the conformance tests check that every engine agrees), so a state the quick
machine made is a valid question for the circuit, and a search tree built before the switch stays
valid after it. A build that fails leaves the quick machine in place and logs why.

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.reasoner.per_state import PerStateMachine
>>> game = parse_kif("(role a) (init s) (<= (legal a go) (true s)) (<= terminal (not (true s))) (goal a 100)")
>>> machine = UpgradingMachine(PerStateMachine(game), lambda: PerStateMachine(game), "per-state")
>>> machine.wait(10)
True
>>> [str(move) for move in machine.legal_moves(machine.initial_state(), machine.roles[0])]
['go']
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from ggp.gdl.terms import Description
from ggp.reasoner.machine import JointMove, Move, Role, State, StateMachine

log = logging.getLogger(__name__)


class UpgradingMachine:
    """Delegates every question to ``quick`` until ``build`` (run once in a daemon thread) returns a
    machine, then to that one. Attributes it does not define (optional capabilities such as
    ``playout_goals``) are the current machine's, looked up at each access."""

    def __init__(self, quick: StateMachine, build: Callable[[], StateMachine], name: str, label: str = "game") -> None:
        self._current = quick
        self.upgraded = False
        """True once the built machine answers."""
        self._done = threading.Event()
        self._name = name
        self._label = label
        threading.Thread(target=self._build, args=(build,), name=f"build-{name}", daemon=True).start()

    def _build(self, build: Callable[[], StateMachine]) -> None:
        try:
            machine = build()
        except Exception as exc:  # any failure of the optional build keeps the quick machine
            log.info("%s: stays on %s; the %s engine did not build: %s", self._label, self._current, self._name, exc)
        else:
            self._current = machine
            self.upgraded = True
            log.info("%s: switched to the %s engine (built in the background)", self._label, self._name)
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the background build has finished (successfully or not); False on timeout."""
        return self._done.wait(timeout)

    @property
    def current(self) -> StateMachine:
        """The machine answering now."""
        return self._current

    def __getattr__(self, name: str) -> Any:
        return getattr(self._current, name)

    def __repr__(self) -> str:
        return f"UpgradingMachine({self._current!r}, upgraded={self.upgraded})"

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._current.roles

    def initial_state(self) -> State:
        return self._current.initial_state()

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        return self._current.legal_moves(state, role)

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        return self._current.legal_joint_moves(state)

    def next_state(self, state: State, joint_move: JointMove) -> State:
        return self._current.next_state(state, joint_move)

    def is_terminal(self, state: State) -> bool:
        return self._current.is_terminal(state)

    def goals(self, state: State) -> tuple[int, ...]:
        return self._current.goals(state)


UPGRADE_MAX_NODES = 1_500_000
"""Ground rules the background circuit build accepts, above the circuit's own default
(:data:`~ggp.reasoner.circuit.machine.DEFAULT_MAX_NODES`): here a long build costs no start-up, the quick
machine plays meanwhile. chineseCheckers3 has 1.1 million ground rules and builds in 15-35 s to about
850 MB, then plays about 600 random playouts a second against the prover's 17."""


def playing_machine(description: Description, engine: str) -> StateMachine:
    """The machine a player plays ``description`` with: for ``auto``, the reasoner's quick choice at
    once, upgraded to the compiled circuit (up to :data:`UPGRADE_MAX_NODES` ground rules) when it builds
    in the background (a game the circuit cannot compile, over that limit or with no C compiler, stays on
    the quick machine); any other engine exactly as :func:`~ggp.reasoner.engines.make_machine` builds it.
    The circuit's build starts before the quick choice is made, so the two run side by side."""
    from ggp.reasoner.engines import make_machine

    if engine != "auto":
        return make_machine(description, engine)
    built: Future[StateMachine] = Future()

    def compile_circuit() -> None:
        from ggp.reasoner.circuit.machine import CircuitStateMachine

        try:
            built.set_result(CircuitStateMachine(description, max_nodes=UPGRADE_MAX_NODES))
        except BaseException as exc:  # handed to the UpgradingMachine's build thread, which logs it
            built.set_exception(exc)

    threading.Thread(target=compile_circuit, name="build-circuit-early", daemon=True).start()
    quick = make_machine(description, engine)
    return UpgradingMachine(quick, built.result, "circuit", description.file)
