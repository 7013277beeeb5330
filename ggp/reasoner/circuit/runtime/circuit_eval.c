/* A game's tables and batch evaluation: 64 states a word, nwords words side by side (see circuit.h). */
#include "circuit.h"

GGP_LOCAL void set_tables(game_t *g, const void *const *t) {
  g->role_off = t[0]; g->init = t[1]; g->legal_slot = t[2]; g->legal_neg = t[3];
  g->next_slot = t[4]; g->next_neg = t[5]; g->term_slot = t[6]; g->term_neg = t[7];
  g->goal_slot = t[8]; g->goal_neg = t[9]; g->sees_slot = t[10]; g->sees_neg = t[11];
  g->goal_role = t[12]; g->goal_value = t[13];
}

void ggp_free_game(game_t *g) { free(g); }

int32_t ggp_sizes(const game_t *G, int32_t *out) {
  out[0] = G->ns; out[1] = G->nf; out[2] = G->nm; out[3] = G->nr; out[4] = G->ng; out[5] = G->nsee;
  out[6] = G->nw;
  return 7;
}

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
