"""Witness sets: a system, a random affine slice, and the slice's points on a pure-dim set.

A witness set of a pure k-dimensional algebraic set Z ⊂ V(F) ⊂ C^n is (F, L, Z ∩ L) with L a
generic affine linear space of codimension k, here the slice A x = b with A (k, n), b (k,)
complex (Sommese–Verschelde–Wampler 2001; Sommese–Wampler 2005, ch. 13). Its number of points
is the degree of Z. ``WitnessSet.square`` is F itself when F has n - k equations, otherwise a
random complex combination R F of n - k equations (points are always checked on F).

Functions here: ``move_slice`` (track the points to another slice), ``sample`` (points of Z on
random slices), ``square_part``, ``random_slice``, ``refine_witness_set`` (mpmath Newton). The
membership test is in ``witness.membership``, the trace test in ``witness.trace``,
``witness_set(F, dim)`` (a full decomposition) in ``witness.decompose``. Tolerances: one
options object per concern (``witness.options``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .jsonio import points_to_json, vector_to_json
from .options import Options, TrackerOptions
from .refine import RefineResult, refine
from .system import PolynomialSystem
from .tracking import TrackResult, random_gamma, track_slices

def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def random_complex(rng: np.random.Generator, *shape) -> np.ndarray:
    """Standard complex normal entries (complex128, the given shape)."""
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / math.sqrt(2)


def random_slice(rng: np.random.Generator, k: int, n: int, through=None):
    """Random affine slice A x = b (A (k, n), b (k,)); through a point if given."""
    A = random_complex(rng, k, n)
    b = A @ np.asarray(through, complex) if through is not None else random_complex(rng, k)
    return A, b


def random_translation(rng: np.random.Generator, k: int) -> np.ndarray:
    """Right-hand side b (k,) of a random slice parallel to a given one (A x = b): complex
    normal entries. The engine moves witness sets by translations (``witness.monodromy``)."""
    return random_complex(rng, k)


def square_part(F: PolynomialSystem, dim: int, rng: np.random.Generator) -> PolynomialSystem:
    """F if it has n - dim equations, else n - dim random complex combinations of F with its
    equations first scaled to unit coefficient 2-norm (row equilibration).

    Why equilibrate: the deep fiber systems (numag.encode, exact row-reduced coefficient
    equations) have coefficient norms from 3.9 to 42750 ((2,2,2) fiber); unscaled random
    combinations are dominated by the large equations and the small ones are lost in rounding.
    Measured at an ill-conditioned point of that system: condition number of the row-normalized
    homotopy Jacobian 1.4e6 without, 3.4e5 with equilibration. The zero set is unchanged."""
    k = F.n_vars - dim
    if not 0 <= dim < F.n_vars:
        raise ValueError(f"dim must be in 0..{F.n_vars - 1}, got {dim}")
    if F.n_equations < k:
        raise ValueError(f"{F.n_equations} equations cannot cut out dimension {dim} in "
                         f"{F.n_vars} variables (need at least {k})")
    if F.n_equations == k:
        return F
    norms = F.coefficient_norms()
    scale = np.where(norms > 0, 1 / np.where(norms > 0, norms, 1), 1.0)
    return F.randomize(k, rng, row_scale=scale)


def relative_distance(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """||x_i - y|| / (1 + ||y||) for rows x_i of X (p, n) -> (p,)."""
    return np.linalg.norm(X - y, axis=-1) / (1 + np.linalg.norm(y))


@dataclass(frozen=True, eq=False)
class WitnessSet:
    """(system, slice A x = b, points) of a pure ``dim``-dimensional set.

    system: the original PolynomialSystem F; square: the n - dim equations tracked (F or R F);
    slice_A complex128 (dim, n), slice_b (dim,); points complex128 (degree, n); seed: the seed of
    the random choices that made it (None if unknown)."""
    system: PolynomialSystem
    square: PolynomialSystem
    dim: int
    slice_A: np.ndarray
    slice_b: np.ndarray
    points: np.ndarray
    seed: int | None = None
    info: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        n = self.system.n_vars
        pts = np.asarray(self.points, complex).reshape(-1, n)
        object.__setattr__(self, "points", pts)
        if self.slice_A.shape != (self.dim, n) or self.slice_b.shape != (self.dim,):
            raise ValueError(f"slice shapes {self.slice_A.shape}, {self.slice_b.shape} do not "
                             f"match dim {self.dim} in {n} variables")

    @property
    def degree(self) -> int:
        return len(self.points)

    def with_points(self, points, **info) -> "WitnessSet":
        return WitnessSet(self.system, self.square, self.dim, self.slice_A, self.slice_b,
                          points, self.seed, {**self.info, **info})

    def slice_residual(self) -> np.ndarray:
        """max |A x - b| per point (p,)."""
        if self.dim == 0 or not len(self.points):
            return np.zeros(len(self.points))
        return np.abs(self.points @ self.slice_A.T - self.slice_b).max(axis=1)

    def __repr__(self) -> str:
        return (f"WitnessSet(dim={self.dim}, degree={self.degree}, n_vars={self.system.n_vars}, "
                f"n_equations={self.system.n_equations}, seed={self.seed})")

    def to_json(self) -> dict:
        return {"dim": self.dim, "degree": self.degree, "variables": list(self.system.variables),
                "points": points_to_json(self.points),
                "slice_A": points_to_json(self.slice_A) if self.dim else [],
                "slice_b": vector_to_json(self.slice_b), "seed": self.seed,
                **{k: v for k, v in self.info.items() if _jsonable(v)}}


def _jsonable(v) -> bool:
    return isinstance(v, (int, float, str, bool, list, dict, type(None)))


# ----------------------------------------------------------------------------- moving slices
def move_slice(W: WitnessSet, A1, b1, *, seed=None, method: str = "numpy",
               options: Options | TrackerOptions | None = None
               ) -> tuple[WitnessSet, TrackResult]:
    """Track W's points to the slice A1 x = b1 (gamma trick, random gamma from ``seed``).

    Returns (the moved WitnessSet with the successful endpoints that satisfy the original
    equations, the TrackResult with every path's status: failed paths are reported there and in
    ``info['failed_paths']``)."""
    rng = _rng(seed)
    A1, b1 = np.asarray(A1, complex), np.asarray(b1, complex)
    tr = track_slices(W.square, W.slice_A, W.slice_b, A1, b1, W.points, gamma=random_gamma(rng),
                      method=method, options=options, rng=rng)
    moved = WitnessSet(W.system, W.square, W.dim, A1, b1, tr.endpoints[tr.ok], W.seed,
                       {**W.info, "failed_paths": int((~tr.ok).sum())})
    return moved, tr


def sample(W: WitnessSet, count: int = 1, *, seed=None) -> np.ndarray:
    """``count`` x degree points of the set on fresh random slices parallel to W's (random
    translations): complex128 (count * degree, n) (only endpoints that tracked successfully)."""
    rng = _rng(seed)
    out = []
    for _ in range(count):
        moved, _ = move_slice(W, W.slice_A, random_translation(rng, W.dim), seed=rng)
        out.append(moved.points)
    return np.concatenate(out) if out else np.zeros((0, W.system.n_vars), complex)


# ----------------------------------------------------------------------------- refinement
def refine_witness_set(W: WitnessSet, digits: int = 30) -> RefineResult:
    """Newton refinement of W's points in mpmath on F together with the slice (Gauss–Newton when
    F has more than n - dim equations)."""
    return refine(W.system, W.points, digits, slice_A=W.slice_A, slice_b=W.slice_b)
