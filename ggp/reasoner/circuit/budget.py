"""The compiler's budget: how much CPU time and memory turning a game into a circuit may cost.

A game is refused by what compiling it costs, not by how many ground rules it has: a large but regular
game (hex: 94,000 rules once its bodies are split) compiles in seconds, while a small game whose grounding
explodes (ruleDepthExponential) must be stopped early. :class:`BudgetMeter` is checked while clingo
hands over the ground rules and while the builder simplifies them; it counts the CPU time of the compiling
thread plus that of the grounding probes run in child processes, and the growth of this process's
resident memory since the compile began. Past either figure it raises
:class:`~ggp.reasoner.circuit.errors.CompileBudgetError`, one line naming the budget and the figure reached.
The probes in child processes are also held to the budget by the kernel (``RLIMIT_CPU``, ``RLIMIT_AS``:
:func:`~ggp.reasoner.isolation.run_isolated`), so no phase runs past it even in C.

>>> meter = BudgetMeter(CompileBudget(cpu_seconds=0.0), "game.kif")
>>> meter.check("while building")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ggp.reasoner.circuit.errors.CompileBudgetError: game.kif: ... budget of 0 s of CPU (0.1 s spent, while building)
"""

from __future__ import annotations

import math
import os
import resource
import time
from dataclasses import dataclass

from ggp.reasoner.circuit.errors import CompileBudgetError


@dataclass(frozen=True, slots=True)
class CompileBudget:
    """CPU seconds and megabytes of memory that compiling one game may take (grounding and building the
    circuit; not the C compiler, whose output is cached by the circuit's text)."""

    cpu_seconds: float = 10.0
    memory_mb: int = 1024


DEFAULT_BUDGET = CompileBudget()
"""The compiler's default: 10 s of CPU and 1 GB on the project's reference machine (2 shared cores)."""

CHECK_EVERY = 256
"""Ground rules (or builder steps) between two looks at the CPU clock (a system call, a microsecond)."""

MEMORY_EVERY = 16
"""Looks at the CPU clock between two at the resident memory (reading ``/proc``: tens of microseconds)."""

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / (1 << 20) if hasattr(os, "sysconf") else 4096 / (1 << 20)


def _tenths_up(figure: float) -> float:
    """``figure`` rounded up to a tenth, so that a figure over the budget never reads as equal to it."""
    return math.ceil(figure * 10) / 10


def resident_mb() -> float:
    """This process's resident memory now, in MB (its peak where ``/proc`` is missing)."""
    try:
        with open("/proc/self/statm", "rb") as stream:
            return int(stream.read().split()[1]) * _PAGE_MB
    except (OSError, IndexError, ValueError):  # pragma: no cover - a platform without /proc
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class BudgetMeter:
    """Charges one compile against its :class:`CompileBudget` (see the module's docstring)."""

    def __init__(self, budget: CompileBudget, file: str) -> None:
        self.budget = budget
        self.file = file
        self._cpu_start = time.thread_time()
        self._rss_start = resident_mb()
        self._charged = 0.0
        self._steps = 0
        self._checks = 0

    def cpu_seconds(self) -> float:
        """CPU seconds spent so far: this thread's since the start, plus what :meth:`charge` added."""
        return time.thread_time() - self._cpu_start + self._charged

    def cpu_left(self) -> float:
        """CPU seconds still in the budget (never below zero)."""
        return max(0.0, self.budget.cpu_seconds - self.cpu_seconds())

    def charge(self, cpu_seconds: float) -> None:
        """Add CPU time spent on this compile outside this thread (a grounding probe's child process)."""
        self._charged += cpu_seconds

    def step(self, where: str) -> None:
        """Count one unit of work (a component, a statement); look at the budget every :data:`CHECK_EVERY`."""
        self._steps += 1
        if self._steps % CHECK_EVERY == 0:
            self.check_due(where)

    def check_due(self, where: str) -> None:
        """:meth:`check`, called every :data:`CHECK_EVERY` units of work (by :meth:`step`, or by a caller that
        counts its own, such as the grounding's observer, whose ``where`` costs something to write):
        resident memory only every :data:`MEMORY_EVERY`-th time."""
        self._checks += 1
        self.check(where, memory=self._checks % MEMORY_EVERY == 0)

    def check(self, where: str, memory: bool = True) -> None:
        """Raise :class:`CompileBudgetError` when the compile has spent more than its budget (CPU time, and
        with ``memory`` the growth of resident memory)."""
        spent = self.cpu_seconds()
        if spent > self.budget.cpu_seconds:
            raise CompileBudgetError(
                f"{self.file}: compiling the circuit exceeded its budget of {self.budget.cpu_seconds:g} s of CPU "
                f"({_tenths_up(spent):.1f} s spent, {where})")
        if not memory:
            return
        grown = resident_mb() - self._rss_start
        if grown > self.budget.memory_mb:
            raise CompileBudgetError(
                f"{self.file}: compiling the circuit exceeded its budget of {self.budget.memory_mb} MB of memory "
                f"({_tenths_up(grown):,.1f} MB more than at its start, {where})")

    def exceeded(self, kind: str, where: str) -> CompileBudgetError:
        """The error for a child process the kernel stopped at the budget (``kind``: ``cpu`` or ``memory``);
        ``where`` names what reached the limit."""
        figure = f"{self.budget.cpu_seconds:g} s of CPU" if kind == "cpu" else f"{self.budget.memory_mb} MB of memory"
        return CompileBudgetError(f"{self.file}: compiling the circuit exceeded its budget of {figure} ({where} reached it)")
