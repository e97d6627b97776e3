"""witness.phc: worker processes, crash/timeout isolation, seeds, precision, parsing."""
import numpy as np
import pytest

from witness import PHCCrash, PHCJobError, PHCTimeout, PolynomialSystem, phc
from witness.examples import cyclic, katsura
from witness.tracking import RESIDUAL_TOL


def distinct(X: np.ndarray, tol: float = 1e-6) -> int:
    D = np.linalg.norm(X[:, None] - X[None], axis=2)
    np.fill_diagonal(D, np.inf)
    return int(len(X) - np.triu(D < tol).any(axis=1).sum())


def test_cyclic5_has_70_regular_roots_and_records_the_seed():
    r = phc.solve(cyclic(5), seed=11)
    assert r.seed == 11 and r.precision == "d"
    good = r.residuals < RESIDUAL_TOL
    assert good.sum() == 70 and distinct(r.points[good]) == 70
    assert np.all(r.multiplicities[good] == 1)


def test_katsura4_has_16_roots_in_every_precision():
    F = katsura(4)
    for prec in ("d", "dd", "qd"):
        r = phc.solve(F, seed=5, precision=prec)
        good = r.residuals < RESIDUAL_TOL
        assert good.sum() == 16 and distinct(r.points[good]) == 16, prec


@pytest.mark.slow
def test_katsura6_in_double_double_has_64_roots():
    r = phc.solve(katsura(6), seed=5, precision="dd")
    good = r.residuals < RESIDUAL_TOL
    assert distinct(r.points[good]) == 64


def test_variable_order_is_forced_and_mapped_by_name():
    # z appears first in the strings but is the last variable; PHCpack would number it first
    F = PolynomialSystem.from_strings(["z - 3", "x + z - 4", "y - 2*x"], variables=["x", "y", "z"])
    r = phc.solve(F, seed=2)
    np.testing.assert_allclose(r.points, [[1, 2, 3]], atol=1e-12)


def test_triple_root_has_multiplicity_3():
    F = PolynomialSystem.from_strings(["x^2 + y - 3", "x + y^2/8 - 3/2"])
    r = phc.solve(F, seed=3)
    i = int(np.argmin(np.abs(r.points[:, 0] - 1)))
    assert r.multiplicities[i] == 3 and abs(r.points[i, 1] - 2) < 1e-6
    assert sorted(r.multiplicities.tolist()) == [1, 3]


def test_inconsistent_system_fake_solutions_are_exposed_by_residuals():
    r = phc.solve(PolynomialSystem.from_strings(["x + y - 1", "x + y - 2"]), seed=1)
    assert np.all(r.residuals > 1e-3)      # PHCpack may report a fake point; never a solution


def test_log_on_request():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    assert phc.polysys_solve(F, seed=1).log is None
    log = phc.polysys_solve(F, seed=1, keep_log=True).log
    assert "factors of dimension 1" in log and "points in factor 1 : 1 2 3" in log


def test_real_phcpack_crash_is_an_exception():
    # a missing ';' on a polynomial that is not the last kills PHCpack (Ada exception, exit 1)
    with pytest.raises(PHCCrash) as info:
        phc.solve_strings(["x^2 - 1", "y - 2;"], seed=1)
    assert info.value.exitcode != 0


@pytest.mark.parametrize("kind", ["exit", "abort", "segv"])
def test_process_deaths_are_exceptions(kind):
    with pytest.raises(PHCCrash):
        phc.selftest(kind)
    assert phc.selftest("ok") == "ok"       # and the caller goes on


def test_hang_becomes_timeout_and_python_errors_are_reported():
    with pytest.raises(PHCTimeout):
        phc.selftest("hang", timeout=1.0)
    with pytest.raises(PHCJobError, match="deliberate"):
        phc.selftest("raise")


def test_parallel_jobs_isolate_failures():
    jobs = [("_job_selftest", ("ok",), 1, 10.0), ("_job_selftest", ("abort",), 2, 10.0),
            ("_job_solve", (phc.phc_strings(PolynomialSystem.from_strings(["x^2 - 4"])), "d"),
             3, 30.0)]
    out = phc.run_parallel(jobs, workers=2)
    assert out[0][0] == "ok" and isinstance(out[1], PHCCrash)
    sols = [phc.parse_solution(s) for s in out[2][0][0]]
    assert sorted(round(s.coords["v1"].real) for s in sols) == [-2, 2] and out[2][3] == 3


def test_bad_arguments():
    F = PolynomialSystem.from_strings(["x - y"])
    with pytest.raises(ValueError, match="square"):
        phc.solve(F)
    with pytest.raises(ValueError, match="precision"):
        phc.solve(PolynomialSystem.from_strings(["x - 1"]), precision="x")
    with pytest.raises(ValueError, match="seed"):
        phc.solve(PolynomialSystem.from_strings(["x - 1"]), seed=0)


def test_polysys_solve_parses_factors_and_slice():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    r = phc.polysys_solve(F, seed=4)
    d = r.dims[1]
    assert d.factors == ((0, 1, 2),) and len(d.points) == 3
    np.testing.assert_allclose(d.points @ d.slice_A.T, np.tile(d.slice_b, (3, 1)), atol=1e-10)
    x = d.points[:, 0]
    np.testing.assert_allclose(d.points[:, 1:], np.stack([x**2, x**3], 1), atol=1e-10)


def test_factor_line_parser():
    log = "factors of dimension 1 :\n  points in factor 1 : 1 3\n  points in factor 2 : 2\n"
    assert phc.parse_factor_lines(log) == {1: [[0, 2], [1]]}


def test_unreadable_coordinates_become_nan():
    sol = ("t :  1.0E+00   0.0E+00\nm : 1\nthe solution for t :\n v1 : NaN*****************  "
           "1.0E+00\n== err :  NaN = rco :  1.0E+00 = res :  **** =")
    s = phc.parse_solution(sol)
    assert np.isnan(s.coords["v1"].real) and s.coords["v1"].imag == 1 and np.isnan(s.res)


def _descendants(pid: int) -> set[int]:
    """Every process below pid, from /proc (Linux)."""
    import os
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out.update(kids)
        todo += kids
    return out


@pytest.mark.skipif(not __import__("os").path.isdir("/proc"), reason="needs Linux /proc")
def test_a_killed_caller_leaves_no_phcpack_job_running(tmp_path):
    """A caller killed mid-job (a sweep worker, Ctrl-C) must not leave its PHCpack job running
    as an orphan (it did: the forkserver and the job survived the caller)."""
    import os, signal, subprocess, sys, time
    script = tmp_path / "caller.py"
    script.write_text("from witness import phc\nif __name__ == '__main__':\n"
                      "    phc.call('_job_selftest', ('hang',), timeout=600)\n")
    caller = subprocess.Popen([sys.executable, str(script)])
    try:
        for _ in range(100):                     # forkserver + job + resource tracker
            time.sleep(0.2)
            below = _descendants(caller.pid)
            if len(below) >= 3:
                break
        assert len(below) >= 3, below
    finally:
        caller.kill()
        caller.wait()
    alive = below
    for _ in range(50):
        time.sleep(0.2)
        alive = {p for p in alive if os.path.exists(f"/proc/{p}")
                 and open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"}
        jobs = {p for p in alive
                if b"forkserver" in open(f"/proc/{p}/cmdline", "rb").read()}
        if not jobs:
            break
    for p in jobs:
        os.kill(p, signal.SIGKILL)
    assert not jobs, f"orphaned forkserver/job processes {jobs}"


@pytest.mark.parametrize("precision", ["d", "dd"])
def test_cascade_on_few_equations_in_many_variables_does_not_crash(precision):
    """Issue 16 item 10: phcpy's polysys_solve counted the variables of 'x1*x2 - x3;
    x1*x4 - x5;' as the length of the joined strings (its symbol scan fails when there are more
    than twice as many variables as equations) and crashed with SYMBOL_TABLE.INDEX_OUT_OF_RANGE.
    Expected: V = {(a, b, ab, c, ac)} is irreducible of dim 3; three hyperplanes are affine in
    (1, b, c) with coefficients linear in a, so the points on a slice are the roots of a 3x3
    determinant, a cubic in a: degree 3."""
    F = PolynomialSystem.from_strings(["x1*x2 - x3", "x1*x4 - x5"])
    for seed in (1, 2):
        r = phc.polysys_solve(F, seed=seed, precision=precision)
        assert len(r.dims) == 5
        d3 = r.dims[3]
        assert len(d3.points) == 3 and np.all(F.residual(d3.points) < 1e-9)
        assert all(len(r.dims[d].points) == 0 for d in (0, 1, 2, 4))
