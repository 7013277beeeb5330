/* The search's playouts: one random playout in lane 0 (MAST's epsilon-greedy moves when on, decisive moves
   when on), several side by side through the circuit's playout loop, and RAVE's all-moves-as-first
   statistics (see search.h). */
#include "search.h"

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

/* RAVE: marks a move as played in the running iteration. */
static inline void rave_mark(mtree_t *T, int32_t move) {
  uint64_t bit = (uint64_t)1 << (move & 63);
  if (T->played[move >> 6] & bit) return;
  T->played[move >> 6] |= bit;
  T->unplay[T->un++] = move;
}

/* RAVE's backup along the iteration's path (deepest node first): node d's edges whose move was played at
   d or below (in the tree or the playout) take the iteration's goals; `played` is cleared at the end. */
GGP_LOCAL void rave_backup(mtree_t *T, int64_t depth) {
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

/* Each role's goal (0..1) in lane 0's state of v, evaluated through phase A, into out (0 where none holds). */
static void lane0_goals(const game_t *G, const uint64_t *v, double *out) {
  for (int r = 0; r < G->nr; r++) {
    int64_t value = 0;
    for (int k = 0; k < G->ng; k++) {
      if (G->goal_role[k] == r && (RD(goal, k) & 1)) { value = G->goal_value[k]; break; }
    }
    out[r] = (double)value / 100.0;
  }
}

/* The playout cut-off's scores (see the comment on the tree) of lane 0's state of v, evaluated through
   phase A, into T->g: the logistic of each role's value less the other roles' mean value, mapped onto the
   role's range of goals (low..high). */
static void cut_scores(mtree_t *T, const uint64_t *v) {
  const game_t *G = T->G;
  const int NF = G->nf, NR = G->nr;
  double total = 0.0;
  lane0_goals(G, v, T->sums);
  for (int r = 0; r < NR; r++) {
    double x = T->cut_goal * T->sums[r];
    const double *w = T->cut_w + (int64_t)r * NF;
    for (int f = 0; f < NF; f++) if (v[1 + f] & 1) x += w[f];
    T->sums[r] = x;
    total += x;
  }
  for (int r = 0; r < NR; r++) {
    double rel = NR > 1 ? T->sums[r] - (total - T->sums[r]) / (double)(NR - 1) : T->sums[r];
    const double low = T->cut_w[(int64_t)NR * NF + r], high = T->cut_w[(int64_t)NR * NF + NR + r];
    T->g[r] = low + (high - low) / (1.0 + exp(-T->cut_scale * rel));
  }
}

/* One random playout from a packed state in lane 0 only, as run_playouts plays one (its goals into
   T->g, scaled 0..1): with a single playout per leaf this skips run_playouts' per-lane bookkeeping and
   copies, which cost more than the circuit itself. */
GGP_LOCAL void single_playout(mtree_t *T, const uint64_t *packed) {
  const game_t *G = T->G;
  const int NF = G->nf, NR = G->nr;
  uint64_t *v = T->pw.v, *tmp = T->pw.st;
  uint64_t *bits = T->bits;
  int32_t *chosen = T->cnt;
  load_packed(G, v, packed);
  T->tn = 0;
  T->pmn = 0;
  T->pl_terminal = 0;
  int cut = 0;
  for (int64_t depth = 0;; depth++) {
    G->phase_a(G, v);
    T->pl_terminal = (int32_t)(RD(term, 0) & 1);
    cut = !T->pl_terminal && T->cut_w && depth >= T->cut_depth;
    int fin = T->pl_terminal || cut || depth >= T->max_depth;
    if (!fin) G->lane0_legal(G, v, bits); /* a bit set: no branch per move (legality is unpredictable) */
    if (!fin && T->fmoves) { /* the factored search: stuck when no role has a move in the factor */
      uint64_t any = 0;
      for (int32_t w = 0; w <= (G->nm - 1) >> 6; w++) { T->fpass[w] = bits[w]; bits[w] &= T->fmoves[w]; any |= bits[w]; }
      fin = !any;
    }
    for (int r = 0; r < NR && !fin; r++) {
      const int32_t low = G->role_off[r], high = G->role_off[r + 1];
      int32_t n = 0;
      for (int32_t w = low >> 6; w <= (high - 1) >> 6 && low < high; w++) n += popcount64(range_word(bits, w, low, high));
      if (!n && T->fmoves) { /* a role with no move in the factor passes (factor_pass) */
        for (int32_t w = low >> 6; w <= (high - 1) >> 6 && low < high; w++) n += popcount64(range_word(T->fpass, w, low, high));
        chosen[r] = factor_pass(T, r, n ? random_member(T, T->fpass, low, high, n) : -1);
        T->nchoice[r] = 1;
        if (chosen[r] >= 0) continue;
        n = 0;
      }
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
    factor_hold_lane0(T, v);
    for (int r = 0; r < NR; r++) v[1 + NF + chosen[r]] = 0;
  }
  if (cut) cut_scores(T, v);
  else lane0_goals(G, v, T->g);
  for (int64_t i = 0; i < T->tn; i += 2) mast_add(T, T->trail[i], T->g[T->trail[i + 1]]);
}

/* The mean goals (0..1) of ppl random playouts from a packed state into T->g (the cut-off applies to single
   playouts only). */
GGP_LOCAL void leaf_playouts(mtree_t *T, const uint64_t *packed) {
  const game_t *G = T->G;
  int64_t stats[5];
  if (T->ppl == 1) { single_playout(T, packed); return; }
  for (int f = 0; f < G->nf; f++) T->start[f] = (uint8_t)((packed[f >> 6] >> (f & 63)) & 1);
  run_playouts(G, &T->pw, T->ppl, &T->rng, T->max_depth, T->start, stats, T->sums, NULL, NULL);
  for (int r = 0; r < T->nr; r++) T->g[r] = T->sums[r] / (100.0 * (double)stats[0]);
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

/* Sets the playout cut-off (see the comment on the tree): single playouts stop after `depth` joint moves past
   the leaf and are scored by the evaluation of `weights` (nr * nf, role-major), `goal_weight` and `scale`,
   role r's logistic mapped onto low[r]..high[r] (its goals' range, 0..1); all copied. depth < 0 turns it
   off. 0, or -1 when out of memory (the cut-off is then off). */
int32_t ggp_mcts_set_cutoff(mtree_t *T, int64_t depth, const double *weights, double goal_weight, double scale,
                            const double *low, const double *high) {
  const game_t *G = T->G;
  const size_t nw = (size_t)G->nr * (size_t)G->nf;
  free(T->cut_w);
  T->cut_w = NULL;
  if (depth < 0) return 0;
  T->cut_w = malloc(sizeof(double) * (nw + 2 * (size_t)G->nr + 1));
  if (!T->cut_w) return -1;
  memcpy(T->cut_w, weights, sizeof(double) * nw);
  memcpy(T->cut_w + nw, low, sizeof(double) * (size_t)G->nr);
  memcpy(T->cut_w + nw + G->nr, high, sizeof(double) * (size_t)G->nr);
  T->cut_depth = depth;
  T->cut_goal = goal_weight;
  T->cut_scale = scale;
  return 0;
}
