/* The search of players/mcts.py in C: decoupled UCT with the whole tree, its playouts and nested search.

   A node holds its packed state, terminal flag, goals (scaled 0..1, terminal nodes only) and, per role,
   its legal moves ("edges": global move id, visits, goal total). Each iteration selects one move per role
   (UCB1 on the role's own goal; a role with one move takes it; a chance role draws uniformly; unvisited
   moves first, in random order), expands one child, scores it by random playouts and backs the goals up.
   Children are found through an open-addressing table keyed by (parent, per-role picks). The arena grows
   by doubling up to max_nodes nodes and max_bytes bytes; once full, an iteration scores its new leaf by
   a playout without storing it. Not thread-safe; uses only its own buffers and the game's tables.
   MCTS-Solver (Winands, Bjornsson & Saito 2008; ggp_mcts_set_solver): a node where one role chooses (the
   others have one move, no chance role has a choice) is proven once one of its children is proven to give
   that role its highest goal, or all of them are proven (its value: the child best for that role); a proven
   node is then scored by its proven goals, as a terminal one, and no playout runs below it.
   RAVE (Gelly & Silver 2007, as CadiaPlayer uses it; ggp_mcts_set_rave): each edge also keeps all-moves-as-
   first statistics (the goals of the iterations in which its role played its move at the node or later,
   in the tree or in a single playout), and UCB1 takes beta * AMAF mean + (1 - beta) * mean, with
   beta = sqrt(k / (3 n + k)) for an edge of n visits.
   Best line (one-role games, one playout per leaf): the moves of the iteration with the highest goal that
   reached a terminal state (tree path, then playout) are kept with the state they start from; in a game
   with one role and no chance they guarantee that goal, so the player follows them (ggp_mcts_line) while
   the search looks for better. Rerooting along the line's first move keeps the rest of it.
   Playout cut-off (ggp_mcts_set_cutoff; issue 41, heuristics validated in the start clock): a single playout
   that has run cut_depth joint moves past its leaf without ending stops there and each role r is scored
   low_r + (high_r - low_r) / (1 + exp(-cut_scale * (x_r - mean of the other roles' x))), x_r = the sum of r's
   weights over the fluents that hold + cut_goal * r's goal (0..1) in that state (one role: x_0 itself), and
   low_r..high_r the range of r's goals (0..1) in the measured playouts.
   Factored search (ggp_mcts_set_factor; issue 41): the tree and its single playouts play one factor of the
   game (ggp.reasoner.circuit.factors), every state's other fluents held at their values in the root.

   Sources (one job each), built into each game's library with the circuit runtime (see circuit.h, whose
   functions are the only way the search reaches a game): search_tree.c (the node store, rerooting and the
   root's statistics), search_mcts.c (selection, expansion, backup, MCTS-Solver and the best line),
   search_policy.c (playouts: random, MAST, RAVE's statistics), search_decisive.c (decisive and anti-decisive
   playout moves), search_nested.c (Nested Monte-Carlo Search), search_factor.c (the factored search). */
#ifndef GGP_SEARCH_H
#define GGP_SEARCH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "circuit.h"

typedef struct {
  int32_t edge;     /* first edge of the node: role-major, nmov[r] edges per role */
  int32_t count;    /* iterations that went through the node (n of UCB1's log n) */
  int32_t child;    /* first child, -1 for none */
  int32_t sibling;  /* next child of the same parent, -1 for none */
  int32_t terminal; /* terminal, or some role has no legal move */
  int32_t solved;   /* proven (terminal nodes always): its goals hold the value of perfect play from it */
  int32_t pdepth;   /* proven: joint moves to the end along the proof (see try_solve) */
} mnode_t;

typedef struct { int32_t parent, child; } mslot_t;

typedef struct {
  int64_t n, cap;
  mnode_t *node; uint64_t *state; double *goal; int32_t *nmov; int32_t *picks;
  int64_t ne, ecap;
  int32_t *emove, *evis; double *etot;
  int32_t *eavis; double *eatot; /* RAVE's all-moves-as-first visits and goal totals per edge */
  double *eprov;  /* MCTS-Solver: the chooser's proven value after the edge's move, -1 while unproven */
  int64_t hcap; /* a power of two; an empty slot has parent -1 */
  mslot_t *hash;
} mstore_t;

typedef struct {
  const game_t *G;
  int32_t nr, nw;
  double c;
  int64_t ppl, max_nodes, max_bytes, max_depth;
  uint64_t rng;
  int32_t full;
  mstore_t s;
  int32_t solver;   /* MCTS-Solver on (ggp_mcts_set_solver) */
  double *gmax;     /* per role: its highest goal (0..1) */
  uint8_t *chance, *flags, *sees, *start;
  uint64_t *v, *next;
  int32_t *legal, *moves, *cnt;
  int32_t *nchoice; /* single playouts: each role's number of legal moves at the running step */
  double *g, *sums;
  int64_t pcap;
  int32_t *path, *ppicks;
  uint64_t *bits; /* the legal moves as a bit set */
  pwork_t pw;
  double mast_eps;  /* MAST playouts (ggp_mcts_set_mast): a random move with this chance, else the best mean */
  double *mast_sum; /* per global move: summed goals (0..1) of its role in the iterations it was played in */
  int64_t *mast_cnt;
  int32_t *trail;   /* (move, role) pairs of the MAST roles' choices in the running playout */
  int64_t tn;
  double rave_k;     /* RAVE's equivalence parameter k (ggp_mcts_set_rave); 0: off */
  uint64_t *played;  /* RAVE: bit set of the moves played in the running iteration below the backed-up node */
  int32_t *unplay;   /* the moves set in `played`, to clear it after the iteration */
  int64_t un;
  int32_t *pmoves;   /* best line: the running single playout's moves (one-role games only, else NULL) */
  int64_t pmn;
  int32_t pl_terminal; /* the last single playout ended in a terminal state (not cut, not stuck) */
  int32_t decisive;  /* playout lookahead (ggp_mcts_set_decisive): 1 decisive moves, 2 anti-decisive ones too */
  uint64_t *dv;      /* decisive moves: ns words, the state after each candidate move in its own lane */
  uint64_t *dn;      /* decisive moves: nf words, those states' fluents */
  uint64_t *dlegal;  /* anti-decisive moves: nm words, the legal moves in each lane */
  int32_t *dcand;    /* decisive moves: the 64 candidate moves of a lane word */
  int32_t *dsingle;  /* anti-decisive moves: 64 * nr, each role's first legal move in a lane's state */
  int32_t *line;     /* best line: its moves from line_root, line_n of them, line_goal its goal (-1: none) */
  int64_t line_n, line_cap;
  double line_goal;
  uint64_t *line_root;
  double *cut_w;     /* playout cut-off (ggp_mcts_set_cutoff): nr * nf fluent weights, then nr lows and nr highs; NULL: off */
  int64_t cut_depth; /* a single playout stops after this many joint moves past the leaf */
  double cut_goal, cut_scale; /* weight of a role's current goal (0..1); the logistic's slope */
  uint64_t *fkeep;   /* factored search (ggp_mcts_set_factor): packed mask of the fluents that evolve; NULL: off */
  uint64_t *fstate;  /* the packed state the other fluents are held at */
  uint64_t *fmoves;  /* bit set of the moves a role may choose (one with none of them plays its first legal move) */
  uint64_t *fpass;   /* single playouts: the legal moves before fmoves narrowed them */
  int32_t *fheld;    /* the held fluents' indices, nheld of them */
  int32_t *fbuf;     /* a node's narrowed legal moves (factor_narrow) */
  int32_t nheld;
} mtree_t;

/* ---- small helpers shared by the search's sources ---- */



static inline int32_t rand_below(mtree_t *T, int32_t k) {
  return (int32_t)(((unsigned __int128)splitmix64(&T->rng) * (uint64_t)k) >> 64);
}

static inline int32_t popcount64(uint64_t x) { /* no libgcc call without -mpopcnt */
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return (int32_t)((x * 0x0101010101010101ULL) >> 56);
}

/* Word w of a bit set with only the bits low..high-1 kept. */
static inline uint64_t range_word(const uint64_t *bits, int32_t w, int32_t low, int32_t high) {
  uint64_t b = bits[w];
  if (w == low >> 6) b &= ~(uint64_t)0 << (low & 63);
  if (w == (high - 1) >> 6 && (high & 63)) b &= ~(~(uint64_t)0 << (high & 63));
  return b;
}

/* The k-th (0-based, uniformly drawn) of the n moves set in bits low..high-1. */
static inline int32_t random_member(mtree_t *T, const uint64_t *bits, int32_t low, int32_t high, int32_t n) {
  int32_t k = (int32_t)(((unsigned __int128)splitmix64(&T->rng) * (uint64_t)n) >> 64), w = low >> 6;
  for (;; w++) {
    int32_t c = popcount64(range_word(bits, w, low, high));
    if (k < c) break;
    k -= c;
  }
  uint64_t b = range_word(bits, w, low, high);
  while (k--) b &= b - 1;
  return 64 * w + __builtin_ctzll(b);
}

static inline void mast_add(mtree_t *T, int32_t move, double value) {
  T->mast_sum[move] += value;
  T->mast_cnt[move]++;
}

/* ---- the node store (search_tree.c) ---- */

GGP_LOCAL int32_t find_child(const mtree_t *T, int32_t parent, const int32_t *picks);
GGP_LOCAL void strict_goals(const mtree_t *T, double *out);
GGP_LOCAL int32_t add_node(mtree_t *T, mstore_t *S, const uint64_t *packed, int32_t parent, const int32_t *picks);
GGP_LOCAL int reset_tree(mtree_t *T, const uint64_t *packed);
mtree_t *ggp_mcts_new(const game_t *G, const uint64_t *root, double c, int64_t ppl, const uint8_t *chance,
                      uint64_t seed, int64_t max_nodes, int64_t max_bytes, int64_t max_depth);
void ggp_mcts_free(mtree_t *T);
int32_t ggp_mcts_reroot(mtree_t *T, const uint64_t *packed);
int32_t ggp_mcts_root(const mtree_t *T, int32_t role, int32_t *nmov, int32_t *moves, int32_t *visits,
                      double *totals);
void ggp_mcts_info(const mtree_t *T, int64_t *out);

/* ---- selection, backup, the solver and the best line (search_mcts.c) ---- */

GGP_LOCAL double now_seconds(void);
GGP_LOCAL int32_t sole_mover(const mtree_t *T, int32_t id);
GGP_LOCAL int line_room(mtree_t *T, int64_t n);
int64_t ggp_mcts_search(mtree_t *T, int64_t iterations, double deadline);
void ggp_mcts_set_solver(mtree_t *T, int32_t on);
int32_t ggp_mcts_proven(const mtree_t *T, int32_t role, double *proven, double *value, int32_t *choice);
int32_t ggp_mcts_line(const mtree_t *T, double *goal);

/* ---- playouts: random, MAST and RAVE (search_policy.c) ---- */

GGP_LOCAL void rave_backup(mtree_t *T, int64_t depth);
GGP_LOCAL void single_playout(mtree_t *T, const uint64_t *packed);
GGP_LOCAL void leaf_playouts(mtree_t *T, const uint64_t *packed);
int32_t ggp_mcts_set_mast(mtree_t *T, double epsilon);
int32_t ggp_mcts_set_rave(mtree_t *T, double k);
int32_t ggp_mcts_set_cutoff(mtree_t *T, int64_t depth, const double *weights, double goal_weight, double scale,
                            const double *low, const double *high);

/* ---- decisive and anti-decisive playout moves (search_decisive.c) ---- */

GGP_LOCAL int32_t lookahead_move(mtree_t *T, const uint64_t *v, const uint64_t *bits, int r, int32_t low,
                                 int32_t high, const int32_t *chosen);
int32_t ggp_mcts_set_decisive(mtree_t *T, int32_t level);

/* ---- the factored search (search_factor.c) ---- */

GGP_LOCAL void factor_hold(const mtree_t *T, uint64_t *packed);
GGP_LOCAL void factor_hold_lane0(const mtree_t *T, uint64_t *v);
GGP_LOCAL void factor_hold_lanes(const mtree_t *T, uint64_t *fluents);
GGP_LOCAL int factor_allows(const mtree_t *T, int32_t m);
GGP_LOCAL int32_t factor_pass(const mtree_t *T, int r, int32_t first_legal);
GGP_LOCAL int32_t factor_narrow(const mtree_t *T, int32_t *legal, int32_t n, int *stuck);
int32_t ggp_mcts_set_factor(mtree_t *T, const uint64_t *keep, const uint64_t *held, const uint64_t *moves);

/* ---- Nested Monte-Carlo Search (search_nested.c) ---- */

int32_t ggp_mcts_nested(mtree_t *T, int32_t level, double deadline);

#endif
