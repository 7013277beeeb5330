"""C source for circuits: straight-line uint64 word operations (64 states per word) plus the runtime.

Two libraries share one runtime (:data:`RUNTIME`: batch evaluation, single-state queries and the whole
random-playout loop with a seeded splitmix64 generator, so Python is out of the inner loop). Every entry
point takes a ``game_t *``: the tables of one game's outputs and its two phase functions.

- :func:`c_source` compiles one game: ``phase_a``/``phase_b`` hold one C statement per circuit statement
  (split into functions of at most :data:`CHUNK` statements so the compiler stays fast).
- :data:`INTERPRETER_SOURCE` is game-independent: its phase functions interpret the circuit from an
  int32 array (:func:`bytecode`), so any game runs without compiling anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from ggp.reasoner.circuit.build import Circuit, Ref, Statement

CHUNK = 1500
"""Statements per generated C function."""


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
    """``lane0_legal`` and ``lane0_next`` unrolled with constant slots (see ``game_t`` in :data:`RUNTIME`)."""

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
        RUNTIME,
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


RUNTIME = r"""
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct game game_t;
struct game {
  int32_t ns, nf, nm, nr, ng, nsee, maxmoves, nw;
  const int32_t *role_off; const uint8_t *init;
  const int32_t *legal_slot; const uint8_t *legal_neg; const int32_t *next_slot; const uint8_t *next_neg;
  const int32_t *term_slot; const uint8_t *term_neg; const int32_t *goal_slot; const uint8_t *goal_neg;
  const int32_t *sees_slot; const uint8_t *sees_neg; const int32_t *goal_role; const int64_t *goal_value;
  void (*phase_a)(const game_t *, uint64_t *);
  void (*phase_b)(const game_t *, uint64_t *);
  /* lane 0 of the legal outputs as a bit set (move m: bit m % 64 of word m / 64), of the next outputs
     as 0/1 words; a compiled game has them unrolled, else they read the tables (lane0_*_tables) */
  void (*lane0_legal)(const game_t *, const uint64_t *, uint64_t *);
  void (*lane0_next)(const game_t *, const uint64_t *, uint64_t *);
  const int32_t *code_a, *code_b;
  /* buffers of the single-state entry points, bound once so each call passes only its inputs */
  uint64_t *b_v; int32_t *b_legal; uint8_t *b_flags; uint64_t *b_next; uint8_t *b_sees;
};

static void set_tables(game_t *g, const void *const *t) {
  g->role_off = t[0]; g->init = t[1]; g->legal_slot = t[2]; g->legal_neg = t[3];
  g->next_slot = t[4]; g->next_neg = t[5]; g->term_slot = t[6]; g->term_neg = t[7];
  g->goal_slot = t[8]; g->goal_neg = t[9]; g->sees_slot = t[10]; g->sees_neg = t[11];
  g->goal_role = t[12]; g->goal_value = t[13];
}

void ggp_free_game(game_t *g) { free(g); }

static void lane0_legal_tables(const game_t *G, const uint64_t *restrict v, uint64_t *restrict bits) {
  memset(bits, 0, sizeof(uint64_t) * (size_t)((G->nm + 63) / 64));
  for (int m = 0; m < G->nm; m++) bits[m >> 6] |= ((v[G->legal_slot[m]] ^ G->legal_neg[m]) & 1) << (m & 63);
}

static void lane0_next_tables(const game_t *G, const uint64_t *restrict v, uint64_t *restrict out) {
  for (int f = 0; f < G->nf; f++) out[f] = (v[G->next_slot[f]] ^ G->next_neg[f]) & 1;
}

int32_t ggp_sizes(const game_t *G, int32_t *out) {
  out[0] = G->ns; out[1] = G->nf; out[2] = G->nm; out[3] = G->nr; out[4] = G->ng; out[5] = G->nsee;
  out[6] = G->nw;
  return 7;
}

#define RD(T, i) (v[G->T##_slot[i]] ^ ((uint64_t)0 - (uint64_t)G->T##_neg[i]))

/* Batch evaluation: inputs and outputs are [index][word] arrays of nwords uint64 (64 states each).
   din == NULL evaluates phase A only (next and sees are left untouched). */
void ggp_eval(const game_t *G, int64_t nwords, const uint64_t *tin, const uint64_t *din, uint64_t *v,
              uint64_t *legal, uint64_t *term, uint64_t *goal, uint64_t *next, uint64_t *sees) {
  const int NF = G->nf, NM = G->nm;
  for (int64_t w = 0; w < nwords; w++) {
    v[0] = 0;
    for (int f = 0; f < NF; f++) v[1 + f] = tin[f * nwords + w];
    for (int m = 0; m < NM; m++) v[1 + NF + m] = din ? din[m * nwords + w] : 0;
    G->phase_a(G, v);
    for (int m = 0; m < NM; m++) legal[m * nwords + w] = RD(legal, m);
    term[w] = RD(term, 0);
    for (int g = 0; g < G->ng; g++) goal[g * nwords + w] = RD(goal, g);
    if (din) {
      G->phase_b(G, v);
      for (int f = 0; f < NF; f++) next[f * nwords + w] = RD(next, f);
      for (int s = 0; s < G->nsee; s++) sees[s * nwords + w] = RD(sees, s);
    }
  }
}

void ggp_bind(game_t *G, uint64_t *v, int32_t *legal, uint8_t *flags, uint64_t *next, uint8_t *sees) {
  G->b_v = v; G->b_legal = legal; G->b_flags = flags; G->b_next = next; G->b_sees = sees;
}

/* Single states are packed: fluent f is bit f % 64 of word f / 64 (nw words). */
static void load_packed(const game_t *G, uint64_t *v, const uint64_t *p) {
  v[0] = 0;
  for (int f = 0; f < G->nf; f++) v[1 + f] = (p[f >> 6] >> (f & 63)) & 1;
  memset(v + 1 + G->nf, 0, sizeof(uint64_t) * G->nm);
}

/* One packed state: legal move indices (ascending) into legal, returns their count; flags[0] = terminal,
   flags[1 + g] = goal g. v: ns words of scratch. */
static int32_t eval_info(const game_t *G, uint64_t *v, const uint64_t *p, int32_t *legal, uint8_t *flags) {
  load_packed(G, v, p);
  G->phase_a(G, v);
  int32_t n = 0;
  for (int m = 0; m < G->nm; m++) if (RD(legal, m) & 1) legal[n++] = m;
  flags[0] = (uint8_t)(RD(term, 0) & 1);
  for (int g = 0; g < G->ng; g++) flags[1 + g] = (uint8_t)(RD(goal, g) & 1);
  return n;
}

/* One packed state and one joint move (global move indices, one per role): the packed next state
   into next (nw words); sees[s] = sees output s. */
static void eval_next(const game_t *G, uint64_t *v, const uint64_t *p, const int32_t *moves, uint64_t *next,
                      uint8_t *sees) {
  load_packed(G, v, p);
  for (int r = 0; r < G->nr; r++) v[1 + G->nf + moves[r]] = 1;
  G->phase_a(G, v);
  G->phase_b(G, v);
  memset(next, 0, sizeof(uint64_t) * G->nw);
  for (int f = 0; f < G->nf; f++) next[f >> 6] |= (RD(next, f) & 1) << (f & 63);
  for (int s = 0; s < G->nsee; s++) sees[s] = (uint8_t)(RD(sees, s) & 1);
}

/* eval_info on the bound buffers. */
int32_t ggp_single_info(const game_t *G, const uint64_t *p) {
  return eval_info(G, G->b_v, p, G->b_legal, G->b_flags);
}

/* eval_next on the bound buffers. */
void ggp_single_next(const game_t *G, const uint64_t *p, const int32_t *moves) {
  eval_next(G, G->b_v, p, moves, G->b_next, G->b_sees);
}

static inline uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Workspace of a playout run: 64 * nwords lanes. */
typedef struct {
  int64_t nwords;
  uint64_t *v, *st, *active;
  int64_t *depth;
  int32_t *cand;
} pwork_t;

static void pwork_free(pwork_t *W) {
  free(W->v); free(W->st); free(W->depth); free(W->active); free(W->cand);
  memset(W, 0, sizeof(*W));
}

static int pwork_init(const game_t *G, pwork_t *W, int64_t nwords) {
  W->nwords = nwords;
  W->v = calloc((size_t)G->ns, sizeof(uint64_t));
  W->st = calloc((size_t)nwords * (G->nf + 1), sizeof(uint64_t));
  W->depth = calloc((size_t)nwords * 64, sizeof(int64_t));
  W->active = calloc((size_t)nwords, sizeof(uint64_t));
  W->cand = malloc(sizeof(int32_t) * 64 * G->maxmoves);
  if (!W->v || !W->st || !W->depth || !W->active || !W->cand) { pwork_free(W); return -1; }
  return 0;
}

/* n random playouts from `start` (nf bytes), keeping the workspace's 64 * nwords lanes running and
   refilling the finished ones; moves are drawn with the splitmix64 generator *rng. stats: [playouts,
   states, depth sum, cut at max_depth, stuck (a role had no legal move)]; goal_sums[r]: sum of role r's
   goal over the playouts (0 where it has none); when not NULL, depths[i] and goals[i * nr + r] receive
   the depth and goals of the i-th playout to finish. */
static void run_playouts(const game_t *G, pwork_t *W, int64_t n, uint64_t *rng, int64_t max_depth,
                         const uint8_t *start, int64_t *stats, double *goal_sums, int32_t *depths, int32_t *goals) {
  const int NF = G->nf, NM = G->nm, NR = G->nr, NG = G->ng, MAXMOVES = G->maxmoves;
  const int64_t nwords = W->nwords;
  uint64_t *v = W->v, *st = W->st, *active = W->active;
  int64_t *depth = W->depth;
  int32_t *cand = W->cand;
  int64_t started = 0;
  memset(depth, 0, sizeof(int64_t) * 64 * (size_t)nwords);
  memset(active, 0, sizeof(uint64_t) * (size_t)nwords);
  for (int r = 0; r < NR; r++) goal_sums[r] = 0.0;
  for (int i = 0; i < 5; i++) stats[i] = 0;
  for (int64_t g = 0; g < nwords; g++) {
    for (int lane = 0; lane < 64 && started < n; lane++, started++) active[g] |= (uint64_t)1 << lane;
    for (int f = 0; f < NF; f++) st[g * (NF + 1) + f] = start[f] ? active[g] : 0;
  }
  int any = 1;
  while (any) {
    any = 0;
    for (int64_t g = 0; g < nwords; g++) {
      uint64_t act = active[g];
      if (!act) continue;
      any = 1;
      uint64_t *s = st + g * (NF + 1);
      int64_t *dep = depth + g * 64;
      v[0] = 0;
      memcpy(v + 1, s, sizeof(uint64_t) * NF);
      memset(v + 1 + NF, 0, sizeof(uint64_t) * NM);
      G->phase_a(G, v);
      uint64_t fin = RD(term, 0) & act;
      for (int r = 0; r < NR; r++) {
        uint64_t some = 0;
        for (int m = G->role_off[r]; m < G->role_off[r + 1]; m++) some |= RD(legal, m);
        uint64_t stuck = act & ~fin & ~some;
        stats[4] += __builtin_popcountll(stuck);
        fin |= stuck;
      }
      for (uint64_t w = act & ~fin; w; w &= w - 1) {
        int lane = __builtin_ctzll(w);
        if (dep[lane] >= max_depth) { fin |= (uint64_t)1 << lane; stats[3]++; }
      }
      uint64_t restart = 0;
      for (uint64_t w = fin; w; w &= w - 1) {
        int lane = __builtin_ctzll(w);
        int64_t index = stats[0]++;
        stats[1] += dep[lane] + 1;
        stats[2] += dep[lane];
        if (depths) depths[index] = (int32_t)dep[lane];
        for (int r = 0; r < NR; r++) {
          int64_t value = 0;
          for (int k = 0; k < NG; k++) {
            if (G->goal_role[k] == r && ((RD(goal, k) >> lane) & 1)) { value = G->goal_value[k]; break; }
          }
          goal_sums[r] += (double)value;
          if (goals) goals[index * NR + r] = (int32_t)value;
        }
        dep[lane] = 0;
        if (started < n) { started++; restart |= (uint64_t)1 << lane; }
        else active[g] &= ~((uint64_t)1 << lane);
      }
      uint64_t live = act & ~fin;
      if (live) {
        int32_t cnt[64];
        for (int r = 0; r < NR; r++) {
          memset(cnt, 0, sizeof(cnt));
          for (int m = G->role_off[r]; m < G->role_off[r + 1]; m++) {
            for (uint64_t w = RD(legal, m) & live; w; w &= w - 1) {
              int lane = __builtin_ctzll(w);
              cand[lane * MAXMOVES + cnt[lane]++] = m;
            }
          }
          for (uint64_t w = live; w; w &= w - 1) {
            int lane = __builtin_ctzll(w);
            uint64_t pick = (uint64_t)(((unsigned __int128)splitmix64(rng) * (uint64_t)cnt[lane]) >> 64);
            v[1 + NF + cand[lane * MAXMOVES + pick]] |= (uint64_t)1 << lane;
          }
        }
        G->phase_b(G, v);
        for (uint64_t w = live; w; w &= w - 1) dep[__builtin_ctzll(w)]++;
        for (int f = 0; f < NF; f++) s[f] = (RD(next, f) & live) | (start[f] ? restart : 0);
      } else {
        for (int f = 0; f < NF; f++) s[f] = start[f] ? restart : 0;
      }
    }
  }
}

/* n random playouts from `start` (nf bytes), 64 * nwords of them running at once (see run_playouts).
   Returns 0, or -1 when out of memory. */
int32_t ggp_playouts(const game_t *G, int64_t n, uint64_t seed, int64_t nwords, int64_t max_depth,
                     const uint8_t *start, int64_t *stats, double *goal_sums, int32_t *depths, int32_t *goals) {
  pwork_t W;
  if (pwork_init(G, &W, nwords) != 0) return -1;
  uint64_t rng = seed;
  run_playouts(G, &W, n, &rng, max_depth, start, stats, goal_sums, depths, goals);
  pwork_free(&W);
  return 0;
}

/* ---- MCTS: players/mcts.py's decoupled UCT with the whole tree in C ----
   A node holds its packed state, terminal flag, goals (scaled 0..1, terminal nodes only) and, per role,
   its legal moves ("edges": global move id, visits, goal total). Each iteration selects one move per role
   (UCB1 on the role's own goal; a role with one move takes it; a chance role draws uniformly; unvisited
   moves first, in random order), expands one child, scores it by random playouts and backs the goals up.
   Children are found through an open-addressing table keyed by (parent, per-role picks). The arena grows
   by doubling up to max_nodes nodes and max_bytes bytes; once full, an iteration scores its new leaf by
   a playout without storing it. Not thread-safe; uses only its own buffers and the game's tables.
   MCTS-Solver (Winands, Bjornsson & Saito 2008; ggp_mcts_set_solver): a node where one role chooses (the
   others have one move, no chance role has a choice) is proven once one of its children is proven to give
   that role its highest goal, or all of them are proven (its value: the child best for that role); a proven
   node is then scored by its proven goals, as a terminal one, and no playout runs below it.
   RAVE (Gelly & Silver 2007, as CadiaPlayer uses it; ggp_mcts_set_rave): each edge also keeps all-moves-as-
   first statistics (the goals of the iterations in which its role played its move at the node or later,
   in the tree or in a single playout), and UCB1 takes beta * AMAF mean + (1 - beta) * mean, with
   beta = sqrt(k / (3 n + k)) for an edge of n visits.
   Best line (one-role games, one playout per leaf): the moves of the iteration with the highest goal that
   reached a terminal state (tree path, then playout) are kept with the state they start from; in a game
   with one role and no chance they guarantee that goal, so the player follows them (ggp_mcts_line) while
   the search looks for better. Rerooting along the line's first move keeps the rest of it. */

typedef struct {
  int32_t edge;     /* first edge of the node: role-major, nmov[r] edges per role */
  int32_t count;    /* iterations that went through the node (n of UCB1's log n) */
  int32_t child;    /* first child, -1 for none */
  int32_t sibling;  /* next child of the same parent, -1 for none */
  int32_t terminal; /* terminal, or some role has no legal move */
  int32_t solved;   /* proven (terminal nodes always): its goals hold the value of perfect play from it */
  int32_t pdepth;   /* proven: joint moves to the end along the proof (see try_solve) */
} mnode_t;

typedef struct { int32_t parent, child; } mslot_t;

typedef struct {
  int64_t n, cap;
  mnode_t *node; uint64_t *state; double *goal; int32_t *nmov; int32_t *picks;
  int64_t ne, ecap;
  int32_t *emove, *evis; double *etot;
  int32_t *eavis; double *eatot; /* RAVE's all-moves-as-first visits and goal totals per edge */
  double *eprov;  /* MCTS-Solver: the chooser's proven value after the edge's move, -1 while unproven */
  int64_t hcap; /* a power of two; an empty slot has parent -1 */
  mslot_t *hash;
} mstore_t;

typedef struct {
  const game_t *G;
  int32_t nr, nw;
  double c;
  int64_t ppl, max_nodes, max_bytes, max_depth;
  uint64_t rng;
  int32_t full;
  mstore_t s;
  int32_t solver;   /* MCTS-Solver on (ggp_mcts_set_solver) */
  double *gmax;     /* per role: its highest goal (0..1) */
  uint8_t *chance, *flags, *sees, *start;
  uint64_t *v, *next;
  int32_t *legal, *moves, *cnt;
  int32_t *nchoice; /* single playouts: each role's number of legal moves at the running step */
  double *g, *sums;
  int64_t pcap;
  int32_t *path, *ppicks;
  uint64_t *bits; /* the legal moves as a bit set */
  pwork_t pw;
  double mast_eps;  /* MAST playouts (ggp_mcts_set_mast): a random move with this chance, else the best mean */
  double *mast_sum; /* per global move: summed goals (0..1) of its role in the iterations it was played in */
  int64_t *mast_cnt;
  int32_t *trail;   /* (move, role) pairs of the MAST roles' choices in the running playout */
  int64_t tn;
  double rave_k;     /* RAVE's equivalence parameter k (ggp_mcts_set_rave); 0: off */
  uint64_t *played;  /* RAVE: bit set of the moves played in the running iteration below the backed-up node */
  int32_t *unplay;   /* the moves set in `played`, to clear it after the iteration */
  int64_t un;
  int32_t *pmoves;   /* best line: the running single playout's moves (one-role games only, else NULL) */
  int64_t pmn;
  int32_t pl_terminal; /* the last single playout ended in a terminal state (not cut, not stuck) */
  int32_t decisive;  /* playout lookahead (ggp_mcts_set_decisive): 1 decisive moves, 2 anti-decisive ones too */
  uint64_t *dv;      /* decisive moves: ns words, the state after each candidate move in its own lane */
  uint64_t *dn;      /* decisive moves: nf words, those states' fluents */
  uint64_t *dlegal;  /* anti-decisive moves: nm words, the legal moves in each lane */
  int32_t *dcand;    /* decisive moves: the 64 candidate moves of a lane word */
  int32_t *dsingle;  /* anti-decisive moves: 64 * nr, each role's first legal move in a lane's state */
  int32_t *line;     /* best line: its moves from line_root, line_n of them, line_goal its goal (-1: none) */
  int64_t line_n, line_cap;
  double line_goal;
  uint64_t *line_root;
} mtree_t;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of Python's time.monotonic() */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int32_t rand_below(mtree_t *T, int32_t k) {
  return (int32_t)(((unsigned __int128)splitmix64(&T->rng) * (uint64_t)k) >> 64);
}

static int64_t store_bytes(const mtree_t *T, int64_t cap, int64_t ecap, int64_t hcap) {
  int64_t per_node = (int64_t)sizeof(mnode_t) + 8 * T->nw + (int64_t)T->nr * (8 + 4 + 4);
  return cap * per_node + ecap * (4 + 4 + 8 + 4 + 8 + 8) + hcap * (int64_t)sizeof(mslot_t);
}

static void store_free(mstore_t *S) {
  free(S->node); free(S->state); free(S->goal); free(S->nmov); free(S->picks);
  free(S->emove); free(S->evis); free(S->etot); free(S->eavis); free(S->eatot); free(S->eprov); free(S->hash);
  memset(S, 0, sizeof(*S));
}

#define GROW(p, n) do { void *q_ = realloc((p), (size_t)(n) * sizeof(*(p))); if (!q_) return -1; (p) = q_; } while (0)

/* Room for one more node; -1 at the node cap, the byte cap or out of memory. */
static int grow_nodes(const mtree_t *T, mstore_t *S) {
  if (S->n < S->cap) return 0;
  if (S->cap >= T->max_nodes) return -1;
  int64_t cap = S->cap ? 2 * S->cap : 64;
  if (cap > T->max_nodes) cap = T->max_nodes;
  int64_t used = store_bytes(T, S->cap, S->ecap, S->hcap), per = store_bytes(T, 1, 0, 0);
  if (used + (cap - S->cap) * per > T->max_bytes) cap = S->cap + (T->max_bytes - used) / per;
  if (cap <= S->cap) return -1;
  GROW(S->node, cap); GROW(S->state, cap * T->nw); GROW(S->goal, cap * T->nr);
  GROW(S->nmov, cap * T->nr); GROW(S->picks, cap * T->nr);
  S->cap = cap;
  return 0;
}

/* Room for `need` more edges. */
static int grow_edges(const mtree_t *T, mstore_t *S, int64_t need) {
  if (S->ne + need <= S->ecap) return 0;
  if (S->ne + need > INT32_MAX) return -1;
  int64_t cap = S->ecap ? 2 * S->ecap : 256;
  if (cap < S->ne + need) cap = S->ne + need;
  if (cap > INT32_MAX) cap = INT32_MAX;
  int64_t used = store_bytes(T, S->cap, S->ecap, S->hcap), per = store_bytes(T, 0, 1, 0);
  if (used + (cap - S->ecap) * per > T->max_bytes) cap = S->ecap + (T->max_bytes - used) / per;
  if (cap < S->ne + need) return -1;
  GROW(S->emove, cap); GROW(S->evis, cap); GROW(S->etot, cap); GROW(S->eavis, cap); GROW(S->eatot, cap);
  GROW(S->eprov, cap);
  S->ecap = cap;
  return 0;
}

#undef GROW

static uint64_t child_hash(int32_t nr, int32_t parent, const int32_t *picks) {
  uint64_t h = (uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ULL;
  for (int r = 0; r < nr; r++) h = (h ^ (uint64_t)(uint32_t)picks[r]) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

static void hash_put(mslot_t *table, int64_t hcap, int32_t nr, const int32_t *picks, int32_t parent, int32_t child) {
  uint64_t mask = (uint64_t)hcap - 1, i = child_hash(nr, parent, picks) & mask;
  while (table[i].parent >= 0) i = (i + 1) & mask;
  table[i].parent = parent;
  table[i].child = child;
}

/* Room in the child table for one more entry (kept at most half full). */
static int grow_hash(const mtree_t *T, mstore_t *S) {
  if (2 * S->n <= S->hcap) return 0;
  int64_t hcap = S->hcap ? 2 * S->hcap : 128;
  if (store_bytes(T, S->cap, S->ecap, hcap) > T->max_bytes) return -1;
  mslot_t *table = malloc((size_t)hcap * sizeof(mslot_t));
  if (!table) return -1;
  for (int64_t i = 0; i < hcap; i++) table[i].parent = -1;
  for (int64_t i = 0; i < S->hcap; i++) {
    if (S->hash[i].parent >= 0) {
      int32_t child = S->hash[i].child;
      hash_put(table, hcap, T->nr, S->picks + (int64_t)child * T->nr, S->hash[i].parent, child);
    }
  }
  free(S->hash);
  S->hash = table;
  S->hcap = hcap;
  return 0;
}

static int32_t find_child(const mtree_t *T, int32_t parent, const int32_t *picks) {
  const mstore_t *S = &T->s;
  if (!S->hcap) return -1;
  uint64_t mask = (uint64_t)S->hcap - 1, i = child_hash(T->nr, parent, picks) & mask;
  for (;; i = (i + 1) & mask) {
    const mslot_t *e = &S->hash[i];
    if (e->parent < 0) return -1;
    if (e->parent == parent && !memcmp(S->picks + (int64_t)e->child * T->nr, picks, sizeof(int32_t) * T->nr)) {
      return e->child;
    }
  }
}

/* Links a node just appended to S (picks already stored) under its parent. */
static void link_child(const mtree_t *T, mstore_t *S, int32_t parent, int32_t id) {
  hash_put(S->hash, S->hcap, T->nr, S->picks + (int64_t)id * T->nr, parent, id);
  S->node[id].sibling = S->node[parent].child;
  S->node[parent].child = id;
}

/* Goals of a terminal tree node as players/mcts.py scores them (safe_goals): each role's goal / 100
   when every role has exactly one goal, else all zeros. */
static void strict_goals(const mtree_t *T, double *out) {
  const game_t *G = T->G;
  int ok = 1;
  for (int r = 0; r < T->nr; r++) {
    int found = 0;
    out[r] = 0.0;
    for (int k = 0; k < G->ng; k++) {
      if (G->goal_role[k] == r && T->flags[1 + k]) { found++; out[r] = (double)G->goal_value[k] / 100.0; }
    }
    if (found != 1) ok = 0;
  }
  if (!ok) for (int r = 0; r < T->nr; r++) out[r] = 0.0;
}

/* Appends the node of a packed state under `parent` (-1: the root) reached by `picks`; its id, or -1
   when the store is full (nothing is changed then). */
static int32_t add_node(mtree_t *T, mstore_t *S, const uint64_t *packed, int32_t parent, const int32_t *picks) {
  const game_t *G = T->G;
  const int NR = T->nr;
  if (grow_nodes(T, S) != 0) return -1;
  if (parent >= 0 && grow_hash(T, S) != 0) return -1;
  int32_t nlegal = eval_info(G, T->v, packed, T->legal, T->flags);
  int terminal = T->flags[0];
  for (int r = 0; r < NR; r++) T->cnt[r] = 0;
  for (int32_t i = 0, r = 0; i < nlegal; i++) {
    while (T->legal[i] >= G->role_off[r + 1]) r++;
    T->cnt[r]++;
  }
  for (int r = 0; r < NR; r++) if (!T->cnt[r]) terminal = 1;
  if (!terminal && grow_edges(T, S, nlegal) != 0) return -1;
  int32_t id = (int32_t)S->n++;
  mnode_t *N = &S->node[id];
  N->count = 0; N->child = -1; N->sibling = -1; N->terminal = terminal; N->solved = terminal; N->pdepth = 0;
  N->edge = (int32_t)S->ne;
  memcpy(S->state + (int64_t)id * T->nw, packed, sizeof(uint64_t) * T->nw);
  int32_t *nm = S->nmov + (int64_t)id * NR, *pk = S->picks + (int64_t)id * NR;
  double *goal = S->goal + (int64_t)id * NR;
  for (int r = 0; r < NR; r++) { nm[r] = terminal ? 0 : T->cnt[r]; pk[r] = picks ? picks[r] : 0; goal[r] = 0.0; }
  if (terminal) {
    strict_goals(T, goal);
  } else {
    memcpy(S->emove + S->ne, T->legal, sizeof(int32_t) * nlegal);
    memset(S->evis + S->ne, 0, sizeof(int32_t) * nlegal);
    memset(S->etot + S->ne, 0, sizeof(double) * nlegal);
    memset(S->eavis + S->ne, 0, sizeof(int32_t) * nlegal);
    memset(S->eatot + S->ne, 0, sizeof(double) * nlegal);
    for (int32_t i = 0; i < nlegal; i++) S->eprov[S->ne + i] = -1.0;
    S->ne += nlegal;
  }
  if (parent >= 0) link_child(T, S, parent, id);
  return id;
}

/* A fresh tree holding only the root; 0, or -1 when out of memory. */
static int reset_tree(mtree_t *T, const uint64_t *packed) {
  store_free(&T->s);
  T->full = 0;
  return add_node(T, &T->s, packed, -1, NULL) == 0 ? 0 : -1;
}

/* The role that alone chooses at node id (every other role has one move, no chance role has a choice):
   its index; NR when no role has a choice; -1 when several do, or a chance role does. */
static int32_t sole_mover(const mtree_t *T, int32_t id) {
  const int32_t *nm = T->s.nmov + (int64_t)id * T->nr;
  int32_t mover = T->nr;
  for (int r = 0; r < T->nr; r++) {
    if (nm[r] <= 1) continue;
    if (T->chance[r] || mover != T->nr) return -1;
    mover = r;
  }
  return mover;
}

/* One move index (into the node's edges of the role) per role, as MctsPlayer._select picks them. */
static void select_moves(mtree_t *T, int32_t id, int32_t *picks) {
  const mstore_t *S = &T->s;
  const mnode_t *N = &S->node[id];
  const int32_t *nm = S->nmov + (int64_t)id * T->nr;
  int64_t e = N->edge;
  double log_n = -1.0;
  const int32_t sole = T->solver ? sole_mover(T, id) : -1;
  for (int r = 0; r < T->nr; e += nm[r], r++) {
    int32_t k = nm[r];
    if (k == 1) { picks[r] = 0; continue; }
    if (T->chance[r]) { picks[r] = rand_below(T, k); continue; }
    const int32_t *vis = S->evis + e;
    /* MCTS-Solver: the sole chooser of an unproven node never picks a move proven worse than another, or
       proven to give it goal 0 (some move is unproven, else the node would be proven) */
    const double *prov = S->eprov + e;
    double keep_at = -1.0; /* the lowest proven value still worth a pick */
    if (sole == r) for (int32_t i = 0; i < k; i++) if (prov[i] > keep_at) keep_at = prov[i];
    if (keep_at == 0.0) keep_at = 1e-9;
    int32_t unvisited = 0;
    for (int32_t i = 0; i < k; i++) unvisited += vis[i] == 0;
    if (unvisited) {
      int32_t j = rand_below(T, unvisited);
      for (int32_t i = 0; i < k; i++) if (vis[i] == 0 && j-- == 0) { picks[r] = i; break; }
      continue;
    }
    if (log_n < 0.0) log_n = log((double)N->count);
    const double *tot = S->etot + e, *atot = S->eatot + e;
    const int32_t *avis = S->eavis + e;
    const double K = T->rave_k;
    int32_t best = 0;
    double best_value = -INFINITY;
    for (int32_t i = 0; i < k; i++) {
      if (prov[i] >= 0.0 && prov[i] < keep_at) continue;
      double mean = tot[i] / vis[i];
      if (K > 0.0 && avis[i] > 0) {
        double beta = sqrt(K / (3.0 * vis[i] + K));
        mean = (1.0 - beta) * mean + beta * atot[i] / avis[i];
      }
      double value = mean + T->c * sqrt(log_n / vis[i]);
      if (value > best_value) { best = i; best_value = value; } /* ties keep the first move */
    }
    picks[r] = best;
  }
}

static inline int32_t popcount64(uint64_t x) { /* no libgcc call without -mpopcnt */
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return (int32_t)((x * 0x0101010101010101ULL) >> 56);
}

/* Word w of a bit set with only the bits low..high-1 kept. */
static inline uint64_t range_word(const uint64_t *bits, int32_t w, int32_t low, int32_t high) {
  uint64_t b = bits[w];
  if (w == low >> 6) b &= ~(uint64_t)0 << (low & 63);
  if (w == (high - 1) >> 6 && (high & 63)) b &= ~(~(uint64_t)0 << (high & 63));
  return b;
}

/* The k-th (0-based, uniformly drawn) of the n moves set in bits low..high-1. */
static inline int32_t random_member(mtree_t *T, const uint64_t *bits, int32_t low, int32_t high, int32_t n) {
  int32_t k = (int32_t)(((unsigned __int128)splitmix64(&T->rng) * (uint64_t)n) >> 64), w = low >> 6;
  for (;; w++) {
    int32_t c = popcount64(range_word(bits, w, low, high));
    if (k < c) break;
    k -= c;
  }
  uint64_t b = range_word(bits, w, low, high);
  while (k--) b &= b - 1;
  return 64 * w + __builtin_ctzll(b);
}

/* Of the moves set in bits low..high-1, the one with the best MAST mean (an untried move counts as 1.0,
   the best possible; ties drawn uniformly). */
static int32_t mast_best(mtree_t *T, const uint64_t *bits, int32_t low, int32_t high) {
  int32_t best = -1, ties = 0;
  double best_q = -1.0;
  for (int32_t w = low >> 6; w <= (high - 1) >> 6; w++) {
    for (uint64_t b = range_word(bits, w, low, high); b; b &= b - 1) {
      int32_t m = 64 * w + __builtin_ctzll(b);
      double q = T->mast_cnt[m] ? T->mast_sum[m] / (double)T->mast_cnt[m] : 1.0;
      if (q > best_q) { best = m; best_q = q; ties = 1; }
      else if (q == best_q && rand_below(T, ++ties) == 0) best = m;
    }
  }
  return best;
}

static inline void mast_add(mtree_t *T, int32_t move, double value) {
  T->mast_sum[move] += value;
  T->mast_cnt[move]++;
}

/* RAVE: marks a move as played in the running iteration. */
static inline void rave_mark(mtree_t *T, int32_t move) {
  uint64_t bit = (uint64_t)1 << (move & 63);
  if (T->played[move >> 6] & bit) return;
  T->played[move >> 6] |= bit;
  T->unplay[T->un++] = move;
}

/* RAVE's backup along the iteration's path (deepest node first): node d's edges whose move was played at
   d or below (in the tree or the playout) take the iteration's goals; `played` is cleared at the end. */
static void rave_backup(mtree_t *T, int64_t depth) {
  mstore_t *S = &T->s;
  const int NR = T->nr;
  for (int64_t d = depth - 1; d >= 0; d--) {
    int32_t node = T->path[d];
    const int32_t *nm = S->nmov + (int64_t)node * NR, *picks = T->ppicks + d * NR;
    int64_t e = S->node[node].edge;
    for (int r = 0; r < NR; e += nm[r], r++) if (nm[r] > 1 && !T->chance[r]) rave_mark(T, S->emove[e + picks[r]]);
    e = S->node[node].edge;
    for (int r = 0; r < NR; e += nm[r], r++) {
      if (nm[r] <= 1 || T->chance[r]) continue;
      for (int32_t i = 0; i < nm[r]; i++) {
        int32_t m = S->emove[e + i];
        if (T->played[m >> 6] >> (m & 63) & 1) { S->eavis[e + i]++; S->eatot[e + i] += T->g[r]; }
      }
    }
  }
  for (int64_t i = 0; i < T->un; i++) T->played[T->unplay[i] >> 6] = 0;
  T->un = 0;
}

/* The lanes (bits) of d, evaluated through phase A, whose state is terminal with role r at its highest goal. */
static uint64_t winning_lanes(const mtree_t *T, const uint64_t *d, int r) {
  const game_t *G = T->G;
  uint64_t best = 0;
  for (int g = 0; g < G->ng; g++) {
    if (G->goal_role[g] == r && (double)G->goal_value[g] / 100.0 >= T->gmax[r])
      best |= d[G->goal_slot[g]] ^ ((uint64_t)0 - (uint64_t)G->goal_neg[g]);
  }
  return best & (d[G->term_slot[0]] ^ ((uint64_t)0 - (uint64_t)G->term_neg[0]));
}

/* d's lanes, holding states (fluents) and joint moves (does), become the next states, evaluated through
   phase A (dn: their fluents). */
static void lanes_next(const game_t *G, uint64_t *d, uint64_t *dn) {
  const int NF = G->nf;
  G->phase_b(G, d);
  for (int f = 0; f < NF; f++) dn[f] = d[G->next_slot[f]] ^ ((uint64_t)0 - (uint64_t)G->next_neg[f]);
  d[0] = 0;
  memcpy(d + 1, dn, sizeof(uint64_t) * (size_t)NF);
  memset(d + 1 + NF, 0, sizeof(uint64_t) * (size_t)G->nm);
  G->phase_a(G, d);
}

static int32_t anti_decisive_move(mtree_t *T, const int32_t *cand, int k, int r, int32_t mine);

/* Decisive moves (Teytaud & Teytaud 2010): of role r's legal moves (bits low..high-1), one after which the
   state is terminal and r has its highest goal, the others playing chosen[], drawn uniformly among those
   found; else, with anti-decisive moves on (T->decisive == 2), a move that leaves no other role a move
   that wins at once, when chosen[r] does not (see anti_decisive_move); else -1 (keep chosen[r]). v holds
   the current state in lane 0, evaluated through phase A. The candidates are tried 64 at a time, each in
   its own lane of one evaluation (phase B for the next states, then phase A on them), so a step costs
   about two more evaluations of the circuit, whatever the number of moves. */
static int32_t lookahead_move(mtree_t *T, const uint64_t *v, const uint64_t *bits, int r, int32_t low, int32_t high,
                              const int32_t *chosen) {
  const game_t *G = T->G;
  const int NF = G->nf, NM = G->nm, NR = G->nr, NS = G->ns;
  uint64_t *d = T->dv, *dn = T->dn;
  int32_t *cand = T->dcand;
  int32_t found = -1, wins_seen = 0, batches = 0, k = 0;
  int32_t w = low >> 6;
  uint64_t rest = range_word(bits, w, low, high);
  for (;;) {
    k = 0;
    while (k < 64) {
      while (!rest && ++w <= (high - 1) >> 6) rest = range_word(bits, w, low, high);
      if (!rest) break;
      cand[k++] = 64 * w + __builtin_ctzll(rest);
      rest &= rest - 1;
    }
    if (!k) break;
    batches++;
    for (int i = 0; i < NS; i++) d[i] = (uint64_t)0 - (v[i] & 1); /* lane 0 into every lane */
    memset(d + 1 + NF, 0, sizeof(uint64_t) * (size_t)NM);
    for (int q = 0; q < NR; q++) if (q != r) d[1 + NF + chosen[q]] = ~(uint64_t)0;
    for (int i = 0; i < k; i++) d[1 + NF + cand[i]] |= (uint64_t)1 << i;
    lanes_next(G, d, dn);
    uint64_t wins = winning_lanes(T, d, r);
    if (k < 64) wins &= ((uint64_t)1 << k) - 1;
    for (; wins; wins &= wins - 1) /* reservoir sampling over every batch's winners */
      if (rand_below(T, ++wins_seen) == 0) found = cand[__builtin_ctzll(wins)];
    if (k < 64) break;
  }
  if (found >= 0 || T->decisive < 2 || batches != 1) return found;
  return anti_decisive_move(T, cand, k, r, chosen[r]);
}

/* Anti-decisive moves: d holds, lane i, the state after role r's candidate move cand[i] (k of them, one
   batch of lookahead_move), evaluated through phase A, and dn its fluents. In each such state every legal
   move of every other role q (chance aside) is tried, the remaining roles playing their first legal move
   (exact in turn-taking games, where they have one; where they choose too it stands for their reply),
   64 (candidate, move) pairs to a lane word at most (more: no check, -1); a candidate after which such a
   move wins at once for q is losing. -1 when r's move `mine` is not losing (or every candidate is), else
   a move that is not, drawn uniformly. */
static int32_t anti_decisive_move(mtree_t *T, const int32_t *cand, int k, int r, int32_t mine) {
  const game_t *G = T->G;
  const int NF = G->nf, NM = G->nm, NR = G->nr;
  uint64_t *d = T->dv, *dn = T->dn, *lw = T->dlegal;
  int32_t *first = T->dsingle, pi[64], pj[64], pq[64];
  uint64_t masks[64];
  int np = 0;
  const uint64_t term = d[G->term_slot[0]] ^ ((uint64_t)0 - (uint64_t)G->term_neg[0]);
  for (int m = 0; m < NM; m++) lw[m] = d[G->legal_slot[m]] ^ ((uint64_t)0 - (uint64_t)G->legal_neg[m]);
  const uint64_t live = ~term & (k < 64 ? ((uint64_t)1 << k) - 1 : ~(uint64_t)0);
  int64_t pairs = 0; /* counted first: where they do not fit (breakthrough, reversi) a step pays no more */
  for (int q = 0; q < NR; q++) {
    if (q == r || T->chance[q]) continue;
    for (int32_t m = G->role_off[q]; m < G->role_off[q + 1]; m++) pairs += popcount64(lw[m] & live);
  }
  if (pairs == 0 || pairs > 64) return -1;
  for (int i = 0; i < k; i++) {
    masks[i] = 0;
    if ((term >> i) & 1) continue;
    int ok = 1;
    for (int q = 0; q < NR && ok; q++) {
      first[i * NR + q] = -1;
      for (int32_t m = G->role_off[q]; m < G->role_off[q + 1] && first[i * NR + q] < 0; m++)
        if ((lw[m] >> i) & 1) first[i * NR + q] = m;
      ok = first[i * NR + q] >= 0; /* else stuck: the game ends there */
    }
    if (!ok) continue;
    for (int q = 0; q < NR; q++) {
      if (q == r || T->chance[q]) continue;
      for (int32_t m = G->role_off[q]; m < G->role_off[q + 1]; m++) {
        if (!((lw[m] >> i) & 1)) continue;
        if (np == 64) return -1;
        pi[np] = i; pj[np] = m; pq[np] = q;
        masks[i] |= (uint64_t)1 << np;
        np++;
      }
    }
  }
  if (!np) return -1;
  for (int f = 0; f < NF; f++) { /* pair lane L holds the state of its candidate pi[L] */
    uint64_t word = 0;
    for (int i = 0; i < k; i++) if (masks[i] && ((dn[f] >> i) & 1)) word |= masks[i];
    d[1 + f] = word;
  }
  d[0] = 0;
  memset(d + 1 + NF, 0, sizeof(uint64_t) * (size_t)NM);
  for (int L = 0; L < np; L++) {
    d[1 + NF + pj[L]] |= (uint64_t)1 << L;
    for (int q = 0; q < NR; q++) if (q != pq[L]) d[1 + NF + first[pi[L] * NR + q]] |= (uint64_t)1 << L;
  }
  G->phase_a(G, d);
  lanes_next(G, d, dn);
  uint64_t losing_lanes = 0;
  for (int q = 0; q < NR; q++) {
    uint64_t of_q = 0;
    for (int L = 0; L < np; L++) if (pq[L] == q) of_q |= (uint64_t)1 << L;
    if (of_q) losing_lanes |= winning_lanes(T, d, q) & of_q;
  }
  if (np < 64) losing_lanes &= ((uint64_t)1 << np) - 1;
  if (!losing_lanes) return -1;
  uint64_t losing = 0;
  for (uint64_t b = losing_lanes; b; b &= b - 1) losing |= (uint64_t)1 << pi[__builtin_ctzll(b)];
  int32_t n_safe = 0, pick = -1;
  for (int i = 0; i < k; i++) {
    if ((losing >> i) & 1) continue;
    if (cand[i] == mine) return -1;
    if (rand_below(T, ++n_safe) == 0) pick = cand[i];
  }
  return pick;
}

/* One random playout from a packed state in lane 0 only, as run_playouts plays one (its goals into
   T->g, scaled 0..1): with a single playout per leaf this skips run_playouts' per-lane bookkeeping and
   copies, which cost more than the circuit itself. */
static void single_playout(mtree_t *T, const uint64_t *packed) {
  const game_t *G = T->G;
  const int NF = G->nf, NR = G->nr;
  uint64_t *v = T->pw.v, *tmp = T->pw.st;
  uint64_t *bits = T->bits;
  int32_t *chosen = T->cnt;
  load_packed(G, v, packed);
  T->tn = 0;
  T->pmn = 0;
  T->pl_terminal = 0;
  for (int64_t depth = 0;; depth++) {
    G->phase_a(G, v);
    T->pl_terminal = (int32_t)(RD(term, 0) & 1);
    int fin = T->pl_terminal || depth >= T->max_depth;
    if (!fin) G->lane0_legal(G, v, bits); /* a bit set: no branch per move (legality is unpredictable) */
    for (int r = 0; r < NR && !fin; r++) {
      const int32_t low = G->role_off[r], high = G->role_off[r + 1];
      int32_t n = 0;
      for (int32_t w = low >> 6; w <= (high - 1) >> 6 && low < high; w++) n += popcount64(range_word(bits, w, low, high));
      if (!n) { fin = 1; break; } /* stuck: scored where it stands */
      const int mast = T->mast_sum && n > 1 && !T->chance[r];
      if (mast && (double)(splitmix64(&T->rng) >> 11) * 0x1.0p-53 >= T->mast_eps) chosen[r] = mast_best(T, bits, low, high);
      else chosen[r] = random_member(T, bits, low, high, n);
      T->nchoice[r] = n;
      if (T->decisive) continue; /* the move may change below: it is recorded there */
      if (mast) { T->trail[T->tn++] = chosen[r]; T->trail[T->tn++] = r; }
      if (T->played && n > 1 && !T->chance[r]) rave_mark(T, chosen[r]);
    }
    if (fin) break;
    for (int r = 0; r < NR && T->decisive; r++) {
      if (T->nchoice[r] < 2 || T->chance[r]) continue;
      int32_t win = lookahead_move(T, v, bits, r, G->role_off[r], G->role_off[r + 1], chosen);
      if (win >= 0) chosen[r] = win;
      if (T->mast_sum) { T->trail[T->tn++] = chosen[r]; T->trail[T->tn++] = r; }
      if (T->played) rave_mark(T, chosen[r]);
    }
    if (T->pmoves) T->pmoves[T->pmn++] = chosen[0];
    for (int r = 0; r < NR; r++) v[1 + NF + chosen[r]] = 1;
    G->phase_b(G, v);
    G->lane0_next(G, v, tmp);
    memcpy(v + 1, tmp, sizeof(uint64_t) * NF);
    for (int r = 0; r < NR; r++) v[1 + NF + chosen[r]] = 0;
  }
  for (int r = 0; r < NR; r++) {
    int64_t value = 0;
    for (int k = 0; k < G->ng; k++) {
      if (G->goal_role[k] == r && (RD(goal, k) & 1)) { value = G->goal_value[k]; break; }
    }
    T->g[r] = (double)value / 100.0;
  }
  for (int64_t i = 0; i < T->tn; i += 2) mast_add(T, T->trail[i], T->g[T->trail[i + 1]]);
}

/* The mean goals (0..1) of ppl random playouts from a packed state into T->g. */
static void leaf_playouts(mtree_t *T, const uint64_t *packed) {
  const game_t *G = T->G;
  int64_t stats[5];
  if (T->ppl == 1) { single_playout(T, packed); return; }
  for (int f = 0; f < G->nf; f++) T->start[f] = (uint8_t)((packed[f >> 6] >> (f & 63)) & 1);
  run_playouts(G, &T->pw, T->ppl, &T->rng, T->max_depth, T->start, stats, T->sums, NULL, NULL);
  for (int r = 0; r < T->nr; r++) T->g[r] = T->sums[r] / (100.0 * (double)stats[0]);
}

/* MCTS-Solver: records on node id's edge of its sole chooser (picks) the proven value of its child `below`. */
static void mark_proven(mtree_t *T, int32_t id, const int32_t *picks, int32_t below) {
  mstore_t *S = &T->s;
  int32_t mover = sole_mover(T, id);
  if (mover < 0 || mover == T->nr) return;
  int64_t e = S->node[id].edge;
  for (int r = 0; r < mover; r++) e += S->nmov[(int64_t)id * T->nr + r];
  S->eprov[e + picks[mover]] = S->goal[(int64_t)below * T->nr + mover];
}

/* The child a proof takes at node id for its chooser r among the proven ones: the best value for r; among
   equals, the quickest end when that value is r's highest goal (a win is taken at once), else the slowest
   (a lost or drawn side makes a fallible opponent prove it). -1 when no child is proven. */
static int32_t proof_child(const mtree_t *T, int32_t id, int32_t r, int32_t *proven) {
  const mstore_t *S = &T->s;
  int32_t best = -1;
  *proven = 0;
  for (int32_t c = S->node[id].child; c >= 0; c = S->node[c].sibling) {
    if (!S->node[c].solved) continue;
    ++*proven;
    double v = S->goal[(int64_t)c * T->nr + r], b = best < 0 ? -1.0 : S->goal[(int64_t)best * T->nr + r];
    int32_t quicker = best >= 0 && S->node[c].pdepth < S->node[best].pdepth;
    if (v > b || (v == b && (v >= T->gmax[r] ? quicker : (S->node[c].pdepth > S->node[best].pdepth)))) best = c;
  }
  return best;
}

/* MCTS-Solver's step at node id (see the comment on the tree): 1 when it is newly proven. Only a node
   whose sole chooser is known is proven, and only from its children's proofs, so a proof is exact
   (max^n: the chooser takes its best child, see proof_child). */
static int try_solve(mtree_t *T, int32_t id) {
  mstore_t *S = &T->s;
  mnode_t *N = &S->node[id];
  if (N->solved) return 0;
  int32_t mover = sole_mover(T, id);
  if (mover < 0) return 0;
  const int NR = T->nr;
  const int32_t r = mover == NR ? 0 : mover, k = mover == NR ? 1 : S->nmov[(int64_t)id * NR + mover];
  int32_t proven;
  int32_t best = proof_child(T, id, r, &proven);
  if (best < 0 || (proven < k && S->goal[(int64_t)best * NR + r] < T->gmax[r])) return 0;
  memcpy(S->goal + (int64_t)id * NR, S->goal + (int64_t)best * NR, sizeof(double) * NR);
  N->solved = 1;
  N->pdepth = S->node[best].pdepth + 1;
  return 1;
}

/* Best line: room for n moves; 0, or -1 when out of memory. */
static int line_room(mtree_t *T, int64_t n) {
  if (n <= T->line_cap) return 0;
  int64_t cap = n > 2 * T->line_cap ? n : 2 * T->line_cap;
  int32_t *line = realloc(T->line, sizeof(int32_t) * (size_t)cap);
  if (!line) return -1;
  T->line = line;
  T->line_cap = cap;
  return 0;
}

/* Best line: keeps the running iteration's moves (its tree path of `depth` joint moves, then the playout's
   when `with_playout`) when its goal beats the kept line's. 0, or -1 when out of memory. */
static int keep_line(mtree_t *T, int64_t depth, int with_playout) {
  mstore_t *S = &T->s;
  if (T->g[0] <= T->line_goal) return 0;
  int64_t n = depth + (with_playout ? T->pmn : 0);
  if (line_room(T, n) != 0) return -1;
  for (int64_t d = 0; d < depth; d++) T->line[d] = S->emove[S->node[T->path[d]].edge + T->ppicks[d]];
  if (with_playout) memcpy(T->line + depth, T->pmoves, sizeof(int32_t) * (size_t)T->pmn);
  T->line_n = n;
  T->line_goal = T->g[0];
  memcpy(T->line_root, S->state, sizeof(uint64_t) * T->nw);
  return 0;
}

/* One selection-expansion-playout-backup pass; 0, or -1 when out of memory for the path. */
static int iterate(mtree_t *T) {
  mstore_t *S = &T->s;
  const int NR = T->nr;
  int64_t depth = 0;
  int32_t id = 0, end = -1; /* end: the stored node the iteration ended at (proven, or the new leaf) */
  int line_end = 0, with_playout = 0; /* best line: the iteration ended in a terminal state; through a playout */
  for (;;) {
    if (S->node[id].solved) {
      memcpy(T->g, S->goal + (int64_t)id * NR, sizeof(double) * NR);
      end = id;
      line_end = S->node[id].terminal;
      break;
    }
    if (depth == T->pcap) {
      int64_t pcap = 2 * T->pcap;
      int32_t *path = realloc(T->path, sizeof(int32_t) * pcap);
      if (!path) return -1;
      T->path = path;
      int32_t *ppicks = realloc(T->ppicks, sizeof(int32_t) * pcap * NR);
      if (!ppicks) return -1;
      T->ppicks = ppicks;
      T->pcap = pcap;
    }
    int32_t *picks = T->ppicks + depth * NR;
    select_moves(T, id, picks);
    T->path[depth++] = id;
    int32_t child = find_child(T, id, picks);
    if (child >= 0) { id = child; continue; }
    int64_t e = S->node[id].edge;
    const int32_t *nm = S->nmov + (int64_t)id * NR;
    for (int r = 0; r < NR; e += nm[r], r++) T->moves[r] = S->emove[e + picks[r]];
    eval_next(T->G, T->v, S->state + (int64_t)id * T->nw, T->moves, T->next, T->sees);
    child = T->full ? -1 : add_node(T, S, T->next, id, picks);
    if (child < 0) T->full = 1;
    if (child >= 0 && S->node[child].terminal) {
      memcpy(T->g, S->goal + (int64_t)child * NR, sizeof(double) * NR);
      line_end = 1;
    } else {
      leaf_playouts(T, T->next);
      line_end = T->ppl == 1 && T->pl_terminal;
      with_playout = 1;
    }
    if (child >= 0) S->node[child].count++;
    end = child;
    break;
  }
  for (int64_t d = 0; d < depth; d++) {
    int32_t node = T->path[d];
    S->node[node].count++;
    int64_t e = S->node[node].edge;
    const int32_t *nm = S->nmov + (int64_t)node * NR, *picks = T->ppicks + d * NR;
    for (int r = 0; r < NR; e += nm[r], r++) {
      S->evis[e + picks[r]]++;
      S->etot[e + picks[r]] += T->g[r];
      if (T->mast_sum && nm[r] > 1 && !T->chance[r]) mast_add(T, S->emove[e + picks[r]], T->g[r]);
    }
  }
  if (T->played) rave_backup(T, depth);
  if (T->pmoves && line_end && keep_line(T, depth, with_playout) != 0) return -1;
  if (T->solver) {
    for (int64_t d = depth - 1; d >= 0 && end >= 0 && S->node[end].solved; d--) {
      mark_proven(T, T->path[d], T->ppicks + d * NR, end);
      end = try_solve(T, T->path[d]) ? T->path[d] : -1;
    }
  }
  return 0;
}

void ggp_mcts_free(mtree_t *T) {
  if (!T) return;
  store_free(&T->s);
  pwork_free(&T->pw);
  free(T->chance); free(T->flags); free(T->sees); free(T->start); free(T->v); free(T->next);
  free(T->legal); free(T->moves); free(T->cnt); free(T->g); free(T->sums); free(T->path); free(T->ppicks);
  free(T->bits); free(T->mast_sum); free(T->mast_cnt); free(T->trail); free(T->gmax);
  free(T->played); free(T->unplay); free(T->pmoves); free(T->line); free(T->line_root);
  free(T->nchoice); free(T->dv); free(T->dn); free(T->dlegal); free(T->dcand); free(T->dsingle);
  free(T);
}

/* Turns MAST playouts on (Finnsson & Bjornsson's Move-Average Sampling Technique, epsilon-greedy as Tak,
   Winands & Bjornsson 2012): with one playout per leaf, each role with a choice (chance aside) plays a uniformly random
   move with chance `epsilon`, else the move with the best mean goal over every iteration it was played
   in so far (tree and playout; kept for the tree's life). 0, or -1 when out of memory (MAST stays off). */
int32_t ggp_mcts_set_mast(mtree_t *T, double epsilon) {
  const game_t *G = T->G;
  if (T->mast_sum) { T->mast_eps = epsilon; return 0; }
  int64_t tcap = 2 * (T->max_depth + 1) * (int64_t)G->nr;
  double *sum = calloc((size_t)G->nm + 1, sizeof(double));
  int64_t *cnt = calloc((size_t)G->nm + 1, sizeof(int64_t));
  int32_t *trail = malloc(sizeof(int32_t) * (size_t)tcap);
  if (!sum || !cnt || !trail) { free(sum); free(cnt); free(trail); return -1; }
  T->mast_sum = sum; T->mast_cnt = cnt; T->trail = trail; T->tn = 0; T->mast_eps = epsilon;
  return 0;
}

/* Turns RAVE on with equivalence parameter k > 0 (off at 0; see the comment on the tree). 0, or -1 when out
   of memory (RAVE stays off). */
int32_t ggp_mcts_set_rave(mtree_t *T, double k) {
  const game_t *G = T->G;
  T->rave_k = k > 0.0 ? k : 0.0;
  if (T->rave_k == 0.0 || T->played) return 0;
  T->played = calloc((size_t)G->nm / 64 + 1, sizeof(uint64_t));
  T->unplay = malloc(sizeof(int32_t) * ((size_t)G->nm + 1));
  T->un = 0;
  if (!T->played || !T->unplay) {
    free(T->played); free(T->unplay);
    T->played = NULL; T->unplay = NULL; T->rave_k = 0.0;
    return -1;
  }
  return 0;
}

/* Sets the lookahead of the single playouts to come (see lookahead_move): 0 none, 1 decisive moves (at each
   step, a role with a choice, chance aside, that has a move winning at once plays it), 2 decisive and
   anti-decisive moves (else it avoids a move after which an opponent wins at once). 0, or -1 when out of
   memory (no lookahead then). */
int32_t ggp_mcts_set_decisive(mtree_t *T, int32_t level) {
  const game_t *G = T->G;
  if (level > 0 && !T->dv) {
    T->dv = calloc((size_t)G->ns + 1, sizeof(uint64_t));
    T->dn = calloc((size_t)G->nf + 1, sizeof(uint64_t));
    T->dlegal = calloc((size_t)G->nm + 1, sizeof(uint64_t));
    T->dcand = calloc(64, sizeof(int32_t));
    T->dsingle = calloc((size_t)64 * (size_t)G->nr, sizeof(int32_t));
    if (!T->dv || !T->dn || !T->dlegal || !T->dcand || !T->dsingle) {
      free(T->dv); free(T->dn); free(T->dlegal); free(T->dcand); free(T->dsingle);
      T->dv = T->dn = T->dlegal = NULL; T->dcand = T->dsingle = NULL; T->decisive = 0;
      return -1;
    }
  }
  T->decisive = level < 0 ? 0 : (level > 2 ? 2 : level);
  return 0;
}

/* Turns MCTS-Solver on (on != 0) or off for the iterations to come (proofs already made stay). */
void ggp_mcts_set_solver(mtree_t *T, int32_t on) { T->solver = on != 0; }

/* A search tree rooted at a packed state (nw words). c: UCB1's exploration constant on goals scaled
   0..1; ppl: random playouts per new leaf (run side by side in the lanes of one word); chance[r]: role
   r moves uniformly at random; max_depth: joint moves after which a playout is cut. NULL when out of
   memory. */
mtree_t *ggp_mcts_new(const game_t *G, const uint64_t *root, double c, int64_t ppl, const uint8_t *chance,
                      uint64_t seed, int64_t max_nodes, int64_t max_bytes, int64_t max_depth) {
  mtree_t *T = calloc(1, sizeof(mtree_t));
  if (!T) return NULL;
  T->G = G; T->nr = G->nr; T->nw = G->nw; T->c = c;
  T->ppl = ppl < 1 ? 1 : ppl;
  T->max_nodes = max_nodes < 1 ? 1 : (max_nodes > INT32_MAX - 1 ? INT32_MAX - 1 : max_nodes);
  T->max_bytes = max_bytes; T->max_depth = max_depth; T->rng = seed;
  T->pcap = 64;
  int64_t lanes = T->ppl < 256 ? T->ppl : 256;
  T->chance = malloc((size_t)G->nr); T->flags = calloc((size_t)G->ng + 1, 1);
  T->sees = calloc((size_t)G->nsee + 1, 1); T->start = calloc((size_t)G->nf + 1, 1);
  T->v = calloc((size_t)G->ns + 1, sizeof(uint64_t)); T->next = calloc((size_t)G->nw, sizeof(uint64_t));
  T->legal = calloc((size_t)G->nm + 1, sizeof(int32_t)); T->moves = calloc((size_t)G->nr, sizeof(int32_t));
  T->cnt = calloc((size_t)G->nr, sizeof(int32_t)); T->g = calloc((size_t)G->nr, sizeof(double));
  T->nchoice = calloc((size_t)G->nr, sizeof(int32_t));
  T->sums = calloc((size_t)G->nr, sizeof(double)); T->path = malloc(sizeof(int32_t) * T->pcap);
  T->ppicks = malloc(sizeof(int32_t) * T->pcap * G->nr);
  T->bits = calloc((size_t)G->nm / 64 + 1, sizeof(uint64_t));
  T->gmax = calloc((size_t)G->nr, sizeof(double));
  T->line_goal = -1.0;
  if (G->nr == 1 && !chance[0]) {
    T->pmoves = malloc(sizeof(int32_t) * (size_t)(max_depth + 1));
    T->line_root = calloc((size_t)G->nw, sizeof(uint64_t));
    if (!T->pmoves || !T->line_root) { ggp_mcts_free(T); return NULL; }
  }
  if (T->gmax) for (int k = 0; k < G->ng; k++) {
    double value = (double)G->goal_value[k] / 100.0;
    if (value > T->gmax[G->goal_role[k]]) T->gmax[G->goal_role[k]] = value;
  }
  if (!T->gmax || !T->chance || !T->flags || !T->sees || !T->start || !T->v || !T->next || !T->legal || !T->moves
      || !T->cnt || !T->nchoice || !T->g || !T->sums || !T->path || !T->ppicks || !T->bits
      || pwork_init(G, &T->pw, (lanes + 63) / 64) != 0
      || reset_tree(T, root) != 0) {
    ggp_mcts_free(T);
    return NULL;
  }
  memcpy(T->chance, chance, (size_t)G->nr);
  return T;
}

/* Up to `iterations` iterations, stopping once time.monotonic() reaches `deadline` (checked before each
   one) or the root is proven; returns how many ran (0 at a terminal or proven root). */
int64_t ggp_mcts_search(mtree_t *T, int64_t iterations, double deadline) {
  int64_t done = 0;
  while (done < iterations && !T->s.node[0].solved && T->s.node[0].count < INT32_MAX - 1) {
    if (now_seconds() >= deadline) break;
    if (iterate(T) != 0) break;
    done++;
  }
  return done;
}

static int32_t copy_node(mtree_t *T, mstore_t *U, const mstore_t *S, int32_t old, int32_t parent) {
  const int NR = T->nr;
  const int32_t *nm = S->nmov + (int64_t)old * NR;
  int64_t edges = 0;
  for (int r = 0; r < NR; r++) edges += nm[r];
  if (grow_nodes(T, U) != 0 || (parent >= 0 && grow_hash(T, U) != 0) || grow_edges(T, U, edges) != 0) return -1;
  int32_t id = (int32_t)U->n++;
  const mnode_t *O = &S->node[old];
  mnode_t *N = &U->node[id];
  N->edge = (int32_t)U->ne; N->count = O->count; N->child = -1; N->sibling = -1; N->terminal = O->terminal;
  N->solved = O->solved; N->pdepth = O->pdepth;
  memcpy(U->state + (int64_t)id * T->nw, S->state + (int64_t)old * T->nw, sizeof(uint64_t) * T->nw);
  memcpy(U->goal + (int64_t)id * NR, S->goal + (int64_t)old * NR, sizeof(double) * NR);
  memcpy(U->nmov + (int64_t)id * NR, nm, sizeof(int32_t) * NR);
  memcpy(U->picks + (int64_t)id * NR, S->picks + (int64_t)old * NR, sizeof(int32_t) * NR);
  memcpy(U->emove + U->ne, S->emove + O->edge, sizeof(int32_t) * edges);
  memcpy(U->evis + U->ne, S->evis + O->edge, sizeof(int32_t) * edges);
  memcpy(U->etot + U->ne, S->etot + O->edge, sizeof(double) * edges);
  memcpy(U->eavis + U->ne, S->eavis + O->edge, sizeof(int32_t) * edges);
  memcpy(U->eatot + U->ne, S->eatot + O->edge, sizeof(double) * edges);
  memcpy(U->eprov + U->ne, S->eprov + O->edge, sizeof(double) * edges);
  U->ne += edges;
  if (parent >= 0) link_child(T, U, parent, id);
  return id;
}

/* The subtree of `top` copied into a fresh store that replaces the tree's; 0, or -1 when out of memory
   (the tree is unchanged then). */
static int keep_subtree(mtree_t *T, int32_t top) {
  mstore_t *S = &T->s, U;
  memset(&U, 0, sizeof(U));
  int32_t *olds = malloc(sizeof(int32_t) * S->n), *parents = malloc(sizeof(int32_t) * S->n);
  int ok = olds && parents;
  int64_t sp = 0;
  if (ok) { olds[sp] = top; parents[sp++] = -1; }
  while (ok && sp) {
    sp--;
    int32_t old = olds[sp], id = copy_node(T, &U, S, old, parents[sp]);
    if (id < 0) { ok = 0; break; }
    for (int32_t c = S->node[old].child; c >= 0; c = S->node[c].sibling) { olds[sp] = c; parents[sp++] = id; }
  }
  free(olds); free(parents);
  if (!ok) { store_free(&U); return -1; }
  store_free(S);
  T->s = U;
  T->full = 0;
  return 0;
}

/* Moves the root to a packed state: kept when it is the root's state, else the subtree of the first
   child, else of the first grandchild, with that state (breadth first); else a fresh tree. Returns 1
   when a subtree was kept, 0 for a fresh tree, -1 when out of memory (the tree is unusable then). */
int32_t ggp_mcts_reroot(mtree_t *T, const uint64_t *packed) {
  const mstore_t *S = &T->s;
  const size_t size = sizeof(uint64_t) * T->nw;
  if (T->line_n > 0 && memcmp(T->line_root, packed, size)) { /* the best line goes on only along its first move */
    T->moves[0] = T->line[0];
    eval_next(T->G, T->v, T->line_root, T->moves, T->next, T->sees);
    if (!memcmp(T->next, packed, size)) {
      memmove(T->line, T->line + 1, sizeof(int32_t) * (size_t)(T->line_n - 1));
      T->line_n--;
      memcpy(T->line_root, packed, size);
    } else {
      T->line_n = 0;
    }
    if (T->line_n == 0) T->line_goal = -1.0;
  }
  if (!memcmp(S->state, packed, size)) return 1;
  int32_t found = -1;
  for (int32_t c = S->node[0].child; c >= 0 && found < 0; c = S->node[c].sibling) {
    if (!memcmp(S->state + (int64_t)c * T->nw, packed, size)) found = c;
  }
  for (int32_t c = S->node[0].child; c >= 0 && found < 0; c = S->node[c].sibling) {
    for (int32_t d = S->node[c].child; d >= 0 && found < 0; d = S->node[d].sibling) {
      if (!memcmp(S->state + (int64_t)d * T->nw, packed, size)) found = d;
    }
  }
  if (found >= 0 && keep_subtree(T, found) == 0) return 1;
  return reset_tree(T, packed) == 0 ? 0 : -1;
}

/* The root's statistics: nmov[r] = role r's legal move count; for `role`, its moves' global ids,
   visits and goal totals (0..1 per visit). Returns 1 when the root is terminal. */
int32_t ggp_mcts_root(const mtree_t *T, int32_t role, int32_t *nmov, int32_t *moves, int32_t *visits,
                      double *totals) {
  const mstore_t *S = &T->s;
  int64_t e = S->node[0].edge;
  for (int r = 0; r < T->nr; r++) {
    nmov[r] = S->nmov[r];
    if (r < role) e += S->nmov[r];
  }
  for (int32_t i = 0; i < S->nmov[role]; i++) {
    moves[i] = S->emove[e + i]; visits[i] = S->evis[e + i]; totals[i] = S->etot[e + i];
  }
  return S->node[0].terminal;
}

/* The proofs at the root for `role`: proven[i] = the role's goal (0..1) under perfect play after its i-th
   root move, -1 when not proven (always at a root where several roles choose, and without the solver);
   *choice = the index of the root move the proof takes when the root is proven and the role chooses there
   (see proof_child), else -1. Returns 1 when the root itself is proven, its value for the role then in
   *value. */
int32_t ggp_mcts_proven(const mtree_t *T, int32_t role, double *proven, double *value, int32_t *choice) {
  const mstore_t *S = &T->s;
  const int NR = T->nr;
  for (int32_t i = 0; i < S->nmov[role]; i++) proven[i] = -1.0;
  *value = -1.0;
  *choice = -1;
  if (!T->solver) return 0;
  int32_t mover = sole_mover(T, 0);
  if (mover == role && S->node[0].solved) {
    int32_t count;
    *choice = S->picks[(int64_t)proof_child(T, 0, role, &count) * NR + role];
  }
  if (mover == role) {
    for (int32_t c = S->node[0].child; c >= 0; c = S->node[c].sibling) {
      if (S->node[c].solved) proven[S->picks[(int64_t)c * NR + role]] = S->goal[(int64_t)c * NR + role];
    }
  } else if (mover >= 0 && S->node[0].solved && S->nmov[role] == 1) {
    proven[0] = S->goal[role];
  }
  *value = S->node[0].solved ? S->goal[role] : -1.0;
  return S->node[0].solved;
}

/* The best line at the root (see the comment on the tree): the index of its first move among the root's moves
   of the game's one role, its goal (0..1) in *goal; -1 when there is none. */
int32_t ggp_mcts_line(const mtree_t *T, double *goal) {
  const mstore_t *S = &T->s;
  *goal = -1.0;
  if (T->line_n == 0 || memcmp(T->line_root, S->state, sizeof(uint64_t) * T->nw)) return -1;
  for (int32_t i = 0; i < S->nmov[0]; i++) {
    if (S->emove[S->node[0].edge + i] == T->line[0]) { *goal = T->line_goal; return i; }
  }
  return -1;
}

/* ---- NMCS: Nested Monte-Carlo Search (Cazenave 2009) from the tree's root, games with one role and no chance ----
   Level 0 is one playout (single_playout: the tree's playout policy, MAST when on, whose move averages these
   playouts feed as the tree's own do; RAVE marks are not kept). Level n at a position tries
   each legal move followed by a level n-1 search, keeps the best sequence seen so far (from the root, with its
   goal), plays that sequence's next move and repeats until the game ends; following the memorised sequence,
   a level never ends below the best it has seen. Every sequence played to a terminal state whose goal beats
   the tree's best line becomes the best line (line_root: the tree's root), which the player follows and
   reroot keeps; the top level starts from that line. Recursion is `level` calls deep; the buffers are
   allocated once per call. */

typedef struct {
  int64_t cap;      /* moves a sequence may hold: a walk of max_depth moves, then a playout of max_depth */
  int32_t *cur;     /* the moves from the root to the position searched now, then the running playout's */
  int32_t *best;    /* per level: its best sequence from the root (cap moves each) */
  int64_t *best_n;  /* per level: that sequence's length */
  double *best_g;   /* per level: its goal (0..1), -1 while there is none */
  int32_t *legal;   /* per level: the legal moves at its position (nm + 1 each) */
  uint64_t *pos;    /* per level: its position, then the child being tried (2 nw words each) */
  double deadline;
  int64_t ticks;    /* children tried and playouts run: the clock is read before every 16th */
} nwork_t;

/* Whether the deadline has passed, read every 16th call (the first included). */
static inline int nested_late(nwork_t *W) {
  return (W->ticks++ & 15) == 0 && now_seconds() >= W->deadline;
}

/* The moves cur[0..n) from the root, which end the game with goal g, become the best line when g beats it
   (none at a terminal root: a line has a first move). 0, or -1 when out of memory. */
static int nested_keep(mtree_t *T, const nwork_t *W, int64_t n, double g) {
  if (n == 0 || g <= T->line_goal) return 0;
  if (line_room(T, n) != 0) return -1;
  memcpy(T->line, W->cur, sizeof(int32_t) * (size_t)n);
  T->line_n = n;
  T->line_goal = g;
  memcpy(T->line_root, T->s.state, sizeof(uint64_t) * T->nw);
  return 0;
}

/* Level 0 from `state`, d moves below the root (cur[0..d) leads there): one playout, whose moves follow in
   cur; its goal in *g, the sequence's length in *n. 1, 0 once the deadline has passed, -1 when out of memory. */
static int nested_sample(mtree_t *T, nwork_t *W, int64_t d, const uint64_t *state, double *g, int64_t *n) {
  if (nested_late(W)) return 0;
  single_playout(T, state);
  memcpy(W->cur + d, T->pmoves, sizeof(int32_t) * (size_t)T->pmn);
  *n = d + T->pmn;
  *g = T->g[0];
  return T->pl_terminal && nested_keep(T, W, *n, *g) != 0 ? -1 : 1;
}

/* Level l >= 1 from `state`, d moves below the root (cur[0..d) leads there), starting from the best sequence
   W holds for level l (none: best_g[l] < 0); that level's best sequence and goal are left in W. 1, 0 once the
   deadline has passed, -1 when out of memory. */
static int nested_level(mtree_t *T, nwork_t *W, int32_t l, int64_t d, const uint64_t *state) {
  const game_t *G = T->G;
  const size_t size = sizeof(uint64_t) * (size_t)T->nw;
  uint64_t *pos = W->pos + 2 * (int64_t)T->nw * l, *child = pos + T->nw;
  int32_t *legal = W->legal + ((int64_t)G->nm + 1) * l, *best = W->best + W->cap * l;
  memcpy(pos, state, size);
  for (;; d++) {
    int32_t n = eval_info(G, T->v, pos, legal, T->flags);
    if (T->flags[0] || n == 0 || d >= T->max_depth || (W->best_g[l] >= 0.0 && W->best_n[l] <= d)) {
      if (W->best_g[l] < 0.0) { /* the level began at the end: its sequence is the way there */
        strict_goals(T, W->best_g + l);
        memcpy(best, W->cur, sizeof(int32_t) * (size_t)d);
        W->best_n[l] = d;
        if (T->flags[0] && nested_keep(T, W, d, W->best_g[l]) != 0) return -1;
      }
      return 1;
    }
    for (int32_t i = 0; i < n; i++) {
      double g;
      int64_t len;
      const int32_t *seq = W->cur;
      int status;
      W->cur[d] = legal[i];
      T->moves[0] = legal[i];
      eval_next(G, T->v, pos, T->moves, child, T->sees);
      if (l == 1) {
        status = nested_sample(T, W, d + 1, child, &g, &len);
      } else {
        if (nested_late(W)) return 0; /* a level deeper than the game is long may run no playout at all */
        W->best_g[l - 1] = -1.0;
        status = nested_level(T, W, l - 1, d + 1, child);
        g = W->best_g[l - 1];
        len = W->best_n[l - 1];
        seq = W->best + W->cap * (l - 1);
      }
      if (status != 1) return status;
      if (g > W->best_g[l]) {
        memcpy(best, seq, sizeof(int32_t) * (size_t)len);
        W->best_n[l] = len;
        W->best_g[l] = g;
      }
    }
    W->cur[d] = best[d];
    T->moves[0] = best[d];
    eval_next(G, T->v, pos, T->moves, child, T->sees);
    memcpy(pos, child, size);
  }
}

/* NMCS of `level` (0: one playout) from the root, stopping once time.monotonic() reaches `deadline` (read
   before every 16th playout or deeper search): 1 when the level finished, 0 when cut off (the best line found
   so far stays), -1 when out of memory, -2 unless the game has one role and no chance. */
int32_t ggp_mcts_nested(mtree_t *T, int32_t level, double deadline) {
  const game_t *G = T->G;
  if (!T->pmoves) return -2;
  if (level < 0) level = 0;
  if (level > T->max_depth) level = (int32_t)T->max_depth;
  const int64_t levels = (int64_t)level + 1;
  nwork_t W;
  memset(&W, 0, sizeof W);
  W.cap = 2 * (T->max_depth + 1);
  W.deadline = deadline;
  W.cur = malloc(sizeof(int32_t) * (size_t)W.cap);
  W.best = malloc(sizeof(int32_t) * (size_t)(W.cap * levels));
  W.best_n = calloc((size_t)levels, sizeof(int64_t));
  W.best_g = malloc(sizeof(double) * (size_t)levels);
  W.legal = malloc(sizeof(int32_t) * (size_t)(((int64_t)G->nm + 1) * levels));
  W.pos = malloc(sizeof(uint64_t) * (size_t)(2 * (int64_t)T->nw * levels));
  int status = -1;
  uint64_t *played = T->played; /* RAVE's marks belong to tree iterations: the playouts here leave none */
  T->played = NULL;
  if (W.cur && W.best && W.best_n && W.best_g && W.legal && W.pos) {
    if (level == 0) {
      double g;
      int64_t n;
      status = nested_sample(T, &W, 0, T->s.state, &g, &n);
    } else {
      W.best_g[level] = -1.0;
      if (T->line_n > 0 && T->line_n <= W.cap && !memcmp(T->line_root, T->s.state, sizeof(uint64_t) * T->nw)) {
        memcpy(W.best + W.cap * level, T->line, sizeof(int32_t) * (size_t)T->line_n);
        W.best_n[level] = T->line_n;
        W.best_g[level] = T->line_goal;
      }
      status = nested_level(T, &W, level, 0, T->s.state);
    }
  }
  T->played = played;
  free(W.cur); free(W.best); free(W.best_n); free(W.best_g); free(W.legal); free(W.pos);
  return status;
}

/* out: nodes, edges, bytes reserved, whether the arena stopped growing, root visits. */
void ggp_mcts_info(const mtree_t *T, int64_t *out) {
  const mstore_t *S = &T->s;
  out[0] = S->n; out[1] = S->ne; out[2] = store_bytes(T, S->cap, S->ecap, S->hcap); out[3] = T->full;
  out[4] = S->node[0].count;
}
"""

INTERPRETER_SOURCE = RUNTIME + r"""
/* ---- the circuit interpreter: any game, no per-game compilation ---- */
static const int32_t *terms(const int32_t *pc, const uint64_t *restrict v, uint64_t *out) {
  int32_t nterms = *pc++;
  uint64_t acc = 0;
  for (int32_t t = 0; t < nterms; t++) {
    int32_t nlits = *pc++;
    uint64_t term = ~(uint64_t)0;
    for (int32_t i = 0; i < nlits; i++) {
      int32_t lit = pc[i];
      term &= v[lit >> 1] ^ ((uint64_t)0 - (uint64_t)(lit & 1));
    }
    pc += nlits;
    acc |= term;
  }
  *out = acc;
  return pc;
}

static void interpret(const int32_t *pc, uint64_t *restrict v) {
  int32_t count = *pc++;
  for (int32_t k = 0; k < count; k++) {
    if (*pc++ == 0) {
      int32_t slot = *pc++;
      pc = terms(pc, v, &v[slot]);
      continue;
    }
    int32_t nslots = *pc++;
    const int32_t *slots = pc;
    pc += nslots;
    for (int32_t i = 0; i < nslots; i++) v[slots[i]] = 0;
    const int32_t *body = pc, *end = pc;
    uint64_t changed;
    do {
      changed = 0;
      end = body;
      for (int32_t i = 0; i < nslots; i++) {
        uint64_t t;
        end = terms(end, v, &t);
        changed |= t ^ v[slots[i]];
        v[slots[i]] = t;
      }
    } while (changed);
    pc = end;
  }
}

static void interp_a(const game_t *G, uint64_t *v) { interpret(G->code_a, v); }
static void interp_b(const game_t *G, uint64_t *v) { interpret(G->code_b, v); }

/* A game from its tables (as codegen.TABLES orders them) and phase programs; the caller keeps the
   arrays alive while the game is used. sizes: ns, nf, nm, nr, ng, nsee, maxmoves. */
game_t *ggp_new_interpreted(const int32_t *sizes, const void *const *tables, const int32_t *code_a,
                            const int32_t *code_b) {
  game_t *g = calloc(1, sizeof(game_t));
  if (!g) return NULL;
  g->ns = sizes[0]; g->nf = sizes[1]; g->nm = sizes[2]; g->nr = sizes[3]; g->ng = sizes[4];
  g->nsee = sizes[5]; g->maxmoves = sizes[6]; g->nw = g->nf > 0 ? (g->nf + 63) / 64 : 1;
  set_tables(g, tables);
  g->phase_a = interp_a; g->phase_b = interp_b;
  g->lane0_legal = lane0_legal_tables; g->lane0_next = lane0_next_tables;
  g->code_a = code_a; g->code_b = code_b;
  return g;
}
"""
