"""System files and what `solve` prints: headers (variables:, parameters:), natural variable
order, exact long coefficients that PHCpack reads correctly, real points shown as real, bad
headers with one-line errors. The rows of issue 10's table about input and output, literally."""
import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from witness import PolynomialSystem, decompose, phc
from witness.inputfile import SystemFileError, parse_system_text, read_system_file
from witness.jsonio import parameters_from_json, points_from_json
from witness.system import decimal_string, natural_key

PY = [sys.executable, "-m", "witness"]


def run_cli(*args, stdin=None):
    return subprocess.run([*PY, *args], capture_output=True, text=True, input=stdin,
                          timeout=300)


def solve_json(path, *extra):
    out = run_cli("solve", str(path), "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# ----------------------------------------------------------------------------- headers
def test_declared_variables_make_a_plane_in_c4(tmp_path):
    """Issue 10 row: `x+3; y+1` meant in C^4 with variables x, y, z, t is a plane: two
    independent linear equations in 4 unknowns cut out an affine plane (dim 4 - 2 = 2,
    degree 1)."""
    f = tmp_path / "plane.txt"
    f.write_text("variables: x, y, z, t\nx+3; y+1\n")
    sf = read_system_file(str(f))
    assert sf.variables == ("x", "y", "z", "t") and sf.declared and sf.system.n_vars == 4
    for seed in (1, 2):
        D = decompose(sf.system, seed=seed)
        assert [(c.dim, c.degree) for c in D.components] == [(2, 1)], seed
        assert D.certified
        pts = np.array([x for c in D.components for x in c.points])
        np.testing.assert_allclose(pts[:, :2], [[-3, -1]], atol=1e-10)   # on the plane
    out = run_cli("decompose", str(f), "--json")
    j = json.loads(out.stdout)
    assert j["variables"] == ["x", "y", "z", "t"]
    assert [(c["dim"], c["degree"]) for c in j["components"]] == [(2, 1)]


def test_without_header_the_order_is_natural_not_first_appearance():
    sf = parse_system_text("x10 - x2\nx2*x1 - 1\n" + "\n".join(f"x{k} - {k}" for k in
                                                              (9, 3, 8, 4, 7, 5, 6, 1)))
    assert sf.variables == tuple(f"x{k}" for k in range(1, 11)) and not sf.declared
    assert sorted(["b2", "a10", "a9", "b10", "a"], key=natural_key) == \
        ["a", "a9", "a10", "b2", "b10"]


def test_declared_order_is_kept_and_used_for_points():
    sf = parse_system_text("variables: y, x\nx - 1; y - 2\n")
    r = phc.solve(sf.system, seed=1)
    np.testing.assert_allclose(r.points, [[2, 1]], atol=1e-12)


def test_issue_row_variables_in_natural_order_and_real_points(tmp_path):
    """Issue 10 row: -4*x4^2+x0^2+x1^2+x2^2+x3^2; x0; x1; x2; x3-1 has the two solutions
    x0 = x1 = x2 = 0, x3 = 1, x4 = ±1/2 (substitute: 4 x4^2 = 1), both real; variables were
    listed in order of first appearance and real points printed with e-107j noise."""
    f = tmp_path / "s.txt"
    f.write_text("-4*x4^2+x0^2+x1^2+x2^2+x3^2; x0; x1; x2; x3-1\n")
    j = solve_json(f, "--precision", "d")
    assert j["variables"] == ["x0", "x1", "x2", "x3", "x4"]
    pts = np.array([[complex(*z) for z in s["point"]] for s in j["solutions"]])
    pts = pts[np.argsort(pts[:, 4].real)]
    np.testing.assert_allclose(pts, [[0, 0, 0, 1, -0.5], [0, 0, 0, 1, 0.5]], atol=1e-12)
    assert [s["real"] for s in j["solutions"]] == [True, True] and j["real"] == 2
    text = run_cli("solve", str(f)).stdout
    assert "variables: x0, x1, x2, x3, x4" in text
    assert not any("j" in line for line in text.splitlines() if "m=" in line)
    assert "(0, 0, 0, 1, 0.5)" in text and "(0, 0, 0, 1, -0.5)" in text


def test_real_and_non_real_points_of_x3_minus_8(tmp_path):
    """x^3 - 8 = (x - 2)(x^2 + 2x + 4): one real root 2, two non-real -1 ± i sqrt(3)."""
    f = tmp_path / "c.txt"
    f.write_text("x^3 - 8")
    j = solve_json(f)
    reals = sorted((s["real"], s["point"][0][0]) for s in j["solutions"])
    assert [r for r, _ in reals] == [False, False, True] and abs(reals[2][1] - 2) < 1e-14
    assert j["real_tol"] > 0 and j["real"] == 1
    text = run_cli("solve", str(f)).stdout
    assert "real  (2)" in text and "1.73205j" in text


# ----------------------------------------------------------------------------- parameters
def test_parameters_are_substituted_exactly(tmp_path):
    sf = parse_system_text("parameters: p, q\nx^3 - 8 - p; y - q*x\n")
    assert sf.variables == ("x", "y") and sf.parameters == ("p", "q")
    assert sf.system.variables == ("x", "y", "p", "q")
    G = sf.specialize({"p": "19", "q": Fraction(1, 3)})
    assert G.variables == ("x", "y") and G.is_exact
    assert G.polynomials[0] == {(3, 0): 1, (0, 0): -27}          # x^3 - 27
    assert G.polynomials[1] == {(0, 1): 1, (1, 0): Fraction(-1, 3)}
    with pytest.raises(SystemFileError, match="no value for the parameter"):
        sf.specialize({"p": 1})
    with pytest.raises(SystemFileError, match="'r'|r is not a declared parameter"):
        sf.specialize({"p": 1, "q": 2, "r": 3})
    # F(x; p) through the full system: x^3 - 8 - p at x = 3, p = 19 is 0
    assert abs(sf.system.evaluate(np.array([3, 1, 19, 1 / 3]))[0]) < 1e-12
    f = tmp_path / "p.txt"
    f.write_text("parameters: p\nx^3 - 8 - p\n")
    j = solve_json(f, "--parameters", '{"p": "19"}')
    assert sum(s["real"] for s in j["solutions"]) == 1 and j["parameters"] == {"p": "19"}
    assert any(abs(complex(*s["point"][0]) - 3) < 1e-12 for s in j["solutions"])
    bad = run_cli("solve", str(f))
    assert bad.returncode == 2 and "--parameters" in bad.stderr


# ----------------------------------------------------------------------------- bad headers
@pytest.mark.parametrize("text, words", [
    ("vars: x, y\nx - y\n", "unknown header 'vars:'"),
    ("variables: x, y, x\nx - y\n", "'x' is declared twice"),
    ("variables: x, p\nparameters: p\nx - p\n", "'p' is declared both as a variable"),
    ("variables: x, y\nx - w*y\n", "line 2: 'w' is not declared"),
    ("variables: x, i\nx - 1\n", "'i' in 'variables:' is reserved"),
    ("parameters: I\nx - 1\n", "'I' in 'parameters:' is reserved"),
    ("variables: x\nvariables: x\nx - 1\n", "second 'variables:' header"),
    ("x - 1\nvariables: x\n", "after the first polynomial"),
    ("variables:\nx - 1\n", "declares no names"),
    ("variables: x,,y\nx - y\n", "empty name"),
    ("variables: x, 2y\nx\n", "'2y' in 'variables:' is not a name"),
    ("variables: x\nx: 1\n", "line 2: unknown header 'x:'"),
    ("x - 1 :: 2\n", "':' is allowed only in a header"),
    ("parameters: p\np - 1\n", "use no variable"),
    ("# only a comment\n", "no polynomials"),
])
def test_bad_headers_are_one_line_errors(tmp_path, text, words):
    with pytest.raises(SystemFileError, match=words.replace("(", r"\(")) as info:
        parse_system_text(text, "f.txt")
    assert "\n" not in str(info.value) and str(info.value).startswith("f.txt")
    f = tmp_path / "bad.txt"
    f.write_text(text)
    out = run_cli("solve", str(f)) if words == "unknown header 'vars:'" else None
    if out is not None:
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2 and len(lines) == 1 and words in lines[0]


def test_polynomial_errors_name_the_line_on_one_line(tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text("# comment\nvariables: x, z\nx^2 - 1\nx^3 - * z\n")
    out = run_cli("decompose", str(f))
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1
    assert "line 4" in lines[0] and "polynomial 1 at character 6" in lines[0]


# ----------------------------------------------------------------------------- long numbers
def test_decimal_string_is_correctly_rounded():
    assert decimal_string(Fraction(1, 3), 5) == "3.3333E-01"
    assert decimal_string(Fraction(-2, 3), 5) == "-6.6667E-01"
    assert decimal_string(Fraction(99999, 10), 3) == "1.00E+04"      # carries into a new digit
    assert decimal_string(Fraction(10 ** 40 + 1), 17) == "1.0000000000000000E+40"


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=-10 ** 30, max_value=10 ** 30).filter(lambda q: q != 0),
       st.integers(1, 40))
def test_decimal_string_agrees_with_the_decimal_module(q, digits):
    from decimal import ROUND_HALF_EVEN, localcontext
    with localcontext() as ctx:
        ctx.prec, ctx.rounding = digits, ROUND_HALF_EVEN
        ref = Decimal(q.numerator) / Decimal(q.denominator)   # correctly rounded by Decimal
    assert Decimal(decimal_string(q, digits)) == ref


def test_phcpack_reads_long_rationals_correctly():
    """Root cause of the 50-digit row: PHCpack's double parser keeps ~18 digits of a digit
    string, so (n/d) with a 30-digit n and a 28-digit d was read 100 times too small. Written
    as a correctly rounded 17-digit decimal it is read right in every precision."""
    c = Fraction(314159265358979323846264338327, 10 ** 28)            # 31.4159...
    F = PolynomialSystem.from_dicts(["x"], [{(1,): 1, (0,): -c}])
    assert "E+01" in F.to_phc_strings()[0] and "/" not in F.to_phc_strings()[0]
    for prec in ("d", "dd", "qd"):
        r = phc.solve(F, seed=1, precision=prec)
        assert abs(r.points[0, 0] - float(c)) < 1e-13, prec


def exact_decimal(q: Fraction) -> str:
    """A Fraction whose denominator divides a power of 10 as an exact decimal string."""
    k = 0
    while (q * 10 ** k).denominator != 1:
        k += 1
        assert k < 400, "not a finite decimal"
    s = str(abs((q * 10 ** k).numerator)).rjust(k + 1, "0")
    body = s if k == 0 else s[:-k] + "." + s[-k:]
    return ("-" if q < 0 else "") + body


SQRT2 = "1.4142135623730950488016887242096980785696718753769"   # 50 significant digits


def linear_forms(p: Fraction) -> list[list[tuple]]:
    """Three groups of linear forms (a, b, c, d) = a x + b y + c z + d, sizes 3, 3, 4 (small
    integers and ±p, ±2p; picked so that the 36 intersection points are >= 0.29 apart and each
    3x3 matrix has condition number <= 42)."""
    return [[(-3, 2, 3, -p), (p, 0, 0, 2), (-p, 3, 2, 3)],
            [(-p, 0, 2, -1), (-1, p, -1, 3), (2, -2, 2, p)],
            [(3, -2, 2 * p, 1), (3, -3, -3, p), (3, -3, -p, -2), (3, -p, 0, -2)]]


def solve3(rows):
    """Exact solution of three linear equations a x + b y + c z + d = 0 (Cramer)."""
    A = [[Fraction(v) for v in r[:3]] for r in rows]
    b = [-Fraction(r[3]) for r in rows]

    def det(M):
        return (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1])
                - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0])
                + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]))
    D = det(A)
    assert D != 0
    return tuple(det([[b[i] if j == k else A[i][j] for j in range(3)] for i in range(3)]) / D
                 for k in range(3))


def product_system(digits: int) -> tuple[str, list[tuple]]:
    """The file text (expanded polynomials, exact decimal coefficients) and the 36 exact
    solutions of f_i = product of the forms in group i, with p = sqrt(2) cut to ``digits``.

    Why 36: f1, f2, f3 have degrees 3, 3, 4, so Bézout bounds the isolated solutions by 36;
    each choice of one form per group is a linear system with one solution (checked: nonzero
    determinant), and when the 36 points are distinct and each lies on exactly one form of each
    group (checked exactly below), every one is a regular zero of (f1, f2, f3) (its Jacobian
    is the nonsingular 3x3 matrix of the chosen forms, rows scaled by the nonzero values of
    the other factors), so there are exactly 36 (the bound is attained)."""
    p = Fraction(SQRT2[:digits + 1])                  # digits significant digits ("1." + ...)
    groups = linear_forms(p)
    sols = [solve3(choice) for choice in product(*groups)]
    assert len(set(sols)) == 36
    for s in sols:
        for g in groups:
            vals = [a * s[0] + b * s[1] + c * s[2] + d for a, b, c, d in g]
            assert sum(v == 0 for v in vals) == 1
    names = ("x", "y", "z")
    forms = [" * ".join(f"({a}*x + ({b})*y + ({c})*z + ({d}))" for a, b, c, d in g)
             for g in groups]
    F = PolynomialSystem.from_strings(forms, variables=list(names))
    lines = []
    for poly in F.polynomials:
        terms = []
        for e, c in sorted(poly.items(), reverse=True):
            mono = "*".join(f"{v}^{k}" if k > 1 else v for v, k in zip(names, e) if k)
            terms.append(f"({exact_decimal(c)})" + (f"*{mono}" if mono else ""))
        lines.append(" + ".join(terms))
    return "variables: x, y, z\n" + "\n".join(lines) + "\n", sols


@pytest.mark.parametrize("digits, seed", [(18, 1), (20, 1), (50, 1), (50, 2)])
def test_long_coefficients_give_all_36_solutions(tmp_path, digits, seed):
    """Issue 10 row: 36 regular solutions, coefficients with >= 20 significant digits gave
    '0 solutions (36 rejected by the residual check)'."""
    text, exact = product_system(digits)
    longest = max(len(t.strip("()-").replace(".", "")) for t in text.replace("*", " ").split()
                  if t.startswith("("))
    assert longest >= digits                      # the file really has long coefficients
    f = tmp_path / "p36.txt"
    f.write_text(text)
    j = solve_json(f, "--seed", str(seed))
    assert len(j["solutions"]) == 36 and j["rejected"] == 0 and j["seed"] == seed
    X = np.array([[complex(*z) for z in s["point"]] for s in j["solutions"]])
    E = np.array([[float(v) for v in s] for s in exact])
    D = np.abs(X[:, None, :] - E[None, :, :]).max(axis=2)
    assert sorted(D.argmin(axis=1).tolist()) == list(range(36))     # one-to-one
    assert D.min(axis=1).max() < 1e-10
    assert all(s["real"] for s in j["solutions"])        # real forms: all 36 points are real
    (tmp_path / "sols.json").write_text(json.dumps(j))
    c = json.loads(run_cli("certify", str(f), "--solutions", str(tmp_path / "sols.json"),
                           "--json").stdout)
    assert (c["certified"], c["distinct"], c["real"]) == (36, 36, 36)


# ----------------------------------------------------------------------------- JSON points
def test_points_from_json_accepts_every_documented_form():
    v = ["x", "y"]
    want = np.array([[2, 1j]])
    for items, order in [([[[2, 0], [0, 1]]], None), ([[2, [0, 1]]], None),
                         ([{"x": "2", "y": [0, 1]}], None), ([{"point": [[0, 1], [2, 0]]}],
                                                             ["y", "x"])]:
        np.testing.assert_array_equal(points_from_json(items, v, order=order), want)
    with pytest.raises(ValueError, match=r"solutions\[0\]: 1 coordinates for 2 variables"):
        points_from_json([[1]], v)
    with pytest.raises(ValueError, match="no value for the variable"):
        points_from_json([{"x": 1}], v)
    with pytest.raises(ValueError, match="the system has x, y"):
        points_from_json([[1, 2]], v, order=["a", "b"])
    assert parameters_from_json({"p": "1/3", "q": 0.5}, ["p", "q"]) == \
        {"p": Fraction(1, 3), "q": 0.5}
    with pytest.raises(ValueError, match="'r' is not a parameter"):
        parameters_from_json({"p": 1, "r": 2}, ["p"])


def test_points_are_judged_after_refinement_on_the_exact_system():
    """solve_report.judge: a rough approximation of sqrt(2) (backward error ~1e-8 > 1e-9) is
    refined by Newton and accepted; a point off the variety (x = 1.5: value 0.25) is rejected;
    a point already accurate is kept as is. Exact truth: the zeros of x^2 - 2 are ±sqrt(2)."""
    from witness.solve_report import judge
    F = PolynomialSystem.from_strings(["x^2 - 2"])
    X = np.array([[1.41421356], [-2 ** 0.5], [1.5]], dtype=complex)
    assert F.residual(X)[0] > 1e-9                   # would be rejected without refinement
    J = judge(F, X)
    assert J.accepted.tolist() == [True, True, False]
    assert J.refinement[:2].tolist() == ["converged", "not needed"]
    assert abs(J.points[0, 0] - 2 ** 0.5) < 1e-15


def test_non_ascii_digits_are_a_syntax_error():
    """'١٢' (Arabic-Indic digits) was read as 12 (Python's \\d is Unicode)."""
    from witness.system import PolynomialSyntaxError
    with pytest.raises(PolynomialSyntaxError, match="unexpected character"):
        PolynomialSystem.from_strings(["x - \u0661\u0662"])
