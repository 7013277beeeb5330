/* The circuit interpreter: any game from its tables and an int32 program per phase (codegen.bytecode), so
   a game runs without compiling anything (see circuit.h). */
#include "circuit.h"

/* The lane-0 readers (see game_t) from the tables: a compiled game has them unrolled instead. */
static void lane0_legal_tables(const game_t *G, const uint64_t *restrict v, uint64_t *restrict bits) {
  memset(bits, 0, sizeof(uint64_t) * (size_t)((G->nm + 63) / 64));
  for (int m = 0; m < G->nm; m++) bits[m >> 6] |= ((v[G->legal_slot[m]] ^ G->legal_neg[m]) & 1) << (m & 63);
}

static void lane0_next_tables(const game_t *G, const uint64_t *restrict v, uint64_t *restrict out) {
  for (int f = 0; f < G->nf; f++) out[f] = (v[G->next_slot[f]] ^ G->next_neg[f]) & 1;
}

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
