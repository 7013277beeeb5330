/* The native runtime of a game's library, as one translation unit: the circuit's entry points and the
   search's. A compiled game's generated code (codegen.c_source) and the interpreter (circuit_interpreter.c)
   each follow it, and ggp/native.py compiles the whole with this folder and players/native/ on the include
   path; one unit lets the compiler inline across files and keeps everything but ggp_* private. */
#include "circuit_eval.c"
#include "circuit_query.c"
#include "circuit_playouts.c"
#include "search_tree.c"
#include "search_mcts.c"
#include "search_policy.c"
#include "search_decisive.c"
#include "search_nested.c"
#include "search_factor.c"
