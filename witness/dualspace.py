"""Local dual spaces: the multiplicity of a point, and whether it is isolated.

The local dual space of a system f_1..f_m at a point p is the space of differential functionals
sum_beta c_beta d_beta[p] (d_beta = (1/beta!) d^|beta|/dx^beta evaluated at p) that vanish on
the ideal (f); its depth-k part D_k (|beta| <= k) is the null space of the Macaulay matrix S_k,
whose columns are the monomials (x - p)^beta, |beta| <= k, and whose rows are the Taylor
coefficients at p of (x - p)^alpha f_i, |alpha| <= k - 1 (Dayton–Zeng 2005, "Computing the
multiplicity structure in solving polynomial systems", §2; Macaulay 1916). The Hilbert function
h(k) = dim D_k - dim D_(k-1):

* if h(k) = 0 for some k, p is an isolated solution and its multiplicity is dim D_(k-1)
  (Dayton–Zeng, Lemma 1 / Theorem 1);
* if p lies on a positive-dimensional solution set, h(k) >= 1 for every k, so dim D_k grows
  without bound (the local dimension test of Bates–Hauenstein–Peterson–Sommese 2009, "A
  numerical local dimension test for points on the solution set of a system of polynomial
  equations"). With an upper bound B on the multiplicity of p if it were isolated (the number
  of paths of a homotopy that converge to p: an isolated solution of multiplicity mu attracts
  exactly mu paths), dim D_k > B proves that p is not isolated.

Ranks are decided by the engine's one rank rule (``witness.rank``) on matrices whose rows are
scaled by the size of their polynomial's terms at p (``row_scales``: sum_t |c_t| max(1,
|p|_inf)^deg_t, the denominator of the backward error ``PolynomialSystem.residual``), with a
reference singular value 1 (``scaled_rank``): a row rule relative to the largest singular value
alone would call every nonzero 1 x 1 Jacobian regular, e.g. 3 x^2 of x^3 at x = 1e-5. The zero
threshold is raised to ``ERROR_FACTOR`` times the relative error estimate of the point (a point
off by delta perturbs the matrices by about delta: their exact null vectors then give singular
values of that size). A rank that the rule does not decide leaves the verdict undecided.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from .options import DEFAULT, RankOptions
from .rank import numerical_rank

ERROR_FACTOR = 1e3      # zero threshold >= this x the point's relative error estimate
MAX_COLUMNS = 3000      # Macaulay matrices wider than this are not formed (undecided)


@dataclass(frozen=True)
class LocalStructure:
    """Verdict of ``local_structure``.

    isolated : True (h(k) = 0 reached), False (dim D_k exceeded the bound), None (undecided).
    multiplicity : dim D_(k-1) when isolated, else None.
    dims : dim D_0, dim D_1, ... as computed; depth : the last k; bound : the bound used.
    reason : in words; threshold : the zero threshold used (relative singular values).
    """
    isolated: bool | None
    multiplicity: int | None
    dims: tuple[int, ...]
    bound: int
    reason: str
    threshold: float

    def to_json(self) -> dict:
        return {"isolated": self.isolated, "multiplicity": self.multiplicity,
                "dual_space_dims": list(self.dims), "bound": self.bound,
                "reason": self.reason, "rank_threshold": self.threshold}


@lru_cache(maxsize=64)
def monomials(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Exponents of total degree <= k in n variables, by degree then lexicographically."""
    out = []
    for d in range(k + 1):
        out += sorted((e for e in itertools.product(range(d + 1), repeat=n) if sum(e) == d),
                      reverse=True)
    return tuple(out)


def taylor(poly: dict, p: np.ndarray, k: int) -> dict[tuple[int, ...], complex]:
    """Taylor coefficients {gamma: T_gamma} of a polynomial {exponent: coefficient} at p up to
    total degree k: T_gamma = sum_e c_e prod_j binom(e_j, gamma_j) p_j^(e_j - gamma_j)."""
    n = len(p)
    out: dict[tuple[int, ...], complex] = {}
    for e, c in poly.items():
        c = complex(c)
        ranges = [range(min(ej, k) + 1) for ej in e]
        for g in itertools.product(*ranges):
            if sum(g) > k:
                continue
            t = c
            for j in range(n):
                if e[j]:
                    t *= math.comb(e[j], g[j]) * p[j] ** (e[j] - g[j])
            out[g] = out.get(g, 0) + t
    return out


def macaulay_matrix(polys, p: np.ndarray, k: int) -> np.ndarray:
    """S_k (rows (alpha, i) with |alpha| <= k - 1, columns beta with |beta| <= k) of the
    polynomials ``polys`` (dicts) at p; each polynomial's rows are divided by ``row_scales``
    (the null space is unchanged)."""
    n = len(p)
    cols = monomials(n, k)
    where = {b: j for j, b in enumerate(cols)}
    T = [{g: v / w for g, v in taylor(f, p, k).items()}
         for f, w in zip(polys, row_scales(polys, p))]
    rows = []
    for a in monomials(n, k - 1) if k >= 1 else ():
        for t in T:
            r = np.zeros(len(cols), complex)
            for g, v in t.items():
                b = tuple(x + y for x, y in zip(a, g))
                j = where.get(b)
                if j is not None:
                    r[j] = v
            rows.append(r)
    return np.array(rows).reshape(len(rows), len(cols))


def row_scales(polys, p: np.ndarray) -> np.ndarray:
    """sum_t |c_t| max(1, |p|_inf)^deg_t per polynomial (dicts): the size of its terms at p."""
    r = max(1.0, float(np.abs(p).max(initial=0.0)))
    return np.array([sum(abs(complex(c)) * r ** sum(e) for e, c in q.items()) or 1.0
                     for q in polys])


def scaled_rank(M: np.ndarray, opts: RankOptions):
    """Numerical rank (``witness.rank``) of M, whose rows are scaled to terms of size <= 1,
    relative to max(1, sigma_1): the rule is applied to the singular values with a reference
    value max(1, sigma_1) prepended, whose own rank is not counted. Returns a RankDecision."""
    sv = np.linalg.svd(M, compute_uv=False) if M.size else np.zeros(0)
    ref = max(1.0, float(sv.max(initial=0.0)))
    dec = numerical_rank(np.concatenate([[ref], sv]), opts)
    return replace(dec, rank=dec.rank - 1)


def sliced_polynomials(F, A=None, b=None) -> list[dict]:
    """The equations of F and of the slice A x = b as polynomial dicts."""
    polys = [dict(q) for q in F.polynomials]
    n = F.n_vars
    if A is not None:
        for row, c in zip(np.atleast_2d(A), np.atleast_1d(b)):
            q = {tuple(int(j == i) for j in range(n)): complex(a) for i, a in enumerate(row)}
            q[(0,) * n] = -complex(c)
            polys.append(q)
    return polys


def local_structure(F, p, bound: int, *, A=None, b=None, accuracy: float = 0.0,
                    rank: RankOptions | None = None, max_columns: int = MAX_COLUMNS
                    ) -> LocalStructure:
    """Is p an isolated solution of F (with the slice A x = b, if given), and of which
    multiplicity? See the module docstring.

    Parameters
    ----------
    F : PolynomialSystem (expanded equations)
    p : complex (n,)
        An approximate solution.
    bound : int >= 1
        Upper bound on p's multiplicity if p is isolated (e.g. the number of homotopy paths
        converging to p).
    A, b : complex (k, n), (k,), optional
        Slice equations added to F.
    accuracy : float
        Relative error estimate of p (raises the zero threshold; see ``ERROR_FACTOR``).
    rank : RankOptions (default the engine's)
    max_columns : int
        Largest Macaulay matrix formed; beyond it the verdict is undecided.

    Returns
    -------
    LocalStructure

    Raises
    ------
    ValueError
        bound < 1, or p of the wrong shape / not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from witness import PolynomialSystem
    >>> F = PolynomialSystem.from_strings(["x^2 + y - 3", "x + y^2/8 - 3/2"])
    >>> local_structure(F, np.array([1.0, 2.0]), bound=3).multiplicity     # triple root
    3
    >>> G = PolynomialSystem.from_strings(["x*y", "x*z"])                  # the plane x = 0
    >>> local_structure(G, np.array([0.0, 1.0, 2.0]), bound=4).isolated
    False
    """
    p = np.asarray(p, complex)
    if p.shape != (F.n_vars,) or not np.all(np.isfinite(p)):
        raise ValueError(f"point must be finite with shape ({F.n_vars},), got {p.shape}")
    if bound < 1:
        raise ValueError(f"bound must be >= 1, got {bound}")
    opts = rank or DEFAULT.rank
    tau = max(opts.zero_below, ERROR_FACTOR * float(accuracy))
    if not tau < 1:
        return LocalStructure(None, None, (1,), bound, f"point accuracy {accuracy:.1e} too "
                              f"poor for rank decisions", tau)
    opts = replace(opts, zero_below=tau)
    polys = sliced_polynomials(F, A, b)
    dims = [1]
    k = 0
    while True:
        k += 1
        ncols = len(monomials(len(p), k))
        if ncols > max_columns:
            return LocalStructure(None, None, tuple(dims), bound, f"depth {k} needs {ncols} "
                                  f"columns > {max_columns}", tau)
        dec = scaled_rank(macaulay_matrix(polys, p, k), opts)
        if not dec.decided:
            return LocalStructure(None, None, tuple(dims), bound, f"rank of the depth-{k} "
                                  f"Macaulay matrix undecided (gap {dec.gap:.1e})", tau)
        dims.append(ncols - dec.rank)
        if dims[-1] == dims[-2]:
            return LocalStructure(True, dims[-1], tuple(dims), bound,
                                  f"h({k}) = 0: isolated, multiplicity {dims[-1]}", tau)
        if dims[-1] > bound:
            return LocalStructure(False, None, tuple(dims), bound,
                                  f"dim D_{k} = {dims[-1]} > {bound}: not isolated", tau)
