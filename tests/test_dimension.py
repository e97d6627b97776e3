"""dim M computed exactly vs the values and formulas of paper-notes §2–4 (HMK)."""
import numpy as np
import pytest

from numag import Architecture, dimension
from numag.arith import NumpyArithmetic
from numag.formulas import (deep_equal_width, deep_general, deep_general_uncorrected,
                            single_layer, single_layer_one_token)
from numag.jacobian import jacobian, random_inputs, random_weights
from numag.rank import RankOptions, numerical_rank


# --- single layer (HMK single-layer theorem): every (d, d', a) with d, d' ≤ 5 -----------------
@pytest.mark.parametrize("d", range(1, 6))
@pytest.mark.parametrize("d_out", range(1, 6))
def test_single_layer_sweep_matches_formula(d, d_out):
    for a in range(1, d + 2):                      # includes a > d
        r = dimension(Architecture.single(d, d_out, a), seed=d * 10 + d_out)
        assert r.dimension == single_layer(d, d_out, a), (d, d_out, a)
        assert r.certified and r.agrees_with_prediction


def test_paper_example_a_equals_d_equals_d_out():
    """paper-notes §2: a = d = d' gives 3d² params and dim 2d² − 1."""
    for d in (2, 3, 4, 6):
        r = dimension(Architecture.single(d, d, d))
        assert (r.params, r.dimension) == (3 * d * d, 2 * d * d - 1)


def test_one_token_formula():
    """t = 1 [derived]: r·d − r(r−1)/2 + dd' − 1, r = min(2a, d); computed, then compared."""
    for d, d_out, a in [(2, 1, 1), (3, 2, 1), (4, 2, 1), (4, 3, 2), (5, 2, 2), (5, 1, 3)]:
        r = dimension(Architecture.single(d, d_out, a, tokens=1), seed=1)
        assert r.dimension == single_layer_one_token(d, d_out, a), (d, d_out, a)
        assert any("degenerate" in n for n in r.notes)


# --- deep lightning (HMK deep theorem, equal widths) ------------------------------------------
@pytest.mark.parametrize("d, a, l", [(2, 1, 2), (2, 2, 2), (3, 2, 2), (3, 3, 2), (4, 2, 2),
                                     (3, 2, 3), (4, 3, 3), (8, 2, 3), (3, 2, 4)])
def test_deep_equal_width(d, a, l):
    r = dimension(Architecture((d,) * (l + 1), (a,) * l), seed=7)
    assert r.dimension == deep_equal_width(d, a, l)
    assert r.certified


def test_benchmark_orientation_value_depth_three():
    """paper-notes/issue: d = 8, a = 2, l = 3 is 145 (the float32 script reports 37–60)."""
    assert dimension(Architecture((8,) * 4, (2,) * 3)).dimension == 145


@pytest.mark.parametrize("seed", [0, 1])
def test_rank_one_theorem_example(seed):
    """widths 3,3,3, ranks 1,2 [derived; paper-notes §3.1], by hand: layer 1 gives
    2·1·3 + 9 − 1 = 14; layer 2 sees only S_2 (rank ≤ r = min(4, 3) = 3): 3·3 − 3 + 9 = 15;
    14 + 15 − 3² − 2 = 18. The uncorrected running-minimum form says 20. Certified: the split
    orthogonal symmetry O(2, 2) of layer 2 makes the upper bound 18 as well."""
    r = dimension(Architecture((3, 3, 3), (1, 2)), seed=seed)
    assert r.dimension == 18 == r.predicted.value and r.certified
    assert deep_general_uncorrected((3, 3, 3), (1, 2)) == 20


@pytest.mark.parametrize("widths, ranks, tokens, by_hand", [
    # (4,4,4)/(1,3): 2·4 − 1 + 16 = 23; r = 4: 16 − 6 + 16 = 26; 23 + 26 − 16 − 2 = 31
    ((4, 4, 4), (1, 3), 2, 31),
    # (3,3,3,3)/(2,1,2): 12 − 4 + 9 = 17, 6 − 1 + 9 = 14, r = 3: 9 − 3 + 9 = 15; 46 − 18 − 3 = 25
    ((3, 3, 3, 3), (2, 1, 2), 2, 25),
    # t = 1, every layer symmetric: (3,3,3)/(2,2): r = 3 twice: 15 + 15 − 9 − 2 = 19
    ((3, 3, 3), (2, 2), 1, 19),
])
def test_rank_one_theorem_values_by_hand(widths, ranks, tokens, by_hand):
    r = dimension(Architecture(widths, ranks, tokens), seed=3)
    assert r.dimension == by_hand and r.certified
    assert deep_general(widths, ranks, tokens) == by_hand


@pytest.mark.parametrize("widths, ranks", [((4, 3, 2), (2, 2)), ((5, 3, 3, 2), (2, 1, 2)),
                                           ((3, 2, 3), (2, 2)), ((4, 2, 4), (1, 2)),
                                           ((2, 4, 4), (2, 3)), ((1, 3, 2), (1, 2))])
def test_general_widths_running_minimum_form(widths, ranks):
    """Expanding widths after a narrow layer ((2,4,4), (1,3,2)) are certified through the
    reduced architecture (paper-notes §3.2)."""
    r = dimension(Architecture(widths, ranks), seed=2)
    assert r.agrees_with_prediction and r.certified, (r.dimension, r.predicted, r.upper_bound)


# --- softmax (HMK §4, Figure 3) -----------------------------------------------------------------
def test_softmax_single_layer():
    for d, d_out, a in [(2, 2, 1), (3, 2, 2), (3, 3, 1)]:
        r = dimension(Architecture.single(d, d_out, a, tokens=3, kind="softmax"), method="float")
        assert r.dimension == 2 * a * d + d * d_out - a * a and r.decided


@pytest.mark.parametrize("delta", [3, 4, 5])
def test_figure_3_softmax_float(delta):
    """HMK Fig. 3: l = 2, t = 3, a = 2, widths δ; dim δ² + 8δ − 8, #params 2δ² + 8δ."""
    r = dimension(Architecture((delta,) * 3, (2, 2), tokens=3, kind="softmax"), method="float",
                  seed=delta)
    assert r.params == 2 * delta ** 2 + 8 * delta
    assert r.dimension == delta ** 2 + 8 * delta - 8 and r.decided


@pytest.mark.parametrize("delta", [3, pytest.param(4, marks=pytest.mark.slow),
                                   pytest.param(5, marks=pytest.mark.slow)])
def test_figure_3_softmax_mp(delta):
    r = dimension(Architecture((delta,) * 3, (2, 2), tokens=3, kind="softmax"), method="mp",
                  seed=delta, rank_options=RankOptions(30))
    assert r.dimension == delta ** 2 + 8 * delta - 8 and r.decided


def test_softmax_refuses_exact():
    with pytest.raises(ValueError, match="not polynomial"):
        dimension(Architecture((3, 3), (1,), kind="softmax"), method="exact")


# --- backends and numerical pitfalls (paper-notes §6) ----------------------------------------
@pytest.mark.parametrize("widths, ranks", [((3, 2), (1,)), ((3, 3, 3), (2, 2)), ((2, 2, 2), (1, 1))])
def test_three_backends_agree_where_float_is_reliable(widths, ranks):
    arch = Architecture(widths, ranks)
    dims = {m: dimension(arch, method=m, seed=5,
                         rank_options=RankOptions(30) if m == "mp" else None)
            for m in ("exact", "mp", "float")}
    assert len({r.dimension for r in dims.values()}) == 1
    assert all(r.decided for r in dims.values())


def test_depth_three_fixed_cutoff_float_is_wrong_exact_is_right():
    """d = 4, a = 2, l = 3: numpy's matrix_rank (fixed relative cut-off) on the float64 Jacobian
    under-counts; the exact rank is certified and matches the theorem."""
    arch = Architecture((4,) * 4, (2,) * 3)
    ops = NumpyArithmetic(np.float64)
    rng = np.random.default_rng(0)
    J = jacobian(arch, random_weights(arch, ops, rng), random_inputs(arch, ops, rng, 56), ops)
    truth = deep_equal_width(4, 2, 3)
    assert np.linalg.matrix_rank(J) < truth
    float64 = RankOptions(None, rounded_input=False)
    assert numerical_rank(J, float64, equilibrated=False).decided is False   # undecided
    exact = dimension(arch, method="exact")
    assert exact.dimension == truth and exact.certified
    assert numerical_rank(J, float64).rank == truth      # equilibrated: right


def test_too_few_inputs_under_count_and_auto_n_saturates():
    """widths [6, 6], rank 6, t = 2: 66 with 10 inputs, 71 with enough (issue 2, item 4)."""
    arch = Architecture((6, 6), (6,))
    assert dimension(arch, n_inputs=10, trials=1).dimension == 66
    auto = dimension(arch)
    assert auto.dimension == 71 and auto.trials[-1].n_inputs > 10


def test_seed_is_recorded_and_reproducible():
    arch = Architecture((3, 3, 3), (2, 2))
    a, b = dimension(arch, method="float", seed=11), dimension(arch, method="float", seed=11)
    assert a.seed == 11 and a.trials == b.trials


@pytest.mark.parametrize("kwargs", [dict(method="svd"), dict(trials=0), dict(n_inputs=0)])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        dimension(Architecture((3, 2), (1,)), **kwargs)


@pytest.mark.parametrize("widths, ranks, tokens", [((3, 3, 3), (1, 2), 2), ((4, 4, 4), (1, 3), 2),
                                                   ((2, 4, 4), (2, 3), 2), ((3, 3, 3), (2, 2), 1),
                                                   ((1, 3, 2), (1, 2), 2)])
def test_rank_one_and_reduced_values_without_the_upper_bound(widths, ranks, tokens):
    """The saturation loop stops once the rank reaches the proved upper bound, so a wrong bound
    would hide a larger rank. Here N is fixed and large (no early stop): the exact rank of the
    full Jacobian still equals the formula of paper-notes §3.1."""
    r = dimension(Architecture(widths, ranks, tokens), n_inputs=80, trials=2, seed=4)
    assert r.dimension == deep_general(widths, ranks, tokens)
