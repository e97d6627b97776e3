"""Standard test systems with known answers (see shared/known-answer-systems.md).

cyclic(n): Björck–Fröberg cyclic-n roots (cyclic-5: 70 isolated roots, cyclic-7: 924);
katsura(n): Katsura's system in n + 1 unknowns (2^n isolated regular roots);
random_dense(degrees, n, rng, through=None): dense random complex polynomials of the given
degrees, optionally shifted to vanish at a point (generic hypersurface / complete intersection);
with_offsets(F): the family F(x) - p (a seeded parametrized system);
tangent_lines_to_spheres(): lines tangent to four spheres (12 for general spheres:
Sottile–Theobald 2002), with tangent_lines_seed(rng) a seed.
eleven_components(): 3 unknowns, 9 equations, 11 irreducible components of known degrees.
"""
from __future__ import annotations

import itertools

import numpy as np

from .system import PolynomialSystem


def cyclic(n: int) -> PolynomialSystem:
    """sum_i prod_{j<k} x_{(i+j) mod n} = 0 for k = 1..n-1, and x_0 ... x_{n-1} - 1 = 0."""
    xs = [f"x{i}" for i in range(n)]
    polys = ["+".join("*".join(xs[(i + j) % n] for j in range(k)) for i in range(n))
             for k in range(1, n)]
    return PolynomialSystem.from_strings(polys + ["*".join(xs) + " - 1"], variables=xs)


def katsura(n: int) -> PolynomialSystem:
    """u_m - sum_{l=-n..n} u_|l| u_|m-l| = 0 (m = 0..n-1), u_0 + 2 sum_{i>=1} u_i - 1 = 0."""
    xs = [f"u{i}" for i in range(n + 1)]

    def x(i: int) -> str | None:
        return xs[abs(i)] if abs(i) <= n else None
    polys = [f"{xs[m]} - (" + " + ".join(f"{x(l)}*{x(m - l)}" for l in range(-n, n + 1)
                                          if x(l) and x(m - l)) + ")" for m in range(n)]
    polys.append(xs[0] + " + 2*(" + " + ".join(xs[1:]) + ") - 1")
    return PolynomialSystem.from_strings(polys, variables=xs)


def random_dense(degrees, n: int, rng: np.random.Generator, through=None) -> PolynomialSystem:
    """Dense polynomials in x0..x{n-1} with standard complex normal coefficients, one per
    degree; with ``through`` (n,) each is shifted by a constant to vanish there."""
    polys = []
    for d in degrees:
        exps = [e for e in itertools.product(range(d + 1), repeat=n) if sum(e) <= d]
        c = rng.standard_normal(len(exps)) + 1j * rng.standard_normal(len(exps))
        p = dict(zip(exps, c))
        if through is not None:
            pt = np.asarray(through, complex)
            p[(0,) * n] -= sum(ci * np.prod(pt ** np.array(e)) for e, ci in zip(exps, c))
        polys.append(p)
    return PolynomialSystem.from_dicts([f"x{i}" for i in range(n)], polys)


def with_offsets(F: PolynomialSystem) -> PolynomialSystem:
    """The family F(x) - p with one parameter per equation, over the variables
    (x..., p0..p{m-1}): every point x* is a solution at p = F(x*), so a square F gives a
    seeded family for ``witness.monodromy_solve`` (parameters last, as
    ``witness.parameters.Family`` needs); F itself is the member at p = 0."""
    n, m = F.n_vars, F.n_equations
    polys = []
    for i, P in enumerate(F.polynomials):
        d = {e + (0,) * m: c for e, c in P.items()}
        e = [0] * (n + m)
        e[n + i] = 1
        d[tuple(e)] = -1
        polys.append(d)
    return PolynomialSystem.from_dicts(list(F.variables) + [f"p{i}" for i in range(m)], polys)


def tangent_lines_to_spheres() -> PolynomialSystem:
    """Lines tangent to four spheres, centres (a_i, b_i, c_i) and squared radii s_i
    (parameters a0, b0, c0, s0, a1, ...): the line through p = (x0, y0, 0) and (x1, y1, 1),
    direction v = (x1 - x0, y1 - y0, 1), is tangent to a sphere iff |(c - p) x v|^2 = s |v|^2.
    Four general spheres have 12 complex common tangent lines (Sottile–Theobald 2002, "Lines
    tangent to 2n - 2 spheres in R^n", Trans. AMS 354: 3 * 2^(n-1) for n = 3); total degree
    256."""
    polys = []
    for i in range(4):
        w = [f"(a{i} - x0)", f"(b{i} - y0)", f"c{i}"]
        v = ["(x1 - x0)", "(y1 - y0)", "1"]
        cross = [f"({w[1]}*{v[2]} - {w[2]}*{v[1]})", f"({w[2]}*{v[0]} - {w[0]}*{v[2]})",
                 f"({w[0]}*{v[1]} - {w[1]}*{v[0]})"]
        polys.append(" + ".join(f"{q}^2" for q in cross) + f" - s{i}*("
                     + " + ".join(f"{q}^2" for q in v) + ")")
    params = [f"{k}{i}" for i in range(4) for k in "abcs"]
    return PolynomialSystem.from_strings(polys, variables=["x0", "y0", "x1", "y1"] + params)


def tangent_lines_seed(rng: np.random.Generator) -> tuple[list, np.ndarray]:
    """(parameters (16,), a line (x0, y0, x1, y1) tangent to the four spheres they give): a
    random real line and centres, each squared radius the centre's squared distance to it."""
    line = rng.standard_normal(4)
    P, v = np.array([line[0], line[1], 0]), np.array([line[2] - line[0], line[3] - line[1], 1])
    p: list = []
    for _ in range(4):
        c = rng.standard_normal(3)
        p += [*c, float(np.sum(np.cross(c - P, v) ** 2) / np.sum(v ** 2))]
    return p, line


def eleven_components() -> PolynomialSystem:
    """The 9 products q * g_i * p_j in x, y, z, whose solution set has 11 irreducible components.

    q = x^2 + y^2 + z^2 - 4; g = (u1 v1, u2 v2, (u1 + u2)(v1 + v2)) with u1 = y - x^2,
    u2 = z - y^2, v1 = z - y^2 + 1, v2 = x - (z + 1)^2 - 2; p = ((x-1)(x+2), (y-2)(y+3),
    (z+1)(z-3)). V(F) = V(q) u V(g) u V(p) (F vanishes iff q = 0, or every g_i p_j = 0, i.e.
    g = 0 or p = 0). Derived: V(q) is the sphere (dim 2, degree 2). On V(g), u1 v1 = u2 v2 = 0
    and (u1 + u2)(v1 + v2) = 0; u1 = u2 = 0 is the curve t -> (t, t^2, t^4) and v1 = v2 = 0 the
    curve s -> (s^4 + 2, s, s^2 - 1), both of degree 4, and the mixed choices (u1 = v2 = 0 or
    u2 = v1 = 0) force u2 v1 = 0, points already on those curves. V(p) is 8 points (x in {1,
    -2}, y in {2, -3}, z in {-1, 3}), none on the sphere (x^2 + y^2 + z^2 >= 6). Expected
    ``Decomposition.degrees()``: {2: [2], 1: [4, 4], 0: [1] * 8}. Reduced everywhere (every
    factor appears once). Issue 11's example: 297 s on the engine before the compiled core."""
    q = "(x^2 + y^2 + z^2 - 4)"
    u1, u2, v1, v2 = "(y - x^2)", "(z - y^2)", "(z - y^2 + 1)", "(x - (z+1)^2 - 2)"
    g = [f"{u1}*{v1}", f"{u2}*{v2}", f"({u1}+{u2})*({v1}+{v2})"]
    p = ["(x-1)*(x+2)", "(y-2)*(y+3)", "(z+1)*(z-3)"]
    return PolynomialSystem.from_strings([f"{q}*{gi}*{pj}" for gi in g for pj in p],
                                         variables=["x", "y", "z"])
