"""Wrong answers a new-user trial found (2026-12-01), each now right or honestly undecided.

* Multiplicity of a component of an overdetermined system: the superset tracks n - dim random
  combinations of F, whose paths count the combinations' multiplicity. x^2, x*y, y^2: the
  origin is the only zero; its multiplicity is dim C[x, y]/(x, y)^2 = 3 (monomials 1, x, y),
  while two random quadratic forms meet there with multiplicity 2 * 2 = 4 (Bezout, no other
  common zero). x^3, x^2 y, x y^2, y^3 = (x, y)^3: dim C[x, y]/(x, y)^3 = 1 + 2 + 3 = 6, paths
  3 * 3 = 9. The z-axis of (x, y)^2 in C^3: multiplicity 3 on a generic plane.
* (x - 1)(x - 2)...(x - 14) (Wilkinson): 14 simple real roots 1..14 (a polynomial of degree
  14 with 14 distinct roots); double precision called roots 5..13 singular (ill-conditioned)
  and then 'on a positive-dimensional set', complete: True with 4 roots.
* (x - 1)^2 (x - 1 - 1/10^6): a double root at 1 and a simple root at 1 + 10^-6 (three paths);
  the endpoints of paths into this cluster were called 'not isolated', complete: True with
  no solution.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

from witness import PolynomialSystem, decompose


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("eqs, variables, dim, mult, paths", [
    (["x^2", "x*y", "y^2"], None, 0, 3, 4),
    (["x^3", "x^2*y", "x*y^2", "y^3"], None, 0, 6, 9),
    (["x^2", "x*y", "y^2"], ["x", "y", "z"], 1, 3, 4),
])
def test_multiplicity_of_a_randomized_system_is_the_dual_space(seed, eqs, variables, dim, mult,
                                                                paths):
    F = PolynomialSystem.from_strings(eqs, variables=variables)
    D = decompose(F, seed=seed, runs=0)
    assert [(c.dim, c.degree, c.multiplicity, c.path_multiplicity) for c in D.components] == \
        [(dim, 1, mult, paths)]
    assert D.certified


def _solve(tmp_path, text: str, seed: int) -> dict:
    f = tmp_path / "system.txt"
    f.write_text(text)
    out = subprocess.run([sys.executable, "-m", "witness", "solve", str(f), "--json", "--seed",
                          str(seed)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _real_roots(j: dict) -> list[float]:
    return sorted(complex(*s["point"][0]).real for s in j["solutions"])


@pytest.mark.parametrize("seed", [1, 2])
def test_wilkinson_14_has_14_simple_roots(tmp_path, seed):
    j = _solve(tmp_path, "*".join(f"(x-{k})" for k in range(1, 15)) + "\n", seed)
    assert not j["positive_dimensional"]
    assert j["complete"] is True            # measured on seeds 1 and 2
    assert [s["multiplicity"] for s in j["solutions"]] == [1] * 14
    assert np.allclose(_real_roots(j), range(1, 15), rtol=0, atol=1e-8)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cluster_next_to_a_double_root_is_never_complete_and_wrong(tmp_path, seed):
    j = _solve(tmp_path, "(x-1)^2*(x-1-1/1000000)\n", seed)
    assert not j["positive_dimensional"]
    if j["complete"]:
        pts = sorted((complex(*s["point"][0]).real, s["multiplicity"]) for s in j["solutions"])
        assert len(pts) == 2 and pts[0][1] == 2 and pts[1][1] == 1
        assert abs(pts[0][0] - 1) < 1e-9 and abs(pts[1][0] - 1 - 1e-6) < 1e-12


@pytest.mark.parametrize("seed", [1, 2])
def test_a_regular_solution_is_where_newton_converges(tmp_path, seed):
    """(x - 1)^2 (x - 1 - 1/1000): roots 1 (double) and 1.001 (simple); a path ended at
    1.0005 (f = -1.25e-10 there, backward error 1.6e-11 below the tolerance) and was listed as
    a regular solution. Every listed solution must be one of the two roots."""
    j = _solve(tmp_path, "(x-1)^2*(x-1-1/1000)\n", seed)
    for s in j["solutions"]:
        x = complex(*s["point"][0])
        assert min(abs(x - 1), abs(x - 1.001)) < 1e-6, x


def test_solve_with_seed_0_runs_the_phcpack_check(tmp_path):
    """PHCpack takes seeds in [1, 2^31) (its deflation does nothing with 0); `solve --seed 0`
    refused to run while `decompose --seed 0` ran. x^2 - 1: roots +-1."""
    j = _solve(tmp_path, "x^2 - 1\n", 0)
    assert j["complete"] is True and j["check"]["ran"] and j["check"]["agree"]
    assert 1 <= j["check"]["seed"] < 2 ** 31
    assert np.allclose(_real_roots(j), [-1, 1])


@pytest.mark.parametrize("eqs", [["x - 1", "x - 2"], ["x^2 + y^2 - 1", "x - y", "x + y - 1"],
                                 ["x*y - 1", "x*y - 1 - 1/10^10"]])
def test_empty_variety_is_proved_by_a_nullstellensatz_certificate(eqs):
    """x - 1, x - 2: 1 = (x - 1) - (x - 2). x = y, 2x = 1 gives x^2 + y^2 - 1 = -1/2. x*y - 1 and
    x*y - 1 - 10^-10 differ by a nonzero constant. 'not PROVEN empty' before."""
    D = decompose(PolynomialSystem.from_strings(eqs), seed=1, runs=0)
    assert D.certified and not D.components
    assert "Nullstellensatz" in D.checks[0]["detail"]


def test_no_certificate_for_a_consistent_system():
    """Random exact systems through a known rational point p (each f_i = sum c_a (x - p)^a
    without constant term in the shifted variables) have p in V(F): no certificate may exist."""
    from witness.nullstellensatz import empty_certificate
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(1, 4))
        p = [f"({int(rng.integers(-5, 6))}/{int(rng.integers(1, 4))})" for _ in range(n)]
        names = [f"x{i}" for i in range(n)]
        eqs = []
        for _ in range(int(rng.integers(1, 4))):
            terms = []
            for _ in range(3):
                e = rng.integers(0, 3, size=n)
                if e.sum() == 0:
                    e[0] = 1
                mono = "*".join(f"({v} - {q})^{k}" for v, q, k in zip(names, p, e) if k)
                terms.append(f"{int(rng.integers(-9, 10))}*{mono}")
            eqs.append(" + ".join(terms))
        F = PolynomialSystem.from_strings(eqs, variables=names)
        if any(F.polynomials):
            assert empty_certificate(F) is None, eqs


def test_numag_negative_width_is_named(capsys):
    """`numag dim --widths -1,2` said 'expected one argument' (argparse read -1,2 as an option)."""
    from numag.cli import main
    assert main(["dim", "--widths", "-1,2", "--ranks", "1"]) != 0
    assert "widths must be positive integers, got -1" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_component_far_from_the_origin_is_found(seed):
    """(x - 10^6)(y - 10^-6): the lines x = 10^6 and y = 10^-6. The witness path to x = 10^6
    ended 'at infinity' (slice random in x, y ~ 10^6 on it, then scaled by 2^10) and the
    decomposition was certified with one line."""
    F = PolynomialSystem.from_strings(["(x - 1000000)*(y - 1/1000000)"])
    D = decompose(F, seed=seed, runs=0)
    assert D.certified
    assert sorted((c.dim, c.degree) for c in D.components) == [(1, 1), (1, 1)]
    P = np.concatenate([c.points for c in D.components])
    assert sorted(min(abs(x - 1e6) / 1e6, abs(y - 1e-6) / 1e-6) < 1e-9 for x, y in P) == \
        [True, True]


@pytest.mark.parametrize("seed", [1, 2])
def test_far_curves_are_never_certified_incomplete(seed):
    """(x - 10^6)(y - 10^-6)(x y - 10^12), z^2 - 10^-12: 6 curves (the lines x = 10^6,
    y = 10^-6 and the hyperbola x y = 10^12, each at z = +-10^-6): degrees 1, 1, 2 twice,
    total 8. Certified with 2 lines before; a certified answer must have all 6."""
    F = PolynomialSystem.from_strings(["(x - 1000000)*(y - 1/1000000)*(x*y - 1000000000000)",
                                       "z^2 - 1/1000000000000"])
    D = decompose(F, seed=seed, runs=0)
    if D.certified:
        assert sorted(c.degree for c in D.components) == [1, 1, 1, 1, 2, 2]


@pytest.mark.parametrize("seed", [1, 2])
def test_conjugate_roots_are_not_real(tmp_path, seed):
    """(x - 1)^2 + 10^-24, y - x: roots x = y = 1 +- 10^-12 i, a conjugate pair (real
    coefficients, discriminant < 0): no real solution. Both were 'real' (relative tolerance
    1e-8) and printed identically."""
    j = _solve(tmp_path, "(x-1)^2 + 1/1000000000000000000000000\ny - x\n", seed)
    assert [s["real"] for s in j["solutions"]] == [False, False]
    ims = sorted(complex(*s["point"][0]).imag for s in j["solutions"])
    assert np.allclose(ims, [-1e-12, 1e-12], rtol=1e-3, atol=0)


def test_no_invented_positive_dimensional_set(tmp_path):
    """x^20 - y^20 + x, x^20 - y^20 + y - 1: subtracting, y = x + 1, and x^20 - (x + 1)^20 + x
    has degree 19: 19 isolated roots, no curve. Two points at |x| ~ 60 (backward error 1e-9,
    y - x - 1 ~ 17.5 - 4.5i: no zeros) were a 'positive-dimensional set met', complete: True."""
    j = _solve(tmp_path, "x^20 - y^20 + x\nx^20 - y^20 + y - 1\n", 1)
    assert not j["positive_dimensional"]
    assert len(j["solutions"]) == 19
    for s in j["solutions"]:
        x, y = (complex(*z) for z in s["point"])
        assert abs(y - x - 1) < 1e-8 * max(1, abs(x))


def test_certify_prints_a_non_real_zero_with_its_imaginary_part(tmp_path):
    """(x - 1)^2 + 10^-24 has the zeros 1 +- 10^-12 i; a certified non-real zero was printed
    as (1)."""
    f, s = tmp_path / "f.txt", tmp_path / "s.json"
    f.write_text("(x-1)^2 + 1/1000000000000000000000000\n")
    s.write_text('{"solutions": [{"x": [1, 1e-12]}]}')
    out = subprocess.run([sys.executable, "-m", "witness", "certify", str(f), "--solutions",
                          str(s)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "certified non-real" in out.stdout and "(1+1e-12j)" in out.stdout
