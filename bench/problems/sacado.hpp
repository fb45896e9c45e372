// bench/problems/sacado.hpp — Sacado (Trilinos) as a peer: reverse mode Sacado::Rad::ADvar
// (an operator-overloading tape of nodes in arena memory, gradient by ADvar::Gradcomp()) and, for
// problems with a few inputs, forward mode Sacado::ELRFad::SFad<double, K> (K tangents carried
// through expression templates). Only when bench/CMakeLists.txt found Sacado
// (ETAD_BENCH_HAVE_SACADO); it puts a Sacado_config.h without Kokkos / Teuchos first on the
// include path, so only these narrow headers are included.
#pragma once

#if ETAD_BENCH_HAVE_SACADO

#include "common.hpp"

#include <Sacado_ELRFad_SFad.hpp>
#include <Sacado_trad.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace tape_bench {

using sacado_rad_t = Sacado::Rad::ADvar<double>;

/// Value and gradient by Sacado Rad. x is refilled (assigning a number to an ADvar makes a new
/// independent variable); Gradcomp() sweeps back from the last operation, which is the output's,
/// and the next evaluation reuses the arena.
template <class P>
double sacado_rad_gradient(const P& p, std::vector<sacado_rad_t>& x, std::span<double> g) {
  const auto in = p.inputs();
  x.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) x[i] = in[i];
  sacado_rad_t y = p.template formula<sacado_rad_t>(std::span<const sacado_rad_t>(x),
                                                    [](const sacado_rad_t& a) { return a.val(); });
  sacado_rad_t::Gradcomp();
  for (std::size_t i = 0; i < in.size(); ++i) g[i] = x[i].adj();
  return y.val();
}

/// Value and gradient by Sacado forward mode with K tangents (K = the number of inputs).
template <std::size_t K, class P>
double sacado_fad_gradient(const P& p, std::span<double> g) {
  using fad = Sacado::ELRFad::SFad<double, static_cast<int>(K)>;
  const auto in = p.inputs();
  fad x[K];
  for (std::size_t i = 0; i < K; ++i) x[i] = fad(static_cast<int>(K), static_cast<int>(i), in[i]);
  const fad y = p.template formula<fad>(std::span<const fad>(x, K),
                                        [](const fad& a) { return a.val(); });
  for (std::size_t i = 0; i < K; ++i) g[i] = y.dx(static_cast<int>(i));
  return y.val();
}

}  // namespace tape_bench

#endif  // ETAD_BENCH_HAVE_SACADO
