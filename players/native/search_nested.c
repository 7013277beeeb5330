/* Nested Monte-Carlo Search (Cazenave 2009) from the tree's root, in games with one role and no chance; it
   feeds the tree's best line (see search.h). */
#include "search.h"

/* Level 0 is one playout (single_playout: the tree's playout policy, MAST when on, whose move averages these
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
