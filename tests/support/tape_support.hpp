// tests/support/tape_support.hpp — the harness of the tape tests: a generic f differentiated on a
// fresh run-time tape (value, gradient and what it recorded), the same f differentiated by the
// static front door, and second derivatives by a tape of reals nested in a tape of doubles.
#pragma once

#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

namespace etad_tape_test {

/// What one call of f recorded on a tape, and the gradient the tape gives for it.
template <class T, std::size_t N>
struct tape_run {
  T value;
  std::array<T, N> gradient;
  std::size_t statements;  // statements recorded by the call of f (the variables excluded)
  std::size_t partials;    // partials recorded by the call of f
};

/// f at x on a fresh tape: one variable per input, `etad::real z = f(x0, x1, ...);`, then
/// t.gradient(z, x0, x1, ...).
template <class T, class F, std::size_t N>
tape_run<T, N> tape_gradient(const F& f, const std::array<T, N>& x) {
  etad::basic_tape<T> t;
  std::array<etad::real<T>, N> v{};
  for (std::size_t i = 0; i < N; ++i) v[i] = t.variable(x[i]);
  const std::size_t s0 = t.statements();
  const std::size_t p0 = t.partials();
  const etad::real<T> z = std::apply(f, v);
  const std::size_t s1 = t.statements();
  const std::size_t p1 = t.partials();
  const auto g = std::apply([&](const auto&... r) { return t.gradient(z, r...); }, v);
  return {z.value(), g, s1 - s0, p1 - p0};
}

/// etad::gradient(f, x0, x1, ...) for an array of inputs.
template <class F, class T, std::size_t N>
auto static_gradient(const F& f, const std::array<T, N>& x) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return etad::gradient(f, x[I]...);
  }(std::make_index_sequence<N>{});
}

/// The first and second derivative of a unary f at x, by a tape of reals nested in a tape of T:
/// the inner tape's gradient of f is an outer real, and the outer tape's gradient of that is the
/// second derivative.
template <class T, class F>
std::array<T, 2> first_and_second(const F& f, T x) {
  etad::basic_tape<T> outer;
  const etad::real<T> xo = outer.variable(x);
  etad::real<T> d;
  {
    etad::basic_tape<etad::real<T>> inner;
    const etad::real<etad::real<T>> xi = inner.variable(xo);
    const etad::real<etad::real<T>> z = f(xi);
    d = inner.gradient(z, xi)[0];
  }
  return {d.value(), outer.gradient(d, xo)[0]};
}

/// The Hessian of f at x by nested tapes: an outer tape of doubles holds the inputs, an inner
/// basic_tape<real<double>> records f on reals whose values are outer reals; the inner gradient
/// is a vector of outer reals, and one outer gradient per entry gives a row of the Hessian.
template <class F, std::size_t N>
std::array<std::array<double, N>, N> nested_hessian(const F& f, const std::array<double, N>& x) {
  etad::tape outer{etad::persistent};
  std::array<etad::real<double>, N> xo{};
  for (std::size_t i = 0; i < N; ++i) xo[i] = outer.variable(x[i]);
  std::array<etad::real<double>, N> g{};
  {
    etad::basic_tape<etad::real<double>> inner;
    std::array<etad::real<etad::real<double>>, N> xi{};
    for (std::size_t i = 0; i < N; ++i) xi[i] = inner.variable(xo[i]);
    const etad::real<etad::real<double>> y = std::apply(f, xi);
    g = std::apply([&](const auto&... r) { return inner.gradient(y, r...); }, xi);
  }
  std::array<std::array<double, N>, N> h{};
  for (std::size_t i = 0; i < N; ++i)
    h[i] = std::apply([&](const auto&... r) { return outer.gradient(g[i], r...); }, xo);
  return h;
}

}  // namespace etad_tape_test
