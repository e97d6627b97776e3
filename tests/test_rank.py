"""Rank backends against matrices of known rank built by construction."""
import mpmath
import numpy as np
import pytest

from numag.rank import RankOptions, numerical_rank, rank_mod_p

FLOAT = RankOptions(None, rounded_input=False)      # numag dim's float64 ranks


def matrix_with_singular_values(sigmas, m, n, seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((m, m)))
    V, _ = np.linalg.qr(rng.standard_normal((n, n)))
    S = np.zeros((m, n))
    S[:len(sigmas), :len(sigmas)] = np.diag(sigmas)
    return U @ S @ V.T


def test_exact_rank_of_integer_product_of_known_inner_dimension():
    rng = np.random.default_rng(0)
    J = rng.integers(-50, 50, (40, 7)) @ rng.integers(-50, 50, (7, 30))
    assert rank_mod_p(J, 1000003).rank == 7     # rank ≤ 7 by construction, = 7 generically
    assert rank_mod_p(J, 1000003).method == "exact"


def test_exact_rank_is_lower_bound_when_p_divides():
    J = np.array([[1, 0], [0, 7]])
    assert rank_mod_p(J, 7).rank == 1           # rank over Q is 2: F_p never over-counts
    assert rank_mod_p(J, 11).rank == 2


def test_float_rule_finds_rank_across_orders_of_magnitude():
    J = matrix_with_singular_values([1, 1e-3, 1e-6], 20, 10)
    r = numerical_rank(J, FLOAT, equilibrated=False)
    assert r.rank == 3 and r.decided and r.margin > 1e4      # 1e-6 is 3e4 × the tolerance


def test_float_full_rank_and_zero():
    J = matrix_with_singular_values([3, 2, 1], 5, 3)
    assert numerical_rank(J, FLOAT).rank == 3
    assert numerical_rank(np.zeros((3, 4)), FLOAT).rank == 0


def test_float_says_undecided_without_a_gap():
    J = matrix_with_singular_values(np.logspace(0, -15, 16), 16, 16)   # no gap anywhere
    r = numerical_rank(J, FLOAT, equilibrated=False)
    assert not r.decided and r.candidates == (10, 11, 12)   # 1e-10, 1e-11 in the band


def test_mp_resolves_what_float_cannot():
    """σ = (1, 1e-20): rank 2 at 50 digits; float64 cannot tell 1e-20 from roundoff."""
    mpmath.mp.dps = 50
    J = np.array([[mpmath.mpf(1), 0], [0, mpmath.mpf(10) ** -20]], dtype=object)
    r = numerical_rank(J, RankOptions(50))
    assert r.rank == 2 and r.decided
    rf = numerical_rank(J.astype(float), FLOAT, equilibrated=False)
    assert rf.rank == 1                          # float64 guesses 1 (the floor is ~4e-16)
    mpmath.mp.dps = 15


def test_bad_matrices():
    with pytest.raises(ValueError, match="NaN"):
        numerical_rank(np.array([[1.0, np.nan]]), FLOAT)
    with pytest.raises(ValueError, match="2-D"):
        numerical_rank(np.zeros(3), FLOAT)
    with pytest.raises(ValueError, match="integer"):
        rank_mod_p(np.zeros((2, 2)), 7)


def test_rows_parallel_up_to_1e_30_have_rank_2_at_50_digits():
    """Rows parallel up to 1e-30: det = 1e-30 ≠ 0 exactly, so the rank is 2. σ ≈ (2, 5e-31):
    two singular-value gaps (1e30 and, over a 1e-50 noise floor, 1e20) left the former
    largest-gap rule undecided; the threshold rule decides 2 (5e-31/2 clears 1e-35)."""
    with mpmath.workdps(50):
        one, eps = mpmath.mpf(1), mpmath.mpf(10) ** -30
        J = np.array([[one, one], [one, one + eps]], dtype=object)
    r = numerical_rank(J, RankOptions(50), equilibrated=False)
    assert r.decided and r.rank == 2 and r.margin >= RankOptions(50).min_margin


def test_float64_input_rounding_never_decides_a_rank_below_full():
    """numag classify's float64 model: σ = (1, 1e-30) may be a rounded nonzero: rank 1 or 2."""
    J = np.diag([1.0, 1e-30])
    assert numerical_rank(J, RankOptions(None), equilibrated=False).candidates == (1, 2)
    assert numerical_rank(J, FLOAT, equilibrated=False).candidates == (1,)


@pytest.mark.parametrize("kwargs, msg", [(dict(digits=10), "digits"), (dict(digits=True), "digits"),
                                         (dict(tolerance=0.0), "tolerance"),
                                         (dict(min_margin=0.5), "margin")])
def test_bad_rank_options(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        RankOptions(**kwargs)
