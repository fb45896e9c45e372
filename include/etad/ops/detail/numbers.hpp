// etad/ops/detail/numbers.hpp — mathematical constants in the precision of the argument.
// A rule written for double must not drag a float computation up to double (or a long double
// one down), so constants are converted to the argument's own floating type where it has one.
#pragma once

#include <etad/core/config.hpp>

#include <type_traits>

namespace etad::detail {

template <class T>
constexpr auto like(long double c) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(c);
  else
    return static_cast<double>(c);
}

inline constexpr long double ln2 = 0.693147180559945309417232121458176568L;
inline constexpr long double ln10 = 2.302585092994045684017991454684364208L;
inline constexpr long double two_over_sqrt_pi = 1.128379167095512573896158903121545172L;
inline constexpr long double pi = 3.141592653589793238462643383279502884L;

/// A nested tape's real (a value on an outer tape, is_constant() and value()), as opposed to a
/// floating-point or other plain scalar.
template <class T>
concept nested_real = requires(const T& a) {
  a.is_constant();
  a.value();
};

/// Whether a is a zero with nothing behind it: for floating-point and other plain T, a == 0;
/// for the reals of a nested tape (second derivatives), a constant real of value 0 only. A real
/// whose value is 0 but which depends on the outer tape's variables has a derivative there, and
/// treating it as nothing drops that derivative: a tape statement with such an adjoint must
/// still push (f = (x^2 - 1)^2 at x = 1: u = x^2 - 1 has adjoint 2u = 0, and skipping its
/// statement made f'' 0 instead of 8), and a loop's partial must still be multiplied.
template <class T>
ETAD_ALWAYS_INLINE constexpr bool constant_zero(const T& a) {
  if constexpr (nested_real<T>)
    return a.is_constant() && constant_zero(a.value());
  else
    return bool(a == T(0));
}

}  // namespace etad::detail
