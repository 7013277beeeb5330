/* RAPP's heuristic min-max on SBG boards, compiled: the same evaluation and search as minimax.py.
 *
 * A board is one byte per square (index y*width + x): 0 empty, 1..26 white letters A..Z, 27..52
 * black letters a..z. Each letter has its NFA table precomputed by Python (black's dy mirrored):
 * for table row offset_base[code] + q*n + square, steps[offsets[row] .. offsets[row+1]) hold
 * (next state, target square, condition 0 empty / 1 own / 2 opponent, accepting).
 * Side 0 is white, 1 black. Goals: kind 0 capture (code, count), kind 1 placement (code, distance
 * table of n entries). Keep every term and its order in step with minimax.py.
 */
#include <stdlib.h>
#include <string.h>

#define CODES 53
#define MAX_DEPTH 16
#define MAX_SQUARES 256
#define WIN 1000.0
#define TIE 1e-9
#define GOAL_PIECE 10.0
#define THREAT 0.5
#define STEP 0.5
#define CONTROL 0.05
#define MOBILITY 0.05

typedef struct {
    int owner, kind, code, count;
    const int *distance; /* n entries (placement goals) */
} Goal;

typedef struct {
    int width, height, n, turn_limit, far;
    int nfa_size[CODES];
    int offset_base[CODES];
    int *offsets;
    int *steps; /* 4 ints per step */
    double value[CODES];
    int ngoals;
    Goal *goals;
    int *distances;
    /* scratch */
    unsigned *seen;     /* (max nfa size) * n stamps */
    unsigned *mark;     /* n stamps */
    unsigned stamp;
    int max_size;       /* largest NFA */
    unsigned char *attacked; /* n flags, side_terms' scratch */
    int *stack;         /* 2 * max nfa size * n */
    int *dests;         /* n */
    unsigned char boards[MAX_DEPTH + 2][MAX_SQUARES];
    int *moves[MAX_DEPTH + 2]; /* 2 ints per move */
    double *order_keys[MAX_DEPTH + 2];
    int max_moves;
} Ctx;

static int owner_of(int code) { return code <= 26 ? 0 : 1; }

static int cond_of(int code, int side) {
    if (code == 0) return 0;
    return owner_of(code) == side ? 1 : 2;
}

static unsigned next_stamp(Ctx *x) {
    if (++x->stamp == 0) { /* wrapped: old stamps could match again */
        memset(x->seen, 0, sizeof(unsigned) * (size_t)x->max_size * (size_t)x->n);
        memset(x->mark, 0, sizeof(unsigned) * (size_t)x->n);
        x->stamp = 1;
    }
    return x->stamp;
}

/* Destinations of the piece on `square`; returns their count, written to x->dests. */
static int piece_dests(Ctx *x, const unsigned char *board, int square) {
    int code = board[square];
    int size = x->nfa_size[code];
    if (size == 0) return 0;
    int side = owner_of(code), n = x->n;
    unsigned seen = next_stamp(x), mark = seen;
    int found = 0, top = 0;
    x->seen[square] = seen;
    x->stack[top++] = 0;
    x->stack[top++] = square;
    while (top > 0) {
        int sq = x->stack[--top];
        int q = x->stack[--top];
        int row = x->offset_base[code] + q * n + sq;
        for (int s = x->offsets[row]; s < x->offsets[row + 1]; s++) {
            const int *step = x->steps + 4 * s;
            int nxt = step[0], target = step[1];
            if (cond_of(board[target], side) != step[2]) continue;
            if (step[3] && x->mark[target] != mark) {
                x->mark[target] = mark;
                x->dests[found++] = target;
            }
            unsigned *slot = &x->seen[nxt * n + target];
            if (*slot != seen) {
                *slot = seen;
                x->stack[top++] = nxt;
                x->stack[top++] = target;
            }
        }
    }
    return found;
}

static int has_move(Ctx *x, const unsigned char *board, int side) {
    for (int i = 0; i < x->n; i++)
        if (board[i] && owner_of(board[i]) == side && piece_dests(x, board, i) > 0) return 1;
    return 0;
}

static int count_code(Ctx *x, const unsigned char *board, int code) {
    int count = 0;
    for (int i = 0; i < x->n; i++) count += board[i] == code;
    return count;
}

static int goal_holds(Ctx *x, const unsigned char *board, int side) {
    for (int g = 0; g < x->ngoals; g++) {
        const Goal *goal = &x->goals[g];
        if (goal->owner != side) continue;
        if (goal->kind == 0) {
            if (count_code(x, board, goal->code) <= goal->count) return 1;
        } else {
            for (int i = 0; i < x->n; i++)
                if (board[i] == goal->code && goal->distance[i] == 0) return 1;
        }
    }
    return 0;
}

/* -1 while the game goes on, else the winning side (0, 1) or 2 for a draw (engine.py's outcome). */
static int outcome(Ctx *x, const unsigned char *board, int to_move, int ply) {
    if (ply == 0) return -1;
    int mover = 1 - to_move;
    if (goal_holds(x, board, mover)) return mover;
    if (goal_holds(x, board, to_move)) return to_move;
    if (ply >= x->turn_limit) return 2;
    if (!has_move(x, board, to_move)) return mover;
    return -1;
}

/* Raw terms of one side: pieces, weighted, goal, control, mobility (minimax.py's side_terms). */
static void side_terms(Ctx *x, const unsigned char *board, int side, int need_moves, double *out) {
    int n = x->n, pieces = 0, mobility = 0, control = 0;
    double weighted = 0.0, goal = 0.0;
    unsigned char *attacked = x->attacked;
    if (need_moves) memset(attacked, 0, (size_t)n);
    for (int i = 0; i < n; i++) {
        int code = board[i];
        if (!code || owner_of(code) != side) continue;
        pieces++;
        weighted += x->value[code];
        if (need_moves) {
            int found = piece_dests(x, board, i);
            mobility += found;
            for (int k = 0; k < found; k++) {
                int t = x->dests[k];
                if (!attacked[t]) { attacked[t] = 1; control++; }
            }
        }
    }
    for (int g = 0; g < x->ngoals; g++) {
        const Goal *term = &x->goals[g];
        if (term->owner != side) continue;
        if (term->kind == 0) {
            int present = count_code(x, board, term->code);
            if (present > term->count) goal -= GOAL_PIECE * (present - term->count);
            if (need_moves) {
                int threats = 0;
                for (int i = 0; i < n; i++) threats += attacked[i] && board[i] == term->code;
                goal += THREAT * threats;
            }
        } else {
            int best = -1;
            for (int i = 0; i < n; i++)
                if (board[i] == term->code && (best < 0 || term->distance[i] < best)) best = term->distance[i];
            goal -= STEP * (best < 0 ? x->far : best);
        }
    }
    out[0] = pieces;
    out[1] = weighted;
    out[2] = goal;
    out[3] = CONTROL * control;
    out[4] = MOBILITY * mobility;
}

static double score(const double *terms, int flags) {
    double value = (flags & 1) ? terms[1] : terms[0];
    if (flags & 2) value += terms[2];
    if (flags & 4) value += terms[3];
    if (flags & 8) value += terms[4];
    return value;
}

static double evaluate(Ctx *x, const unsigned char *board, int side, int flags) {
    double own[5], other[5];
    int need = (flags & (2 | 4 | 8)) != 0;
    side_terms(x, board, side, need, own);
    side_terms(x, board, 1 - side, need, other);
    return score(own, flags) - score(other, flags);
}

/* Legal moves of `side` at `level`, captures first by victim value, else in (x1, y1, x2, y2) order. */
static int gen_moves(Ctx *x, const unsigned char *board, int side, int level) {
    int *moves = x->moves[level];
    double *keys = x->order_keys[level];
    int count = 0, w = x->width;
    for (int i = 0; i < x->n; i++) {
        if (!board[i] || owner_of(board[i]) != side) continue;
        int found = piece_dests(x, board, i);
        for (int k = 0; k < found; k++) {
            if (count >= x->max_moves) break;
            int t = x->dests[k];
            moves[2 * count] = i;
            moves[2 * count + 1] = t;
            keys[count] = -x->value[board[t]];
            count++;
        }
    }
    /* insertion sort by (victim key, x1, y1, x2, y2): stable and deterministic */
    for (int a = 1; a < count; a++) {
        int s = moves[2 * a], t = moves[2 * a + 1];
        double key = keys[a];
        int b = a - 1;
        while (b >= 0) {
            int bs = moves[2 * b], bt = moves[2 * b + 1];
            int before;
            if (keys[b] != key) before = keys[b] > key;
            else if (bs % w != s % w) before = bs % w > s % w;
            else if (bs / w != s / w) before = bs / w > s / w;
            else if (bt % w != t % w) before = bt % w > t % w;
            else before = bt / w > t / w;
            if (!before) break;
            moves[2 * (b + 1)] = bs;
            moves[2 * (b + 1) + 1] = bt;
            keys[b + 1] = keys[b];
            b--;
        }
        moves[2 * (b + 1)] = s;
        moves[2 * (b + 1) + 1] = t;
        keys[b + 1] = key;
    }
    return count;
}

static double negamax(Ctx *x, int level, int to_move, int ply, int depth, double alpha, double beta, int flags) {
    const unsigned char *board = x->boards[level];
    int result = outcome(x, board, to_move, ply);
    if (result >= 0) {
        if (result == 2) return 0.0;
        return result == to_move ? WIN - level : -(WIN - level);
    }
    if (depth == 0) return evaluate(x, board, to_move, flags);
    int count = gen_moves(x, board, to_move, level);
    double best = -2 * WIN;
    unsigned char *child = x->boards[level + 1];
    for (int m = 0; m < count; m++) {
        int s = x->moves[level][2 * m], t = x->moves[level][2 * m + 1];
        memcpy(child, board, (size_t)x->n);
        unsigned char piece = child[s];
        child[s] = 0; /* source first: a move may end where it started */
        child[t] = piece;
        double value = -negamax(x, level + 1, 1 - to_move, ply + 1, depth - 1, -beta, -alpha, flags);
        if (value > best) {
            best = value;
            if (value > alpha) {
                alpha = value;
                if (alpha >= beta) break;
            }
        }
    }
    return best;
}

void *sbg_new(int width, int height, int turn_limit, const int *nfa_size, const int *offset_base,
              const int *offsets, int offsets_len, const int *steps, int steps_len, const double *value,
              int ngoals, const int *goal_ints, const int *distances) {
    int n = width * height;
    if (n <= 0 || n > MAX_SQUARES) return NULL;
    Ctx *x = calloc(1, sizeof(Ctx));
    if (!x) return NULL;
    x->width = width;
    x->height = height;
    x->n = n;
    x->turn_limit = turn_limit;
    x->far = width > height ? width : height;
    int max_size = 1;
    for (int c = 0; c < CODES; c++) {
        x->nfa_size[c] = nfa_size[c];
        x->offset_base[c] = offset_base[c];
        x->value[c] = value[c];
        if (nfa_size[c] > max_size) max_size = nfa_size[c];
    }
    x->offsets = malloc(sizeof(int) * (size_t)(offsets_len > 0 ? offsets_len : 1));
    x->steps = malloc(sizeof(int) * 4 * (size_t)(steps_len > 0 ? steps_len : 1));
    x->goals = calloc((size_t)(ngoals > 0 ? ngoals : 1), sizeof(Goal));
    x->distances = malloc(sizeof(int) * (size_t)(ngoals > 0 ? ngoals * n : 1));
    x->seen = calloc((size_t)max_size * n, sizeof(unsigned));
    x->mark = calloc((size_t)n, sizeof(unsigned));
    x->stack = malloc(sizeof(int) * 2 * (size_t)max_size * n + 2);
    x->dests = malloc(sizeof(int) * (size_t)n);
    x->attacked = calloc((size_t)n, 1);
    x->max_size = max_size;
    x->max_moves = n * n;
    int ok = x->offsets && x->steps && x->goals && x->distances && x->seen && x->mark && x->stack && x->dests && x->attacked;
    for (int d = 0; d < MAX_DEPTH + 2 && ok; d++) {
        x->moves[d] = malloc(sizeof(int) * 2 * (size_t)x->max_moves);
        x->order_keys[d] = malloc(sizeof(double) * (size_t)x->max_moves);
        ok = x->moves[d] && x->order_keys[d];
    }
    if (!ok) return NULL; /* out of memory: leaks the partial context, the caller falls back */
    memcpy(x->offsets, offsets, sizeof(int) * (size_t)offsets_len);
    memcpy(x->steps, steps, sizeof(int) * 4 * (size_t)steps_len);
    if (ngoals > 0) memcpy(x->distances, distances, sizeof(int) * (size_t)ngoals * n);
    x->ngoals = ngoals;
    for (int g = 0; g < ngoals; g++) {
        x->goals[g].owner = goal_ints[4 * g];
        x->goals[g].kind = goal_ints[4 * g + 1];
        x->goals[g].code = goal_ints[4 * g + 2];
        x->goals[g].count = goal_ints[4 * g + 3];
        x->goals[g].distance = x->distances + (size_t)g * n;
    }
    return x;
}

void sbg_free(void *handle) {
    Ctx *x = handle;
    if (!x) return;
    free(x->offsets); free(x->steps); free(x->goals); free(x->distances);
    free(x->seen); free(x->mark); free(x->stack); free(x->dests); free(x->attacked);
    for (int d = 0; d < MAX_DEPTH + 2; d++) { free(x->moves[d]); free(x->order_keys[d]); }
    free(x);
}

/* The side to move's legal moves (src, dst pairs) with their values; returns the count, -1 for a bad depth. */
int sbg_root(void *handle, const unsigned char *board, int to_move, int ply, int depth, int flags,
             int *out_moves, double *out_values, int capacity) {
    Ctx *x = handle;
    if (depth < 1 || depth > MAX_DEPTH) return -1;
    memcpy(x->boards[0], board, (size_t)x->n);
    int count = gen_moves(x, x->boards[0], to_move, 0);
    if (count > capacity) count = capacity;
    double best = -2 * WIN;
    for (int m = 0; m < count; m++) {
        int s = x->moves[0][2 * m], t = x->moves[0][2 * m + 1];
        memcpy(x->boards[1], x->boards[0], (size_t)x->n);
        unsigned char piece = x->boards[1][s];
        x->boards[1][s] = 0;
        x->boards[1][t] = piece;
        double value = -negamax(x, 1, 1 - to_move, ply + 1, depth - 1, -2 * WIN, -(best - TIE), flags);
        out_moves[2 * m] = s;
        out_moves[2 * m + 1] = t;
        out_values[m] = value;
        if (value > best) best = value;
    }
    return count;
}

/* The five raw terms of `side` (for tests against minimax.py). */
void sbg_terms(void *handle, const unsigned char *board, int side, double *out) {
    side_terms(handle, board, side, 1, out);
}

/* ---- Random playouts (MCTS's leaf evaluation on the SBG engine) -------------------------------- */

static unsigned long long rng_next(unsigned long long *s) { /* xorshift64* */
    unsigned long long v = *s;
    v ^= v >> 12; v ^= v << 25; v ^= v >> 27;
    *s = v;
    return v * 2685821657736338717ULL;
}

/* Legal moves of `side` (src, dst pairs) in square order, no ordering: returns the count. */
static int collect_moves(Ctx *x, const unsigned char *board, int side, int *moves) {
    int count = 0;
    for (int i = 0; i < x->n; i++) {
        if (!board[i] || owner_of(board[i]) != side) continue;
        int found = piece_dests(x, board, i);
        for (int k = 0; k < found && count < x->max_moves; k++) {
            moves[2 * count] = i;
            moves[2 * count + 1] = x->dests[k];
            count++;
        }
    }
    return count;
}

/* `n` uniformly random playouts from (board, to_move, ply) to the end of the game (engine.py's
 * outcome: goals of the side that just moved, then of the side to move, the turn limit, no legal
 * move). out[p] is playout p's winner: 0 white, 1 black, 2 draw. When `trace` is given, the first
 * playout's moves are written there as (src, dst) pairs, at most `capacity` of them; returns the
 * number of moves of the first playout. */
int sbg_playouts(void *handle, const unsigned char *board, int to_move, int ply, int n, unsigned long long seed,
                 int *out, int *trace, int capacity) {
    Ctx *x = handle;
    unsigned char *b = x->boards[0];
    int *moves = x->moves[0];
    unsigned long long state = seed ? seed : 0x9E3779B97F4A7C15ULL;
    int first_length = 0;
    for (int p = 0; p < n; p++) {
        memcpy(b, board, (size_t)x->n);
        int side = to_move, t = ply, length = 0, result;
        for (;;) {
            if (t > 0) {
                int mover = 1 - side;
                if (goal_holds(x, b, mover)) { result = mover; break; }
                if (goal_holds(x, b, side)) { result = side; break; }
                if (t >= x->turn_limit) { result = 2; break; }
            }
            int count = collect_moves(x, b, side, moves);
            if (count == 0) { result = 1 - side; break; }
            int m = (int)(rng_next(&state) % (unsigned long long)count);
            int s = moves[2 * m], d = moves[2 * m + 1];
            if (p == 0 && trace && length < capacity) {
                trace[2 * length] = s;
                trace[2 * length + 1] = d;
            }
            length++;
            unsigned char piece = b[s];
            b[s] = 0; /* source first: a move may end where it started */
            b[d] = piece;
            side = 1 - side;
            t++;
        }
        if (p == 0) first_length = length;
        out[p] = result;
    }
    return first_length;
}
