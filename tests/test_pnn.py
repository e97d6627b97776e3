"""Polynomial networks: exact dimensions vs published values, hand derivations and a second,
independent implementation (expanded coefficients in x with dual numbers over Q)."""
from fractions import Fraction

import flint
import numpy as np
import pytest

from numag import Architecture, dimension
from numag.arith import ModularArithmetic, MpArithmetic, NumpyArithmetic, PolynomialArithmetic
from numag.formulas import pnn_ambient, pnn_expected, pnn_recursive_bound
from numag.model import forward, jvp_all
from numag.symmetry import naive_orbit_count

# Published dimensions (all r = 2, no biases, widths listed input first; the affine dimension
# of the neurovariety): the values quoted from Dao–Rodriguez, arXiv 2605.09609, in the issue.
# Each is also derived by hand (paper-notes §9.3):
#   (2,2,1)     binary quadrics a·l1² + b·l2²: all of them, 3.
#   (2,2,2,1)   binary quartics, 5 = min(#params 10 − 4 hidden, 5).
#   (2,3,3,2,1) binary octics, 9 = min(23 − 8, 9).
#   (2,2,3,4,1) g(y1², y2²) with g a binary quartic (5) and (y1, y2) = W1 x (4) modulo the
#               scaling of y1, y2 (2): 7, below the expected 9 (defect 2).
#   (2,3,2,3)   three quartics in the span of q1², q2², q1, q2 binary quadrics (6), W3 (6),
#               modulo the scaling of q1, q2 (2): 10 (expected 13).
#   (3,2,1)     a·l1² + b·l2²: ternary quadrics of rank ≤ 2, a hypersurface: 5 (expected 6),
#               the Alexander–Hirschowitz exception of quadrics.
PUBLISHED = [((2, 2, 1), 3, 0), ((2, 2, 2, 1), 5, 0), ((2, 3, 3, 2, 1), 9, 0),
             ((2, 2, 3, 4, 1), 7, 2), ((2, 3, 2, 3), 10, 3), ((3, 2, 1), 5, 1)]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("widths, dim, defect", PUBLISHED)
def test_published_dimensions_exact_mod_p(widths, dim, defect, seed):
    r = dimension(Architecture.pnn(widths, 2), method="exact", seed=seed)
    assert r.dimension == dim and r.defect == defect
    assert r.certified           # every upper bound used is proved (paper-notes §9.2)
    assert r.predicted.status == "expected" and r.predicted.value == dim + defect


def test_expected_dimension_by_hand():
    """KTB's count d_h + Σ (d_i − 1) d_{i+1} capped by d_h·C(d_0 + r^{h−1} − 1, r^{h−1})."""
    assert pnn_expected((2, 2, 3, 4, 1), 2) == min(1 + 1 * 2 + 1 * 3 + 2 * 4 + 3 * 1, 9) == 9
    assert pnn_ambient((3, 2, 2), 3) == 2 * 10                 # ternary cubics
    assert pnn_ambient((3, 2, 2), 3, bias=True) == 2 * 20      # cubics with lower terms
    assert naive_orbit_count(Architecture.pnn((3, 4, 2, 1))) == 6


# --- second implementation: coefficients of f in x, derivatives by dual numbers over Q --------

def _dual_mul(a, b):
    return a[0] * b[0], a[0] * b[1] + a[1] * b[0]


def coefficient_jacobian_rank(arch: Architecture, seed: int) -> int:
    """Rank over Q of the Jacobian of W ↦ (coefficients of f_W in x) at a random integer W,
    computed with polynomials in x (python-flint) and dual numbers, not with numag.model."""
    rng = np.random.default_rng(seed)
    w0 = [int(v) for v in rng.integers(-10**6, 10**6, arch.n_params)]   # special: prob. ~deg/10^6
    ctx = flint.fmpq_mpoly_ctx.get(tuple(f"x{i}" for i in range(arch.widths[0])), "lex")
    xs, zero = ctx.gens(), ctx.from_dict({})
    r = arch.activation_degree
    columns = []
    for k in range(arch.n_params):                     # derivative along weight k
        pos = 0
        y = [(x, zero) for x in xs]
        for i, (d_in, d_out) in enumerate(zip(arch.widths[:-1], arch.widths[1:])):
            def weight():
                nonlocal pos
                pos += 1
                return (ctx.constant(w0[pos - 1]), ctx.constant(1 if pos - 1 == k else 0))
            W = [[weight() for _ in range(d_in)] for _ in range(d_out)]
            z = []
            for row in W:
                acc = (zero, zero)
                for wij, yj in zip(row, y):
                    p = _dual_mul(wij, yj)
                    acc = (acc[0] + p[0], acc[1] + p[1])
                z.append(acc)
            if arch.bias:
                z = [(a + b[0], da + b[1]) for (a, da), b in zip(z, [weight() for _ in z])]
            if i < arch.depth - 1:
                powered = []
                for u in z:
                    v = u
                    for _ in range(r - 1):
                        v = _dual_mul(v, u)
                    powered.append(v)
                z = powered
            y = z
        columns.append([dict(zip([tuple(m) for m in out[1].monoms()], out[1].coeffs()))
                        for out in y])
    monos = sorted({(o, m) for col in columns for o, d in enumerate(col) for m in d})
    M = flint.fmpq_mat(len(monos), arch.n_params)
    for j, col in enumerate(columns):
        for i, (o, m) in enumerate(monos):
            M[i, j] = col[o].get(m, 0)
    return M.rank()


@pytest.mark.parametrize("arch", [
    Architecture.pnn((2, 2, 3, 4, 1), 2), Architecture.pnn((2, 3, 2, 3), 2),
    Architecture.pnn((3, 2, 1), 2), Architecture.pnn((3, 3, 2, 1), 2),
    Architecture.pnn((2, 3, 2), 3), Architecture.pnn((3, 2, 2), 3, bias=True),
    Architecture.pnn((1, 2, 3, 4), 2, bias=True), Architecture.pnn((2, 2, 2), 4),
])
def test_sampled_jacobian_agrees_with_coefficient_jacobian(arch):
    """Two implementations of the same generic rank: numag (the model's JVP at sampled inputs,
    exact mod p) and the coefficient Jacobian over Q above. Seeds differ on purpose."""
    assert dimension(arch, seed=3).dimension == coefficient_jacobian_rank(arch, seed=11)


@pytest.mark.parametrize("seed", [0, 1])
def test_jvp_mod_p_equals_symbolic_derivative(seed):
    """The model's forward-mode derivative over F_p equals the derivative of the model run over
    Q[W, x] (python-flint), evaluated at the same integer point mod p."""
    arch = Architecture.pnn((2, 3, 2), 3, bias=True)
    names = tuple(f"w{i}" for i in range(arch.n_params)) + ("x0", "x1")
    ring = PolynomialArithmetic(names)
    f = forward(arch, arch.unpack(ring.variables(0, (arch.n_params,))),
                ring.variables(arch.n_params, (1, 2, 1)), ring)[0, :, 0]
    rng = np.random.default_rng(seed)
    ops = ModularArithmetic(1_000_003)
    w, x = rng.integers(0, 50, arch.n_params), rng.integers(0, 50, 2)
    _, dZ = jvp_all(arch, arch.unpack(ops.convert(w.tolist())),
                    ops.convert(x.reshape(1, 2, 1).tolist()), ops)
    point = [int(v) for v in w] + [int(v) for v in x]
    for k in range(arch.n_params):
        for o in range(2):
            exact = Fraction(str(f[o].derivative(k)(*point)))
            assert dZ[k, 0, o, 0] == exact.numerator % ops.p


def test_model_agrees_over_every_number_system():
    arch = Architecture.pnn((2, 2, 2), 3, bias=True)
    rng = np.random.default_rng(4)
    w, x = rng.integers(-3, 4, arch.n_params), rng.integers(-3, 4, (2, 2, 1))
    ref = forward(arch, arch.unpack(w.astype(float)), x.astype(float), NumpyArithmetic())
    mp = MpArithmetic(30)
    with mp.context():
        val = forward(arch, arch.unpack(mp.convert(w)), mp.convert(x), mp)
    assert np.allclose(val.astype(float), ref, rtol=0, atol=0)        # integers: exact
    ops = ModularArithmetic(10007)
    modp = forward(arch, arch.unpack(ops.convert(w.tolist())), ops.convert(x.tolist()), ops)
    assert np.array_equal(modp, np.remainder(ref.astype(np.int64), 10007))


def test_equi_width_is_never_defective():
    """FRWY (arXiv 2408.04569): equi-width architectures have activation degree threshold 1,
    i.e. reach the expected dimension for every r ≥ 2."""
    for widths in [(2, 2, 2), (3, 3, 3), (2, 2, 2, 2), (3, 3, 3, 3)]:
        for r in (2, 3):
            res = dimension(Architecture.pnn(widths, r), seed=r)
            assert res.defect == 0 and res.certified, (widths, r)


def test_recursive_bound_is_never_below_the_computed_dimension():
    """The bounds of paper-notes §9.2 are proved; a computed rank above one would be a bug in
    the bound or the model. (The study checks all 1344 architectures; a sample here.)"""
    for widths, r, bias in [((2, 4, 2, 1), 2, True), ((3, 4, 2, 1), 2, False),
                            ((2, 1, 3, 2), 3, False), ((4, 3, 1, 2), 2, True)]:
        res = dimension(Architecture.pnn(widths, r, bias), seed=1)
        assert res.dimension <= pnn_recursive_bound(widths, r, bias)


@pytest.mark.parametrize("kwargs, message", [
    (dict(widths=(2, 2, 1), ranks=(1, 1), kind="pnn"), "no attention ranks"),
    (dict(widths=(2, 2, 1), kind="pnn", activation_degree=1), "at least 2"),
    (dict(widths=(2, 2, 1), kind="pnn", tokens=2), "tokens = 1"),
    (dict(widths=(2, 2), ranks=(1,), bias=True), "polynomial networks"),
    (dict(widths=(2, 2), ranks=(1,), heads=2), "multihead"),
    (dict(widths=(2,), kind="pnn"), "at least"),
])
def test_bad_architectures(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Architecture(**kwargs)


def test_packing_roundtrip_with_biases():
    arch = Architecture.pnn((3, 2, 1), 2, bias=True)
    v = np.arange(arch.n_params)
    layers = arch.unpack(v)
    assert layers[0].W.shape == (2, 3) and layers[0].b.shape == (2, 1) and layers[1].b[0, 0] == 10
    assert np.array_equal(arch.pack(layers), v) and arch.n_params == 6 + 2 + 2 + 1


def test_too_few_inputs_is_no_defect():
    """Widths 3,3,1 (r = 2): the neuromanifold is all ternary quadrics, dimension 6 (KTB). With
    N = 1 input fixed by the user the exact rank is a lower bound of what one input sees (1):
    no defect, no Schwartz-Zippel probability (the inputs are not random trials), no verdict
    against the expected value; a new-user trial saw 'DEFECTIVE by 5' with 4.6e-20."""
    r = dimension(Architecture.pnn((3, 3, 1)), n_inputs=1, seed=0)
    assert r.dimension < 6 and not r.certified
    assert r.defect is None and r.miss_probability is None and r.agrees_with_prediction is None
    assert any("no defect is claimed" in n for n in r.notes)
    full = dimension(Architecture.pnn((3, 3, 1)), seed=0)
    assert (full.dimension, full.defect, full.certified) == (6, 0, True)
