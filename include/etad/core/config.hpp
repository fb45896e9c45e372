// etad/core/config.hpp — the one place etad's macros live.
// Every macro is prefixed ETAD_; nothing else in the library defines macros.
#pragma once

#define ETAD_VERSION_MAJOR 0
#define ETAD_VERSION_MINOR 1
#define ETAD_VERSION_PATCH 0

/// ETAD_CHECKED: when 1, run-time misuse that costs a check on a hot path (for example a
/// handle used with the wrong tape) is detected and reported as an etad::error. Defaults to 1
/// unless NDEBUG is defined; define it yourself to force either way.
#ifndef ETAD_CHECKED
#  ifdef NDEBUG
#    define ETAD_CHECKED 0
#  else
#    define ETAD_CHECKED 1
#  endif
#endif

/// ETAD_ALWAYS_INLINE: the sweeps are many tiny functions that must vanish under -O2; compilers
/// usually agree, but deep expressions can push them past their inlining budgets.
#if defined(__GNUC__) || defined(__clang__)
#  define ETAD_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#  define ETAD_ALWAYS_INLINE inline
#endif
