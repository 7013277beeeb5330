/* Random playouts, 64 to a word: the whole loop in C with a seeded splitmix64 generator, so Python is out
   of the inner loop (see circuit.h). */
#include "circuit.h"

GGP_LOCAL void pwork_free(pwork_t *W) {
  free(W->v); free(W->st); free(W->depth); free(W->active); free(W->cand);
  memset(W, 0, sizeof(*W));
}

GGP_LOCAL int pwork_init(const game_t *G, pwork_t *W, int64_t nwords) {
  W->nwords = nwords;
  W->v = calloc((size_t)G->ns, sizeof(uint64_t));
  W->st = calloc((size_t)nwords * (G->nf + 1), sizeof(uint64_t));
  W->depth = calloc((size_t)nwords * 64, sizeof(int64_t));
  W->active = calloc((size_t)nwords, sizeof(uint64_t));
  W->cand = malloc(sizeof(int32_t) * 64 * G->maxmoves);
  if (!W->v || !W->st || !W->depth || !W->active || !W->cand) { pwork_free(W); return -1; }
  return 0;
}

/* The lanes `fin` of v (word group dep's) have finished: their depth and goals are counted (see
   run_playouts), and each is restarted while playouts remain (*started of n), else retired from *active.
   Returns the restarted lanes. */
static uint64_t finish_lanes(const game_t *G, const uint64_t *v, uint64_t fin, int64_t *dep, uint64_t *active,
                             int64_t n, int64_t *started, int64_t *stats, double *goal_sums, int32_t *depths,
                             int32_t *goals) {
  const int NR = G->nr, NG = G->ng;
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
    if (*started < n) { ++*started; restart |= (uint64_t)1 << lane; }
    else *active &= ~((uint64_t)1 << lane);
  }
  return restart;
}

/* One joint move of uniformly drawn legal moves (generator *rng) in each of the `live` lanes of v, then
   phase B: their next states into s, and `start` into the `restart` lanes. */
static void advance_lanes(const game_t *G, pwork_t *W, uint64_t *v, uint64_t *s, int64_t *dep, uint64_t live,
                          uint64_t restart, uint64_t *rng, const uint8_t *start) {
  const int NF = G->nf, NR = G->nr, MAXMOVES = G->maxmoves;
  int32_t *cand = W->cand;
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
}

/* n random playouts from `start` (nf bytes), keeping the workspace's 64 * nwords lanes running and
   refilling the finished ones; moves are drawn with the splitmix64 generator *rng. stats: [playouts,
   states, depth sum, cut at max_depth, stuck (a role had no legal move)]; goal_sums[r]: sum of role r's
   goal over the playouts (0 where it has none); when not NULL, depths[i] and goals[i * nr + r] receive
   the depth and goals of the i-th playout to finish. */
GGP_LOCAL void run_playouts(const game_t *G, pwork_t *W, int64_t n, uint64_t *rng, int64_t max_depth,
                            const uint8_t *start, int64_t *stats, double *goal_sums, int32_t *depths, int32_t *goals) {
  const int NF = G->nf, NM = G->nm, NR = G->nr;
  const int64_t nwords = W->nwords;
  uint64_t *v = W->v, *st = W->st, *active = W->active;
  int64_t *depth = W->depth;
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
      uint64_t restart = finish_lanes(G, v, fin, dep, &active[g], n, &started, stats, goal_sums, depths, goals);
      uint64_t live = act & ~fin;
      if (live) {
        advance_lanes(G, W, v, s, dep, live, restart, rng, start);
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
