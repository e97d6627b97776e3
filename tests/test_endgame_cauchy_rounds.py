"""The Cauchy endgame's rounds go down to |1 - s| = 1e-12 (witness/endgame.py, CAUCHY_RADIUS).

The u ∥ w fiber of widths 3,2 ranks 1 (HMK: rk A = rk V = 1 with u ∥ w, one branch; paper-notes
§2) is one orbit of the torus (Q, K, V) ↦ (aQ, bK, cV), abc = 1, of the fiber system F, so the
dim-2 witness superset (2 gauge rows, no slice; numag.fiber_superset) has exactly one point on F,
a point of that orbit [derived]. It is a point of multiplicity 4 of the sliced randomized
system (measured): with at most 12 Cauchy rounds (radius down to 2.4e-8) 2 of its 4 paths
failed on every gamma of superset seed 2008052739 (the check of `studies/fibers.py --quick`,
seed 0), their loops closing around a branch point at |1 - s| ~ 1e-7 until the last round."""
import numpy as np
import pytest

from numag import Architecture
from numag.encode import fiber_system
from numag.fiber_complete import gauge
from numag.fiber_superset import witness_superset
from numag.points import sample_point


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2008052739, 1])
def test_parallel_fiber_witness_point_of_multiplicity_four_is_reached(seed):
    arch = Architecture((3, 2), (1,))
    fs = fiber_system(arch, sample_point(arch, "parallel", 0))
    g = gauge(fs, 0)
    assert g.torus is not None and g.torus.rows == 2 and g.shift == 0
    S = witness_superset(g.system, g.groups, 2, seed=seed, torus=g.torus)
    assert S.counts["failed"] == 0, S.counts
    assert len(S.points) == 1, S.counts
    x, w0 = S.points[0], np.array([complex(v) for v in fs.base_point])
    names = list(g.system.variables)
    scale = []
    for block in ("q", "k", "v"):
        idx = [i for i, v in enumerate(names) if v.startswith(block)]
        a = np.vdot(w0[idx], x[idx]) / np.vdot(w0[idx], w0[idx])
        np.testing.assert_allclose(x[idx], a * w0[idx], rtol=1e-7, atol=1e-7)
        scale.append(a)
    assert abs(np.prod(scale) - 1) < 1e-7        # a b c = 1: the torus orbit of W0
