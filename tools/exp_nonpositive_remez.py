#!/usr/bin/env python3
"""Recompute the constants of include/etad/ops/detail/exp_nonpositive.hpp (needs mpmath).

exp_nonpositive reduces x to r = x - k ln2, |r| <= ln2/2, and approximates
    e^r ~ 1 + r + r^2/2 + r^3 s(r)
with the first three Taylor terms exact and s of degree 8 chosen by a weighted Remez exchange to
minimize the RELATIVE error of e^r:  max |(1 + r + r^2/2 + r^3 s(r)) / e^r - 1|, i.e. the error
of s against (e^r - 1 - r - r^2/2) / r^3 with weight |r|^3 / e^r. The script prints the
coefficients rounded to double (hex, as the header writes them), the minimax error, the error of
the rounded coefficients (measured on a fine grid in 60-digit arithmetic), and the Cody-Waite
split of ln 2.

Usage: tools/exp_nonpositive_remez.py [degree of s, default 8]
"""
import sys

from mpmath import mp, mpf, exp, log, matrix, lu_solve, cos, pi, nint, nstr

mp.dps = 60
HALF_LN2 = log(2) / 2


def target(r):  # (e^r - 1 - r - r^2/2) / r^3, continued at 0
    if r == 0:
        return mpf(1) / 6
    return (exp(r) - 1 - r - r * r / 2) / r**3


def weight(r):
    return abs(r) ** 3 / exp(r)


def poly(coefficients, r):  # lowest degree first
    s = mpf(0)
    for c in reversed(coefficients):
        s = s * r + c
    return s


def error(coefficients, r):  # signed relative error of e^r, up to the sign of r^3
    return weight(r) * (poly(coefficients, r) - target(r))


def remez(degree, iterations=15, grid=6000):
    n = degree + 1
    # Start from Chebyshev points, kept away from 0 where the weight vanishes.
    points = [-HALF_LN2 * cos(pi * (i + mpf(1) / 2) / (n + 1)) for i in range(n + 1)]
    points = [p if abs(p) > 0.02 else mpf("0.05") for p in points]
    for _ in range(iterations):
        a = matrix(n + 1, n + 1)
        b = matrix(n + 1, 1)
        for i, r in enumerate(points):
            for j in range(n):
                a[i, j] = weight(r) * r**j
            a[i, n] = (-1) ** i
            b[i] = weight(r) * target(r)
        solution = lu_solve(a, b)
        coefficients = [solution[j] for j in range(n)]
        level = abs(solution[n])
        # New reference: the alternating local extrema of the error on a grid.
        xs = [-HALF_LN2 + 2 * HALF_LN2 * i / grid for i in range(grid + 1)]
        es = [error(coefficients, x) for x in xs]
        extrema = []
        for i, e in enumerate(es):
            left = abs(es[i - 1]) if i > 0 else mpf(0)
            right = abs(es[i + 1]) if i < grid else mpf(0)
            if abs(e) >= left and abs(e) >= right and e != 0:
                extrema.append((xs[i], e))
        alternating = []
        for x, e in extrema:
            if alternating and (alternating[-1][1] > 0) == (e > 0):
                if abs(e) > abs(alternating[-1][1]):
                    alternating[-1] = (x, e)
            else:
                alternating.append((x, e))
        while len(alternating) > n + 1:
            alternating.pop(0 if abs(alternating[0][1]) < abs(alternating[-1][1]) else -1)
        if len(alternating) == n + 1:
            points = [x for x, _ in alternating]
    return coefficients, level


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    coefficients, level = remez(degree)
    rounded = [float(c) for c in coefficients]
    grid = 20000
    worst = max(abs(error([mpf(c) for c in rounded], -HALF_LN2 + 2 * HALF_LN2 * i / grid))
                for i in range(grid + 1))
    print(f"minimax relative error of e^r: {nstr(level, 6)}")
    print(f"with the coefficients rounded to double: {nstr(worst, 6)} "
          f"= {nstr(worst / mpf(2) ** -53, 4)} x 2^-53")
    for k, c in enumerate(rounded):
        print(f"  constexpr double c{k + 3} = {float.hex(c)};")
    ln2 = log(2)
    hi = nint(ln2 * 2**40) / 2**40  # 40 significant bits: k ln2_hi is exact for |k| < 2^13
    print(f"  inv_ln2 = {float.hex(float(1 / ln2))}")
    print(f"  ln2_hi  = {float.hex(float(hi))}  (exactly representable: {float(hi) == hi})")
    print(f"  ln2_lo  = {float.hex(float(ln2 - hi))}")
    print(f"  cut-off -1075 ln2 = {nstr(-1075 * ln2, 20)}")


if __name__ == "__main__":
    main()
