// etad/core/config.hpp — the one place etad's macros live.
// Every macro is prefixed ETAD_; nothing else in the library defines macros.
#pragma once

#define ETAD_VERSION_MAJOR 0
#define ETAD_VERSION_MINOR 1
#define ETAD_VERSION_PATCH 0

/// ETAD_CHECKED: when 1, run-time misuse that costs a check on a hot path (for example a
/// handle used with the wrong tape) is detected and reported as an etad::error. Defaults to 1
/// unless NDEBUG is defined; define it yourself to force either way. At 0, a real of another
/// tape or from before reset() in an expression or etad::call is caught only when its index
/// lies at or past the next statement's (which would make the sweep write outside the adjoints:
/// one compare per input, in every build, 1.5-2.3 % of chain's instructions); below that it is
/// taken as the real recorded at its index now, a wrong gradient. Checked either way: gradient()'s own targets and sources, and the reals of the vector statements (sum,
/// mean, dot, squared_norm, prod, log_sum_exp, quadratic_form, matvec, map_sum, rows_times),
/// where the check rides on work they do anyway: on consecutive reals, the test that makes
/// them a range statement (one more compare per statement); otherwise one test per element next
/// to the index the statement stores.
#ifndef ETAD_CHECKED
#  ifdef NDEBUG
#    define ETAD_CHECKED 0
#  else
#    define ETAD_CHECKED 1
#  endif
#endif

/// ETAD_ALWAYS_INLINE: the sweeps are many tiny functions that must vanish under -O2; compilers
/// usually agree, but deep expressions can push them past their inlining budgets.
/// ETAD_FLATTEN: inline every call inside a function, recursively (see ETAD_FLATTEN_LIMIT).
#if defined(__GNUC__) || defined(__clang__)
#  define ETAD_ALWAYS_INLINE inline __attribute__((always_inline))
#  define ETAD_FLATTEN __attribute__((flatten))
#else
#  define ETAD_ALWAYS_INLINE inline
#  define ETAD_FLATTEN
#endif

/// ETAD_HAS_CONSTANT_P: the compiler has __builtin_constant_p, which its optimizer answers after
/// inlining (detail::known_equal, tape/real.hpp).
#if defined(__GNUC__) || defined(__clang__)
#  define ETAD_HAS_CONSTANT_P 1
#endif

/// ETAD_MERGE_REPEATED_INPUTS: 1 (the default): a tape statement stores one partial per real
/// where the optimizer proves two leaves of its expression to be one real (t * t: one partial,
/// 2t); 0: one partial per leaf occurrence always, so that how a gradient rounds does not depend
/// on what the optimizer proves (the compiler, the optimization level). Floating-point tapes
/// only; see docs/design.md, "The tape". Like ETAD_CHECKED and the limits above, give it one
/// value in every file of a program (it changes inline functions).
#ifndef ETAD_MERGE_REPEATED_INPUTS
#  define ETAD_MERGE_REPEATED_INPUTS 1
#endif

/// ETAD_SWEEP_INLINE: on the static sweep's functions. clang inlines them all (always_inline),
/// which made its static gradients of small formulas 10-20 % cheaper and left the compile time of
/// a 1000-term sum unchanged; g++ is left to its heuristics plus ETAD_FLATTEN below, because
/// forcing every sweep function inline made it compile a 1000-term sum 13x slower.
#if defined(__clang__)
#  define ETAD_SWEEP_INLINE inline __attribute__((always_inline))
#  define ETAD_SWEEP_INLINE_LAMBDA __attribute__((always_inline))
#else
#  define ETAD_SWEEP_INLINE inline
#  define ETAD_SWEEP_INLINE_LAMBDA
#endif

/// ETAD_PROGRAM_INLINE: on the static sweep's functions that etad::call runs in the user's loop
/// and that hold a whole program (its backward sweep, program::backward_one, and the backward
/// loop over its shared slots, sweep::backward_slots_inlined), always inlined with both
/// compilers; the front doors keep their own versions, left to g++'s heuristics. g++ inlined
/// them by its heuristics where a translation unit called a function through etad::call at one
/// place, not at several: at three places, chain/10's recording took 7,176 instructions instead
/// of 4,269 (the slots' loop became a function of its own, and sin and cos of one argument two
/// calls instead of one sincos); always inlined, 4,269 at either (tools/call_sites.sh).
/// ETAD_FLATTEN does not reach into call(): g++ inlines nothing early into an always_inline
/// function, and later it no longer exists. (Every sweep function always inlined with g++
/// compiled the generated 100-term sums 1.5-2.2x slower; docs/performance-tape.md, "Call
/// sites".)
#if defined(__GNUC__) || defined(__clang__)
#  define ETAD_PROGRAM_INLINE inline __attribute__((always_inline))
#  define ETAD_PROGRAM_INLINE_LAMBDA __attribute__((always_inline))
#else
#  define ETAD_PROGRAM_INLINE inline
#  define ETAD_PROGRAM_INLINE_LAMBDA
#endif

/// ETAD_FLATTEN_LIMIT: the static front doors inline their whole program into themselves (every
/// call, recursively: building the expression and sweeping it) for expressions of at most this
/// many nodes: the sweep's many small functions then vanish and its storage lives in registers,
/// as in a hand-written gradient. Past the limit the compiler's own inlining budget decides
/// (but subtrees swept out of line, ETAD_OUTLINE_LIMIT, are flattened inside with g++): forcing
/// a 1000-term sum into one function took g++ 13x longer to compile (725 s instead of 55 s), and
/// more than 4 minutes for a 1000-term chain of `+`, whose construction copies the sum so far at
/// every `+`. At 1024 (it was 256) the 100-term chain's gradient ran 4x faster with g++ for 10 %
/// more compile time.
#ifndef ETAD_FLATTEN_LIMIT
#  define ETAD_FLATTEN_LIMIT 1024
#endif

/// ETAD_OUTLINE_LIMIT, ETAD_OUTLINE: a subtree of more than ETAD_OUTLINE_LIMIT nodes (a long sum's
/// nested part, say) is swept in functions of its own, marked ETAD_OUTLINE: never inlined, and
/// with g++ flattened inside. The optimizers' time grows faster than the size of one function,
/// and clang inlines the whole sweep (ETAD_SWEEP_INLINE): a 1000-term sum compiled as one
/// function spent 45 s of clang's 77 in them, 36 s in all with subtrees outlined. Expressions
/// of at most this many nodes are compiled exactly as without it; outlining costs a call and
/// keeps the outlined part's frames and slots in memory (see docs/compile-time.md). A node of
/// more than this many nodes is also held by its parent in a one-element array (detail::boxed_v,
/// core/detail/flat_tuple.hpp: out of g++'s points-to field walk), which changes the class
/// definitions of such nodes' parents: like the sweep functions above, it must have one value
/// in the whole program (all translation units), or the program breaks the one-definition rule.
#ifndef ETAD_OUTLINE_LIMIT
#  define ETAD_OUTLINE_LIMIT 1024
#endif
#if defined(__clang__)
#  define ETAD_OUTLINE __attribute__((noinline))
#elif defined(__GNUC__)
#  define ETAD_OUTLINE __attribute__((noinline, flatten))
#else
#  define ETAD_OUTLINE
#endif
/// ETAD_OUTLINE_BUILD: with clang, the append constructor of a sum of more than
/// ETAD_OUTLINE_LIMIT nodes (how `+` extends a long chain) is never inlined (core/expression.hpp,
/// node): the 1000-term chain compiled in 112 s instead of 602. g++ compiled that chain faster
/// with everything inlined (123 s against 166 s with these constructors out of line).
#if defined(__clang__)
#  define ETAD_OUTLINE_BUILD __attribute__((noinline))
#else
#  define ETAD_OUTLINE_BUILD
#endif

/// ETAD_HAS_TYPE_PACK_ELEMENT: the compiler has the builtin __type_pack_element (clang; not
/// g++ 12), with which etad picks the K-th type of a pack (detail::type_at_t).
/// ETAD_POSITION_BY_DEDUCTION: detail::index_of_v finds a type's position in a list by deduction
/// against the list's bases (clang, for which that is cheapest) rather than by overload
/// resolution (g++, which keeps the memory of every deduction; see core/detail/expand.hpp).
#if defined(__clang__)
#  define ETAD_POSITION_BY_DEDUCTION 1
#endif
#if defined(__has_builtin)
#  if __has_builtin(__type_pack_element)
#    define ETAD_HAS_TYPE_PACK_ELEMENT 1
#  endif
#endif
