/* MCTS iterations: selection by UCB1 per role (decoupled), expansion, backup, MCTS-Solver's proofs and the
   best line of one-role games (see search.h). */
#include <time.h>

#include "search.h"

GGP_LOCAL double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of Python's time.monotonic() */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The role that alone chooses at node id (every other role has one move, no chance role has a choice):
   its index; NR when no role has a choice; -1 when several do, or a chance role does. */
GGP_LOCAL int32_t sole_mover(const mtree_t *T, int32_t id) {
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
GGP_LOCAL int line_room(mtree_t *T, int64_t n) {
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
    factor_hold(T, T->next);
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

/* Turns MCTS-Solver on (on != 0) or off for the iterations to come (proofs already made stay). */
void ggp_mcts_set_solver(mtree_t *T, int32_t on) { T->solver = on != 0; }

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
