"""Fibers by monodromy from W0 vs the known symmetries (HMK; paper-notes §2–3)."""
import pytest

from numag import Architecture
from numag.fibers import fiber
from numag.formulas import single_layer
from numag.points import sample_point

SEEDS = [1, 2]


def summary(r):
    return sorted((c.dim, c.degree) for c in r.components)


def certified(r):
    return all(c.trace_test["verdict"] is True for c in r.components)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(3, 2, 1), (2, 3, 1)])
def test_generic_fiber_is_one_orbit_of_dim_a2_plus_1(shape, seed):
    d, d_out, a = shape
    r = fiber(Architecture.single(d, d_out, a), kind="generic", seed=seed, blackbox=False)
    assert r.point_type == "generic"
    assert r.dimension == a * a + 1                        # HMK: GL_a × scaling orbit
    assert r.dimension == r.architecture.n_params - single_layer(d, d_out, a)
    assert len(r.components) == 1 and r.components[0].dim == a * a + 1
    assert certified(r) and r.matches


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_generic_fiber_rank_two(seed):
    r = fiber(Architecture.single(2, 2, 2), kind="generic", seed=seed, blackbox=False)
    assert r.dimension == 5 and [c.dim for c in r.components] == [5]
    assert certified(r) and r.matches


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(3, 2, 1), (2, 2, 1)])
def test_swap_fiber_has_two_components(shape, seed):
    r = fiber(Architecture.single(*shape), kind="swap", seed=seed, blackbox=False)
    assert r.point_type == "rank one (u ∦ w)"
    labels = sorted(c.label for c in r.components)
    assert labels == ["branch of W0", "swapped branch"]
    assert [c.dim for c in r.components] == [2, 2] and certified(r) and r.matches


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("d", [2, 3])
def test_a_equals_d_out_equals_one_generic_fiber_has_two_components(d, seed):
    r = fiber(Architecture.single(d, 1, 1), kind="generic", seed=seed, blackbox=False)
    assert r.point_type == "rank one (u ∦ w)"                # every point is rank one
    assert len(r.components) == 2 and all(c.dim == 2 for c in r.components)
    assert certified(r) and r.matches


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(2, 1, 1), (3, 2, 1)])
def test_parallel_fiber_is_one_branch_and_deflated(shape, seed):
    d = shape[0]
    r = fiber(Architecture.single(*shape), kind="parallel", seed=seed, blackbox=False)
    assert r.point_type == "rank one (u ∥ w)"
    assert r.tangent_dimension == r.dimension + d - 1      # paper-notes §2: drop by d − 1
    assert len(r.components) == 1 and r.components[0].dim == 2
    assert any("member" in e for e in r.evidence)           # the swap lies on the same branch
    assert certified(r) and r.matches


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(2, 1, 1), (3, 1, 2)])
def test_zero_fiber_components(shape, seed):
    d, d_out, a = shape
    r = fiber(Architecture.single(d, d_out, a), kind="zero", seed=seed, blackbox=False)
    assert r.point_type == "zero"
    dims = sorted(c.dim for c in r.components)
    rs = range(max(0, a - d), min(a, d) + 1)
    assert dims == sorted([q * (a - q) + a * d + d * d_out for q in rs] + [2 * a * d])
    assert certified(r) and r.matches
    assert {c.degree for c in r.components if "V = 0" in c.label} == {1}   # a linear space


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("widths, ranks", [((2, 1, 1), (1, 1)), ((2, 1, 2), (1, 1))])
def test_deep_generic_fiber_is_the_symmetry_orbit(widths, ranks, seed):
    r = fiber(Architecture(widths, ranks), seed=seed, blackbox=False)
    assert r.dimension == r.expected[0].dim                  # (S1)–(S3) orbit dimension
    assert len(r.components) == 1 and r.components[0].dim == r.dimension
    assert certified(r) and r.matches


def test_deep_expanding_widths_fiber_exceeds_the_symmetries():
    """widths 1,2,1: the fiber is larger than the (S1)–(S3) orbit, and it is reported."""
    r = fiber(Architecture((1, 2, 1), (1, 1)), seed=1, blackbox=False)
    assert r.dimension > r.expected[0].dim and not r.matches
    assert "extra dimension" in r.verdict


@pytest.mark.slow
def test_deep_two_two_two():
    r = fiber(Architecture((2, 2, 2), (1, 1)), seed=2, blackbox=False, timeout=1800)
    assert r.dimension == r.expected[0].dim == 8
    assert certified(r) and r.matches


@pytest.mark.parametrize("shape, kind", [((1, 1, 1), "generic"), ((1, 2, 1), "generic"),
                                         ((1, 1, 2), "generic"), ((2, 1, 1), "zero")])
def test_monodromy_agrees_with_blackbox_decomposition(shape, kind):
    r = fiber(Architecture.single(*shape), kind=kind, seed=3, blackbox=True)
    assert r.blackbox is not None and r.blackbox["agrees"], r.blackbox
    assert sorted((c["dim"], c["degree"]) for c in r.blackbox["components"]) == summary(r)
    assert r.matches


def test_given_weights_and_errors():
    arch = Architecture.single(3, 2, 1)
    r = fiber(arch, sample_point(arch, "swap", 5), seed=0, blackbox=False)
    assert r.point_type == "rank one (u ∦ w)"
    with pytest.raises(ValueError, match="lightning"):
        fiber(Architecture.single(2, 2, 1, kind="softmax"))
    with pytest.raises(ValueError, match="kind"):
        fiber(arch, kind="bogus")
