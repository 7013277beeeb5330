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

import hashlib
import logging
import os
import pickle
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggp.errors import ReasonerError
from ggp.gdl.terms import Description
from ggp.reasoner.machine import JointMove, Move, Role, State, StateMachine

if TYPE_CHECKING:
    from ggp.reasoner.circuit.build import Circuit

log = logging.getLogger(__name__)


class UpgradingMachine:
    """Delegates every question to ``quick`` until ``build`` (run once in a daemon thread) returns a
    machine, then to that one, and then, when ``then`` is given, to the machine ``then`` returns (a faster
    form of the same engine: the circuit on its own compiled C after the C interpreter; a failure there
    keeps the first). Attributes it does not define (optional capabilities such as ``playout_goals``) are
    the current machine's, looked up at each access."""

    def __init__(
        self, quick: StateMachine, build: Callable[[], StateMachine], name: str, label: str = "game",
        then: Callable[[], StateMachine] | None = None,
    ) -> None:
        self._current = quick
        self.quick = quick
        """The machine that answers until the build is done (what :attr:`current` was at the start)."""
        self.upgraded = False
        """True once the built machine answers."""
        self.failure: str | None = None
        """Why the build failed, once it has (None while it runs or after it succeeded)."""
        self._upgraded_or_failed = threading.Event()
        self._done = threading.Event()
        self._name = name
        self._label = label
        threading.Thread(target=self._build, args=(build, then), name=f"build-{name}", daemon=True).start()

    def _build(self, build: Callable[[], StateMachine], then: Callable[[], StateMachine] | None) -> None:
        try:
            machine = build()
        except Exception as exc:  # any failure of the optional build keeps the quick machine
            self.failure = str(exc) or type(exc).__name__
            log.info("%s: stays on %s; the %s engine did not build: %s", self._label, self._current, self._name, exc)
            then = None
        else:
            self._switch(machine, "built in the background")
        finally:
            self._upgraded_or_failed.set()
        try:
            if then is not None:
                faster = then()
                if faster is not self._current:
                    self._switch(faster, "its faster form, built meanwhile")
        except Exception as exc:  # the first built machine stays
            log.info("%s: stays on the %s engine's first form; its faster form did not build: %s",
                     self._label, self._name, exc)
        finally:
            self._done.set()

    def _switch(self, machine: StateMachine, how: str) -> None:
        self._current = machine
        self.upgraded = True
        evaluator = getattr(getattr(machine, "evaluator", None), "name", None)
        on = "" if evaluator is None else f" on its {evaluator} evaluator"
        log.info("%s: switched to the %s engine%s (%s)", self._label, self._name, on, how)

    def wait_upgraded(self, timeout: float | None = None) -> bool:
        """Block until the first built machine answers or the build has failed; False on timeout."""
        return self._upgraded_or_failed.wait(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the background build, ``then`` included, has finished (successfully or not); False on
        timeout."""
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


UPGRADE_CPU_SECONDS = 120.0
"""The background build's compile budget in CPU seconds, above the compiler's default of 10 s
(:data:`~ggp.reasoner.circuit.budget.DEFAULT_BUDGET`): the quick machine plays meanwhile, so a game that
takes longer to compile (gt_two_thirds_4p: 12 s) is still worth it for the rest of the match."""

UPGRADE_SECONDS = 600.0
"""The background build's child process is killed after this long (the game then stays on the quick machine)."""

UPGRADE_MEMORY_MB = 4096
"""Address space of the build's child (a player's worker passes its own lower limit on to its children)."""

@dataclass(frozen=True)
class CircuitBuild:
    """The background circuit build of one game: ``first`` is the circuit's machine as soon as it can answer
    (on the C interpreter while the game's own C compiles), ``final`` the machine on the compiled C (the same
    machine as ``first`` when the compiled library was in the cache, or without a compiler)."""

    first: Future[StateMachine] = field(default_factory=Future)
    final: Future[StateMachine] = field(default_factory=Future)


_BUILDS: dict[Description, CircuitBuild] = {}
"""The circuit build of the last game this process played (done or running): the next match of the same game
(an arena, a benchmark) uses it, and a START never starts a second build of a game already building."""
_BUILDS_LOCK = threading.Lock()


def playing_machine(description: Description, engine: str, quick: str | None = None) -> StateMachine:
    """The machine a player plays ``description`` with: for ``auto``, the reasoner's quick choice at
    once, upgraded to the compiled circuit (within :data:`UPGRADE_CPU_SECONDS` of CPU) when it builds
    in the background (a game the circuit cannot compile, over that budget or with no C compiler, stays on
    the quick machine); any other engine exactly as :func:`~ggp.reasoner.engines.make_machine` builds it.
    While the C compiler builds the game's own library (minutes at ``-O2`` for a large game), the circuit
    plays on the game-independent C interpreter (:class:`CircuitBuild`).

    ``quick`` names the engine that plays until the circuit is built instead of ``auto``'s choice (which
    may ground for seconds): ``prover`` builds in milliseconds, so a player started again mid-match
    (``ggp player``'s recovery engine) plays at once and upgrades when the circuit is ready; with an
    engine other than ``auto`` or ``circuit``, ``quick`` is the engine.

    The circuit is grounded and built in a child process (:func:`circuit_in_child`: grounding a large game
    runs Python for every ground rule, which in this process would take the search thread's interpreter
    lock for up to minutes); this process only loads the evaluators. The build starts before the
    quick choice is made, so the two run side by side, and is kept for the next match of the same game,
    in this process and on disk (:func:`built_circuit_path`: the next process that plays the same rules
    loads it at once, as it loads the compiled library).
    """
    from ggp.reasoner.engines import make_machine

    if quick is not None and engine.partition(":")[0] not in ("auto", "circuit"):
        return make_machine(description, quick)
    if quick is None and engine != "auto":
        return make_machine(description, engine)
    built = _circuit_build(description)
    machine = make_machine(description, quick or engine)
    return UpgradingMachine(machine, built.first.result, "circuit", description.file, then=built.final.result)


def _circuit_build(description: Description) -> CircuitBuild:
    """The running or finished circuit build of ``description``, started now when there is none."""
    with _BUILDS_LOCK:
        built = _BUILDS.get(description)
        if built is not None:
            return built
        _BUILDS.clear()  # one game's circuit kept: it can take hundreds of megabytes
        built = _BUILDS[description] = CircuitBuild()
    threading.Thread(target=_build_circuit, args=(description, built), name="build-circuit", daemon=True).start()
    return built


def _build_circuit(description: Description, built: CircuitBuild) -> None:
    from ggp.reasoner.circuit.evaluate import compiler_would_run
    from ggp.reasoner.circuit.machine import CircuitStateMachine

    try:
        circuit = _ground_and_build(description)
        if compiler_would_run(circuit):
            built.first.set_result(CircuitStateMachine(description, circuit=circuit, evaluator="interpreter"))
        machine = CircuitStateMachine(description, circuit=circuit)
    except BaseException as exc:  # handed to the UpgradingMachine's build thread, which logs it
        for future in (built.first, built.final):
            if not future.done():
                future.set_exception(exc)
        return
    if not built.first.done():
        built.first.set_result(machine)
    built.final.set_result(machine)


def _ground_and_build(description: Description) -> Circuit:
    """The circuit of ``description``: kept on disk from an earlier build, or built in a child process."""
    from ggp.reasoner.circuit.machine import DEFAULT_MAX_NODES
    from ggp.reasoner.isolation import IsolationError, run_isolated

    path = built_circuit_path(description)
    kept = _load_circuit(path)
    if kept is not None:
        log.info("%s: the circuit built earlier for these rules is on disk (%s)", description.file, path)
        return kept
    try:
        circuit: Circuit = run_isolated(circuit_in_child, (description, DEFAULT_MAX_NODES, UPGRADE_CPU_SECONDS),
                               seconds=UPGRADE_SECONDS, memory_mb=UPGRADE_MEMORY_MB,
                               cpu_seconds=UPGRADE_CPU_SECONDS + 5)
    except IsolationError as exc:
        why = exc.detail if exc.kind == "failed" else str(exc)
        raise ReasonerError(f"the build's child process failed ({why})") from None
    _store_circuit(path, circuit)
    return circuit


def built_circuit_path(description: Description) -> Path:
    """Where the built circuit of ``description`` is kept on disk: beside the compiled circuits
    (:func:`ggp.native.cache_dir`), named by the SHA-256 of the rules, the node limit and the sources of
    ``ggp.gdl`` and ``ggp.reasoner`` (the translation, grounding and building code: a change to any of them
    builds anew)."""
    import ggp.gdl
    import ggp.reasoner
    from ggp.gdl.printer import to_kif
    from ggp.native import cache_dir
    from ggp.reasoner.circuit.machine import DEFAULT_MAX_NODES

    digest = hashlib.sha256(to_kif(description).encode())
    digest.update(f"\0{DEFAULT_MAX_NODES}\0{UPGRADE_CPU_SECONDS}\0".encode())
    for package in (ggp.gdl, ggp.reasoner):
        for source in sorted(Path(package.__file__ or "").parent.rglob("*.py")):
            digest.update(source.read_bytes())
    return cache_dir().parent / "built-circuits" / f"{digest.hexdigest()}.pickle"


def _load_circuit(path: Path) -> Circuit | None:
    """The circuit kept at ``path``, or None when there is none or it cannot be read (it is built again)."""
    from ggp.reasoner.circuit.build import Circuit

    try:
        with path.open("rb") as stream:
            circuit = pickle.load(stream)  # a private directory (0700), as the compiled libraries beside it
    except FileNotFoundError:
        return None
    except Exception as exc:  # a damaged entry: build again (and overwrite it)
        log.info("the built circuit %s cannot be read (%s); building it again", path, exc)
        return None
    return circuit if isinstance(circuit, Circuit) else None


def _store_circuit(path: Path, circuit: Circuit) -> None:
    """Keep ``circuit`` at ``path`` (written under a temporary name, then renamed); a failure only logs."""
    from ggp.native import private_dir

    try:
        private_dir(path.parent)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, suffix=".part", delete=False) as stream:
            pickle.dump(circuit, stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(stream.name, path)
    except (OSError, ReasonerError, pickle.PicklingError) as exc:
        log.info("the built circuit could not be kept at %s: %s", path, exc)


def circuit_in_child(description: Description, max_nodes: int, cpu_seconds: float) -> Circuit:
    """In the build's child process: ground ``description`` (its rule bodies split past ``max_nodes`` ground
    rules) and build its circuit within ``cpu_seconds`` of CPU and :data:`UPGRADE_MEMORY_MB` (small to send
    back: chineseCheckers3's 1.1 million ground rules make 72 kB)."""
    from ggp.reasoner.circuit.budget import BudgetMeter, CompileBudget
    from ggp.reasoner.circuit.build import build_circuit
    from ggp.reasoner.circuit.extract import ground_program
    from ggp.reasoner.machine import GroundingLimits

    meter = BudgetMeter(CompileBudget(cpu_seconds, UPGRADE_MEMORY_MB), description.file)
    program = ground_program(description, GroundingLimits(), max_nodes, meter)
    return build_circuit(program, tuple(description.roles), description.file, meter)
