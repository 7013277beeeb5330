"""Benchmark: the thesis's comparison of the four Sokoban generators (its Tables 3.6 and 3.7) beside ours.

Runs each method (SYM, PDB, MCTS, PPO) in its own child process for a share of ``--minutes`` and
reports the best PSH and LEN of the levels it made (each maximised on its own, as Table 3.6), its
non-trivial levels (PSH > 0.5 and LEN > 0.5) per CPU minute and per wall minute (Table 3.7), and its
memory: the child's peak resident size and, for PDB and MCTS, the estimated peak size of the search
tables. Every level is checked by the optimal solver (the methods do that themselves). A second table
scores the same candidates by each generator's own solution (SYM, PDB and MCTS know one), the way the
thesis's figures appear to have been measured (docs/sokoban_methods.md). Writes the
Markdown report to ``--out`` (default docs/sokoban_methods.md) and prints it.

Boards: SYM, PDB and MCTS on 8x8 interiors with 3 boxes (the thesis's SYM boards; its PDB example has
48 free cells of 64 and 3 boxes); PPO on the shipped policy's 5x5 boards (the thesis's PPO was
unusable above 7x7). SYM and PDB keep only non-trivial levels (their best levels are non-trivial);
MCTS and PPO keep every solvable level, so their best PSH / LEN exist even without a non-trivial one.

``--methods mcts`` (a comma-separated subset) runs only those methods, on their shares of the budget
scaled up to the whole of it, and replaces only their rows in an existing report, noting the rerun
under its first paragraph.

Usage: python benchmarks/sokoban_methods.py [--minutes 4] [--seed 0] [--methods pdb,sym,mcts,ppo]
[--out docs/sokoban_methods.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ggp.translators.sokoban.candidates import GenerationStats
from ggp.translators.sokoban.methods import METHODS, MethodOptions

THESIS = {  # Table 3.6 best PSH / LEN, Table 3.7 non-trivial levels per minute
    "pdb": (3.11, 9.02, 14.21),
    "sym": (1.95, 4.70, 437.12),
    "mcts": (1.02, 3.32, 6.02),
    "ppo": (0.33, 0.64, 0.0),
}
ORDER = ("pdb", "sym", "mcts", "ppo")
SHARE = {"sym": 0.25, "pdb": 0.25, "mcts": 0.3, "ppo": 0.2}
"""Share of the budget per method."""


def _options(method: str) -> MethodOptions:
    if method == "ppo":
        return MethodOptions(keep_trivial=True, max_attempts=10**9)
    keep = method == "mcts"
    return MethodOptions(width=8, height=8, boxes=3, keep_trivial=keep, max_attempts=10**9)


def _child(method: str, seconds: float, seed: int) -> dict[str, object]:
    """Run one method for ``seconds`` of wall-clock time; returns the figures as plain data."""
    if method == "ppo":
        from ggp.translators.sokoban.methods.ppo import require_rl

        try:
            require_rl()
        except Exception as exc:  # the rl extra is optional: the row says why it is empty
            return {"method": method, "error": str(exc)}
    options = _options(method)
    stats = GenerationStats()
    levels = []
    start, cpu = time.perf_counter(), time.process_time()
    deadline = start + seconds
    for item in METHODS[method](options, 10**9, seed, stats):
        levels.append(item)
        if time.perf_counter() >= deadline:
            break
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    non_trivial = [item for item in levels if item.difficulty.non_trivial]
    best_psh = max(levels, key=lambda item: item.difficulty.psh, default=None)
    best_len = max(levels, key=lambda item: item.difficulty.len, default=None)
    width, height = options.size((5, 5) if method == "ppo" else (8, 8))
    return {
        "method": method, "size": f"{width}x{height}", "boxes": options.boxes if method != "ppo" else None,
        "wall": wall, "cpu": cpu, "build": stats.sym_seconds, "solve": stats.solve_seconds,
        "attempts": stats.attempts, "outcomes": dict(stats.outcomes), "levels": len(levels),
        "non_trivial": len(non_trivial),
        "best_psh": best_psh.difficulty.psh if best_psh else None,
        "best_len": best_len.difficulty.len if best_len else None,
        "best_psh_title": best_psh.level.title if best_psh else "",
        "mean_psh": sum(i.difficulty.psh for i in levels) / len(levels) if levels else None,
        "mean_len": sum(i.difficulty.len for i in levels) / len(levels) if levels else None,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "tables_mb": stats.peak_bytes / 2**20,
        "own_non_trivial": stats.own_non_trivial if method != "ppo" else None,
        "own_best_psh": stats.own_best_psh if method != "ppo" else None,
        "own_best_len": stats.own_best_len if method != "ppo" else None,
        "messages": stats.messages[:3],
    }


@dataclass(frozen=True, slots=True)
class _Row:
    data: dict[str, object]

    def num(self, key: str) -> float:
        value = self.data.get(key)
        return float(value) if isinstance(value, (int, float)) else 0.0

    def fmt(self, key: str, digits: int = 2) -> str:
        value = self.data.get(key)
        return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


def _report(rows: dict[str, _Row], minutes: float, seed: int) -> str:
    lines = [
        "# The four Sokoban generators compared (thesis Tables 3.6 and 3.7)",
        "",
        f"Measured with `python benchmarks/sokoban_methods.py --minutes {minutes:g} --seed {seed}` on "
        f"{time.strftime('%Y-%m-%d')} ({platform.machine()}, {os.cpu_count()} shared cores, Python "
        f"{platform.python_version()}); each method ran in its own process for its share of the budget. "
        "Thesis figures from Fijałkowski 2021 (spec `../shared/spec/sokoban.md` §5). No level or per-method "
        "record is kept: these tables are the report that command wrote, its only data, and a rerun with the "
        "same seed gives other counts, since every method runs for a wall-clock budget.",
        "",
        "## Best difficulty (Table 3.6) and non-trivial levels per minute (Table 3.7)",
        "",
        "| method | board | thesis best PSH / LEN | our best PSH / LEN | our mean PSH / LEN | levels (non-trivial) "
        "| thesis non-trivial / min | ours / CPU min | ours / wall min |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for method in ORDER:
        row = rows[method]
        psh, len_, rate = THESIS[method]
        if "error" in row.data:
            lines.append(f"| {method.upper()} | - | {psh} / {len_} | not run: {row.data['error']} | | | {rate} | | |")
            continue
        cpu, wall = max(row.num("cpu"), 1e-9), max(row.num("wall"), 1e-9)
        nt = row.num("non_trivial")
        boxes = f", {row.data['boxes']} boxes" if row.data.get("boxes") else ""
        lines.append(
            f"| {method.upper()} | {row.data['size']}{boxes} | {psh} / {len_} | {row.fmt('best_psh')} / "
            f"{row.fmt('best_len')} | {row.fmt('mean_psh')} / {row.fmt('mean_len')} | {int(row.num('levels'))} "
            f"({int(nt)}) | {rate} | {nt / cpu * 60:.1f} | {nt / wall * 60:.1f} |"
        )
    lines += [
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
        row = rows[method]
        psh, len_, rate = THESIS[method]
        if "error" in row.data or row.data.get("own_non_trivial") is None:
            lines.append(f"| {method.upper()} | {psh} / {len_} | - | - | - | {rate} |")
            continue
        own = row.num("own_non_trivial")
        lines.append(
            f"| {method.upper()} | {psh} / {len_} | {row.fmt('own_best_psh')} / {row.fmt('own_best_len')} | "
            f"{int(own)} of {int(row.num('attempts'))} | {own / max(row.num('cpu'), 1e-9) * 60:.1f} | {rate} |"
        )
    lines += [
        "",
        "## Time and memory",
        "",
        "| method | wall s | CPU s | CPU building candidates / optimal scoring | attempts and outcomes "
        "| peak RSS MB | search tables MB (est.) |",
        "|---|---|---|---|---|---|---|",
    ]
    for method in ORDER:
        row = rows[method]
        if "error" in row.data:
            continue
        outcomes = row.data.get("outcomes")
        described = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) if isinstance(outcomes, dict) else ""
        lines.append(
            f"| {method.upper()} | {row.fmt('wall', 1)} | {row.fmt('cpu', 1)} | {row.fmt('build', 1)} / "
            f"{row.fmt('solve', 1)} | {int(row.num('attempts'))}: {described} | {row.fmt('rss_mb', 0)} | "
            f"{row.fmt('tables_mb', 1) if method in ('pdb', 'mcts') else '-'} |"
        )
    notes = []
    for method in ORDER:
        messages = rows[method].data.get("messages")
        if isinstance(messages, list):
            notes += [f"- {method.upper()}: {message}" for message in messages]
    if notes:
        lines += ["", "Notes from the runs:", "", *notes]
    lines += ["", "<!-- explanation (kept by the benchmark) -->", ""]
    return "\n".join(lines) + "\n"


def _merge(old: str, new: str, methods: list[str], command: str) -> str:
    """``old`` with the table rows of ``methods`` taken from ``new`` and a line naming the rerun."""
    lines = old.split("\n")
    fresh = new.split("\n")
    for method in methods:
        prefix = f"| {method.upper()} |"
        old_rows = [i for i, line in enumerate(lines) if line.startswith(prefix)]
        new_rows = [line for line in fresh if line.startswith(prefix)]
        for i, line in zip(old_rows, new_rows, strict=False):
            lines[i] = line
    note = (f"Rows of {', '.join(m.upper() for m in methods)} re-measured with `{command}` on "
            f"{time.strftime('%Y-%m-%d')} ({platform.machine()}, {os.cpu_count()} shared cores).")
    for i in reversed([i for i, line in enumerate(lines) if line.startswith("Rows of ")]):
        del lines[i:i + 2]  # the note and the blank line after it
    at = next((i for i, line in enumerate(lines) if line.startswith("Measured with")), 0)
    lines[at + 2:at + 2] = [note, ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=4.0, help="total wall-clock budget (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/sokoban_methods.md"))
    parser.add_argument("--methods", default=",".join(ORDER), help="comma-separated subset of pdb,sym,mcts,ppo")
    parser.add_argument("--child", choices=ORDER, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.seconds, args.seed)))
        return 0
    methods = [m for m in (part.strip().lower() for part in args.methods.split(",")) if m]
    unknown = sorted(set(methods) - set(ORDER))
    if unknown or not methods:
        parser.error(f"unknown method(s) {', '.join(map(repr, unknown))}; expected some of {', '.join(ORDER)}")
    marker = "<!-- explanation (kept by the benchmark) -->"
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    if len(methods) < len(ORDER) and marker not in old:
        parser.error(f"--methods needs an existing report to update: {args.out} has none")
    scale = 1 / sum(SHARE[m] for m in methods)
    rows: dict[str, _Row] = {}
    for method in methods:
        seconds = args.minutes * 60 * SHARE[method] * scale
        done = subprocess.run(
            [sys.executable, __file__, "--child", method, "--seconds", str(seconds), "--seed", str(args.seed)],
            capture_output=True, text=True, check=False,
        )
        if done.returncode != 0:
            rows[method] = _Row({"method": method, "error": done.stderr.strip().splitlines()[-1][:200]})
        else:
            rows[method] = _Row(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{method}: {rows[method].data}", file=sys.stderr)
    if len(methods) < len(ORDER):
        for method in ORDER:
            rows.setdefault(method, _Row({"method": method, "error": "not rerun"}))
        command = f"python benchmarks/sokoban_methods.py --minutes {args.minutes:g} --seed {args.seed} " \
                  f"--methods {','.join(methods)}"
        text = _merge(old, _report(rows, args.minutes, args.seed), methods, command)
    else:
        text = _report(rows, args.minutes, args.seed)
        if marker in old:
            text = text.split(marker)[0] + marker + old.split(marker, 1)[1]
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
