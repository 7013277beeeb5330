/* Factored search (issue 41; Guenther, Schiffel & Thielscher 2009): the tree and its playouts play one factor
   of the game, a sub-game whose fluents and moves no other part of the game touches (ggp.reasoner.circuit.
   factors). The fluents outside the factor are held at the values they have where the search starts; each
   role chooses among its moves in the factor, and a role with none there plays its first legal move, whose
   effects fall outside the factor and are undone by holding (see search.h). */
#include "search.h"

/* The held fluents of a packed state put back to their values where the search started. */
GGP_LOCAL void factor_hold(const mtree_t *T, uint64_t *packed) {
  if (!T->fkeep) return;
  for (int32_t w = 0; w < T->nw; w++) packed[w] = (packed[w] & T->fkeep[w]) | (T->fstate[w] & ~T->fkeep[w]);
}

/* The held fluents of lane 0 of v (0/1 words, as the single playouts keep them) put back. */
GGP_LOCAL void factor_hold_lane0(const mtree_t *T, uint64_t *v) {
  for (int32_t i = 0; i < T->nheld; i++) {
    int32_t f = T->fheld[i];
    v[1 + f] = (T->fstate[f >> 6] >> (f & 63)) & 1;
  }
}

/* The held fluents of every lane of d (fluents at d[1 ..]) put back. */
GGP_LOCAL void factor_hold_lanes(const mtree_t *T, uint64_t *fluents) {
  for (int32_t i = 0; i < T->nheld; i++) {
    int32_t f = T->fheld[i];
    fluents[f] = (uint64_t)0 - ((T->fstate[f >> 6] >> (f & 63)) & 1);
  }
}

/* True when the factored search lets a role choose move m (always when it is off). */
GGP_LOCAL int factor_allows(const mtree_t *T, int32_t m) {
  return !T->fmoves || ((T->fmoves[m >> 6] >> (m & 63)) & 1);
}

/* A role's move when it has none to choose in the factor: its first legal move (none is the factor's), else,
   as holding the other factors can leave it none, its first move outside the factor (legal or not, its
   effects fall outside the factor and are undone by holding); -1 when every move of the role is the factor's. */
GGP_LOCAL int32_t factor_pass(const mtree_t *T, int r, int32_t first_legal) {
  if (first_legal >= 0) return first_legal;
  for (int32_t m = T->G->role_off[r]; m < T->G->role_off[r + 1]; m++) if (!factor_allows(T, m)) return m;
  return -1;
}

/* The legal moves of a node (global ids, role by role, ascending), n of them, narrowed in place to the moves
   the factor allows, a role with none of those passing (factor_pass); their new count. *stuck is set when no
   role has a move in the factor (the sub-game stands still: scored where it stands). */
GGP_LOCAL int32_t factor_narrow(const mtree_t *T, int32_t *legal, int32_t n, int *stuck) {
  *stuck = 0;
  if (!T->fmoves) return n;
  const game_t *G = T->G;
  int32_t out = 0, i = 0, any = 0, *buf = T->fbuf; /* a pass can add a move: not in place */
  for (int r = 0; r < G->nr; r++) {
    int32_t first = -1, kept = 0;
    for (; i < n && legal[i] < G->role_off[r + 1]; i++) {
      if (first < 0) first = legal[i];
      if (factor_allows(T, legal[i])) { buf[out++] = legal[i]; kept++; }
    }
    any |= kept > 0;
    if (!kept && (first = factor_pass(T, r, first)) >= 0) buf[out++] = first;
  }
  memcpy(legal, buf, sizeof(int32_t) * (size_t)out);
  *stuck = !any;
  return out;
}

/* Searches the factor given by `keep` (a packed mask of its fluents and of those that change by themselves)
   and `moves` (a bit set over the global moves: those of the factor and those that touch no fluent), holding
   the other fluents at their values in `held`, in a fresh tree rooted at `held`; NULL `keep` turns it off
   for the nodes added from then on. 0; -1 when out of memory (the tree is unusable then); -2 with several
   playouts per leaf (the batched playouts play the whole game). */
int32_t ggp_mcts_set_factor(mtree_t *T, const uint64_t *keep, const uint64_t *held, const uint64_t *moves) {
  const game_t *G = T->G;
  free(T->fkeep); free(T->fstate); free(T->fmoves); free(T->fpass); free(T->fheld); free(T->fbuf);
  T->fkeep = T->fstate = T->fmoves = T->fpass = NULL;
  T->fheld = T->fbuf = NULL;
  T->nheld = 0;
  if (!keep) return 0;
  if (T->ppl != 1) return -2;
  const size_t mw = (size_t)G->nm / 64 + 1;
  T->fkeep = malloc(sizeof(uint64_t) * (size_t)T->nw);
  T->fstate = malloc(sizeof(uint64_t) * (size_t)T->nw);
  T->fmoves = malloc(sizeof(uint64_t) * mw);
  T->fpass = malloc(sizeof(uint64_t) * mw);
  T->fheld = malloc(sizeof(int32_t) * ((size_t)G->nf + 1));
  T->fbuf = malloc(sizeof(int32_t) * ((size_t)G->nm + (size_t)G->nr + 1));
  if (!T->fkeep || !T->fstate || !T->fmoves || !T->fpass || !T->fheld || !T->fbuf) {
    ggp_mcts_set_factor(T, NULL, NULL, NULL);
    return -1;
  }
  memcpy(T->fkeep, keep, sizeof(uint64_t) * (size_t)T->nw);
  memcpy(T->fstate, held, sizeof(uint64_t) * (size_t)T->nw);
  memcpy(T->fmoves, moves, sizeof(uint64_t) * mw);
  for (int32_t f = 0; f < G->nf; f++) if (!((keep[f >> 6] >> (f & 63)) & 1)) T->fheld[T->nheld++] = f;
  return reset_tree(T, held) == 0 ? 0 : -1;
}
