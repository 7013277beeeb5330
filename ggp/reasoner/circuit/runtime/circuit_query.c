/* Single packed states: the legal moves, terminal flag and goals of one state, and the next state after one
   joint move (the player's and the search's queries; see circuit.h). */
#include "circuit.h"

/* v: the packed state p with no move done. */
GGP_LOCAL void load_packed(const game_t *G, uint64_t *v, const uint64_t *p) {
  v[0] = 0;
  for (int f = 0; f < G->nf; f++) v[1 + f] = (p[f >> 6] >> (f & 63)) & 1;
  memset(v + 1 + G->nf, 0, sizeof(uint64_t) * G->nm);
}

/* One packed state: legal move indices (ascending) into legal, returns their count; flags[0] = terminal,
   flags[1 + g] = goal g. v: ns words of scratch. */
GGP_LOCAL int32_t eval_info(const game_t *G, uint64_t *v, const uint64_t *p, int32_t *legal, uint8_t *flags) {
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
GGP_LOCAL void eval_next(const game_t *G, uint64_t *v, const uint64_t *p, const int32_t *moves, uint64_t *next,
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
