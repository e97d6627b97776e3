"""Equation and variable scaling of a polynomial system (Morgan's scaling), by powers of two.

A system whose coefficients or solutions differ from 1 by many orders of magnitude is badly
posed for a homotopy from a start system with coefficients and roots of size 1: for
x*y - 1e10, x - y (roots ±1e5) the target's coefficients outweigh the start system's until
s ~ 1e-10, so the paths move by 1e5 within a step below the minimal step size (both paths
failed, measured), and for x - 1e12 the endpoint is a regular point with |x0| / |X| = 1e-12,
which the endpoint rule reads as a point at infinity. Scaling x = 2^d ⊙ y and equation i by
2^(c_i) gives a system G(y) = diag(2^c) F(2^d ⊙ y) with the same solutions (mapped by y ↦ x)
and the same multiplicities, whose coefficients are as close to 1 as exponents allow.

Morgan, *Solving Polynomial Systems Using Continuation for Engineering and Scientific
Problems* (1987), ch. 5 ("scaling"; the SCLGEN routine): c and d minimize
sum over terms a x^e of equation i of (log2 |a| + c_i + e · d)^2, a linear least-squares
problem (numpy.linalg.lstsq, minimum-norm solution when the exponents leave a direction free,
e.g. homogeneous equations). PHCpack's ``scale`` does the same in base 10.

The exponents are rounded to integers, so every coefficient of G is the coefficient of F times
a power of two: exact for rational coefficients, and exact in floating point (no rounding).
Systems whose exponents are all within ``NEGLIGIBLE_BITS`` of 0 are left as they are (identity
scaling): every system with coefficients and solutions within ~1e3 of 1 is tracked exactly as
before.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .system import PolynomialSystem

NEGLIGIBLE_BITS = 10     # |exponent| <= 10 everywhere (factors within 2^10 ~ 1e3): no scaling


@dataclass(frozen=True)
class Scaling:
    """x = 2^variable_exponents ⊙ y and equation i multiplied by 2^equation_exponents[i].

    equation_exponents : int (m,); variable_exponents : int (n,).
    """

    equation_exponents: tuple[int, ...]
    variable_exponents: tuple[int, ...]

    @property
    def identity(self) -> bool:
        return not any(self.equation_exponents) and not any(self.variable_exponents)

    def apply(self, F: PolynomialSystem) -> PolynomialSystem:
        """G(y) = diag(2^c) F(2^d ⊙ y): every coefficient times a power of two (exact)."""
        d = self.variable_exponents
        polys = []
        for c, p in zip(self.equation_exponents, F.polynomials):
            polys.append({e: _times_pow2(a, c + sum(k * dj for k, dj in zip(e, d)))
                          for e, a in p.items()})
        return PolynomialSystem(F.variables, tuple(polys))

    def to_original(self, Y: np.ndarray) -> np.ndarray:
        """Points y (p, n) or (n,) of G mapped to points x = 2^d ⊙ y of F."""
        return np.asarray(Y) * np.exp2(np.array(self.variable_exponents, dtype=float))

    def to_json(self) -> dict:
        return {"method": "Morgan (least squares on log2 |coefficients|), powers of two",
                "equation_exponents": list(self.equation_exponents),
                "variable_exponents": list(self.variable_exponents)}


def _times_pow2(a, k: int):
    if isinstance(a, Fraction):
        return a * 2 ** k if k >= 0 else a / 2 ** -k
    return complex(math.ldexp(a.real, k), math.ldexp(a.imag, k))


def morgan_scaling(F: PolynomialSystem, slice_rows: int = 0) -> Scaling:
    """The equation and variable scaling of F (module docstring), identity when every
    exponent is within NEGLIGIBLE_BITS of 0.

    Parameters
    ----------
    F : PolynomialSystem (m equations, n variables; any coefficients)
    slice_rows : the last slice_rows equations are random linear slices: they do not take part
        in choosing the variable scaling (their random coefficients of size 1 say nothing about
        the size of the solutions, and would pull the scaling away from it: x^2 - 1e-20 in
        C^2 with a slice scaled y by 2^16), and each only gets the equation scale that centres
        its own coefficients. A slice in the scaled coordinates is as generic as in the original
        ones.

    Returns
    -------
    Scaling
    """
    m, n = F.n_equations, F.n_vars
    k = m - slice_rows
    rows, rhs = [], []
    for i, p in enumerate(F.polynomials[:k]):
        for e, a in p.items():
            row = np.zeros(k + n)
            row[i] = 1.0
            row[k:] = e
            rows.append(row)
            rhs.append(-_log2abs(a))
    sol = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0] if rows else \
        np.zeros(k + n)
    d = np.rint(sol[k:])
    # each equation's scale refitted to the rounded d, centring the range of its scaled
    # coefficients (rounding d moves a degree-e term by up to e/2 bits: x^200 - 1e-100)
    c = [np.rint(-(max(v) + min(v)) / 2) for v in
         ([_log2abs(a) + float(np.dot(e, d)) for e, a in p.items()] for p in F.polynomials)]
    exps = np.array(c + list(d), dtype=int)
    if np.max(np.abs(exps)) <= NEGLIGIBLE_BITS:
        return Scaling((0,) * m, (0,) * n)
    return Scaling(tuple(int(v) for v in exps[:m]), tuple(int(v) for v in exps[m:]))


def _log2abs(a) -> float:
    """log2 |a| for a nonzero Fraction (math.log2 takes integers of any size: 10^400 too) or
    complex."""
    if isinstance(a, Fraction):
        return math.log2(abs(a.numerator)) - math.log2(a.denominator)
    return math.log2(abs(complex(a)))
