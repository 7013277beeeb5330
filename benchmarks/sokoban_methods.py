"""Benchmark: the thesis's comparison of the four Sokoban generators (its Tables 3.6 and 3.7) beside ours.

Runs each method (SYM, PDB, MCTS, PPO) in its own child process for a share of ``--minutes`` and
reports the best PSH and LEN of the levels it made (each maximised on its own, as Table 3.6), its
non-trivial levels (PSH > 0.5 and LEN > 0.5) per CPU minute and per wall minute (Table 3.7), and its
memory: the child's peak resident size and, for PDB and MCTS, the estimated peak size of the search
tables. Every level is checked by the optimal solver (the methods do that themselves). A second table
scores the same candidates by each generator's own solution (SYM, PDB and MCTS know one), the way the
thesis's figures appear to have been measured (docs/sokoban_methods.md).

A run first writes its records to ``--data`` (default ``benchmarks/data/sokoban_methods_<date>.jsonl``,
gzipped with ``.gz`` added when over 200 KB), one JSON object a line: per method (``"record":
"method"``) its budget, CPU and wall seconds, peak memory, outcome counts, notes and every candidate's
(PSH, LEN) by its generator's own solution; per kept level (``"record": "level"``) its optimal pushes,
moves, PSH and LEN, whether it is non-trivial, its PSH and LEN by its generator's solution and its text.
Then it builds the Markdown report from those records alone, writes it to ``--out`` (default
docs/sokoban_methods.md; the explanation below the report's marker line is kept) and prints it.
``--report-from FILE`` does only the second step: it rebuilds the report from a records file, by
the same function, so every figure can be recomputed from the committed data.

Boards: SYM, PDB and MCTS on 8x8 interiors with 3 boxes (the thesis's SYM boards; its PDB example has
48 free cells of 64 and 3 boxes); PPO on the shipped policy's 5x5 boards (the thesis's PPO was
unusable above 7x7). SYM and PDB keep only non-trivial levels (their best levels are non-trivial);
MCTS and PPO keep every solvable level, so their best PSH / LEN exist even without a non-trivial one.

``--methods mcts`` (a comma-separated subset) runs only those methods, on their shares of the budget
scaled up to the whole of it: the other methods' records are taken from the data file the report at
``--out`` names, so only the rerun methods' rows change, and the report notes the rerun under its first
paragraph.

Usage: python benchmarks/sokoban_methods.py [--minutes 4] [--seed 0] [--methods pdb,sym,mcts,ppo]
[--out docs/sokoban_methods.md] [--data FILE.jsonl]
       python benchmarks/sokoban_methods.py --report-from FILE.jsonl[.gz] [--out docs/sokoban_methods.md]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ggp.translators.sokoban.candidates import GenerationStats
from ggp.translators.sokoban.level import level_to_text
from ggp.translators.sokoban.methods import METHODS, MethodOptions
from ggp.translators.sokoban.metrics import is_non_trivial, solution_scores

ROOT = Path(__file__).resolve().parents[1]
THESIS = {  # Table 3.6 best PSH / LEN, Table 3.7 non-trivial levels per minute
    "pdb": (3.11, 9.02, 14.21),
    "sym": (1.95, 4.70, 437.12),
    "mcts": (1.02, 3.32, 6.02),
    "ppo": (0.33, 0.64, 0.0),
}
ORDER = ("pdb", "sym", "mcts", "ppo")
SHARE = {"sym": 0.25, "pdb": 0.25, "mcts": 0.3, "ppo": 0.2}
"""Share of the budget per method."""
DEFAULT_OUT = Path("docs/sokoban_methods.md")
MARKER = "<!-- explanation (kept by the benchmark) -->"
MAX_TEXT = 400
"""A kept level's text is recorded when at most this many characters (every board here is)."""
GZIP_OVER = 200_000
"""Records larger than this many bytes are gzipped."""
DATA_SENTENCE = "The run's records are committed in "
NAMED_DATA = re.compile(re.escape(DATA_SENTENCE) + r"`([^`]+)`")

Record = dict[str, Any]
"""One line of a records file: a method's figures (``"record": "method"``) or a kept level's (``"level"``)."""


def _options(method: str) -> MethodOptions:
    if method == "ppo":
        return MethodOptions(keep_trivial=True, max_attempts=10**9)
    keep = method == "mcts"
    return MethodOptions(width=8, height=8, boxes=3, keep_trivial=keep, max_attempts=10**9)


def _child(method: str, seconds: float, seed: int) -> list[Record]:
    """Run one method for ``seconds`` of wall-clock time; returns its method record, then its levels' records."""
    head: Record = {"record": "method", "method": method, "seconds": seconds}
    if method == "ppo":
        from ggp.translators.sokoban.methods.ppo import require_rl

        try:
            require_rl()
        except Exception as exc:  # the rl extra is optional: the row says why it is empty
            return [{**head, "error": str(exc)}]
    options = _options(method)
    own = method != "ppo"  # PPO's levels carry the move-optimal solution, not one of their own
    stats = GenerationStats(own_scores=[] if own else None)
    levels = []
    start, cpu = time.perf_counter(), time.process_time()
    deadline = start + seconds
    for item in METHODS[method](options, 10**9, seed, stats):
        levels.append(item)
        if time.perf_counter() >= deadline:
            break
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    width, height = options.size((5, 5) if method == "ppo" else (8, 8))
    head.update({
        "size": f"{width}x{height}", "boxes": options.boxes if method != "ppo" else None,
        "wall": wall, "cpu": cpu, "build": stats.sym_seconds, "solve": stats.solve_seconds,
        "outcomes": dict(sorted(stats.outcomes.items())),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "tables_mb": stats.peak_bytes / 2**20,
        "messages": stats.messages[:3],
        "own_scores": [list(pair) for pair in stats.own_scores] if stats.own_scores is not None else None,
    })
    records = [head]
    for item in levels:
        d = item.difficulty
        own_psh, own_len = solution_scores(item.level, item.solution) if own else (None, None)
        text = level_to_text(item.level)
        records.append({
            "record": "level", "method": method, "title": item.level.title, "width": d.width, "height": d.height,
            "boxes": d.boxes, "pushes": d.pushes, "moves": d.moves, "psh": d.psh, "len": d.len,
            "non_trivial": d.non_trivial, "own_psh": own_psh, "own_len": own_len,
            "text": text if len(text) <= MAX_TEXT else None,
        })
    return records


def read_records(path: Path) -> list[Record]:
    """The records of a file written by :func:`write_records` (gzipped when its name ends in ``.gz``)."""
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_records(records: Sequence[Record], path: Path) -> Path:
    """Write ``records`` as JSON lines to ``path``; gzipped (``.gz`` added to the name unless there) when
    the name ends in ``.gz`` or the text exceeds :data:`GZIP_OVER` bytes. Returns the path written."""
    data = "".join(json.dumps(record, sort_keys=True) + "\n" for record in records).encode("utf-8")
    if path.suffix != ".gz" and len(data) > GZIP_OVER:
        path = path.with_name(path.name + ".gz")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as handle:
            handle.write(data)  # no timestamp: the same records give the same bytes
    else:
        path.write_bytes(data)
    return path


def _display(path: Path) -> str:
    """``path`` as the report names it: relative to the repository when inside it."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def _fmt(value: object, digits: int = 2) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


def _heads(records: Sequence[Record]) -> dict[str, Record]:
    """The method record of each method (an error record standing in for a method without one)."""
    heads: dict[str, Record] = {record["method"]: record for record in records if record["record"] == "method"}
    return {method: heads.get(method, {"method": method, "error": "no record"}) for method in ORDER}


def _runs_lines(heads: dict[str, Record], data: str, out: str) -> list[str]:
    """The first paragraph, naming the (full) run's command and the data, and a note per partial rerun."""
    runs: list[tuple[dict[str, Any], list[str]]] = []
    for method in ORDER:
        run = heads[method].get("run")
        if not isinstance(run, dict):
            continue
        group = next((methods for known, methods in runs if known == run), None)
        if group is None:
            runs.append((run, [method]))
        else:
            group.append(method)
    if not runs:
        runs.append(({"command": "?", "date": "?", "machine": "?", "cores": "?", "python": "?"}, list(ORDER)))
    base = next((run for run, _ in runs if "--methods" not in run["command"]), runs[0][0])
    lines = [
        f"Measured with `{base['command']}` on {base['date']} ({base['machine']}, {base['cores']} shared cores, "
        f"Python {base['python']}); each method ran in its own process for its share of the budget. Thesis figures "
        "from Fijałkowski 2021 (spec `../shared/spec/sokoban.md` §5). "
        f"{DATA_SENTENCE}`{data}`: per method its budget, CPU and wall seconds, peak memory, outcome counts and "
        "every candidate's PSH / LEN by its generator's own solution; per kept level its text and its optimal "
        f"pushes, moves, PSH and LEN. `python benchmarks/sokoban_methods.py --report-from {data} --out {out}` "
        "rebuilds these tables from them alone. A rerun with the same seed gives other counts, since every "
        "method runs for a wall-clock budget.",
        "",
    ]
    for run, methods in runs:
        if run is not base:
            lines += [f"Rows of {', '.join(m.upper() for m in methods)} re-measured with `{run['command']}` on "
                      f"{run['date']} ({run['machine']}, {run['cores']} shared cores).", ""]
    return lines


def report(records: Sequence[Record], data: str, out: str = DEFAULT_OUT.as_posix()) -> str:
    """The Markdown report, up to and including the explanation marker, built from ``records`` alone;
    ``data`` and ``out`` are the records file and report paths that its first paragraph names."""
    heads = _heads(records)
    levels = {method: [r for r in records if r["record"] == "level" and r["method"] == method] for method in ORDER}
    lines = [
        "# The four Sokoban generators compared (thesis Tables 3.6 and 3.7)",
        "",
        *_runs_lines(heads, data, out),
        *_difficulty_lines(heads, levels),
        *_own_solution_lines(heads),
        *_cost_lines(heads),
    ]
    notes = [f"- {method.upper()}: {message}" for method in ORDER for message in heads[method].get("messages") or []]
    if notes:
        lines += ["", "Notes from the runs:", "", *notes]
    lines += ["", MARKER, ""]
    return "\n".join(lines) + "\n"


def _difficulty_lines(heads: dict[str, Record], levels: dict[str, list[Record]]) -> list[str]:
    """Table 3.6 and 3.7 side by side: best and mean difficulty, non-trivial levels per minute."""
    lines = [
        "## Best difficulty (Table 3.6) and non-trivial levels per minute (Table 3.7)",
        "",
        "| method | board | thesis best PSH / LEN | our best PSH / LEN | our mean PSH / LEN | levels (non-trivial) "
        "| thesis non-trivial / min | ours / CPU min | ours / wall min |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for method in ORDER:
        head, kept = heads[method], levels[method]
        psh, len_, rate = THESIS[method]
        if "error" in head:
            lines.append(f"| {method.upper()} | - | {psh} / {len_} | not run: {head['error']} | | | {rate} | | |")
            continue
        cpu, wall = max(head["cpu"], 1e-9), max(head["wall"], 1e-9)
        nt = sum(1 for level in kept if level["non_trivial"])
        best_psh = max((level["psh"] for level in kept), default=None)
        best_len = max((level["len"] for level in kept), default=None)
        mean_psh = sum(level["psh"] for level in kept) / len(kept) if kept else None
        mean_len = sum(level["len"] for level in kept) / len(kept) if kept else None
        boxes = f", {head['boxes']} boxes" if head.get("boxes") else ""
        lines.append(
            f"| {method.upper()} | {head['size']}{boxes} | {psh} / {len_} | {_fmt(best_psh)} / {_fmt(best_len)} | "
            f"{_fmt(mean_psh)} / {_fmt(mean_len)} | {len(kept)} ({nt}) | {rate} | {nt / cpu * 60:.1f} | "
            f"{nt / wall * 60:.1f} |"
        )
    return lines


def _own_solution_lines(heads: dict[str, Record]) -> list[str]:
    """The same runs scored by each generator's own solution instead of the optimal one."""
    lines = [
        "",
        "## Scored by the generator's own solution",
        "",
        "The same runs, every candidate that reached the final check scored with the solution its generator "
        "found (an upper bound of the optimal counts) instead of the optimal ones; PPO has no solution of its own.",
        "",
        "| method | thesis best PSH / LEN | ours by own solution: best PSH / LEN | non-trivial by own solution "
        "(of attempts) | per CPU min | thesis non-trivial / min |",
        "|---|---|---|---|---|---|",
    ]
    for method in ORDER:
        head = heads[method]
        psh, len_, rate = THESIS[method]
        scores = head.get("own_scores")
        if "error" in head or scores is None:
            lines.append(f"| {method.upper()} | {psh} / {len_} | - | - | - | {rate} |")
            continue
        own = sum(1 for own_psh, own_len in scores if is_non_trivial(own_psh, own_len))
        best_psh = max((own_psh for own_psh, _ in scores), default=0.0)
        best_len = max((own_len for _, own_len in scores), default=0.0)
        lines.append(
            f"| {method.upper()} | {psh} / {len_} | {_fmt(best_psh)} / {_fmt(best_len)} | "
            f"{own} of {sum(head['outcomes'].values())} | {own / max(head['cpu'], 1e-9) * 60:.1f} | {rate} |"
        )
    return lines


def _cost_lines(heads: dict[str, Record]) -> list[str]:
    """Time and memory of each run: wall and CPU seconds, attempts and outcomes, peak RSS, search tables."""
    lines = [
        "",
        "## Time and memory",
        "",
        "| method | wall s | CPU s | CPU building candidates / optimal scoring | attempts and outcomes "
        "| peak RSS MB | search tables MB (est.) |",
        "|---|---|---|---|---|---|---|",
    ]
    for method in ORDER:
        head = heads[method]
        if "error" in head:
            continue
        outcomes: dict[str, int] = head["outcomes"]
        described = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        lines.append(
            f"| {method.upper()} | {_fmt(head['wall'], 1)} | {_fmt(head['cpu'], 1)} | {_fmt(head['build'], 1)} / "
            f"{_fmt(head['solve'], 1)} | {sum(outcomes.values())}: {described} | {_fmt(head['rss_mb'], 0)} | "
            f"{_fmt(head['tables_mb'], 1) if method in ('pdb', 'mcts') else '-'} |"
        )
    return lines


def _with_explanation(text: str, old: str) -> str:
    """``text`` (a report up to its marker) followed by the explanation below ``old``'s marker, if any."""
    if MARKER not in old:
        return text
    return text.split(MARKER)[0] + MARKER + old.split(MARKER, 1)[1]


def _measure(method: str, seconds: float, seed: int) -> list[Record]:
    """Run :func:`_child` in a fresh process (its own memory figures); an error record when it fails."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", method, "--seconds", str(seconds), "--seed", str(seed)],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        return [{"record": "method", "method": method, "seconds": seconds, "error": lines[-1][:200]}]
    records: list[Record] = json.loads(done.stdout.strip().splitlines()[-1])
    return records


def _ordered(records: Sequence[Record]) -> list[Record]:
    """Records grouped by method in :data:`ORDER`, each method's record before its levels (order kept within)."""
    return sorted(records, key=lambda record: (ORDER.index(record["method"]), record["record"] != "method"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=4.0, help="total wall-clock budget (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help=f"the report (a run's default {DEFAULT_OUT}; "
                        "with --report-from, printed only unless given)")
    parser.add_argument("--data", type=Path, default=None,
                        help="the run's records (default benchmarks/data/sokoban_methods_<date>.jsonl[.gz])")
    parser.add_argument("--report-from", type=Path, default=None, metavar="FILE",
                        help="rebuild the report from this records file instead of running the methods")
    parser.add_argument("--methods", default=",".join(ORDER), help="comma-separated subset of pdb,sym,mcts,ppo")
    parser.add_argument("--child", choices=ORDER, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.seconds, args.seed)))
        return 0
    if args.report_from is not None:
        out_name = _display(args.out or DEFAULT_OUT)
        text = report(read_records(args.report_from), _display(args.report_from), out_name)
        if args.out is not None:
            text = _with_explanation(text, args.out.read_text(encoding="utf-8") if args.out.exists() else "")
            args.out.write_text(text, encoding="utf-8")
        print(text)
        return 0
    methods = [m for m in (part.strip().lower() for part in args.methods.split(",")) if m]
    unknown = sorted(set(methods) - set(ORDER))
    if unknown or not methods:
        parser.error(f"unknown method(s) {', '.join(map(repr, unknown))}; expected some of {', '.join(ORDER)}")
    out: Path = args.out or DEFAULT_OUT
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    partial = set(methods) != set(ORDER)
    kept: list[Record] = []
    if partial:
        named = NAMED_DATA.search(old)
        if named is None:
            parser.error(f"--methods needs the records of an earlier full run: {out} names no data file")
        kept = [record for record in read_records(ROOT / named.group(1)) if record["method"] not in methods]
    date = time.strftime("%Y-%m-%d")
    command = f"python benchmarks/sokoban_methods.py --minutes {args.minutes:g} --seed {args.seed}"
    if partial:
        command += f" --methods {','.join(methods)}"
    run = {"command": command, "date": date, "machine": platform.machine(), "cores": os.cpu_count(),
           "python": platform.python_version()}
    scale = 1 / sum(SHARE[m] for m in methods)
    fresh: list[Record] = []
    for method in methods:
        records = _measure(method, args.minutes * 60 * SHARE[method] * scale, args.seed)
        records[0]["run"] = run
        fresh += records
        print(f"{method}: {len(records) - 1} levels, {records[0].get('error') or 'ok'}", file=sys.stderr)
    data = write_records(_ordered(kept + fresh), args.data or ROOT / "benchmarks" / "data" /
                         f"sokoban_methods_{date}.jsonl")
    text = _with_explanation(report(read_records(data), _display(data), _display(out)), old)
    out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
