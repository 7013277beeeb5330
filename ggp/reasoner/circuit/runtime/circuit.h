/* The circuit's ABI: one compiled (or interpreted) GDL game as a Boolean circuit over 64-bit words, and
   what the rest of the native code may do with it.

   A game is evaluated in two phases on an array v of ns words (64 states side by side, one per bit lane):
   v[0] is the constant false, v[1 .. nf] the state's fluents, v[1 + nf .. nf + nm] the does inputs (one per
   move, all roles' moves numbered globally, role r's from role_off[r] to role_off[r + 1] - 1). Phase A
   fills the legal, terminal and goal outputs from the state; phase B, given the does inputs too, fills the
   next and sees outputs. Each output is read from a slot of v, negated or not (the *_slot and *_neg
   tables; RD reads one).

   Sources (one job each), built as one translation unit by ggp/native.py (runtime.c lists them):
   circuit_eval.c (batch evaluation and the game's tables), circuit_query.c (single packed states),
   circuit_playouts.c (random playouts with the splitmix64 generator), circuit_interpreter.c (a game from
   tables and bytecode, no per-game compilation). The search (players/native/) uses a game only through
   what this header declares. */
#ifndef GGP_CIRCUIT_H
#define GGP_CIRCUIT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Functions shared between the runtime's sources: static in the one translation unit the runtime is built
   as, so the compiler sees every call and only the ggp_* entry points are exported; scripts/check_c.sh
   defines it empty to compile each source on its own. */
#ifndef GGP_LOCAL
#define GGP_LOCAL static
#endif

typedef struct game game_t;
struct game {
  int32_t ns, nf, nm, nr, ng, nsee, maxmoves, nw;
  const int32_t *role_off; const uint8_t *init;
  const int32_t *legal_slot; const uint8_t *legal_neg; const int32_t *next_slot; const uint8_t *next_neg;
  const int32_t *term_slot; const uint8_t *term_neg; const int32_t *goal_slot; const uint8_t *goal_neg;
  const int32_t *sees_slot; const uint8_t *sees_neg; const int32_t *goal_role; const int64_t *goal_value;
  void (*phase_a)(const game_t *, uint64_t *);
  void (*phase_b)(const game_t *, uint64_t *);
  /* lane 0 of the legal outputs as a bit set (move m: bit m % 64 of word m / 64), of the next outputs
     as 0/1 words; a compiled game has them unrolled, else they read the tables (lane0_*_tables) */
  void (*lane0_legal)(const game_t *, const uint64_t *, uint64_t *);
  void (*lane0_next)(const game_t *, const uint64_t *, uint64_t *);
  const int32_t *code_a, *code_b;
  /* buffers of the single-state entry points, bound once so each call passes only its inputs */
  uint64_t *b_v; int32_t *b_legal; uint8_t *b_flags; uint64_t *b_next; uint8_t *b_sees;
};

/* Output i of table T (legal, next, term, goal, sees) in every lane of v. */
#define RD(T, i) (v[G->T##_slot[i]] ^ ((uint64_t)0 - (uint64_t)G->T##_neg[i]))

/* ---- the game's tables and batch evaluation (circuit_eval.c) ---- */

/* Fills g's table fields from t, in the order of codegen.TABLES. */
GGP_LOCAL void set_tables(game_t *g, const void *const *t);
void ggp_free_game(game_t *g);
int32_t ggp_sizes(const game_t *G, int32_t *out);
void ggp_eval(const game_t *G, int64_t nwords, const uint64_t *tin, const uint64_t *din, uint64_t *v,
              uint64_t *legal, uint64_t *term, uint64_t *goal, uint64_t *next, uint64_t *sees);
void ggp_bind(game_t *G, uint64_t *v, int32_t *legal, uint8_t *flags, uint64_t *next, uint8_t *sees);

/* ---- single packed states (circuit_query.c) ----
   A packed state holds fluent f in bit f % 64 of word f / 64 (nw words). */

GGP_LOCAL void load_packed(const game_t *G, uint64_t *v, const uint64_t *p);
GGP_LOCAL int32_t eval_info(const game_t *G, uint64_t *v, const uint64_t *p, int32_t *legal, uint8_t *flags);
GGP_LOCAL void eval_next(const game_t *G, uint64_t *v, const uint64_t *p, const int32_t *moves, uint64_t *next,
                         uint8_t *sees);
int32_t ggp_single_info(const game_t *G, const uint64_t *p);
void ggp_single_next(const game_t *G, const uint64_t *p, const int32_t *moves);

/* ---- random playouts (circuit_playouts.c) ---- */

/* The runtime's random numbers: splitmix64 (Steele, Lea & Flood 2014), seeded by the caller. */
static inline uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Workspace of a playout run: 64 * nwords lanes. */
typedef struct {
  int64_t nwords;
  uint64_t *v, *st, *active;
  int64_t *depth;
  int32_t *cand;
} pwork_t;

GGP_LOCAL void pwork_free(pwork_t *W);
GGP_LOCAL int pwork_init(const game_t *G, pwork_t *W, int64_t nwords);
GGP_LOCAL void run_playouts(const game_t *G, pwork_t *W, int64_t n, uint64_t *rng, int64_t max_depth,
                            const uint8_t *start, int64_t *stats, double *goal_sums, int32_t *depths, int32_t *goals);
int32_t ggp_playouts(const game_t *G, int64_t n, uint64_t seed, int64_t nwords, int64_t max_depth,
                     const uint8_t *start, int64_t *stats, double *goal_sums, int32_t *depths, int32_t *goals);

/* ---- the game itself ---- */

/* A compiled game (the code codegen.c_source generates for it). */
game_t *ggp_new_game(void);
/* A game from its tables (as codegen.TABLES orders them) and phase programs (circuit_interpreter.c). */
game_t *ggp_new_interpreted(const int32_t *sizes, const void *const *tables, const int32_t *code_a,
                            const int32_t *code_b);

#endif
