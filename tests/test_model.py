"""The one model definition over float64, complex128, mpmath and F_p, and its forward-mode JVP."""
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from numag import Architecture
from numag.arith import ModularArithmetic, MpArithmetic, NumpyArithmetic
from numag.jacobian import jacobian, random_inputs, random_weights
from numag.model import forward

F64 = NumpyArithmetic(np.float64)


def loop_lightning(Q, K, V, X):
    """φ(X)_j = Σ_k (x_kᵀ A x_j) V x_k with A = Kᵀ Q, written as plain loops (paper-notes §1)."""
    A = K.T @ Q
    d_out, t = V.shape[0], X.shape[1]
    out = np.zeros((d_out, t), dtype=X.dtype)
    for j in range(t):
        for k in range(t):
            out[:, j] += (X[:, k] @ A @ X[:, j]) * (V @ X[:, k])
    return out


def loop_softmax(Q, K, V, X):
    A = K.T @ Q
    S = X.T @ A @ X
    P = np.exp(S) / np.exp(S).sum(axis=0, keepdims=True)
    return V @ X @ P


def test_lightning_matches_loop_formula():
    arch = Architecture((3, 2), (2,), tokens=4)
    rng = np.random.default_rng(0)
    (layer,) = random_weights(arch, F64, rng)
    X = random_inputs(arch, F64, rng, 3)
    out = forward(arch, [layer], X, F64)
    for n in range(3):
        np.testing.assert_allclose(out[n], loop_lightning(*layer, X[n]), rtol=1e-12)


def test_softmax_matches_direct_formula_and_is_stable():
    arch = Architecture((3, 3), (2,), tokens=3, kind="softmax")
    rng = np.random.default_rng(1)
    (layer,) = random_weights(arch, F64, rng)
    X = random_inputs(arch, F64, rng, 2)
    np.testing.assert_allclose(forward(arch, [layer], X, F64)[0], loop_softmax(*layer, X[0]),
                               rtol=1e-12)
    big = forward(arch, [layer], 60 * X, F64)         # scores ~ 1e4: exp overflows unshifted
    assert np.all(np.isfinite(big))
    mp = MpArithmetic(40)
    with mp.context():
        ref = forward(arch, [[mp.convert(m) for m in layer]], mp.convert(60 * X), mp)
    np.testing.assert_allclose(big, ref.astype(float), rtol=1e-8, atol=1e-8)


def test_deep_prime_field_model_equals_exact_rational_model_mod_p():
    arch = Architecture((2, 3, 2), (1, 2), tokens=2)
    rng = np.random.default_rng(2)
    vec = [Fraction(int(x), int(y)) for x, y in zip(rng.integers(-9, 9, arch.n_params),
                                                    rng.integers(1, 5, arch.n_params))]
    layers = arch.unpack(np.array(vec, dtype=object))
    X = np.array([[[Fraction(int(v)) for v in row] for row in m]
                  for m in rng.integers(-5, 5, (2, 2, 2))], dtype=object)
    exact = X
    for Q, K, V in layers:              # rational arithmetic, plain loops: independent truth
        exact = np.array([loop_lightning(Q, K, V, x) for x in exact], dtype=object)
    ops = ModularArithmetic(1000003)
    got = forward(arch, [type(l)(*(ops.convert(m) for m in l)) for l in layers],
                  ops.convert(X), ops)
    assert np.array_equal(got, ops.convert(exact))


def test_prime_field_refuses_softmax():
    arch = Architecture((2, 2), (1,), kind="softmax")
    ops = ModularArithmetic(101)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="not polynomial"):
        forward(arch, random_weights(arch, ops, rng), random_inputs(arch, ops, rng, 1), ops)


def test_mp_agrees_with_float():
    arch = Architecture((3, 3, 2), (2, 1), tokens=3)
    rng = np.random.default_rng(3)
    layers = random_weights(arch, F64, rng)
    X = random_inputs(arch, F64, rng, 2)
    mp = MpArithmetic(50)
    with mp.context():
        ref = forward(arch, [type(l)(*(mp.convert(m) for m in l)) for l in layers],
                      mp.convert(X), mp)
    np.testing.assert_allclose(forward(arch, layers, X, F64), ref.astype(float), rtol=1e-11)


@pytest.mark.parametrize("kind", ["lightning", "softmax"])
def test_forward_mode_jacobian_matches_high_precision_differences(kind):
    """Independent truth: central differences at 80 digits with h = 1e-30 (truncation ~ h² =
    1e-60, rounding ~ 1e-80 / h = 1e-50)."""
    arch = Architecture((2, 3, 2), (1, 2), tokens=3, kind=kind)
    mp = MpArithmetic(80)
    rng = np.random.default_rng(4)
    with mp.context():
        w = mp.random(rng, (arch.n_params,))
        X = random_inputs(arch, mp, rng, 2)
        J = jacobian(arch, arch.unpack(w), X, mp)
        h = mpmath.mpf(10) ** -30
        for col in range(arch.n_params):
            e = np.zeros(arch.n_params, dtype=object)
            e[:] = mpmath.mpf(0)
            e[col] = h
            diff = (forward(arch, arch.unpack(w + e), X, mp)
                    - forward(arch, arch.unpack(w - e), X, mp)).ravel() / (2 * h)
            err = max(abs(a - b) for a, b in zip(diff, J[:, col]))
            assert err < mpmath.mpf(10) ** -40, (col, err)


def test_jacobian_over_prime_field_is_reduction_of_float_jacobian_at_integer_point():
    arch = Architecture((2, 2), (1,), tokens=2)
    rng = np.random.default_rng(5)
    w = rng.integers(-3, 4, arch.n_params)
    X = rng.integers(-3, 4, (2, 2, 2))
    Jf = jacobian(arch, arch.unpack(w.astype(float)), X.astype(float), F64)
    ops = ModularArithmetic(10007)
    Jp = jacobian(arch, arch.unpack(ops.convert(w)), ops.convert(X), ops)
    assert np.array_equal(np.round(Jf).astype(np.int64) % 10007, Jp)


def test_bad_input_shape():
    arch = Architecture((3, 2), (1,))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"\(N, 3, 2\)"):
        forward(arch, random_weights(arch, F64, rng), np.zeros((2, 2, 2)), F64)
