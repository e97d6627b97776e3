"""Classification of points of single-layer neuromanifolds (issue 5; paper-notes §2).

Independent truths: each point is CONSTRUCTED in a class of paper-notes §2 (its exact ranks and
u ∥ w hold by construction, checked exactly over Q with python-flint), and the evidence (Jacobian
ranks, outside probes) must agree with the rule-based label.
"""
from fractions import Fraction as F

import flint
import numpy as np
import pytest

import numag.classify as C
from numag.classify import RankOptions, classify_av, classify_weights, threshold_rank

rng0 = np.random.default_rng(3)


def vec(*xs):
    return np.array([F(x) for x in xs], dtype=object)


def outer(x, y):
    return np.outer(np.asarray(x, dtype=object), np.asarray(y, dtype=object))


def ints(*shape, rng=rng0):
    return np.vectorize(lambda x: F(int(x)), otypes=[object])(rng.integers(-4, 5, shape))


def exact_rank(M) -> int:
    M = np.asarray(M, dtype=object)
    return flint.fmpq_mat(*M.shape, [flint.fmpq(F(x).numerator, F(x).denominator)
                                     for x in M.reshape(-1)]).rank()


def parallel(x, y) -> bool:
    return exact_rank(np.stack([x, y])) == 1


def check(r, labels, shape):
    """Labels as constructed, decided with margin, and evidence that agrees."""
    assert r.labels == labels, (r, r.notes)
    assert r.shape == shape
    assert r.margin >= r.precision.min_margin
    assert all(x.decided for x in r.decisions)
    assert r.agreement.get("singular") == "agree", (r.agreement, r.evidence.notes)
    assert r.agreement.get("boundary") == "agree", r.evidence.notes
    assert max(f.fiber_residual for f in r.evidence.fiber) < 1e-40
    assert r.evidence.generic_rank.value == r.evidence.dim_formula


u3, v3, w3, c2 = vec(1, "1/3", -1), vec(1, 0, "3/7"), vec(2, -1, 1), vec(1, 2)


# --- the classes of paper-notes §2 ---------------------------------------------------------------

def test_zero_both_components():
    r = classify_av(outer(u3, v3) * 0, ints(2, 3), 1)
    check(r, ("zero", "singular", "boundary"), (3, 2, 1))
    assert r.evidence.boundary == "boundary"
    r = classify_weights(ints(1, 2), ints(1, 2), np.zeros((1, 2), dtype=int))
    check(r, ("zero", "singular", "boundary"), (2, 1, 1))


def test_self_intersection_321_joint_rank_12():
    """(3,2,1), rk A = rk V = 1, u ∦ w: each branch 10, joint 12 (paper-notes §2)."""
    assert not parallel(u3, w3)
    r = classify_av(outer(u3, v3), outer(c2, w3), 1)
    check(r, ("singular",), (3, 2, 1))
    assert "self-intersection" in r.kinds[0]
    assert [f.jacobian_rank.value for f in r.evidence.fiber] == [10, 10]
    assert r.evidence.joint_rank.value == 12 and r.evidence.boundary == "not boundary"


def test_u_parallel_w_321_rank_drops_by_d_minus_1():
    """u ∥ w: singular and boundary; the differential has rank 10 − (d − 1) = 8."""
    w = 2 * u3
    r = classify_av(outer(u3, v3), outer(c2, w), 1)
    check(r, ("singular", "boundary"), (3, 2, 1))
    assert {f.jacobian_rank.value for f in r.evidence.fiber} == {8}
    assert r.evidence.nearby_joint_rank.value > 10
    assert r.evidence.boundary == "boundary"
    assert all(p["in_M"] is False for p in r.evidence.probes)


def test_generic_rank_V_2_is_smooth():
    V = np.array([vec(1, 0, 2), vec(0, 1, 1)])
    assert exact_rank(V) == 2
    r = classify_av(outer(u3, v3), V, 1)
    check(r, ("smooth",), (3, 2, 1))
    assert r.evidence.fiber[0].jacobian_rank.value == 10


@pytest.mark.parametrize("d, par, labels", [
    (2, True, ("smooth", "boundary")), (2, False, ("smooth",)),
    (3, True, ("singular", "boundary")), (3, False, ("smooth",))])
def test_a_equals_d_out_equals_1_exceptions(d, par, labels):
    """a = d' = 1: d = 2 → Sing = {0}; d ≥ 3 → Sing = {u ∥ w} ∪ {0}; boundary iff u ∥ w."""
    u, v, w = u3[:d], v3[:d] + 1, (3 * u3[:d] if par else w3[:d])
    assert parallel(u, w) is par
    r = classify_av(outer(u, v), outer(vec(2), w), 1)
    check(r, labels, (d, 1, 1))
    if par:
        assert {f.jacobian_rank.value for f in r.evidence.fiber} == {2 * d + d - 2 - (d - 1)}


def test_rank_drop_of_A_below_a():
    """(3,3,2): rk A = 1 < a = 2 < d with rk V = 3: singular (rank drop)."""
    V = ints(3, 3)
    assert exact_rank(V) == 3
    r = classify_av(outer(u3, v3), V, 2)
    check(r, ("singular",), (3, 3, 2))
    assert "rank drop" in r.kinds[0]
    assert r.evidence.joint_rank.value > r.evidence.dim_formula


def test_full_rank_A_is_smooth_and_a_at_least_d_has_no_rank_drop():
    r = classify_weights(ints(2, 3), ints(2, 3), ints(3, 3))
    check(r, ("smooth",), (3, 3, 2))
    # a ≥ d: rk A = 1 < a is no rank drop; with rk V = 2 the point is smooth
    r = classify_av(outer(u3[:2], v3[:2] + 1), np.array([vec(1, 0), vec(0, 1)]), 2)
    check(r, ("smooth",), (2, 2, 2))


def test_a_at_least_d_u_parallel_w():
    r = classify_av(outer(u3[:2], v3[:2] + 1), outer(c2, 5 * u3[:2]), 2)
    check(r, ("singular", "boundary"), (2, 2, 2))


@pytest.mark.parametrize("rank1, labels", [(True, ("singular",)), (False, ("smooth",))])
def test_d_out_1_with_a_2(rank1, labels):
    """d' = 1 (rk V = 1 always), a = 2 < d = 3: singular iff rk A ≤ 1."""
    A = outer(u3, v3) if rank1 else outer(u3, v3) + outer(w3, vec(0, 1, 1))
    r = classify_av(A, outer(vec(1), w3), 2)
    check(r, labels, (3, 1, 2))


@pytest.mark.parametrize("rank1, labels", [(True, ("singular",)), (False, ("smooth",))])
def test_d_out_greater_than_d(rank1, labels):
    """d' = 3 > d = 2, a = 1."""
    u, v, w = vec(1, 2), vec(1, -1), vec(1, 1)
    V = outer(vec(1, 2, 3), w) if rank1 else np.array([vec(1, 0), vec(0, 1), vec(1, 1)])
    r = classify_av(outer(u, v), V, 1)
    check(r, labels, (2, 3, 1))


def test_weights_input_agrees_with_av_input():
    Q, K, V = np.array([v3]), np.array([u3]), outer(c2, w3)
    a, b = classify_weights(Q, K, V), classify_av(K.T.dot(Q), V, 1)
    assert a.labels == b.labels and a.ranks == b.ranks
    assert a.evidence.fiber[-1].name.startswith("the given weights")


# --- correctness under noise (issue item 4) ---------------------------------------------------------

E30 = F(1, 10 ** 30)
NOISE_PAIRS = {
    # name: (A, V, a, perturbed A, perturbed V, labels, perturbed labels)
    "u∥w (3,2,1)": (outer(u3, v3), outer(c2, 2 * u3), 1,
                    outer(u3, v3), outer(c2, 2 * u3 + E30 * vec(0, 1, "1/5")),
                    ("singular", "boundary"), ("singular",)),
    "u∥w (3,1,1)": (outer(u3, v3), outer(vec(1), u3), 1,
                    outer(u3, v3), outer(vec(1), u3 + E30 * vec(0, 1, "1/5")),
                    ("singular", "boundary"), ("smooth",)),
    "u∥w (2,1,1)": (outer(u3[:2], v3[:2] + 1), outer(vec(1), u3[:2]), 1,
                    outer(u3[:2], v3[:2] + 1), outer(vec(1), u3[:2] + E30 * vec(0, 1)),
                    ("smooth", "boundary"), ("smooth",)),
    "rank drop (3,3,2)": (outer(u3, vec(1, 2, "3/7")),
                          np.array([vec(1, 0, 2), vec(0, 1, 1), vec(1, 1, 0)]), 2,
                          outer(u3, vec(1, 2, "3/7")) + E30 * outer(w3, vec(0, 1, 1)),
                          np.array([vec(1, 0, 2), vec(0, 1, 1), vec(1, 1, 0)]),
                          ("singular",), ("smooth",)),
}


@pytest.mark.parametrize("name", NOISE_PAIRS)
def test_exact_1e30_perturbation_changes_the_label_at_50_digits(name):
    A, V, a, A2, V2, labels, labels2 = NOISE_PAIRS[name]
    special, moved = classify_av(A, V, a), classify_av(A2, V2, a)
    assert special.labels == labels and moved.labels == labels2
    for r in (special, moved):
        assert r.margin >= r.precision.min_margin and r.digits == 50
        assert r.agreement["singular"] == "agree"
        assert r.agreement["boundary"] == "agree"


@pytest.mark.parametrize("name", NOISE_PAIRS)
def test_float64_cannot_tell_them_apart_and_says_undecided(name):
    A, V, a, A2, V2, _, _ = NOISE_PAIRS[name]
    f = np.vectorize(float)
    assert np.array_equal(f(A), f(A2)) and np.array_equal(f(V), f(V2))     # rounding erased it
    for X, Y in ((A, V), (A2, V2)):
        r = classify_av(f(X), f(Y), a, RankOptions(None), evidence=False)
        assert r.labels == ("undecided",) and r.margin == 1.0
        assert len(r.alternatives) >= 2


def test_plain_float64_rank_gets_it_wrong():
    """numpy.linalg.matrix_rank calls the exactly rank-2 A of the moved point rank 1 (singular);
    the exact rank over Q (flint) and the 50-digit decision say 2."""
    _, _, a, A2, V2, _, _ = NOISE_PAIRS["rank drop (3,3,2)"]
    assert np.linalg.matrix_rank(np.vectorize(float)(A2).astype(float)) == 1
    assert exact_rank(A2) == 2
    r = classify_av(A2, V2, a, evidence=False)
    assert r.ranks["A"] == 2 and r.decisions[0].decided and r.labels == ("smooth",)


def test_zero_entry_perturbation_survives_rounding_but_float64_still_undecided():
    """1e-30 in a zero entry is a representable double, yet float64 rank calls it zero."""
    A = np.array([vec(1, 0, 0), vec(0, 0, 0), vec(0, 0, E30)])
    assert np.linalg.matrix_rank(A.astype(float)) == 1 and exact_rank(A) == 2
    V = ints(3, 3)
    r = classify_av(A.astype(float), V.astype(float), 2, RankOptions(None), evidence=False)
    assert r.labels == ("undecided",)
    assert classify_av(A, V, 2, evidence=False).ranks["A"] == 2


def test_too_small_to_resolve_is_undecided_then_decided_with_more_digits():
    """A perturbation of 1e-42 falls in the undecided band at 50 digits (tolerance 1e-40,
    margin 1e5), and is resolved at 80 digits."""
    A = outer(u3, v3) + F(1, 10 ** 42) * outer(w3, vec(0, 1, 1))
    V = np.array([vec(1, 0, 2), vec(0, 1, 1), vec(1, 1, 0)])
    r = classify_av(A, V, 2, evidence=False)
    assert r.labels == ("undecided",) and set(r.alternatives) == {("singular",), ("smooth",)}
    assert not r.decisions[0].decided and r.decisions[0].candidates == (1, 2)
    r80 = classify_av(A, V, 2, RankOptions(80), evidence=False)
    assert r80.labels == ("smooth",) and r80.ranks["A"] == 2


def test_long_decimal_strings_are_exact():
    """Decimal strings with more digits than float64 holds keep the 1e-30 perturbation."""
    from numag.io import single_layer_point_from_json
    from numag.classify import classify_point
    base = {"widths": [3, 2], "ranks": [1], "A": [[1, 0, 3], [2, 0, 6], [1, 0, 3]]}
    same = classify_point(single_layer_point_from_json(
        {**base, "V": [[1, 2, 1], [2, 4, 2]]}), evidence=False)
    moved = classify_point(single_layer_point_from_json(
        {**base, "V": [[1, "2.000000000000000000000000000001", 1], [2, 4, 2]]}), evidence=False)
    assert same.labels == ("singular", "boundary")
    assert moved.labels == ("smooth",) and moved.ranks == {"A": 1, "V": 2}   # rk V = 2


# --- the rule and the evidence are independent ------------------------------------------------------

def test_a_wrong_rule_is_caught_by_the_evidence(monkeypatch):
    """Replace the rule by one that calls everything smooth: the evidence must report DISAGREE."""
    monkeypatch.setattr(C, "rule_labels", lambda *args: (("smooth",), ()))
    r = classify_av(outer(u3, v3), outer(c2, w3), 1)
    assert r.labels == ("smooth",)
    assert r.agreement["singular"] == "DISAGREE"
    assert any("DISAGREE" in n for n in r.notes)


# --- thresholds and bad input -------------------------------------------------------------------------

def test_threshold_rank_margin_and_undecided():
    p = RankOptions(50)
    d = threshold_rank("x", [1, 1e-30, 0], p)
    assert d.value == 2 and d.decided and d.margin == pytest.approx(1e10)
    assert threshold_rank("x", [1, 1e-41], p).candidates == (1, 2)
    assert threshold_rank("x", [1, 1e-30], RankOptions(None)).candidates == (1, 2)
    assert threshold_rank("x", [0, 0], p).candidates == (0,)


@pytest.mark.parametrize("kwargs, msg", [
    (dict(digits=10), "digits"), (dict(tolerance=2.0), "tolerance"), (dict(min_margin=0.5), "margin")])
def test_bad_precision(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        RankOptions(**kwargs)


def test_bad_inputs():
    with pytest.raises(ValueError, match="rank 3 > a = 1"):
        classify_av(np.eye(3, dtype=int), ints(2, 3), 1)
    with pytest.raises(ValueError, match="NaN"):
        classify_av(np.array([[1.0, np.nan], [0, 1]]), np.ones((1, 2)), 2)
    with pytest.raises(ValueError, match="d >= 2"):
        classify_av(np.ones((1, 1), dtype=int), np.ones((2, 1), dtype=int), 1)
    with pytest.raises(ValueError, match="V"):
        classify_av(np.eye(3, dtype=int), np.ones((2, 2), dtype=int), 3)
    with pytest.raises(ValueError, match="Q"):
        classify_weights(np.ones((2, 3)), np.ones((1, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="not a real number"):
        classify_av(np.array([["a", 1], [1, 1]], dtype=object), np.ones((1, 2)), 2)


def test_result_json_and_repr():
    r = classify_av(outer(u3, v3), outer(c2, 2 * u3), 1, evidence=False)
    j = r.to_json()
    assert j["labels"] == ["singular", "boundary"] and j["ranks"] == {"A": 1, "V": 1}
    assert j["digits"] == 50 and j["evidence"] is None and isinstance(j["margin"], float)
    assert "singular, boundary" in repr(r) and "50 digits" in repr(r)
    import json
    json.dumps(classify_av(outer(u3, v3), outer(c2, w3), 1).to_json())   # strict-JSON-able


def test_rules_only_at_884_noise_pair():
    """(8, 8, 4): rank drop rk A = 3 < a vs the same point moved by an exact 1e-30."""
    rng = np.random.default_rng(8)
    A = ints(3, 8, rng=rng).T.dot(ints(3, 8, rng=rng))
    V = ints(8, 8, rng=rng)
    assert exact_rank(A) == 3 and exact_rank(V) == 8
    A2 = A + E30 * outer(ints(8, rng=rng), ints(8, rng=rng))
    assert exact_rank(A2) == 4
    a, b = classify_av(A, V, 4, evidence=False), classify_av(A2, V, 4, evidence=False)
    assert a.labels == ("singular",) and a.ranks["A"] == 3
    assert b.labels == ("smooth",) and b.ranks["A"] == 4
    assert min(a.margin, b.margin) >= RankOptions().min_margin


@pytest.mark.slow
def test_442_noise_pair_with_evidence():
    """(4, 4, 2) rank drop and its 1e-30 neighbour, with the full evidence (about 15 s)."""
    A = outer(vec(1, 2, -1, 3), vec(2, 1, 1, "1/3"))
    V = np.array([vec(1, 0, 2, 1), vec(0, 1, 1, 0), vec(1, 1, 0, 2), vec(2, 0, 1, 1)])
    A2 = A + E30 * outer(vec(1, 0, 1, 1), vec(0, 1, 1, 2))
    a, b = classify_av(A, V, 2), classify_av(A2, V, 2)
    assert a.labels == ("singular",) and b.labels == ("smooth",)
    assert a.agreement["singular"] == b.agreement["singular"] == "agree"
    assert a.evidence.joint_rank.value > 27 and b.evidence.fiber[0].jacobian_rank.value == 27


def test_evidence_chooses_branches_by_exact_ranks_not_the_rules(monkeypatch):
    """Issue 16 item 5: the evidence's branches and probes come from exact ranks over Q, so rank
    decisions of the rules forced wrong (here: rk V read as 2 at a rank-one swap point of
    (3, 2, 1)) change the labels but not the evidence, which then disagrees with them."""
    import numag.classify as nc
    from numag import Architecture
    from numag.classify.evidence import EXACT_RANKS
    from numag.points import sample_point
    Q, K, V = sample_point(Architecture.single(3, 2, 1), "swap", 4)[0]
    honest = classify_weights(Q, K, V, RankOptions(50), seed=1)
    assert honest.evidence.ranks_source == EXACT_RANKS
    assert any("swap" in f.name for f in honest.evidence.fiber)
    real = nc.rank_decisions

    def wrong(A, V, shape, prec, source, rank_A=None):
        decs, ranks, combos = real(A, V, shape, prec, source, rank_A)
        return decs, ranks, [(rA, 2, par) for rA, _, par in combos]
    monkeypatch.setattr(nc, "rank_decisions", wrong)
    forced = classify_weights(Q, K, V, RankOptions(50), seed=1)
    assert [f.name for f in forced.evidence.fiber] == [f.name for f in honest.evidence.fiber]
    assert forced.evidence.singular == honest.evidence.singular == "singular"
    assert honest.agreement["singular"] == "agree"
    # rules with rk V = 2: not rk A = rk V = 1 and rk A = a, so "smooth"; the evidence objects
    assert forced.labels == ("smooth",) and forced.agreement["singular"] == "DISAGREE"


def test_not_probed_is_not_agreement_and_generic_points_are_probed():
    from numag.classify import Agreement, BoundaryVerdict
    assert not Agreement.NOT_PROBED.consistent and Agreement.NOT_PROBED.unchecked
    assert not Agreement.INCONCLUSIVE.consistent and Agreement.AGREE.consistent
    Q = np.array([[1, 0, 2], [0, 1, 1]])
    K = np.array([[1, 1, 0], [2, 0, 1]])
    V = np.array([[1, 0, 1], [0, 2, 1]])
    r = classify_weights(Q, K, V, seed=2)
    assert r.evidence.boundary == BoundaryVerdict.NOT_BOUNDARY     # flattening σ₂ > 0
    assert any(p.get("decided_nonzero") for p in r.evidence.probes)
    assert r.agreement == {"singular": "agree", "boundary": "agree"}


def test_evidence_is_scale_invariant_at_extreme_magnitudes():
    """(A, V) with V ~ 1e308 and weights spread over 1e-100 .. 1e200: the labels are those of
    the unscaled point (M is a cone; (A, V) ~ (cA, V/c)), and the Jacobian evidence must agree
    with the unscaled evidence (it read a rank drop from the blocks' sizes: "singular")."""
    A, V = np.array([[1, 2], [2, 4]]), np.array([[1, 0], [0, 1]])
    ref = classify_av(A, V, 1)
    for scaled in (classify_av(A, 1e308 * V.astype(float), 1),
                   classify_av(1e-300 * A.astype(float), V, 1)):
        assert scaled.labels == ref.labels
        assert scaled.evidence.singular == ref.evidence.singular == "smooth"
        assert [f.jacobian_rank.value for f in scaled.evidence.fiber] == \
            [f.jacobian_rank.value for f in ref.evidence.fiber]
    Q, K = np.array([[1e200, -3e200, 2e200]]), np.array([[1e-100, 2e-100, 1e-100]])
    Vw = np.array([[1e150, 0, 2e150], [0, 1e150, 1e150]])
    r = classify_weights(Q, K, Vw)
    assert r.evidence.singular == "smooth" and r.agreement["singular"] == "agree"


def test_float64_boundary_probe_does_not_decide_rounding_noise_nonzero():
    """A = [[1, 2], [3, 6]] has rank 1, so T's (e | r b c) flattening has rank 1 and σ₂ = 0
    exactly; in float64 it comes out ~1e-16, which must not be "decided nonzero" (the squared
    tolerance of the mpmath probes is below float64 rounding)."""
    r = classify_av(np.array([[1., 2.], [3., 6.]]), np.eye(2), 1, RankOptions(None))
    flat = {p["flattening"]: p for p in r.evidence.probes}
    assert flat["(e | r b c)"]["sigma2_rel"] < 1e-12
    assert flat["(e | r b c)"]["decided_nonzero"] is False
