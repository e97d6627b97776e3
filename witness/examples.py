"""Standard test systems with known answers (see shared/known-answer-systems.md).

cyclic(n): Björck–Fröberg cyclic-n roots (cyclic-5: 70 isolated roots, cyclic-7: 924);
katsura(n): Katsura's system in n + 1 unknowns (2^n isolated regular roots);
random_dense(degrees, n, rng, through=None): dense random complex polynomials of the given
degrees, optionally shifted to vanish at a point (generic hypersurface / complete intersection);
with_offsets(F): the family F(x) - p (a seeded parametrized system);
tangent_lines_to_spheres(): lines tangent to four spheres (12 for general spheres:
Sottile–Theobald 2002), with tangent_lines_seed(rng) a seed.
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
