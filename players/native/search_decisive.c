/* Decisive and anti-decisive moves in the search's playouts (Teytaud & Teytaud 2010): every candidate move,
   and every (move, reply) pair, tried in a lane of its own in one evaluation of the circuit (see search.h). */
#include "search.h"

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
   phase A (dn: their fluents; a factored search's held fluents put back). */
static void lanes_next(const mtree_t *T, uint64_t *d, uint64_t *dn) {
  const game_t *G = T->G;
  const int NF = G->nf;
  G->phase_b(G, d);
  for (int f = 0; f < NF; f++) dn[f] = d[G->next_slot[f]] ^ ((uint64_t)0 - (uint64_t)G->next_neg[f]);
  factor_hold_lanes(T, dn);
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
GGP_LOCAL int32_t lookahead_move(mtree_t *T, const uint64_t *v, const uint64_t *bits, int r, int32_t low,
                                 int32_t high, const int32_t *chosen) {
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
    lanes_next(T, d, dn);
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
   (exact in turn-taking games, where they have one; where they choose too it stands for their reply; in a
   factored search only the factor's moves are tried),
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
    for (int32_t m = G->role_off[q]; m < G->role_off[q + 1]; m++) if (factor_allows(T, m)) pairs += popcount64(lw[m] & live);
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
      if (T->fmoves && first[i * NR + q] < 0) first[i * NR + q] = factor_pass(T, q, -1);
      ok = first[i * NR + q] >= 0; /* else stuck: the game ends there */
    }
    if (!ok) continue;
    for (int q = 0; q < NR; q++) {
      if (q == r || T->chance[q]) continue;
      for (int32_t m = G->role_off[q]; m < G->role_off[q + 1]; m++) {
        if (!((lw[m] >> i) & 1) || !factor_allows(T, m)) continue;
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
  lanes_next(T, d, dn);
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
