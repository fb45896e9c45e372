// etad/ops/detail/numbers.hpp — mathematical constants in the precision of the argument.
// A rule written for double must not drag a float computation up to double (or a long double
// one down), so constants are converted to the argument's own floating type where it has one.
#pragma once

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

}  // namespace etad::detail
