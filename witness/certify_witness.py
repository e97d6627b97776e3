"""Certification of the witness points of a positive-dimensional component.

A witness set of a component Z of dimension k of V(F) (F: m polynomials in n unknowns) is
Z ∩ {A x = b} for a random slice (A (k, n), b (k,)). Its points are isolated, and regular when Z
is generically reduced, as zeros of the square system

    G(x) = [R F(x); A x - b]        (n equations; R (n - k, m) random)

(Bertini's theorem; Sommese–Wampler 2005, §13.5: a general R keeps Z a component of V(R F) and
Z ∩ {A x = b} reduced). ``certify_witness_points`` builds G and proves each witness point with
the Krawczyk test (``witness.certify.certify``): the box holds exactly one zero of G, and it is
regular; two certified points are distinct zeros when their enclosures are disjoint.

Exactness: R is a random REAL matrix with rational entries (a real R is as generic as a complex
one: real matrices are Zariski dense), so R F keeps F's exact rational coefficients; A and b
enter as the double-precision numbers the witness set holds, which are exact binary rationals.
So the certificates are about the exact G, not a rounded one. Rows of F are first scaled by
(rational approximations of) their inverse coefficient norms, as ``witness_set.square_part``
does, so that no equation dominates R F.

What is not proved: that a certified zero of G lies on V(F) rather than on a component of
V(R F) \\ V(F) (that is the residual check on F, numerical), nor that the witness set is
complete (the trace test, numerical with stated tolerances).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .certify import CertificationResult, certify
from .system import PolynomialSystem

SCALE_DIGITS = 2 ** 20      # denominators of R's entries and of the row scales


def witness_square_system(F: PolynomialSystem, A, b, rng: np.random.Generator
                          ) -> PolynomialSystem:
    """G = [R diag(s) F; A x - b] (module docstring) with R (n - k, m) random rational, s the
    rational inverse coefficient norms of F's rows (F itself when it has n - k equations).

    Raises
    ------
    ValueError
        A, b of the wrong shape or not finite; fewer than n - k equations.
    """
    A = np.atleast_2d(np.asarray(A, complex))
    b = np.asarray(b, complex).reshape(-1)
    n, k = F.n_vars, len(b)
    if A.shape != (k, n) or not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        raise ValueError(f"slice must be A ({k}, {n}) and b ({k},) finite, got {A.shape}, "
                         f"{b.shape}")
    r = n - k
    if F.n_equations < r:
        raise ValueError(f"{F.n_equations} equations cannot cut out dimension {k} in {n} "
                         f"variables")
    if F.n_equations == r:
        rows = list(F.polynomials)
    else:
        norms = F.coefficient_norms()
        scale = [Fraction(1 / v).limit_denominator(SCALE_DIGITS) if v > 0 else Fraction(1)
                 for v in norms]
        R = rng.integers(-SCALE_DIGITS, SCALE_DIGITS + 1, size=(r, F.n_equations))
        rows = []
        for i in range(r):
            q: dict = {}
            for j, p in enumerate(F.polynomials):
                w = Fraction(int(R[i, j]), SCALE_DIGITS) * scale[j]
                for e, c in p.items():
                    q[e] = q.get(e, 0) + w * c
            rows.append({e: c for e, c in q.items() if c != 0})
    zero = (0,) * n
    for i in range(k):
        q = {zero: -complex(b[i])}
        for j in range(n):
            if A[i, j] != 0:
                e = [0] * n
                e[j] = 1
                q[tuple(e)] = complex(A[i, j])
        rows.append(q)
    return PolynomialSystem.from_dicts(F.variables, rows)


def certify_witness_points(F: PolynomialSystem, A, b, X, *, seed: int = 0,
                           max_precision: int = 256) -> CertificationResult:
    """Krawczyk certification of witness points X of a component of V(F) cut by A x = b.

    Parameters
    ----------
    F : PolynomialSystem
        The system (exact coefficients), m equations in n unknowns.
    A, b : complex (k, n), (k,)
        The witness slice (k = the component's dimension; k = 0: give A of shape (0, n)).
    X : complex (p, n)
        The witness points.
    seed : int
        Seeds R (recorded by the caller).
    max_precision : int
        As ``witness.certify.certify``.

    Returns
    -------
    witness.certify.CertificationResult
        On G = [R F; A x - b]: certified, distinct, real (real only means real as a zero of G).

    Raises
    ------
    ValueError
        Wrong shapes (``witness_square_system``, ``certify``).

    Examples
    --------
    >>> F = PolynomialSystem.from_strings(["x^2 + y^2 - 1"])      # the circle, degree 2
    >>> r = certify_witness_points(F, [[1, 0]], [0.5], [[0.5, 0.75 ** 0.5], [0.5, -0.75 ** 0.5]])
    >>> r.certified, r.distinct
    (2, 2)

    References
    ----------
    Sommese–Wampler 2005, §13.5 (Bertini's theorem for randomized systems); the Krawczyk test:
    ``witness.certify``.
    """
    G = witness_square_system(F, A, b, np.random.default_rng(seed))
    return certify(G, X, max_precision=max_precision)
