"""Which corpus games the circuit compiles, and at what cost: one line per game.

Grounds (``ground_program`` at the default node limit, in this process) and builds the circuit of one
game, and prints ``OK <game> plain|split rules=<ground rules> lits=<circuit literals> cpu=<s> rss=<MB>`` or
``FAIL <game> <error>``; ``split`` means the rules were over the limit as written and compiled as
``split_rules`` rewrites them. CPU seconds are the process's (parsing, grounding, building; not the C
build). Run one process per game, with a wall-clock and address-space limit, e.g.::

    for g in $(cat ../shared/gdl-corpus/VALID.txt); do
      ( ulimit -v 4000000; nice -n 10 timeout 120 python benchmarks/circuit_corpus_compile.py \\
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
        program = ground_program(description, GroundingLimits(isolate=False), DEFAULT_MAX_NODES)
        circuit = build_circuit(program, tuple(description.roles), description.file)
    except GgpError as exc:
        print(f"FAIL {path.stem} {type(exc).__name__}: {exc} cpu={time.process_time() - started:.1f}", flush=True)
        return
    how = "split" if "rule bodies split" in stream.getvalue() else "plain"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"OK {path.stem} {how} rules={len(program.rules)} lits={circuit.size()[1]} "
          f"cpu={time.process_time() - started:.1f} rss={rss}MB", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
