"""Morgan's equation and variable scaling (witness.scaling) and solves of badly scaled systems.

Expected roots are closed forms: x*y = 1e10, x = y gives x = ±1e5; x^2 = c gives ±sqrt(c);
x^2 = 2 y^2, y = 1e-12 gives x = ±sqrt(2)·1e-12. Every root is simple (the derivative, resp. the
Jacobian determinant, is nonzero there), so each must be one point of multiplicity 1.
"""
from fractions import Fraction

import numpy as np
import pytest

from witness import PolynomialSystem
from witness.scaling import NEGLIGIBLE_BITS, morgan_scaling
from witness.solve import solve_paths

SEEDS = (1, 2)


def test_scaled_system_is_the_original_at_scaled_points():
    """G(y) = diag(2^c) F(2^d y), evaluated independently at random points; coefficients stay
    exact rationals."""
    F = PolynomialSystem.from_strings(["x*y - 1e10 + 3/7*x", "x - y + 1e-3"])
    S = morgan_scaling(F)
    assert not S.identity and max(map(abs, S.variable_exponents)) > NEGLIGIBLE_BITS
    G = S.apply(F)
    assert all(isinstance(c, Fraction) for p in G.polynomials for c in p.values())
    Y = np.random.default_rng(0).normal(size=(5, 2)) + 1j
    lhs = G.evaluate(Y)
    rhs = F.evaluate(S.to_original(Y)) * np.exp2(S.equation_exponents)
    assert np.allclose(lhs, rhs, rtol=1e-12)


def test_well_scaled_systems_are_left_alone():
    F = PolynomialSystem.from_strings(["x^2 + y - 3", "x + y^2/8 - 3/2"])
    assert morgan_scaling(F).identity
    assert solve_paths(F, seed=1).scaling is None


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("system,roots", [
    (["x*y - 1e10", "x - y"], [(1e5, 1e5), (-1e5, -1e5)]),
    (["x - 1e12"], [(1e12,)]),
    (["x^2 - 1e24"], [(1e12,), (-1e12,)]),
    (["x^2 - 1e-20"], [(1e-10,), (-1e-10,)]),
    (["x^2 + 1e-20"], [(1e-10j,), (-1e-10j,)]),
    (["x^2 - 2*y^2", "y - 1e-12"], [(2 ** 0.5 * 1e-12, 1e-12), (-2 ** 0.5 * 1e-12, 1e-12)]),
])
def test_badly_scaled_systems_have_every_root_simple(system, roots, seed):
    """Before scaling: the paths failed at the minimal step (±1e5), the root 1e12 was 'at
    infinity', and ±1e-10 were one complete 'double root' at 0."""
    r = solve_paths(PolynomialSystem.from_strings(system), seed=seed)
    assert r.complete and r.scaling is not None
    got = [np.array(g.point) for g in r.isolated]
    assert [g.multiplicity for g in r.isolated] == [1] * len(roots) and len(got) == len(roots)
    for q in (np.array(p, dtype=complex) for p in roots):      # each root found, to 1e-9
        assert min(np.linalg.norm(p - q) for p in got) <= 1e-9 * np.linalg.norm(q)


@pytest.mark.parametrize("seed", SEEDS)
def test_decompose_of_a_badly_scaled_system(seed):
    """x*y - 1e10, x - y: two points (±1e5, ±1e5), each dim 0, degree 1 (the superset solves
    are scaled by the equations, not by their random slices)."""
    from witness import decompose
    r = decompose(PolynomialSystem.from_strings(["x*y - 1e10", "x - y"]), seed=seed)
    assert r.certified
    assert sorted((c.dim, c.degree, c.multiplicity) for c in r.components) == [(0, 1, 1)] * 2


def test_slices_do_not_choose_the_variable_scaling():
    """x^2 - 1e-20 with a slice of size-1 coefficients: the variable scaling comes from the
    equation alone (x by 2^-33, y not scaled); the slice only gets an equation scale."""
    F = PolynomialSystem.from_strings(["x^2 - 1e-20", "(3/7)*x + (2/5)*y - 1"])
    S = morgan_scaling(F, slice_rows=1)
    assert S.variable_exponents == (-33, 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_high_degree_with_small_roots(seed):
    """x^200 - 1e-100: 200 simple roots of modulus 10^(-1/2) (the 200th roots of 1e-100).
    Rounding the variable scale 2^-1.66 to 2^-2 moves the x^200 term by 68 bits; the equation
    scale is refitted to the rounded variable scale (it hung > 300 s before scaling)."""
    r = solve_paths(PolynomialSystem.from_strings(["x^200 - 1e-100"]), seed=seed)
    assert r.complete and len(r.isolated) == 200
    assert all(g.multiplicity == 1 for g in r.isolated)
    assert max(abs(abs(complex(g.point[0])) - 10 ** -0.5) for g in r.isolated) < 1e-12


def test_phcpack_points_are_judged_on_the_scaled_system_too(tmp_path):
    """x^20 - 1e-40 (20 simple roots of modulus 0.01): PHCpack's points of modulus ~0.2
    (x^20 ~ 1e-14) passed F's backward error, which is absolute near 0, and were listed as
    'singular points our run did not reach' (complete: False); on the scaled system they fail
    the check, and the solve is complete with our 20 roots."""
    import json
    import subprocess
    import sys
    f = tmp_path / "p.txt"
    f.write_text("x^20 - 1e-40\n")
    out = subprocess.run([sys.executable, "-m", "witness", "solve", str(f), "--json",
                          "--seed", "1"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert j["complete"] is True and len(j["solutions"]) == 20
    assert all(abs(abs(complex(*s["point"][0])) - 0.01) < 1e-14 for s in j["solutions"])
