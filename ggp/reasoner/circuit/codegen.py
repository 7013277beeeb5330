"""The generator of per-game C: a circuit as straight-line uint64 word operations (64 states per word).

Two kinds of library share one runtime, C sources in :data:`RUNTIME_DIRS` (``runtime/circuit.h`` holds the
circuit's ABI; ``runtime/runtime.c`` lists the sources: batch evaluation, single-state queries and the whole
random-playout loop, and the search of ``players/native/``). Every entry point takes a ``game_t *``: the
tables of one game's outputs and its two phase functions.

- :func:`c_source` compiles one game: ``phase_a``/``phase_b`` hold one C statement per circuit statement
  (split into functions of at most :data:`CHUNK` statements so the compiler stays fast).
- :data:`INTERPRETER_SOURCE` is game-independent: its phase functions interpret the circuit from an
  int32 array (:func:`bytecode`), so any game runs without compiling anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ggp.reasoner.circuit.build import Circuit, Ref, Statement

CHUNK = 1500
"""Statements per generated C function."""

RUNTIME_DIRS = (Path(__file__).parent / "runtime", Path(__file__).parents[2] / "players" / "native")
"""The runtime's C sources: the circuit's (``runtime/``) and the search's (``ggp/players/native/``), on the
include path of every build (and in its cache key)."""


def _lit(lit: int) -> str:
    return f"~v[{-lit}]" if lit < 0 else f"v[{lit}]"


def _expr(terms: Sequence[Sequence[int]]) -> str:
    if not terms:
        return "0"
    parts = []
    for body in terms:
        if not body:
            parts.append("~(uint64_t)0")
        elif len(body) == 1:
            parts.append(_lit(body[0]))
        else:
            parts.append("(" + " & ".join(_lit(lit) for lit in body) + ")")
    return " | ".join(parts)


def _statement(statement: Statement) -> str:
    if not statement.recursive:
        return f"  v[{statement.slots[0]}] = {_expr(statement.terms[0])};"
    lines = ["  {", "    uint64_t ch, t;"]
    lines += [f"    v[{slot}] = 0;" for slot in statement.slots]
    lines.append("    do {")
    lines.append("      ch = 0;")
    for slot, terms in zip(statement.slots, statement.terms):
        lines.append(f"      t = {_expr(terms)}; ch |= t ^ v[{slot}]; v[{slot}] = t;")
    lines.append("    } while (ch);")
    lines.append("  }")
    return "\n".join(lines)


def _phase(name: str, statements: Sequence[Statement]) -> list[str]:
    lines: list[str] = []
    chunks = [statements[i:i + CHUNK] for i in range(0, len(statements), CHUNK)] or [[]]
    for index, chunk in enumerate(chunks):
        lines.append(f"static __attribute__((noinline)) void {name}_{index}(uint64_t *restrict v) {{")
        lines.extend(_statement(s) for s in chunk)
        lines.append("}")
    lines.append(f"static void {name}(const game_t *G, uint64_t *restrict v) {{")
    lines.append("  (void)G;")
    lines.extend(f"  {name}_{index}(v);" for index in range(len(chunks)))
    lines.append("}")
    return lines


def _lane0(circuit: Circuit) -> list[str]:
    """``lane0_legal`` and ``lane0_next`` unrolled with constant slots (see ``game_t`` in ``runtime/circuit.h``)."""

    def bit(ref: Ref) -> str:
        return f"(~v[{ref.slot}] & 1)" if ref.neg else f"(v[{ref.slot}] & 1)"

    lines = ["static void lane0_legal(const game_t *G, const uint64_t *restrict v, uint64_t *restrict bits) {",
             "  (void)G;"]
    legal = circuit.legal
    for word in range(0, len(legal), 64):
        terms = [bit(ref) if m == word else f"{bit(ref)} << {m - word}"
                 for m, ref in enumerate(legal[word:word + 64], start=word)]
        lines.append(f"  bits[{word // 64}] = " + " | ".join(terms) + ";")
    lines += ["}", "static void lane0_next(const game_t *G, const uint64_t *restrict v, uint64_t *restrict out) {",
              "  (void)G;"]
    lines += [f"  out[{f}] = {bit(ref)};" for f, ref in enumerate(circuit.next)]
    lines.append("}")
    return lines


def _goal_value(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def tables(circuit: Circuit) -> dict[str, list[int]]:
    """The output tables of a circuit, by the ``game_t`` field they fill (order as :data:`TABLES`)."""
    refs: dict[str, Sequence[Ref]] = {
        "legal": circuit.legal,
        "next": circuit.next,
        "term": [circuit.terminal],
        "goal": [g[2] for g in circuit.goals],
        "sees": [s[2] for s in circuit.sees],
    }
    out: dict[str, list[int]] = {
        "role_off": list(circuit.move_offsets()) + [circuit.n_moves],
        "init": [int(b) for b in circuit.init],
    }
    for name, values in refs.items():
        out[f"{name}_slot"] = [r.slot for r in values]
        out[f"{name}_neg"] = [int(r.neg) for r in values]
    out["goal_role"] = [g[0] for g in circuit.goals]
    out["goal_value"] = [_goal_value(str(g[1])) for g in circuit.goals]
    return out


TABLES = (
    ("role_off", "int32_t"), ("init", "uint8_t"),
    ("legal_slot", "int32_t"), ("legal_neg", "uint8_t"), ("next_slot", "int32_t"), ("next_neg", "uint8_t"),
    ("term_slot", "int32_t"), ("term_neg", "uint8_t"), ("goal_slot", "int32_t"), ("goal_neg", "uint8_t"),
    ("sees_slot", "int32_t"), ("sees_neg", "uint8_t"), ("goal_role", "int32_t"), ("goal_value", "int64_t"),
)
"""The ``game_t`` table fields and their C types, in the order :func:`ggp_new_interpreted` takes them."""


def sizes(circuit: Circuit) -> list[int]:
    """ns, nf, nm, nr, ng, nsee, maxmoves: the scalar fields of ``game_t``."""
    return [
        circuit.n_slots, circuit.n_fluents, circuit.n_moves, len(circuit.roles), len(circuit.goals),
        len(circuit.sees), max([len(m) for m in circuit.moves] + [1]),
    ]


def c_source(circuit: Circuit) -> str:
    """The complete C translation unit of one compiled game (exports ``ggp_new_game``)."""
    lines = [
        "/* Generated by ggp.reasoner.circuit.codegen: a GDL game compiled to a Boolean circuit. */",
        '#include "runtime.c"',
        *_phase("phase_a", circuit.phase_a),
        *_phase("phase_b", circuit.phase_b),
        *_lane0(circuit),
    ]
    for (name, ctype), values in zip(TABLES, tables(circuit).values()):
        body = ", ".join(str(v) for v in values) if values else "0"
        lines.append(f"static const {ctype} T_{name}[{len(values) + 1}] = {{{body}}};")
    ns, nf, nm, nr, ng, nsee, maxmoves = sizes(circuit)
    fields = ", ".join(f"T_{name}" for name, _ in TABLES)
    lines += [
        "game_t *ggp_new_game(void) {",
        "  game_t *g = calloc(1, sizeof(game_t));",
        "  if (!g) return NULL;",
        f"  g->ns = {ns}; g->nf = {nf}; g->nm = {nm}; g->nr = {nr}; g->ng = {ng}; g->nsee = {nsee};",
        f"  g->maxmoves = {maxmoves}; g->nw = {max(1, -(-nf // 64))};",
        "  g->phase_a = phase_a; g->phase_b = phase_b; g->lane0_legal = lane0_legal; g->lane0_next = lane0_next;",
        f"  const void *t[] = {{{fields}}};",
        "  set_tables(g, t);",
        "  return g;",
        "}",
    ]
    return "\n".join(lines) + "\n"


def bytecode(statements: Sequence[Statement]) -> list[int]:
    """The interpreter's int32 program for a phase.

    ``[count, statement...]``; a statement is ``0, slot, terms`` or, for a recursive component,
    ``1, nslots, slot..., terms per slot``; ``terms`` is ``nterms, (nlits, lit...)...`` and a literal is
    ``slot * 2 + negated``.
    """
    code = [len(statements)]

    def terms(bodies: Sequence[Sequence[int]]) -> None:
        code.append(len(bodies))
        for body in bodies:
            code.append(len(body))
            code.extend(2 * abs(lit) + (lit < 0) for lit in body)

    for statement in statements:
        if statement.recursive:
            code += [1, len(statement.slots), *statement.slots]
            for bodies in statement.terms:
                terms(bodies)
        else:
            code += [0, statement.slots[0]]
            terms(statement.terms[0])
    return code


INTERPRETER_SOURCE = '#include "runtime.c"\n#include "circuit_interpreter.c"\n'
"""The game-independent library: the runtime and the circuit interpreter (no per-game code)."""
