"""Rank backends against matrices of known rank built by construction."""
import mpmath
import numpy as np
import pytest

from numag.rank import rank_float, rank_mod_p, rank_mp


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


def test_float_gap_rule_finds_rank_across_orders_of_magnitude():
    J = matrix_with_singular_values([1, 1e-3, 1e-6], 20, 10)
    r = rank_float(J, equilibrated=False)
    assert r.rank == 3 and r.decided and r.gap > 1e6


def test_float_full_rank_and_zero():
    J = matrix_with_singular_values([3, 2, 1], 5, 3)
    assert rank_float(J).rank == 3
    assert rank_float(np.zeros((3, 4))).rank == 0


def test_float_says_undecided_without_a_gap():
    J = matrix_with_singular_values(np.logspace(0, -15, 16), 16, 16)   # no gap anywhere
    r = rank_float(J, equilibrated=False)
    assert not r.decided and r.gap < 1e4


def test_mp_resolves_what_float_cannot():
    """σ = (1, 1e-20): rank 2 at 50 digits; float64 cannot tell 1e-20 from roundoff."""
    mpmath.mp.dps = 50
    J = np.array([[mpmath.mpf(1), 0], [0, mpmath.mpf(10) ** -20]], dtype=object)
    r = rank_mp(J, 50, min_gap=1e10)
    assert r.rank == 2 and r.decided
    rf = rank_float(J.astype(float), equilibrated=False)
    assert rf.rank == 1                          # float64 guesses 1 (the floor is ~4e-16)
    mpmath.mp.dps = 15


def test_bad_matrices():
    with pytest.raises(ValueError, match="NaN"):
        rank_float(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="2-D"):
        rank_float(np.zeros(3))
    with pytest.raises(ValueError, match="integer"):
        rank_mod_p(np.zeros((2, 2)), 7)


def test_two_large_gaps_are_undecided():
    """Rows parallel up to 1e-30: σ ≈ (2, 5e-31) over a 1e-50 floor, so rank 1 or 2 depending on
    the cut: undecided."""
    with mpmath.workdps(50):
        one, eps = mpmath.mpf(1), mpmath.mpf(10) ** -30
        J = np.array([[one, one], [one, one + eps]], dtype=object)
    r = rank_mp(J, 50, min_gap=1e10)
    assert not r.decided and r.second_gap >= 1e10
