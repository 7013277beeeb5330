/* The search tree's node store: nodes, edges and the child table in arrays that grow by doubling up to the
   tree's caps; a new tree, a new root (keeping a subtree) and the root's statistics (see search.h). */
#include "search.h"

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

GGP_LOCAL int32_t find_child(const mtree_t *T, int32_t parent, const int32_t *picks) {
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
GGP_LOCAL void strict_goals(const mtree_t *T, double *out) {
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
GGP_LOCAL int32_t add_node(mtree_t *T, mstore_t *S, const uint64_t *packed, int32_t parent, const int32_t *picks) {
  const game_t *G = T->G;
  const int NR = T->nr;
  if (grow_nodes(T, S) != 0) return -1;
  if (parent >= 0 && grow_hash(T, S) != 0) return -1;
  int stuck = 0;
  int32_t nlegal = factor_narrow(T, T->legal, eval_info(G, T->v, packed, T->legal, T->flags), &stuck);
  int terminal = T->flags[0] || stuck;
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
GGP_LOCAL int reset_tree(mtree_t *T, const uint64_t *packed) {
  store_free(&T->s);
  T->full = 0;
  return add_node(T, &T->s, packed, -1, NULL) == 0 ? 0 : -1;
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
  free(T->cut_w); free(T->fkeep); free(T->fstate); free(T->fmoves); free(T->fpass); free(T->fheld); free(T->fbuf);
  free(T);
}

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

/* out: nodes, edges, bytes reserved, whether the arena stopped growing, root visits. */
void ggp_mcts_info(const mtree_t *T, int64_t *out) {
  const mstore_t *S = &T->s;
  out[0] = S->n; out[1] = S->ne; out[2] = store_bytes(T, S->cap, S->ecap, S->hcap); out[3] = T->full;
  out[4] = S->node[0].count;
}
