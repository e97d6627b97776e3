"""Krawczyk certification (witness.certify): counts against independent truths, rigorous ball
evaluation, and the cases that must NOT certify or must not count as distinct."""
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from flint import acb, arb, ctx, fmpq
from hypothesis import given, settings, strategies as st

from witness import PolynomialSystem, phc
from witness.certify import BallSystem, certify
from witness.examples import katsura

ROOT3 = 3 ** 0.5
CUBE = PolynomialSystem.from_strings(["x^3 - 8"])
CUBE_ROOTS = [[2], [-1 + ROOT3 * 1j], [-1 - ROOT3 * 1j]]   # x^3 = 8: 2 and 2 e^{±2πi/3}


def test_x3_minus_8_three_roots_one_real():
    r = certify(CUBE, CUBE_ROOTS)
    assert (r.certified, r.distinct, r.real, r.nonreal) == (3, 3, 1, 2)
    assert [c.real for c in r.certificates] == [True, False, False]
    for c, root in zip(r.certificates, CUBE_ROOTS):
        assert c.certified and c.radius < 1e-10 and c.enclosure_radius <= c.radius
        assert abs(c.center[0] - root[0]) < 1e-14
    j = json.loads(json.dumps(r.to_json()))
    assert (j["certified"], j["distinct"], j["real"]) == (3, 3, 1)
    assert j["solutions"][0]["status"] == "certified" and j["solutions"][0]["radius"] > 0


# Real counts of katsura-n: the signature of Hermite's quadratic form, computed exactly with
# Singular (tests/data/katsura_real_roots.sing); the complex count 2^n is Katsura's / Bézout's.
KATSURA_REAL = {3: 6, 4: 12, 5: 16}


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("seed", [1, 2])
def test_katsura_counts(n, seed):
    F = katsura(n)
    X = phc.solve(F, seed=seed).points
    r = certify(F, X)
    assert (r.certified, r.distinct) == (2 ** n, 2 ** n)
    assert (r.real, r.nonreal) == (KATSURA_REAL[n], 2 ** n - KATSURA_REAL[n])


def test_a_non_solution_does_not_certify():
    """x = 3 is no zero of x^3 - 8 (value 19); Newton from it would reach 2, but the box must
    hold the candidate, and no box holding 3 and 2 passes the test (J = 3x^2 varies too much)."""
    r = certify(CUBE, [[3.0], [2 + 0.5j]])
    assert r.certified == 0 and r.distinct == 0
    assert all("||I - C J(X)||" in c.reason or "K(X)" in c.reason for c in r.certificates)
    rng = np.random.default_rng(0)
    F = katsura(3)
    bad = certify(F, rng.standard_normal((5, 4)))
    assert bad.certified == 0


@pytest.mark.parametrize("system, point", [
    (["29/16*x^3 - 2*x*y", "x^2 - y"], [0, 0]),           # Griewank–Osborne: (0,0), mult. 3
    (["x^2 + y - 3", "x + y^2/8 - 3/2"], [1, 2]),          # triple root (1, 2)
    (["x^2", "y - 1"], [0, 1]),                            # double root
])
def test_singular_solutions_do_not_certify(system, point):
    """Known-answer singular roots (shared/known-answer-systems.md): the Jacobian there is
    singular, so no box around them has ||I - C J(X)|| < 1 at any precision."""
    F = PolynomialSystem.from_strings(system)
    for eps in (0.0, 1e-9):
        r = certify(F, [np.array(point, float) + eps])
        assert r.certified == 0, (system, eps)
        assert r.certificates[0].precision == 256         # tried up to max_precision


def test_the_simple_root_next_to_a_triple_root_certifies():
    """x^2 + y - 3, x + y^2/8 - 3/2: a triple root (1, 2) and one simple root (total degree 4)."""
    F = PolynomialSystem.from_strings(["x^2 + y - 3", "x + y^2/8 - 3/2"])
    r = phc.solve(F, seed=3)
    simple = r.points[r.multiplicities == 1]
    c = certify(F, np.vstack([simple, [[1, 2]]]))
    assert [x.certified for x in c.certificates] == [True, False]
    assert c.real == 1          # the simple root of a real system, alone in its class: real


def test_near_duplicate_pair_counts_once():
    """Two candidates 1e-9 apart approximate the same zero 2: both certify, but they are
    proved to be one zero (the enclosure of one lies in the other's box)."""
    r = certify(CUBE, [[2.0], CUBE_ROOTS[1], [2 + 1e-9], [2.0]])
    assert r.certified == 4 and r.distinct == 2 and r.real == 1
    assert r.duplicates == ((0, 2, 3),)
    assert [c.duplicate_of for c in r.certificates] == [None, None, 0, 0]
    assert r.certificates[2].status == "duplicate"


def test_close_but_different_zeros_are_distinct():
    """(x - 1)(x - 1 - 1e-8) has two simple roots 1e-8 apart: proved distinct, both real."""
    d = Fraction(1, 10 ** 8)
    F = PolynomialSystem.from_dicts(["x"], [{(2,): 1, (1,): -(2 + d), (0,): 1 + d}])
    r = certify(F, [[1.0], [1 + 1e-8]])
    assert (r.certified, r.distinct, r.real) == (2, 2, 2)
    assert r.undecided_pairs == ()


def test_realness_needs_a_real_system():
    """(x - 2)(x - i) = x^2 - (2+i) x + 2i: the root 2 is real, but conjugation does not map
    the zero set to itself, so realness is not proved (None); i is proved non-real."""
    F = PolynomialSystem.from_strings(["x^2 - (2+i)*x + 2*i"])
    r = certify(F, [[2.0], [1j]])
    assert not r.real_system and r.certified == 2 and r.distinct == 2
    assert [c.real for c in r.certificates] == [None, False]
    assert (r.real, r.nonreal, r.real_undecided) == (0, 1, 1)


def test_bad_input():
    with pytest.raises(ValueError, match="square"):
        certify(PolynomialSystem.from_strings(["x - y"]), [[1, 1]])
    with pytest.raises(ValueError, match="shape"):
        certify(CUBE, [[1, 2]])
    with pytest.raises(ValueError, match="max_precision"):
        certify(CUBE, [[2]], max_precision=20)
    r = certify(CUBE, [[np.nan]])
    assert r.certified == 0 and "non-finite" in r.certificates[0].reason


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3),
                          st.fractions(-5, 5, max_denominator=7)), min_size=1, max_size=6),
       st.fractions(-3, 3, max_denominator=9), st.fractions(-3, 3, max_denominator=9))
def test_ball_values_enclose_the_exact_values(terms, a, b):
    """The ball evaluation contains the exact rational value and derivatives (computed with
    Fractions) at a rational point that is itself only enclosed (1/3 is not a binary float)."""
    poly = {}
    for i, j, c in terms:
        poly[(i, j)] = poly.get((i, j), 0) + c
    poly = {e: c for e, c in poly.items() if c} or {(0, 0): Fraction(1)}
    F = PolynomialSystem.from_dicts(["u", "v"], [poly, {(1, 1): 1}])
    B = BallSystem(F)

    def exact(p, da=0, db=0):
        out = Fraction(0)
        for (i, j), c in p.items():
            if i >= da and j >= db:
                ci = c * (i if da else 1) * (j if db else 1)
                out += ci * a ** (i - da) * b ** (j - db)
        return out
    with ctx.workprec(53):
        x = [acb(arb(fmpq(a.numerator, a.denominator))), acb(arb(fmpq(b.numerator,
                                                                     b.denominator)))]
        f, J = B.values(x), B.jacobian(x)
        assert encloses(f[0, 0].real, exact(poly))
        assert encloses(J[0, 0].real, exact(poly, 1, 0))
        assert encloses(J[0, 1].real, exact(poly, 0, 1))
        assert encloses(f[0, 0].imag, Fraction(0))


def encloses(ball: arb, q: Fraction) -> bool:
    """Exact test lower(ball) <= q <= upper(ball) (the bounds are dyadic: man * 2^exp; arb's
    own contains(q) would first round q to a ball, which need not lie inside)."""
    def exact_value(x: arb) -> Fraction:
        m, e = x.man_exp()
        return Fraction(int(m)) * Fraction(2) ** int(e)
    return exact_value(ball.lower()) <= q <= exact_value(ball.upper())


# ----------------------------------------------------------------------------- CLI
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "witness", *args], capture_output=True,
                          text=True, timeout=300)


def test_cli_certify_with_parameters_and_named_points(tmp_path):
    """Issue 13's START.json form: x^3 - 8 - p at p = 0 with solutions by variable name."""
    f = tmp_path / "cube.txt"
    f.write_text("parameters: p\nx^3 - 8 - p\n")
    s = tmp_path / "sols.json"
    s.write_text(json.dumps({"parameters": {"p": "0"},
                             "solutions": [{"x": "2"}, {"x": [-1, ROOT3]}, {"x": [-1, -ROOT3]},
                                           {"x": 3}]}))
    out = run_cli("certify", str(f), "--solutions", str(s), "--json")
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert (j["candidates"], j["certified"], j["distinct"], j["real"]) == (4, 3, 3, 1)
    assert [x["status"] for x in j["solutions"]] == ["certified"] * 3 + ["not certified"]
    assert j["parameters"] == {"p": "0"}
    text = run_cli("certify", str(f), "--solutions", str(s)).stdout
    assert "certified 3 of 4" in text and "#3  not certified" in text
    # the same solutions at p = 19 are not zeros
    s.write_text(json.dumps({"parameters": {"p": 19}, "solutions": [[2]]}))
    assert json.loads(run_cli("certify", str(f), "--solutions", str(s), "--json").stdout
                      )["certified"] == 0


def test_cli_solve_certify_and_certify_the_solve_output(tmp_path):
    f = tmp_path / "k3.txt"
    f.write_text("\n".join(katsura(3).to_strings()))
    out = run_cli("solve", str(f), "--certify", "--json")
    j = json.loads(out.stdout)
    c = j["certification"]
    assert (c["certified"], c["distinct"], c["real"]) == (8, 8, KATSURA_REAL[3])
    (tmp_path / "sols.json").write_text(out.stdout)
    again = json.loads(run_cli("certify", str(f), "--solutions", str(tmp_path / "sols.json"),
                               "--json").stdout)
    assert (again["certified"], again["distinct"], again["real"]) == (8, 8, KATSURA_REAL[3])


@pytest.mark.parametrize("content, words", [
    ('{"solutions": [[1, 2]]}', "2 coordinates for 1 variables"),
    ('{"points": [[2]]}', 'key "solutions"'),
    ('{"solutions": [["two"]]}', "is not a number"),
    ('[1, 2', "not valid JSON"),
])
def test_cli_certify_bad_solutions_file(tmp_path, content, words):
    f = tmp_path / "cube.txt"
    f.write_text("x^3 - 8")
    s = tmp_path / "sols.json"
    s.write_text(content)
    out = run_cli("certify", str(f), "--solutions", str(s))
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and words in lines[0], out.stderr
