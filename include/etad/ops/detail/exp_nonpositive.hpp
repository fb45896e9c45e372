// etad/ops/detail/exp_nonpositive.hpp — e^x for x <= 0 (and NaN) in double, written so that a
// loop of it vectorizes: no branch, no table, no call, no conversion the target lacks.
//
// NOT a general exp: its domain is (-inf, 0] plus NaN, which is what a shifted exponential
// e^(x_i - max) needs (log_sum_exp, softmax). For x > 0 the result is not specified (not
// tested; from x ~ 354 on, the power of two it builds overflows into garbage).
//
// Total on its domain:
//   x = -inf, and every x < -746         -> +0   (e^x < 2^-1075 there: rounds to 0)
//   -746 <= x < -708.4 (results < DBL_MIN) -> the subnormal result (not flushed to 0)
//   x = 0 or -0                          -> exactly 1
//   NaN                                  -> NaN
// Accuracy, against long double expl (tests/ops/exp_nonpositive_test.cpp: 1.1 million seeded
// points over [-746, 0], dense near 0 and through the subnormal range; 12 million more in a
// one-off run, with g++ 12 and clang 14, -O2 and -O3 -march=native): at most 0.64 ulp for
// normal results; subnormal results within 0.78 of the subnormal spacing 2^-1074 (e^r is
// rounded to 53 bits and then the product to the coarser subnormal grid: a double rounding,
// still below 1 step). std::exp (glibc) is within ~0.5 ulp.
//
// Method (derived for this file; tools/exp_nonpositive_remez.py recomputes the constants):
//   k = round(x / ln2) by adding and subtracting 1.5 * 2^52 (round-to-nearest, the default FP
//     environment; no std::nearbyint, which is a libm call without SSE4.1);
//   r = (x - k ln2_hi) - k ln2_lo, |r| <= ln2 / 2 (Cody-Waite): ln2_hi has 40 significant bits
//     and |k| <= 1077 (11 bits), so k ln2_hi is exact and so is x - k ln2_hi (Sterbenz-like:
//     both lie on a grid of 2^-54 or coarser and differ by less than 1/2). The rounding error
//     r_err of the second subtraction is recovered exactly (Fast2Sum) and carried along;
//   e^(r + r_err) = (1 + r) + [r^3 s(r) + r^2 / 2 + r_err (1 + r)], s of degree 8: the
//     relative-error minimax (weighted Remez) with the 1, 1, 1/2 of the Taylor series kept
//     exact, so e^0 = 1 exactly. Its approximation error, with the coefficients rounded to
//     double, is 5.9e-18 relative (0.05 ulp). 1 + r is taken as its rounded sum plus that sum's
//     exact error (Fast2Sum again, |1| >= |r|), which joins the small bracket (< 0.07): the only
//     rounding at the size of the result is the last addition. (Without the two error terms the
//     measured maximum was 0.99 ulp.) s is evaluated by Estrin's scheme, in pairs, not by Horner's
//     rule: the loop is bound by its dependent chain when it runs over a few elements
//     (log_sum_exp of 10), and 4 fused steps deep instead of 8 made that 0.83-0.99 times as
//     long (tools/ab_bench.sh, two runs); r^3 s is added beside r^2 / 2 rather than nested in
//     it for the same reason. On the same 12 million points the bound did not move: 0.634 ulp
//     now in all four builds; 0.643 with Horner's rule (0.623 in its -march=native builds);
//     subnormal results 0.773, 0.777 before.
//   e^x = (e^r * 2^(k + 512)) * 2^-512: both powers are normal doubles (k + 512 >= -565), built
//     from k's bits (the low bits of the shifted sum) by one integer add and one shift; the
//     first product is exact, the second rounds once — into the subnormal range where e^x is
//     below DBL_MIN, so subnormal results are not flushed (2^k itself would not be a double).
// NaN passes through the polynomial (the garbage power of a NaN's bits multiplies a NaN); -inf
// and very negative x are clamped to -746 first (a bitwise blend, not a branch), giving 0.
//
// With -mfma (e.g. -march=native) compilers may contract a * b + c into fused multiply-adds;
// every step above stays exact or more accurate then, so both builds meet the same bound (the
// results may differ in the last bit between them).
#pragma once

#include <etad/core/config.hpp>

#include <bit>
#include <cstdint>

namespace etad::detail {

ETAD_ALWAYS_INLINE constexpr double exp_nonpositive(double x) noexcept {
  constexpr double lowest = -746.0;                     // e^-746 < 2^-1075: result 0
  constexpr double inv_ln2 = 0x1.71547652b82fep+0;      // 1 / ln 2, rounded
  constexpr double ln2_hi = 0x1.62e42fefa4000p-1;       // ln 2 on a grid of 2^-40
  constexpr double ln2_lo = -0x1.8432a1b0e2634p-43;     // ln 2 - ln2_hi, rounded
  constexpr double shifter = 0x1.8p52;                  // x + shifter - shifter = round(x)
  constexpr std::uint64_t bias = 1023 + 512;            // exponent bias + the first power's 512
  constexpr double two_to_minus_512 = 0x1p-512;
  // Minimax s(r) ~ (e^r - 1 - r - r^2/2) / r^3 on [-ln2/2, ln2/2], relative error of e^r.
  constexpr double c3 = 0x1.5555555555501p-3;
  constexpr double c4 = 0x1.555555555320ep-5;
  constexpr double c5 = 0x1.111111112882dp-7;
  constexpr double c6 = 0x1.6c16c17cc0bc9p-10;
  constexpr double c7 = 0x1.a01a011c37970p-13;
  constexpr double c8 = 0x1.a019ab35b5b8ep-16;
  constexpr double c9 = 0x1.71df55237b5e2p-19;
  constexpr double c10 = 0x1.289f81a88e77ep-22;
  constexpr double c11 = 0x1.ad2029f18d893p-26;

  // x < lowest ? lowest : x (NaN compares false: it stays NaN), as a bitwise blend: g++ 12
  // turns the conditional into control flow (every x below lowest gives the constant 0, which it
  // propagates) and then does not vectorize the loop for AVX2.
  const std::uint64_t below = std::uint64_t(0) - std::uint64_t(x < lowest);
  x = std::bit_cast<double>((std::bit_cast<std::uint64_t>(x) & ~below) |
                            (std::bit_cast<std::uint64_t>(lowest) & below));
  const double shifted = x * inv_ln2 + shifter;
  const double k = shifted - shifter;
  const double r_hi = x - k * ln2_hi;  // exact
  const double k_lo = k * ln2_lo;
  const double r = r_hi - k_lo;
  // r + r_err = r_hi - k_lo exactly when |r_hi| >= |k_lo| (Fast2Sum); otherwise |r| < 4e-10
  // and r's own rounding is far below what matters.
  const double r_err = (r_hi - r) - k_lo;
  const double r2 = r * r;
  const double r3 = r2 * r;
  const double r4 = r2 * r2;
  const double q0 = (c3 + r * c4) + r2 * (c5 + r * c6);
  const double q1 = (c7 + r * c8) + r2 * (c9 + r * c10);
  const double s = q0 + r4 * (q1 + r4 * c11);
  // e^(r + r_err) = 1 + r + [r^3 s + r^2 / 2 + r_err (1 + r)], the bracket small (< 0.07);
  // 1 + r is split into its rounded sum and that sum's exact error (Fast2Sum, |1| >= |r|), so
  // the only rounding of the result's size is the last addition.
  const double one_r = 1.0 + r;
  const double one_r_err = (1.0 - one_r) + r;
  const double tail = r3 * s + (0.5 * r2 + (r_err + r_err * r));
  const double er = one_r + (one_r_err + tail);
  // 2^(k + 512): the low 12 bits of shifted's representation are k's, plus a multiple of 4096.
  const double power = std::bit_cast<double>((std::bit_cast<std::uint64_t>(shifted) + bias) << 52);
  return (er * power) * two_to_minus_512;
}

}  // namespace etad::detail
