#!/usr/bin/env bash
# The project's C checked as C (scripts/test.sh runs it before pytest; needs gcc and cppcheck):
#  1. every C source compiled on its own with gcc -Wall -Wextra -Werror (GGP_LOCAL defined empty, see
#     circuit.h), and the objects linked with --no-undefined: each source uses only what the headers
#     declare, and everything declared is defined;
#  2. the libraries as they are built (the runtime as one unit with the interpreter, and with the generated
#     code of three games) with the same warnings as errors;
#  3. cppcheck's warning, style, performance and portability checks: no finding;
#  4. the C tests once under AddressSanitizer and UndefinedBehaviorSanitizer (every library they build is
#     then built with them; GGP_C_SANITIZE in ggp/native.py), after controls that a planted use
#     after free and a planted undefined shift are caught. GGP_C_CHECK_TESTS=0 skips this step (it takes a few minutes).
# Run it from anywhere: bash scripts/check_c.sh (with the project's venv active).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNTIME=ggp/reasoner/circuit/runtime
SEARCH=players/native
SOURCES=("$RUNTIME"/circuit_*.c "$SEARCH"/search_*.c translators/sbg/minimax.c)
WARNINGS=(-std=gnu11 -O2 -fPIC -Wall -Wextra -Werror -I"$RUNTIME" -I"$SEARCH")
CC="${CC:-gcc}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

command -v "$CC" >/dev/null || { echo "check_c.sh: no C compiler $CC (apt-get install gcc)" >&2; exit 1; }
CPPCHECK=1
if ! command -v cppcheck >/dev/null; then
  if [ "${CI:-}" = true ]; then
    echo "check_c.sh: cppcheck is missing (apt-get install cppcheck); in CI it is required" >&2
    exit 1
  fi
  echo "check_c.sh: cppcheck is missing (apt-get install cppcheck); its step is skipped here, never in CI" >&2
  CPPCHECK=0
fi

echo "check_c.sh: ${#SOURCES[@]} sources, each alone with -Wall -Wextra -Werror" >&2
objects=()
for source in "${SOURCES[@]}"; do
  object="$WORK/$(basename "$source" .c).o"
  "$CC" "${WARNINGS[@]}" -DGGP_LOCAL= -c -o "$object" "$source"
  objects+=("$object")
done
"$CC" -shared -Wl,--no-undefined -o "$WORK/all.so" "${objects[@]}" -lm

echo "check_c.sh: the built libraries (interpreter; ticTacToe, breakthrough and kuhnPoker compiled)" >&2
python - "$WORK" <<'EOF'
import sys
from pathlib import Path

from ggp.files import load_kif
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.circuit.codegen import INTERPRETER_SOURCE, c_source

work = Path(sys.argv[1])
(work / "interpreter.c").write_text(INTERPRETER_SOURCE)
for game in ("ticTacToe", "breakthrough", "kuhnPoker"):
    machine = CircuitStateMachine(load_kif(f"kif/{game}/{game}.kif"), evaluator="interpreter")
    (work / f"{game}.c").write_text(c_source(machine.circuit))
EOF
for unit in interpreter ticTacToe breakthrough kuhnPoker; do
  "$CC" "${WARNINGS[@]}" -shared -o "$WORK/$unit.so" "$WORK/$unit.c"
done

if [ "$CPPCHECK" = 1 ]; then
  echo "check_c.sh: cppcheck" >&2
  # missingIncludeSystem: the C library's headers are not given to cppcheck (it needs no definitions from
  # them); unusedFunction is not enabled: the ggp_* and sbg_* entry points are called from Python (ctypes).
  cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,style,performance,portability \
    --suppress=missingIncludeSystem -I"$RUNTIME" -I"$SEARCH" -DGGP_LOCAL= "${SOURCES[@]}"
fi

if [ "${GGP_C_CHECK_TESTS:-1}" = 0 ]; then
  echo "check_c.sh: GGP_C_CHECK_TESTS=0, the C tests under the sanitizers skipped" >&2
  exit 0
fi
echo "check_c.sh: the C tests under AddressSanitizer and UndefinedBehaviorSanitizer" >&2
export GGP_C_SANITIZE=1 XDG_CACHE_HOME="$WORK/cache"
export LD_PRELOAD="$("$CC" -print-file-name=libasan.so) $("$CC" -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0  # the Python process's own allocations are not ours to judge
# Controls: a planted use after free must stop a process with AddressSanitizer's report, a planted
# undefined shift with UndefinedBehaviorSanitizer's; else the run below would prove nothing.
planted() {  # $1: C source defining int planted(int), $2: its argument, $3: the report expected
  if python - "$1" "$2" <<'EOF' 2>"$WORK/control.log"; then
import sys

from ggp.native import find_compiler, load_library

compiler = find_compiler()
assert compiler is not None
library, _, _ = load_library("#include <stdlib.h>\n" + sys.argv[1] + "\n", compiler)
library.planted(int(sys.argv[2]))
EOF
    echo "check_c.sh: the sanitizers let a planted fault pass ($3 expected)" >&2
    exit 1
  fi
  grep -q "$3" "$WORK/control.log" || { echo "check_c.sh: no $3 report:" >&2; cat "$WORK/control.log" >&2; exit 1; }
}
planted "int planted(int i) { int *a = malloc(4 * sizeof(int)); free(a); return a[i]; }" 1 "heap-use-after-free"
planted "int planted(int i) { return 1 << i; }" 40 "shift exponent 40"
# The tests that drive the C: every search option on both evaluators (the replay record), the tree's caps,
# rerooting, nested and factored search, batch evaluation against clingo on thousands of states, the SBG search. Left
# out: the compile and cache tests of test_circuit.py (they test the build, not the C) and the player-level
# tests, which run the same C through MctsPlayer.
python -m pytest -q -p no:cacheprovider \
  tests/unit/players/test_search_replay.py tests/unit/reasoner/test_circuit_mcts.py \
  tests/unit/reasoner/test_circuit.py -k "not corrupt_cache and not large_circuit and not refusing_the_cpu" \
  tests/unit/reasoner/test_circuit_differential.py tests/unit/reasoner/test_factors.py tests/unit/sbg/test_minimax.py \
  tests/unit/sbg/test_playouts.py
