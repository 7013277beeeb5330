"""Which corpus games the circuit compiles within the compiler's budget, and at what cost: one line per game.

Grounds and builds the circuit of one game as a player does (``ground_program`` at the default node limit,
the domain probe in a child process held to the budget, :data:`~ggp.reasoner.circuit.budget.DEFAULT_BUDGET`:
10 s of CPU and 1 GB), and prints ``OK <game> plain|split rules=<ground rules> lits=<circuit literals>
cpu=<s> probe=<s> rss=<MB>`` or ``FAIL <game> <error>``; ``split`` means the rules were over the node limit
as written and compiled as ``split_rules`` rewrites them. ``cpu`` is this process's CPU seconds
(parsing, grounding, building; not the C build), ``probe`` the child's. Run one process per game, e.g.::

    for g in $(cat ../shared/gdl-corpus/VALID.txt); do
      ( nice -n 10 timeout 300 python benchmarks/circuit_corpus_compile.py \\
          ../shared/gdl-corpus/$g.kif 2>/dev/null || echo "TIMEOUT/KILLED $g rc=$?" )
    done
"""

from __future__ import annotations

import io
import logging
import resource
import sys
import time
from pathlib import Path

from ggp.errors import GgpError
from ggp.files import load_kif
from ggp.reasoner.circuit.budget import DEFAULT_BUDGET, BudgetMeter
from ggp.reasoner.circuit.build import build_circuit
from ggp.reasoner.circuit.extract import ground_program
from ggp.reasoner.circuit.machine import DEFAULT_MAX_NODES
from ggp.reasoner.machine import GroundingLimits


def main(path: Path) -> None:
    stream = io.StringIO()
    logging.basicConfig(stream=stream, level=logging.INFO)
    started = time.process_time()
    try:
        description = load_kif(path)
        meter = BudgetMeter(DEFAULT_BUDGET, description.file)
        program = ground_program(description, GroundingLimits(), DEFAULT_MAX_NODES, meter)
        circuit = build_circuit(program, tuple(description.roles), description.file, meter)
    except GgpError as exc:
        print(f"FAIL {path.stem} {type(exc).__name__}: {exc} cpu={time.process_time() - started:.1f} "
              f"probe={_children_cpu():.1f}", flush=True)
        return
    how = "split" if "rule bodies split" in stream.getvalue() else "plain"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"OK {path.stem} {how} rules={len(program.rules)} lits={circuit.size()[1]} "
          f"cpu={time.process_time() - started:.1f} probe={_children_cpu():.1f} rss={rss}MB", flush=True)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main(Path(sys.argv[1]))
