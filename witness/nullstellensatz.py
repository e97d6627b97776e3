"""V(F) = ∅ proved by a Nullstellensatz certificate: 1 = Σ g_i f_i, found by exact linear algebra.

By Hilbert's Nullstellensatz, V(F) ⊂ C^n is empty iff 1 lies in the ideal (f_1, ..., f_m); the
certificate 1 = Σ g_i f_i is then a proof anyone can check by expanding it. Searching for the
g_i of degree ≤ D - deg f_i is linear algebra: is the constant monomial in the row space of the
Macaulay matrix whose rows are the products x^α f_i of degree ≤ D (columns: the monomials of
degree ≤ D)? Over Q this is decided exactly (python-flint ``fmpq_mat``) after a quick filter
mod a prime (``nmod_mat``): a certificate over Q reduces to one mod p for every p that divides
no denominator, so a failure mod such a p rules the degree out.

Degrees D = max deg f_i, ..., + ``EXTRA_DEGREES`` are tried while the matrix stays within
``MAX_COLUMNS`` monomials and ``MAX_ROWS`` products: small, low-degree inconsistencies
(x - 1, x - 2: 1 = (x - 1) - (x - 2); x^2 + y^2 - 1, x - y, x + y - 1) are proved, large ones
are left undecided (effective Nullstellensatz degrees can be exponential: Kollár 1988). Why:
numerically, paths that all end at infinity or off V(F) do not prove V(F) empty (double
precision cannot tell a root of modulus 1e9 from one at infinity), so ``decompose`` certified an
empty answer only for a constant equation such as 1 = 0 (issue 10 item 3).
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from .system import PolynomialSystem, monomial_exponents

EXTRA_DEGREES = 2
MAX_COLUMNS = 400
MAX_ROWS = 1200
PRIME = 2 ** 61 - 1


def _monomials(n: int, D: int) -> list[tuple[int, ...]]:
    """Exponent vectors of degree <= D in n variables, constant first (C(n + D, n) of them:
    the caller checks the count first; enumerating all of (D + 1)^n took 186 s at n = 7)."""
    return [e for d in range(D + 1) for e in monomial_exponents(n, d)]


def _rows(F: PolynomialSystem, D: int, mons: list) -> list[dict]:
    """The products x^a f_i of degree <= D as {column: coefficient}."""
    col = {m: j for j, m in enumerate(mons)}
    rows = []
    for p, d in zip(F.polynomials, F.degrees):
        for a in mons:
            if sum(a) + d > D:
                continue
            rows.append({col[tuple(x + y for x, y in zip(a, e))]: c for e, c in p.items()})
    return rows


def _in_row_space_mod_p(rows: list[dict], ncols: int) -> bool:
    def mod(c: Fraction) -> int:
        return c.numerator % PRIME * pow(c.denominator % PRIME, -1, PRIME) % PRIME
    M = flint.nmod_mat(len(rows), ncols, [mod(Fraction(r.get(j, 0))) for r in rows
                                          for j in range(ncols)], PRIME)
    E = flint.nmod_mat(len(rows) + 1, ncols,
                       [mod(Fraction(r.get(j, 0))) for r in rows for j in range(ncols)]
                       + [1] + [0] * (ncols - 1), PRIME)
    return E.rank() == M.rank()


def _in_row_space_q(rows: list[dict], ncols: int) -> bool:
    def q(c) -> flint.fmpq:
        c = Fraction(c)
        return flint.fmpq(c.numerator, c.denominator)
    M = flint.fmpq_mat(len(rows), ncols, [q(r.get(j, 0)) for r in rows for j in range(ncols)])
    E = flint.fmpq_mat(len(rows) + 1, ncols, [q(r.get(j, 0)) for r in rows
                                              for j in range(ncols)]
                       + [flint.fmpq(1)] + [flint.fmpq(0)] * (ncols - 1))
    return E.rank() == M.rank()


def empty_certificate(F: PolynomialSystem) -> str | None:
    """A sentence proving V(F) = ∅ over C (1 = Σ g_i f_i with deg g_i f_i <= D, decided
    exactly over Q), or None when no certificate was found within the size limits (module
    docstring), or F has inexact (float/complex) coefficients. Never raises for a valid F.

    >>> empty_certificate(PolynomialSystem.from_strings(["x - 1", "x - 2"]))
    '1 = sum of g_i f_i with deg(g_i f_i) <= 1 (Nullstellensatz certificate, exact over Q)'
    >>> empty_certificate(PolynomialSystem.from_strings(["x - 1", "x^2 - 1"])) is None
    True
    """
    if not F.is_exact:
        return None
    top = max(F.degrees)
    for D in range(top, top + EXTRA_DEGREES + 1):
        if math.comb(F.n_vars + D, D) > MAX_COLUMNS:
            return None
        mons = _monomials(F.n_vars, D)
        rows = _rows(F, D, mons)
        if len(rows) > MAX_ROWS:
            return None
        if _in_row_space_mod_p(rows, len(mons)) and _in_row_space_q(rows, len(mons)):
            return (f"1 = sum of g_i f_i with deg(g_i f_i) <= {D} (Nullstellensatz "
                    f"certificate, exact over Q)")
    return None
