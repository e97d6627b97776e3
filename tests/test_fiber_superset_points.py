"""Which superset endpoints are on the fiber: the backward error at the torus-balanced point
(numag.fiber_superset, "Points on F").

Widths 2,1,2 ranks 1,1: every monomial of the fiber system F has degree 3 in each of the
classes Q_1, K_1, V_1 and degree 1 in each of Q_2, K_2, V_2 (φ_W(X)_{:,j} = V_2 Q_2 K_2
σ³ (q·x_j) Σ_k (q·x_k)², σ = Σ_k (v·x_k)(k·x_k); paper-notes §3.3), so scaling Q_1, K_1, V_1
by s and V_2 by s^-9 leaves every monomial, hence F, unchanged. A point off the fiber (F ≠ 0
exactly over Q) moved by such a torus element with s = 100 keeps |F| but its plain backward
error falls below residual_tol (the measure counts |V_2| ~ 1e-18 as 1): measured on the dim-6
superset of seed 0, a point with |F| = 2e6 had backward error 1.8e-10 and was reported on the
fiber. The balanced backward error rejects it; the base point W0 (on the fiber exactly), moved
the same way, is accepted."""
from fractions import Fraction

import numpy as np
import pytest

from numag import Architecture
from numag.encode import fiber_system
from numag.fiber_superset import diagonal_torus, on_system_residual
from numag.points import sample_point
from witness.options import DEFAULT

ARCH = Architecture((2, 1, 2), (1, 1))


def _spread(names, s: float) -> np.ndarray:
    """The torus element (Q_1, K_1, V_1) × s, V_2 × s^-9 as a vector of factors."""
    return np.array([s if v.startswith(("q1", "k1", "v1")) else s ** -9 if v.startswith("v2")
                     else 1.0 for v in names])


def _exact(poly: dict, y) -> Fraction:
    out = Fraction(0)
    for e, c in poly.items():
        term = Fraction(c)
        for yi, ei in zip(y, e):
            term *= yi ** ei
        out += term
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_a_point_off_the_fiber_is_not_on_it_after_a_torus_move(seed):
    fs = fiber_system(ARCH, sample_point(ARCH, "generic", seed))
    F = fs.system
    T = diagonal_torus(F)
    assert T.dim == 5      # 6 classes, one relation 3q1 + 3k1 + 3v1 + q2 + k2 + v2 = 0
    rng = np.random.default_rng(seed)
    y = [Fraction(int(a), int(b)) for a, b in zip(rng.integers(-9, 10, F.n_vars),
                                                  rng.integers(1, 7, F.n_vars))]
    assert any(_exact(p, y) != 0 for p in F.polynomials)    # off the fiber, exactly over Q
    Fy = np.array([complex(v) for v in F.evaluate_mp([complex(v) for v in y], 30)])
    assert np.abs(Fy).max() > 1e-3                      # off the fiber
    lam = _spread(F.variables, 100.0)
    x = np.array([complex(v) for v in y]) * lam
    Fx = np.array([complex(v) for v in F.evaluate_mp(list(x), 40)])
    np.testing.assert_allclose(Fx, Fy, rtol=1e-10, atol=1e-10)   # F is torus invariant
    tol, reject = DEFAULT.points.residual_tol, DEFAULT.points.residual_reject
    assert F.residual(x) < tol               # the plain measure is fooled ...
    assert on_system_residual(F, x[None], T)[0] > reject      # ... the balanced one is not
    w0 = np.array([complex(v) for v in fs.base_point]) * lam    # on the fiber: it is W0 moved
    assert on_system_residual(F, w0[None], T)[0] < 1e-13      # on the fiber: accepted
