"""Parameter homotopies (witness.parameters), monodromy solving from one seed
(witness.monodromy_solve) and their commands (`python -m witness monodromy|track`).

Every expected value is independent of the code under test: roots of x^3 = 8 + p in closed
form, the two lines y = 0 and y = x of y (x - y), the ED degree of a general plane cubic
(Draisma-Horobet-Ottaviani-Sturmfels-Thomas 2016, Prop. 2.6: d (d + (d - 1)) = 9 for d = 3)
and the 12 lines tangent to four spheres (Sottile-Theobald 2002), both checked again by
PHCpack's blackbox solver, and the real-root counts of katsura-n computed
exactly with Singular (tests/data/katsura_real_roots.sing, the table of test_witness_certify).
"""
import json
import subprocess
import sys

import numpy as np
import pytest

from witness import PolynomialSystem, phc
from witness.certify import certify
from witness.examples import (katsura, tangent_lines_seed, tangent_lines_to_spheres,
                               with_offsets)
from witness.monodromy_solve import monodromy_solve
from witness.parameters import Family, check_solutions, track_parameters

CUBIC = Family(PolynomialSystem.from_strings(["x^3 - 8 - p"], variables=["x", "p"]), 1)
LINES = Family(PolynomialSystem.from_strings(["y*(x - y)"], variables=["y", "x"]), 1)
KATSURA_REAL = {3: 6, 4: 12}   # Singular, exact (see test_witness_certify.KATSURA_REAL)


def cube_roots(c: complex) -> np.ndarray:
    """The three roots of x^3 = c in closed form."""
    r = complex(c) ** (1 / 3)
    return r * np.exp(2j * np.pi * np.arange(3) / 3)


def same_set(X: np.ndarray, Y: np.ndarray, tol: float = 1e-8) -> bool:
    X, Y = np.atleast_2d(X), np.atleast_2d(Y)
    if len(X) != len(Y):
        return False
    D = np.linalg.norm(X[:, None, :] - Y[None, :, :], axis=2)
    return bool(np.all(D.min(axis=1) < tol) and np.all(D.min(axis=0) < tol))


# ----------------------------------------------------------------------------- monodromy
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cubic_from_one_seed_gives_three_roots(seed):
    r = monodromy_solve(CUBIC, [0], [[2]], seed=seed)
    assert r.complete is True and r.trace_test.verdict is True
    assert r.trace_residual < 1e-11
    assert same_set(r.solutions, cube_roots(8)[:, None])
    assert r.accounting.regular == 3 and r.accounting.n_failed == 0
    assert r.seed == seed and r.paths_tracked > 0 and r.loops >= 1


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_katsura_by_monodromy_then_certified(n, seed):
    """Monodromy on F(x) - p from a random point, tracked to p = 0: katsura-n's 2^n roots,
    certified, with the real count known exactly."""
    K = katsura(n)
    fam = Family(with_offsets(K), n + 1)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n + 1) + 1j * rng.standard_normal(n + 1)
    p = K.evaluate(x[None])[0]
    r = monodromy_solve(fam, p, [x], seed=seed)
    assert r.complete is True and len(r.solutions) == 2 ** n
    tr = track_parameters(fam, r.solutions, p, np.zeros(n + 1), seed=seed)
    assert tr.accounting.regular == 2 ** n and tr.accounting.n_failed == 0
    c = certify(K, tr.solutions)
    assert (c.certified, c.distinct, c.real) == (2 ** n, 2 ** n, KATSURA_REAL[n])


ED_F = "3*x^3 - 2*x^2*y + 5*x*y^2 - 7*y^3 + 4*x^2 - x*y + 6*y^2 - 2*x + 3*y - 1"
ED_FX = "9*x^2 - 4*x*y + 5*y^2 + 8*x - y - 2"
ED_FY = "-2*x^2 + 10*x*y - 21*y^2 - x + 12*y + 3"


def ed_family() -> tuple[Family, list, list]:
    """Critical points of the squared distance from data (u, v) to the cubic f = 0 (Lagrange:
    (x, y) - (u, v) = m grad f), and one seed: a point (x0, y0) of the curve and m0, with the
    data (u0, v0) = (x0, y0) - m0 grad f(x0, y0) that makes it critical."""
    S = PolynomialSystem.from_strings([ED_F, f"x - u - m*({ED_FX})", f"y - v - m*({ED_FY})"],
                                      variables=["x", "y", "m", "u", "v"])
    x0 = 0.7           # f(0.7, y) as a cubic in y (coefficients expanded by hand)
    y0 = np.roots([-7, 5 * x0 + 6, -2 * x0 ** 2 - x0 + 3, 3 * x0 ** 3 + 4 * x0 ** 2 - 2 * x0 - 1])[0]
    m0 = 0.3 + 0.2j
    g = S.evaluate(np.array([[x0, y0, m0, 0, 0]]))[0]
    return Family(S, 3), [g[1], g[2]], [x0, y0, m0]


@pytest.mark.parametrize("seed", [1, 2])
def test_ed_degree_of_a_plane_cubic(seed):
    fam, p0, x0 = ed_family()
    r = monodromy_solve(fam, p0, [x0], seed=seed)
    assert r.complete is True and len(r.solutions) == 9          # d^2, DHOST 2016 Prop. 2.6
    target = [1, 2]
    tr = track_parameters(fam, r.solutions, p0, target, seed=seed)
    assert tr.accounting.regular == 9
    F = fam.system.substitute({"u": 1, "v": 2})
    ph = phc.solve(F, seed=seed).points                         # independent: PHCpack
    assert same_set(tr.solutions, ph, tol=1e-6)


def test_stopped_early_is_not_called_complete():
    """A run stopped by its budget before the trace test passed reports complete = null
    (None) and the reason, with the solutions found so far (1 of the 3 here: no loop ran)."""
    r = monodromy_solve(CUBIC, [0], [[2]], seed=0, timeout=1e-9)
    assert r.complete is None and "timeout" in r.stop_reason
    assert r.trace_test is None or r.trace_test.verdict is not True
    assert len(r.solutions) < 3


# ----------------------------------------------------------------------------- start check
STEADY = Family(PolynomialSystem.from_strings(["x*y - a", "x + 2*y - b"],
                                              variables=["x", "y", "a", "b"]), 2)


def test_swapped_seed_is_refused_with_its_residual():
    """(x, y) = (1, 2) solves x y = 2, x + 2 y = 5; swapped, (2, 1) gives x + 2 y = 4 != 5."""
    check_solutions(STEADY, [2, 5], [[1, 2]])
    with pytest.raises(ValueError, match=r"#0 is not a solution .*residual .*\d\.\d+e[-+]\d+"):
        monodromy_solve(STEADY, [2, 5], [[2, 1]], seed=1)
    with pytest.raises(ValueError, match="not a solution"):
        track_parameters(STEADY, [[2, 1]], [2, 5], [3, 7], seed=1)


def test_singular_seed_is_refused():
    with pytest.raises(ValueError, match="singular solution"):
        track_parameters(LINES, [[0]], [0], [5], seed=1)     # y = 0 at x = 0: double root


# ----------------------------------------------------------------------------- track
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lines_keep_both_solutions(seed):
    """y (x - y) at a random complex x has the solutions y = 0 and y = x; at x = 5: 0 and 5."""
    rng = np.random.default_rng(seed)
    x = complex(rng.standard_normal(), rng.standard_normal())
    r = track_parameters(LINES, [[0], [x]], [x], [5], seed=seed)
    assert same_set(r.solutions, np.array([[0], [5]]))
    assert r.accounting.regular == 2 and r.accounting.n_failed == 0
    assert r.path_status == ("regular", "regular")


@pytest.mark.parametrize("seed", [1, 2])
def test_lines_meeting_is_one_singular_solution_of_multiplicity_two(seed):
    """At x = 0 the two solutions y = 0 and y = x meet: one singular solution, 2 paths."""
    x = 1.3 - 0.4j
    r = track_parameters(LINES, [[0], [x]], [x], [0], seed=seed)
    acc = r.accounting
    assert acc.regular == 0 and len(acc.singular) == 1
    assert acc.singular[0].multiplicity == 2 and abs(acc.singular[0].point[0]) < 1e-6


@pytest.mark.parametrize("seed", [1, 2])
def test_track_cubic_to_new_parameters(seed):
    r = track_parameters(CUBIC, cube_roots(8)[:, None], [0], [19], seed=seed)
    assert same_set(r.solutions, cube_roots(27)[:, None])
    assert r.accounting.regular == 3


# ----------------------------------------------------------------------------- commands
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "witness", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def cubic_files(tmp_path):
    f = tmp_path / "cubic.txt"
    f.write_text("parameters: p\nx^3 - 8 - p\n")
    s = tmp_path / "start.json"
    s.write_text(json.dumps({"parameters": {"p": "0"}, "solutions": [{"x": "2"}]}))
    t = tmp_path / "target.json"
    t.write_text(json.dumps({"parameters": {"p": 19}}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"parameters": {"p": 0}, "solutions": [[3]]}))
    return f, s, t, bad


def test_monodromy_command_json_and_certify(cubic_files):
    f, s, _, _ = cubic_files
    p = run_cli("monodromy", f, "--start", s, "--seed", 5, "--json", "--certify")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    for key in ("solutions", "complete", "trace_residual", "loops", "paths_tracked", "seed",
                "seconds"):
        assert key in out
    X = np.array([[complex(*z) for z in pt] for pt in out["solutions"]])
    assert same_set(X, cube_roots(8)[:, None])
    assert out["complete"] is True and out["seed"] == 5
    c = out["certification"]
    assert (c["certified"], c["distinct"], c["real"]) == (3, 3, 1)


def test_track_command(cubic_files):
    f, s, t, _ = cubic_files
    start = json.loads(s.read_text())
    start["solutions"] = [[[z.real, z.imag]] for z in cube_roots(8)]
    s.write_text(json.dumps(start))
    p = run_cli("track", f, "--start", s, "--target", t, "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    X = np.array([[complex(*z) for z in pt] for pt in out["solutions"]])
    assert same_set(X, cube_roots(27)[:, None])
    assert out["paths"]["regular"] == 3 and out["paths"]["failed"] == 0


def test_commands_refuse_bad_start(cubic_files, tmp_path):
    f, s, t, bad = cubic_files
    p = run_cli("monodromy", f, "--start", bad)
    assert p.returncode == 2 and "not a solution" in p.stderr and "residual" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    nop = tmp_path / "nop.txt"
    nop.write_text("x^3 - 8\n")
    p = run_cli("track", nop, "--start", s, "--target", t)
    assert p.returncode == 2 and "declares no parameters" in p.stderr


@pytest.mark.parametrize("seed", [1, 2])
def test_path_to_infinity_is_accounted(seed):
    """p x^2 + x - 1: roots (-1 ± sqrt(1 + 4p)) / (2p); at p = 2: 1/2 and -1. As p -> 0 the
    root (-1 - sqrt(1 + 4p)) / (2p) ~ -1/p diverges (the degree drops), the other tends to 1."""
    fam = Family(PolynomialSystem.from_strings(["p*x^2 + x - 1"], variables=["x", "p"]), 1)
    r = track_parameters(fam, [[0.5], [-1]], [2], [0], seed=seed)
    acc = r.accounting
    assert (acc.regular, acc.at_infinity, acc.n_failed, len(acc.singular)) == (1, 1, 0, 0)
    assert same_set(r.solutions, np.array([[1]]))
    assert sorted(r.path_status) == ["at_infinity", "regular"]
    assert r.to_json()["paths"]["at_infinity"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_twelve_lines_tangent_to_four_spheres(seed):
    """A Steiner-type classic: four general spheres in C^3 have 12 common tangent lines
    (Sottile-Theobald 2002, "Lines tangent to 2n - 2 spheres in R^n", Trans. AMS 354: 2n - 2
    general spheres have 3 * 2^(n-1) complex common tangent lines; 12 for n = 3). Seed: a random line and four random centres, each squared radius chosen so the
    line is tangent (the incidence variety is a graph over (line, centres): irreducible).
    Checked again against PHCpack's blackbox solve of the same member."""
    S = tangent_lines_to_spheres()
    p, line = tangent_lines_seed(np.random.default_rng(seed))
    r = monodromy_solve(Family(S, 4), p, [line], seed=seed)
    assert r.complete is True and len(r.solutions) == 12
    F = S.substitute(dict(zip(S.variables[4:], [float(x) for x in p])))
    assert same_set(r.solutions, phc.solve(F, seed=seed).points, tol=1e-6)
