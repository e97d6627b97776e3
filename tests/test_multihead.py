"""Multi-head lightning attention: exact dimensions vs hand derivations and a second, independent
implementation (the Jacobian of the tensor coordinates T = Σ_h T(A_h, V_h), bilinear in
(A_h, V_h), ranked over Q), not the model's sampled JVP."""
from fractions import Fraction

import flint
import numpy as np
import pytest

from numag import Architecture, dimension
from numag.arith import NumpyArithmetic
from numag.formulas import multihead_expected, single_layer
from numag.model import forward, jvp_all
from numag.tensor import coordinates, tensor


def tensor_jacobian_rank(d: int, d_out: int, a: int, heads: int, seed: int) -> int:
    """Rank over Q of ∂ coordinates(Σ_h T(K_hᵀ Q_h, V_h)) / ∂(Q_h, K_h, V_h) at a random integer
    point. T is bilinear in (A, V), so each column is T(δA, V) or T(A, δV) exactly."""
    rng = np.random.default_rng(seed)
    cols = []
    for _ in range(heads):
        Q, K, V = (np.vectorize(Fraction, otypes=[object])(rng.integers(-10**6, 10**6, s))
                   for s in ((a, d), (a, d), (d_out, d)))          # exact: T divides by 2
        A = K.T.dot(Q)
        for r in range(a):
            for c in range(d):
                E = np.full((a, d), Fraction(0), dtype=object)
                E[r, c] = 1
                cols.append(coordinates(tensor(K.T.dot(E), V)))      # δQ = E
                cols.append(coordinates(tensor(E.T.dot(Q), V)))      # δK = E
        for r in range(d_out):
            for c in range(d):
                E = np.full((d_out, d), Fraction(0), dtype=object)
                E[r, c] = 1
                cols.append(coordinates(tensor(A, E)))
    M = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row]
                        for row in np.array(cols).T.tolist()])
    return M.rank()


@pytest.mark.parametrize("d, d_out, a, heads", [
    (2, 3, 2, 2),     # defective: rank-≤2 matrices 6 × 4, 2(6 + 4 − 2) = 16 < 18
    (3, 1, 2, 2),     # defective: isotropic line, 17 < 18 (paper-notes §8)
    (3, 2, 1, 3), (3, 3, 2, 3), (4, 2, 2, 2), (2, 2, 1, 3),
])
def test_dimension_agrees_with_tensor_jacobian(d, d_out, a, heads):
    arch = Architecture.multihead((d, d_out), (a,), heads)
    assert dimension(arch, seed=2).dimension == tensor_jacobian_rank(d, d_out, a, heads, seed=9)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("d, d_out, a, heads, by_hand, expected", [
    # rank-≤H bound: Σ_h V_h ⊗ A_h has rank ≤ 2 as a (dd') × d² = 6 × 4 matrix: 2(6 + 4 − 2)
    (2, 3, 2, 2, 16, 18),
    # isotropic bound, d' = 1, H = 2 < d = 3: a line u with uᵀ T(z) u = 0 for all z: 2·1 + 3·5
    (3, 1, 2, 2, 17, 18),
    # rank-≤3 bound with a < d: (d − a)² = 1 < H − 1 = 2, the heads mix: 3(9 + 9 − 3)
    (3, 3, 2, 3, 45, 48),
    # independent heads: H · dim M_single = 3 · (2·1·3 + 6 − 1 − 1)
    (3, 2, 1, 3, 30, 30),
])
def test_values_by_hand(d, d_out, a, heads, by_hand, expected, seed):
    r = dimension(Architecture.multihead((d, d_out), (a,), heads), seed=seed)
    assert r.dimension == by_hand and r.certified
    assert r.predicted.value == expected == multihead_expected(d, d_out, a, heads)
    assert r.defect == expected - by_hand


def test_one_head_is_lightning_attention():
    for d, d_out, a in [(3, 2, 1), (3, 3, 2), (4, 2, 3)]:
        assert (dimension(Architecture.multihead((d, d_out), (a,), 1)).dimension
                == dimension(Architecture.single(d, d_out, a)).dimension
                == single_layer(d, d_out, a))


def test_benchmark_size_is_four_independent_heads():
    """(d, d', a, H) = (8, 8, 2, 4): 4 · (2·2·8 + 64 − 4 − 1) = 364, far below the ambient 2304."""
    r = dimension(Architecture.multihead((8, 8), (2,), 4), seed=0)
    assert r.dimension == 364 and r.certified and r.params == 4 * (32 + 64)


def test_forward_is_the_sum_of_heads_and_jvp_matches_finite_differences():
    arch = Architecture.multihead((3, 2, 3), (1, 2), 2)
    ops = NumpyArithmetic()
    rng = np.random.default_rng(0)
    w, X = rng.standard_normal(arch.n_params), rng.standard_normal((4, 3, 2))
    layers = arch.unpack(w)
    single = Architecture((3, 2), (1,))
    Y = sum(forward(single, [head], X, ops) for head in layers[0])
    second = Architecture((2, 3), (2,))
    Z = sum(forward(second, [head], Y, ops) for head in layers[1])
    assert np.allclose(forward(arch, layers, X, ops), Z, rtol=1e-13, atol=0)
    _, dZ = jvp_all(arch, layers, X, ops)
    h = 1e-6
    for k in rng.choice(arch.n_params, 8, replace=False):
        e = np.zeros(arch.n_params)
        e[k] = h
        fd = (forward(arch, arch.unpack(w + e), X, ops)
              - forward(arch, arch.unpack(w - e), X, ops)) / (2 * h)
        assert np.allclose(fd, dZ[k], rtol=1e-6, atol=1e-8)


def test_deep_multihead_head_mixing_is_a_defect_not_an_error():
    """(3,2,3), ranks (1,2), H = 2: layer 2 has a = d_1 = 2, so its two heads mix (GL_2, 2
    dimensions beyond per-head scaling): 34 − 2 = 32, reported as DEFECTIVE."""
    r = dimension(Architecture.multihead((3, 2, 3), (1, 2), 2), seed=1)
    assert (r.dimension, r.predicted.value, r.defect) == (32, 34, 2)
    assert any("DEFECTIVE" in n for n in r.notes) and not any("DISAGREE" in n for n in r.notes)


def test_reduced_multihead_keeps_the_span_of_all_heads():
    """Widths 2 → 3 with two heads: the tokens of layer 1 span Σ_h V_h(R²), up to
    min(3, 2·2) = 3 dimensions, not the single-head running minimum 2 (paper-notes §3.2). With
    the single-head reduction the 'upper bound' was 16, below the true 21, and it also stopped
    the growth of N early (20 was reported). Three backends agree on 21 (the numerical ones
    decided by their gap rule), and 21 is certified by the symmetry bound."""
    arch = Architecture.multihead((2, 3, 1), (1, 1), 2)
    assert arch.reduced().widths == (2, 3, 1)
    assert Architecture.multihead((2, 5, 1), (1, 1), 2).reduced().widths == (2, 4, 1)
    results = [dimension(arch, method=m, seed=1) for m in ("exact", "mp", "float")]
    assert [r.dimension for r in results] == [21, 21, 21] and all(r.decided for r in results)
    assert results[0].certified
