"""The ambient tensor T (paper-notes §1) and the recovery of a preimage from T."""
from fractions import Fraction as F

import flint
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from numag.architecture import Architecture, LayerWeights
from numag.arith import MpArithmetic, NumpyArithmetic
from numag.classify import RankOptions, classify_tensor, membership
from numag.jacobian import jacobian
from numag.model import forward
from numag.tensor import apply, check_tensor, tensor, tensor_jacobian

rng0 = np.random.default_rng(11)


def ints(*shape, lo=-4, hi=5, rng=rng0):
    return np.vectorize(lambda x: F(int(x)), otypes=[object])(rng.integers(lo, hi, shape))


def exact_rank(M) -> int:
    return flint.fmpq_mat(M.shape[0], M.shape[1], [flint.fmpq(x.numerator, x.denominator)
                                                    for x in M.reshape(-1)]).rank()


def cSv(c, S, v):
    """c ⊗ S ⊗ v as a (d', d, d, d) tensor of Fractions."""
    c, S, v = (np.asarray(x, dtype=object) for x in (c, S, v))
    return c[:, None, None, None] * S[None, :, :, None] * v[None, None, None, :]


@pytest.mark.parametrize("shape", [(3, 2, 1), (2, 3, 2), (4, 1, 2)])
def test_tensor_reproduces_the_model(shape):
    """T(KᵀQ, V) evaluated on inputs equals numag.model.forward (exact, in Fractions)."""
    d, dp, a = shape
    Q, K, V, X = ints(a, d), ints(a, d), ints(dp, d), ints(3, d, 3)
    arch = Architecture.single(d, dp, a, tokens=3)
    ops = MpArithmetic(40)
    with ops.context():
        ref = forward(arch, [LayerWeights(*(ops.convert(m) for m in (Q, K, V)))], ops.convert(X),
                      ops)
        got = apply(tensor(K.T.dot(Q), V), X)            # exact, Fractions
        err = max(abs(ops.convert(g) - r) for g, r in zip(got.reshape(-1), ref.reshape(-1)))
    assert err < 1e-30
    assert got.dtype == object and all(isinstance(x, F) for x in got.flat)


@pytest.mark.parametrize("shape", [(3, 2, 1), (3, 3, 2), (2, 3, 2), (3, 1, 2)])
def test_exact_generic_rank_is_hmk_dimension(shape):
    """Exact rank over Q of the T-coordinate Jacobian at a random integer point = HMK dim M."""
    d, dp, a = shape
    J = tensor_jacobian(ints(a, d), ints(a, d), ints(dp, d))
    assert exact_rank(J) == 2 * min(a, d) * d + d * dp - min(a, d) ** 2 - 1


def _input_jacobian_rank(Q, K, V, seed=0):
    """The evidence's Jacobian (φ at fixed random inputs, numag.jacobian) and its float64 rank."""
    a, d = Q.shape
    arch = Architecture.single(d, V.shape[0], a)
    n = int(np.ceil((arch.n_params + 8) / (2 * V.shape[0]))) + 1
    X = np.random.default_rng(seed).standard_normal((n, d, 2))
    J = jacobian(arch, [LayerWeights(*(m.astype(float) for m in (Q, K, V)))], X,
                 NumpyArithmetic(np.float64))
    return np.linalg.matrix_rank(J)


@pytest.mark.parametrize("case, rank", [("u∥w", 8), ("u∦w", 10), ("rkV=2", 10)])
def test_input_jacobian_matches_exact_tensor_jacobian(case, rank):
    """At special points of (3,2,1), the encoding by values at inputs has the exact T-Jacobian
    rank (paper-notes §2: 8 at u ∥ w, 10 elsewhere)."""
    u, v = [F(1), F(2), F(-1)], [F(1), F(0), F(3)]
    w = {"u∥w": [F(2) * x for x in u], "u∦w": [F(2), F(-1), F(1)], "rkV=2": None}[case]
    Q, K = np.array([v], dtype=object), np.array([u], dtype=object)
    V = np.array([[F(1) * x for x in w], [F(3) * x for x in w]], dtype=object) if w else \
        np.array([[F(1), F(0), F(2)], [F(0), F(1), F(1)]], dtype=object)
    assert exact_rank(tensor_jacobian(Q, K, V)) == rank
    assert _input_jacobian_rank(Q, K, V) == rank


@pytest.mark.parametrize("shape", [(3, 2, 2), (2, 3, 1), (4, 1, 3)])
def test_recovery_reproduces_a_generic_point(shape):
    d, dp, a = shape
    A, V = ints(a, d).T.dot(ints(a, d)), ints(dp, d)
    T = tensor(A, V)
    mem, (A2, V2) = membership(T, a, RankOptions(30))
    assert mem.in_M is True and mem.residual < 1e-60
    # the recovered (A2, V2) is (λA, V/λ): same tensor, and A2 ∝ A
    ratio = [x / y for x, y in zip(A2.reshape(-1), A.reshape(-1)) if y != 0]
    assert max(abs(r - ratio[0]) for r in ratio) < 1e-60


def test_semidefinite_rank2_is_outside_and_indefinite_inside():
    """paper-notes §2: c ⊗ S ⊗ v with S symmetric rank 2 is in M iff S is indefinite."""
    c, v = [F(1), F(-2)], [F(1), F(1, 3), F(2)]
    psd = [[F(2), F(1), F(0)], [F(1), F(1), F(0)], [F(0), F(0), F(0)]]
    indef = [[F(2), F(1), F(0)], [F(1), F(-1), F(0)], [F(0), F(0), F(0)]]
    out = classify_tensor(cSv(c, psd, v), 1, evidence=False)
    assert out.labels == () and out.membership.in_M is False
    assert out.membership.residual > 0.01 and "semidefinite" in out.membership.reason
    inside = classify_tensor(cSv(c, indef, v), 1, evidence=False)
    assert inside.membership.in_M is True and inside.membership.residual < 1e-40
    # a self-intersection point for (3, 2, 1): rank-1 V and A, u ∦ w
    assert inside.labels == ("singular",) and inside.ranks == {"A": 1, "V": 1}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=3, max_size=3),
       st.lists(st.integers(-3, 3).filter(lambda x: x != 0), min_size=2, max_size=2))
def test_d2_membership_is_det_S_le_0(s, v):
    """(2, 1, 1): M = {S ⊗ v : det S ≤ 0} (paper-notes §5); truth: the exact determinant."""
    S = [[F(s[0]), F(s[1])], [F(s[1]), F(s[2])]]
    det = S[0][0] * S[1][1] - S[0][1] ** 2
    if all(x == 0 for x in s):
        return
    r = classify_tensor(cSv([F(1)], S, v), 1, evidence=False)
    assert r.membership.in_M is (det <= 0)
    if det <= 0:
        assert ("boundary" in r.labels) is (det == 0)


def test_rank_of_A_above_a_is_not_in_M():
    A, V = ints(2, 4).T.dot(ints(2, 4)), ints(3, 4)
    r = classify_tensor(tensor(A, V), 1, evidence=False)
    assert r.labels == () and r.membership.in_M is False and "rk A = 2 > a = 1" in r.membership.reason


def test_perturbed_off_M_by_1e30_is_not_in_M():
    A, V = ints(2, 3).T.dot(ints(2, 3)), ints(2, 3)
    T = tensor(A, V)
    T[0, 1, 2, 0] += F(1, 10 ** 30)
    T[0, 2, 1, 0] += F(1, 10 ** 30)
    r = classify_tensor(T, 2, evidence=False)
    assert r.membership.in_M is False and 1e-34 < r.membership.residual < 1e-28


def test_bad_tensors():
    T = tensor(ints(3, 3), ints(2, 3))
    with pytest.raises(ValueError, match="symmetric"):
        Tb = T.copy()
        Tb[0, 0, 1, 0] += 1
        check_tensor(Tb, 3, 2)
    with pytest.raises(ValueError, match="shape"):
        check_tensor(T[:, :, :, :2], 3, 2)
    with pytest.raises(ValueError, match="4-index"):
        classify_tensor(T[0], 1)
    Tn = T.astype(float)
    Tn[0, 0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        classify_tensor(Tn, 1)


def test_zero_tensor():
    r = classify_tensor(np.zeros((2, 3, 3, 3), dtype=int), 1, evidence=False)
    assert r.labels == ("zero", "singular", "boundary") and r.membership.in_M is True
