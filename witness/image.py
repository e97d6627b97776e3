"""Images of polynomial maps: dimension and degree of the closure of f(C^n) by pseudo-witness sets.

A polynomial map f: C^n → C^m is given by its m coordinate polynomials (a ``PolynomialSystem``
whose "equations" are the coordinates, ``PolynomialMap``). Z = closure of f(C^n) is irreducible
(the image of the irreducible C^n). This module computes

* **dim Z** = the generic rank k of the Jacobian Df: an exact rank over a random prime field F_p
  at a random point (a certified lower bound: rank mod p ≤ rank over Q at that point ≤ generic
  rank), cross-checked by the numerical rank of Df at a random complex point (equilibrated rows,
  the one rank rule of the engine, ``witness.rank`` with ``options.RankOptions``: relative
  singular values above 1e-8 count, decided only with a gap >= 1e4). They must agree, else the dimension is undecided and no
  degree is computed. The generic fiber has dimension n − k.
* **deg Z** by a pseudo-witness set (Hauenstein–Sommese, "Witness sets of projections", Appl.
  Math. Comput. 2010): cut Z with a random affine space L of codimension k and the source with
  n − k affine hyperplanes M (random, or the caller's, e.g. a gauge of a symmetry group);
  {x ∈ M : f(x) ∈ L} maps onto the finite set Z ∩ L, whose
  size is deg Z. Only the image points count: each is kept with ONE representative source point
  (the image of a tracked source path is determined by its start image point, so one preimage
  per image point carries the whole monodromy action on Z ∩ L).

**Domains.** The source may be a variety X = V(h) ⊂ C^n instead of C^n: an irreducible complete
intersection of dimension n − r given by r equations and a smooth point of it (``domain``,
``start``), e.g. a group G° = {(C, e) : e det C = 1} acting on a point, whose image closure is
the orbit closure. The graph system then has the r equations h(x) = 0 as well, M has n − r − k
rows, and the dimension is the rank of Df on the tangent space T_start X (no random points of X
are available). Everything else is unchanged: Γ ≅ X is irreducible of dimension n − r.

Construction (all tracking by ``tracking.track_slices``, the public slice homotopy):

1. Projection. If m > k + ``EXTRA_COORDINATES`` the image is replaced by its image under a random
   linear P: C^m → C^q, q = k + EXTRA_COORDINATES, i.e. f by g = P ∘ f. For generic P with q ≥ k + 1
   the restriction P|Z is birational onto its image and P^{-1}(L') is a generic codimension-k
   affine space of C^m whenever L' is one of C^q, so deg closure(g(C^n)) = deg Z and
   Z ∩ P^{-1}(L') ↔ P(Z) ∩ L' point by point (Harris, *Algebraic Geometry*, Lecture 18: generic
   projections to dimension ≥ dim + 1 are birational, and degree is the number of points on a
   generic linear space). It keeps the tracked system small (q ≪ m for the rational normal curve
   of degree 60: q = 4 instead of m = 61). Two extra coordinates rather than one so that distinct
   image points are separated in more than one direction.
2. Graph. Γ = {(x, w) : w = g(x)} ⊂ C^{n+q} (``graph_system``: the ONE place where the map is
   evaluated for tracking: expanded polynomials, or the straight-line program of a ``ProgramMap``,
   e.g. a network's forward pass). Γ ≅ C^n has dimension n;
   the slice has n rows: n − k rows in x (M) and k rows in w (L), so moving L with M fixed is an
   ordinary slice homotopy (the gamma trick scales the fixed x-rows by a nonzero number, which
   leaves M unchanged).
3. Start. A random x0 on M (M random through x0, or the caller's M with x0 projected onto it)
   is on Γ with w0 = g(x0); L through w0, then one path to an L with random right-hand side
   (the base slice; as in ``monodromy._start``). Df restricted to M must have rank k at x0
   (M transverse to the fibers), else the result is undecided.
4. Monodromy, in rounds: each loop (base L → random L1 → base L; the out-legs of all loops
   share one gamma and run as one batch, each back-leg has its own gamma) takes the
   representatives it has not seen yet; a new loop is added whenever fewer paths
   are pending than points are known. An endpoint whose image point is DIFFERENT
   (``distinct.compare`` on the w-coordinates, with the Newton error estimates converted to
   the w scale; candidates from a k-d tree) from every known image point is new; SAME is a
   known point (the smaller representative is kept: fibers of maps with symmetries are
   non-compact); undecided endpoints are counted (``ambiguous_matches``) and not used.
5. Certificate, after every round: the linear trace test in the image (Sommese–Verschelde–
   Wampler 2002) on the w-coordinates of the image points, on two pencils of parallel L's (the
   base slice and an independent random L, i.e. a rotated slice of the image), with the
   tolerances of ``options.TraceOptions`` (``witness.trace.trace_verdict``) and failed paths
   meaning undecided, exactly as ``witness.trace``. Pencil paths are not rerouted (a detour
   may end at another point, which would break the point-to-point correspondence). Z is irreducible, so a set of
   image points with an affine-linear trace is all of Z ∩ L.

Paths are tracked in chunks of ``CHUNK`` (``track_slices`` compares all endpoints of a call
pairwise); the time budget is checked between chunks.

The degree is reported only when certified; at a budget (loops, paths, time) or with an
undecided trace test the result says ``certified=None`` (``False`` when the trace test showed
the points incomplete) and gives ``points_found`` (a lower bound), never a degree. The degree
is the **affine degree** of Z ⊂ C^m (= the degree of its projective closure in P^m); for a
homogeneous map (all coordinates homogeneous of one degree e ≥ 1) Z is a cone and this is also
the degree of the projective variety P(Z) ⊂ P^{m−1}.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np
from tqdm import tqdm

from . import distinct
from .distinct import compare_pairs
from .inputfile import read_system_file
from .jsonio import points_to_json
from .options import DEFAULT, Options, TrackerOptions, resolve
from .program import ProgramBuilder, emit_program, emit_system
from .program_system import ProgramSystem
from .rank import numerical_rank
from .system import PolynomialSystem
from .trace import (TraceTestResult, decide, pencil_linear, random_pencil, refined_residual,
                    trace_noise, trace_residual, trace_verdict, verdict_of)
from .tracking import TrackResult, newton_on_slice, random_gamma, track_slices
from .witness_set import random_complex

EXTRA_COORDINATES = 2    # q = k + 2 image coordinates after the random projection
EXACT_TRIALS = 2         # random (prime, point) pairs for the exact Jacobian rank
MAX_PENCIL_DRAWS = 3     # a pencil with failed paths is redrawn at most this often (monodromy)
CHUNK = 256              # paths per track_slices call: its collision check holds (p, p, n) arrays


# ----------------------------------------------------------------------------- the map
class _Shape:
    """n_source, n_target and variables of a map from its ``coordinates`` system."""

    @property
    def n_source(self) -> int:
        return self.coordinates.n_vars

    @property
    def n_target(self) -> int:
        return self.coordinates.n_equations

    @property
    def variables(self) -> tuple[str, ...]:
        return self.coordinates.variables


@dataclass(frozen=True, eq=False)
class PolynomialMap(_Shape):
    """f: C^n → C^m, x ↦ (f_1(x), ..., f_m(x)).

    coordinates: a PolynomialSystem whose m polynomials are the coordinates f_i and whose
    variables are the n source variables (variables that occur in no f_i are allowed: they
    enlarge the generic fiber)."""
    coordinates: PolynomialSystem

    @classmethod
    def from_strings(cls, polys, variables=None) -> "PolynomialMap":
        """Coordinates as strings (``PolynomialSystem.from_strings``; PolynomialSyntaxError on
        malformed input)."""
        return cls(PolynomialSystem.from_strings(polys, variables))

    def homogeneous_degree(self) -> int | None:
        """e if every coordinate is homogeneous of degree e ≥ 1 (zero coordinates allowed),
        else None."""
        degs = {sum(e) for p in self.coordinates.polynomials for e in p}
        return degs.pop() if len(degs) == 1 and 0 not in degs else None

    def is_constant(self) -> bool:
        return all(not any(e) for p in self.coordinates.polynomials for e in p)


@dataclass(frozen=True, eq=False)
class ProgramMap(_Shape):
    """f: C^n → C^m given by a straight-line program (``witness.program_system.ProgramSystem``
    whose outputs are the coordinates), evaluated as written: no expansion.

    coordinates: the ProgramSystem (its ``evaluate`` and ``jacobian`` serve as for a
    PolynomialMap); homogeneous: the degree e when the caller knows every coordinate to be
    homogeneous of degree e ≥ 1 in x (a program's degrees are only bounds), else None. There is
    no exact Jacobian rank of a program (its constants are floating point): pass the dimension
    to ``image_degree`` or accept the numerical rank."""
    coordinates: ProgramSystem
    homogeneous: int | None = None

    def homogeneous_degree(self) -> int | None:
        return self.homogeneous

    def is_constant(self) -> bool:
        return not np.any(self.coordinates.program.output_degrees)


AnyMap = PolynomialMap | ProgramMap


def graph_system(f: AnyMap, P: np.ndarray | None, names: list[str],
                 domain: PolynomialSystem | None = None):
    """The graph of g = P ∘ f as a system in (x, w): w_j − Σ_i P[j, i] f_i(x) = 0 (q equations,
    n + q variables; P None means g = f), then the r equations h(x) = 0 of the ``domain``
    X = V(h) if there is one: a PolynomialSystem for a PolynomialMap, a ProgramSystem (f's
    program replayed, then the q combinations, then h) for a ProgramMap.

    This is the one function that hands the map to the tracker."""
    if isinstance(f, ProgramMap):
        return _graph_program(f, P, names, domain)
    n, polys = f.n_source, f.coordinates.polynomials
    q = len(names)
    out = []
    for j in range(q):
        g: dict = {}
        rows = [(polys[j], 1)] if P is None else [(p, complex(c)) for p, c in zip(polys, P[j])
                                                   if c != 0]
        for p, c in rows:
            for e, a in p.items():
                key = tuple(e) + (0,) * q
                g[key] = g.get(key, 0) - (a * c if P is not None else a)
        g[(0,) * n + tuple(int(i == j) for i in range(q))] = Fraction(1) if P is None else 1 + 0j
        out.append({e: c for e, c in g.items() if c != 0})
    for h in () if domain is None else domain.polynomials:
        out.append({tuple(e) + (0,) * q: c for e, c in h.items()})
    return PolynomialSystem(tuple(f.variables) + tuple(names), tuple(out))


def _graph_program(f: ProgramMap, P: np.ndarray | None, names: list[str],
                   domain: PolynomialSystem | None) -> ProgramSystem:
    n, q = f.n_source, len(names)
    b = ProgramBuilder(n + q, 0, tuple(f.variables) + tuple(names))
    v = b.variables()
    g = emit_program(b, f.coordinates.program, v[:n])
    rows = [b.linear_combination(P[j], g) if P is not None else g[j] for j in range(q)]
    h = [] if domain is None else emit_system(b, domain, v[:n])
    prog = b.build([b.sub(v[n + j], rows[j]) for j in range(q)] + h,
                   {**f.coordinates.program.info, "graph": q})
    return ProgramSystem(prog, tuple(f.variables) + tuple(names))


# ----------------------------------------------------------------------------- dimension
@dataclass(frozen=True)
class ImageDimension:
    """dim of the closure of the image: exact lower bound and numerical cross-check.

    dimension: the decided value (None if undecided); exact_rank: largest rank of Df over F_p at
    random points (None when a coefficient is not rational); primes: the primes used;
    numerical_rank: rank of the equilibrated Df at a random complex point (None if undecided);
    sigma_rel: its singular values / the largest; decided; method: how it was decided."""
    dimension: int | None
    exact_rank: int | None
    primes: tuple[int, ...]
    numerical_rank: int | None
    sigma_rel: tuple[float, ...]
    decided: bool
    method: str

    def to_json(self) -> dict:
        return {"dimension": self.dimension, "exact_rank": self.exact_rank,
                "primes": list(self.primes), "numerical_rank": self.numerical_rank,
                "rank_zero_below": DEFAULT.rank.zero_below, "rank_min_gap": DEFAULT.rank.min_gap, "singular_values_relative": list(self.sigma_rel),
                "decided": self.decided, "method": self.method}


def random_prime(rng: np.random.Generator) -> int:
    """A random prime in [2^61, 2^62) (python-flint's primality test)."""
    while True:
        p = int(rng.integers(2**61, 2**62)) | 1
        if flint.fmpz(p).is_prime():
            return p


def exact_jacobian_rank(f: AnyMap, rng: np.random.Generator) -> tuple[int, int] | None:
    """(rank of Df mod p at a uniformly random point of F_p^n, p), or None if f has a
    non-rational coefficient. rank mod p ≤ generic rank over Q (a minor that vanishes
    generically vanishes mod p), so this is a certified lower bound; it equals the generic rank
    unless the point is a zero of a nonzero minor mod p (probability ≤ k·deg f / p <
    1e-16 here, Schwartz–Zippel). None for a ProgramMap too."""
    if isinstance(f, ProgramMap):
        return None                          # floating-point constants: no exact rank
    polys = f.coordinates.polynomials
    if not all(isinstance(c, Fraction) for p in polys for c in p.values()):
        return None
    n = f.n_source
    while True:
        p = random_prime(rng)
        if all(c.denominator % p for q in polys for c in q.values()):
            break
    x = [int(rng.integers(1, 2**62)) % p or 1 for _ in range(n)]
    inv = [pow(v, -1, p) for v in x]
    top = max((max(e, default=0) for q in polys for e in q), default=0)
    powers = [[pow(v, k, p) for k in range(top + 1)] for v in x]
    J = [[0] * n for _ in polys]
    for i, q in enumerate(polys):
        row = J[i]
        for e, c in q.items():
            mono = c.numerator * pow(c.denominator, -1, p) % p
            for j, k in enumerate(e):
                if k:
                    mono = mono * powers[j][k] % p
            for j, k in enumerate(e):
                if k:
                    row[j] = (row[j] + mono * k * inv[j]) % p
    M = flint.nmod_mat(len(polys), n, [v for row in J for v in row], p)
    return M.rank(), p


def jacobian_rank(J: np.ndarray) -> tuple[int | None, tuple[float, ...]]:
    """Numerical rank of J (m, n) with rows scaled to unit norm (rank-preserving), by the one
    rank rule of the engine (``witness.rank.numerical_rank``, ``RankOptions``: relative
    singular values above ``zero_below`` = 1e-8 count, decided only with a gap of at least
    ``min_gap`` = 1e4), else None (undecided). Returns (rank, σ/σ_1)."""
    norms = np.linalg.norm(J, axis=1, keepdims=True)
    J = J[norms[:, 0] > 0] / norms[norms[:, 0] > 0]
    if not len(J) or not J.shape[1]:
        return 0, ()
    d = numerical_rank(np.linalg.svd(J, compute_uv=False), DEFAULT.rank)
    return (d.rank if d.decided else None), d.relative


def numerical_jacobian_rank(f: AnyMap, x: np.ndarray) -> tuple[int | None, tuple]:
    """``jacobian_rank`` of Df(x)."""
    return jacobian_rank(f.coordinates.jacobian(np.asarray(x, complex)))


def image_dimension(f: AnyMap, rng: np.random.Generator,
                    given: int | None = None) -> ImageDimension:
    """dim of closure(f(C^n)) (see the module docstring). ``given``: a dimension known to the
    caller (e.g. numag's certified one); it is then only cross-checked numerically."""
    x = random_complex(rng, f.n_source)
    num, rel = numerical_jacobian_rank(f, x)
    if f.is_constant():
        return ImageDimension(0, 0, (), 0, rel, True, "constant map")
    if given is not None:
        ok = num == given
        return ImageDimension(given if ok else None, None, (), num, rel, ok,
                              "given by the caller; numerical rank " +
                              ("agrees" if ok else f"{num} disagrees: undecided"))
    trials = [exact_jacobian_rank(f, rng) for _ in range(EXACT_TRIALS)]
    if trials[0] is None:
        return ImageDimension(num, None, (), num, rel, num is not None,
                              "numerical rank only (non-rational coefficients or a program)")
    exact = max(r for r, _ in trials)
    primes = tuple(p for _, p in trials)
    ok = num == exact
    how = (f"exact rank mod p (lower bound) = numerical rank = {exact}" if ok else
           f"exact rank mod p {exact} != numerical rank {num}: undecided")
    return ImageDimension(exact if ok else None, exact, primes, num, rel, ok, how)


# ----------------------------------------------------------------------------- result
@dataclass(frozen=True)
class ImageResult:
    """Dimension and degree of the closure Z of the image of a polynomial map.

    dimension (k) and fiber_dimension (n − k): None if undecided. degree: deg Z when certified,
    else None; points_found: distinct image points on the base slice (a lower bound for deg Z);
    certified: True (trace test passed on every pencil, no failed path), False (the trace test
    showed the set incomplete), None (undecided: budget, failed paths, small margin, or the
    dimension undecided). homogeneous_degree: e for a homogeneous map, else None. trace: the
    final TraceTestResult. points: representatives (p, n + q) on the base slice (x then w);
    slice_A, slice_b: the base slice; projection: (q, m) complex or None (w = f(x));
    domain_equations: r, the number of equations of the source X ⊂ C^n (0: X = C^n)."""
    variables: tuple[str, ...]
    n_source: int
    n_target: int
    domain_equations: int
    dimension: int | None
    fiber_dimension: int | None
    degree: int | None
    points_found: int
    certified: bool | None
    homogeneous_degree: int | None
    dimension_check: ImageDimension
    trace: TraceTestResult | None
    loops: int
    paths_tracked: int
    failed_paths: int
    ambiguous_matches: int
    stop_reason: str
    seed: int
    seconds: float
    points: np.ndarray = field(repr=False, default=None)
    slice_A: np.ndarray = field(repr=False, default=None)
    slice_b: np.ndarray = field(repr=False, default=None)
    projection: np.ndarray | None = field(repr=False, default=None)

    @property
    def homogeneous(self) -> bool:
        return self.homogeneous_degree is not None

    @property
    def degree_meaning(self) -> str:
        k = self.dimension
        if self.homogeneous:
            return (f"degree of the affine cone Z ⊂ C^{self.n_target} (homogeneous map of degree "
                    f"{self.homogeneous_degree}) = degree of the projective variety P(Z) ⊂ "
                    f"P^{self.n_target - 1}" + (f" of dimension {k - 1}" if k else ""))
        return (f"affine degree of Z ⊂ C^{self.n_target}: points on a generic affine space of "
                f"codimension {k} (= degree of the projective closure of Z in P^{self.n_target})")

    @property
    def certificate(self) -> str:
        if self.dimension is None:
            return "none: the dimension is undecided (" + self.dimension_check.method + ")"
        if self.dimension == 0:
            return "the image is one point (constant map)"
        t = self.trace
        if self.certified:
            return (f"linear trace test in the image on {len(t.residuals)} pencils: residual "
                    f"{t.residual:.1e} < {t.tolerance:.0e}, {self.points_found} distinct image "
                    f"points")
        if self.certified is False:
            return (f"trace test FAILED ({t.reason}): {self.points_found} points found are not "
                    f"all of Z ∩ L; stop: {self.stop_reason}")
        why = "no trace test" if t is None else t.reason
        return f"undecided ({why}); stop: {self.stop_reason}"

    def to_json(self, points: bool = False) -> dict:
        out = {"variables": list(self.variables), "source_dimension": self.n_source,
               "target_dimension": self.n_target, "domain_equations": self.domain_equations,
               "dimension": self.dimension,
               "fiber_dimension": self.fiber_dimension, "degree": self.degree,
               "certified": self.certified, "points_found": self.points_found,
               "homogeneous": self.homogeneous, "homogeneous_degree": self.homogeneous_degree,
               "degree_meaning": self.degree_meaning if self.dimension is not None else None,
               "certificate": self.certificate,
               "dimension_check": self.dimension_check.to_json(),
               "trace": None if self.trace is None else self.trace.to_json(),
               "image_coordinates": (None if self.points is None else
                                     self.points.shape[1] - self.n_source),
               "projected": self.projection is not None,
               "loops": self.loops, "paths_tracked": self.paths_tracked,
               "failed_paths": self.failed_paths, "ambiguous_matches": self.ambiguous_matches,
               "stop_reason": self.stop_reason, "seed": self.seed,
               "seconds": round(self.seconds, 4)}
        if points and self.points is not None:
            out["pseudo_witness_points"] = points_to_json(self.points)
            out["slice_A"] = points_to_json(self.slice_A)
            out["slice_b"] = points_to_json(self.slice_b)
        return out

    def __repr__(self) -> str:
        return (f"ImageResult(dim={self.dimension}, fiber_dim={self.fiber_dimension}, degree="
                f"{self.degree}, found={self.points_found}, certified={self.certified}, "
                f"homogeneous={self.homogeneous}, loops={self.loops}, paths={self.paths_tracked}, "
                f"{self.seconds:.2f} s, seed={self.seed}, stop: {self.stop_reason})")


# ----------------------------------------------------------------------------- monodromy
# ----------------------------------------------------------------------------- same point
def _concatenate(parts: list[TrackResult]) -> TrackResult:
    """One TrackResult of consecutive chunks (arrays concatenated, counts and times summed)."""
    kw = {}
    for fld in dataclasses.fields(TrackResult):
        vals = [getattr(t, fld.name) for t in parts]
        if isinstance(vals[0], np.ndarray):
            kw[fld.name] = np.concatenate(vals)
        elif fld.name in ("seconds", "rerouted", "recovered"):
            kw[fld.name] = sum(vals)
        else:
            kw[fld.name] = vals[0]
    return TrackResult(**kw)


class _Deadline(Exception):
    """The time budget ran out between two batches of paths."""


class _Run:
    """The graph system, the fixed source slice M, representatives with w-scale error
    estimates, and path accounting of one computation."""

    def __init__(self, G: PolynomialSystem, n: int, k: int, M: tuple, rng, options,
                 deadline: float | None = None):
        self.G, self.n, self.k, self.rng, self.options = G, n, k, rng, options
        self.deadline = deadline
        self.q = G.n_vars - n
        self.M_A, self.M_b = M
        self.rx = len(self.M_A)                  # slice rows in x (M); then k rows in w (L)
        self.Z = np.zeros((0, G.n_vars), complex)
        self.err = np.zeros(0)
        self.paths = self.failed = self.ambiguous = 0

    def slice(self, through=None, size: float = 1.0):
        """rx + k rows (rx = n − r − k: dim X = n − r): the rx rows of M (x only), then k
        random rows of L (w only) with a random right-hand side of norm ~ size, or through the
        point ``through`` (n + q,)."""
        n, q, k, rx = self.n, self.q, self.k, self.rx
        A = np.zeros((rx + k, n + q), complex)
        A[:rx, :n] = self.M_A
        A[rx:, n:] = random_complex(self.rng, k, q)
        b = np.concatenate([self.M_b, A[rx:] @ through if through is not None else
                            size * random_complex(self.rng, k) / math.sqrt(max(k, 1))])
        return A, b

    def track(self, A0, b0, A1, b1, Z, gamma, which=None, reroute: bool = True) -> TrackResult:
        """track_slices from the slice (A0, b0) to (A1, b1), in chunks of CHUNK paths (the
        same homotopy, so the same paths); raises _Deadline before a chunk when the time budget
        is spent. With ``which`` (p,) ints, A1 (g, n, n + q) and b1 (g, n) are g target slices
        and path i goes to slice which[i], all in one batch (collisions are looked for among
        the paths of one target only). ``reroute=False`` where the path-to-path correspondence
        matters (trace pencils): a rerouted path may end at another point of the slice."""
        parts = []
        for i in range(0, max(len(Z), 1), CHUNK):
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise _Deadline
            w = None if which is None else which[i:i + CHUNK]
            tr = track_slices(self.G, A0, b0, A1 if w is None else A1[w],
                              b1 if w is None else b1[w], Z[i:i + CHUNK], gamma=gamma,
                              options=self.options, groups=w, reroute=reroute)
            self.paths += tr.n_paths
            self.failed += int((~tr.ok).sum())
            parts.append(tr)
        return parts[0] if len(parts) == 1 else _concatenate(parts)

    def w_scale(self, Z: np.ndarray, accuracy) -> np.ndarray:
        """Raw accuracies (relative to 1 + |z|, not floored; NaN as inf) on the w scale."""
        a = np.nan_to_num(np.asarray(accuracy, float).reshape(len(Z)), nan=np.inf)
        return a * (1 + np.linalg.norm(Z, axis=1)) / (1 + np.linalg.norm(Z[:, self.n:], axis=1))

    def w_errors(self, Z: np.ndarray, accuracy) -> np.ndarray:
        """Newton error estimates (relative to 1 + |z|) converted to the w-coordinates' scale
        (relative to 1 + |w|): |dw| ≤ |dz| = e (1 + |z|)."""
        e = distinct.error_estimates(accuracy, len(Z))
        return e * (1 + np.linalg.norm(Z, axis=1)) / (1 + np.linalg.norm(Z[:, self.n:], axis=1))

    def match(self, E: np.ndarray, err: np.ndarray) -> np.ndarray:
        """Per endpoint (rows of E): index of the known image point it is (SAME on w), or the
        index it gets as a new point (appended; endpoints of one batch are deduplicated among
        themselves by the same rule), or -2: undecided against some point (counted in
        ``ambiguous``, not used)."""
        n = self.n
        idx = np.full(len(E), -1)
        I, J, codes, D = compare_pairs(E[:, n:], err, self.Z[:, n:], self.err)
        for r in np.unique(I):
            sel = I == r
            same = sel & (codes == distinct.SAME)
            if same.any():
                j = J[same][np.argmin(D[same])]
                idx[r] = j
                self._reseat(j, E[r], err[r])
            else:
                idx[r] = -2
        cand = np.flatnonzero(idx == -1)
        I, J, codes, D = compare_pairs(E[cand, n:], err[cand], E[cand, n:], err[cand])
        earlier = J < I                            # against candidates before it in the batch
        first = np.full(len(cand), -1)
        for a in range(len(cand)):
            sel = earlier & (I == a)
            if not sel.any():
                first[a] = a
                continue
            same = sel & (codes == distinct.SAME)
            b = J[same][np.argmin(D[same])] if same.any() else -1
            first[a] = first[b] if b >= 0 and not (sel & (codes != distinct.SAME)).any() \
                else -2
        new = [a for a in range(len(cand)) if first[a] == a]
        where = {a: len(self.Z) + i for i, a in enumerate(new)}
        for a in range(len(cand)):
            idx[cand[a]] = -2 if first[a] < 0 else where[first[a]]
        self.Z = np.vstack([self.Z, E[cand[new]]])
        self.err = np.concatenate([self.err, err[cand[new]]])
        self.ambiguous += int((idx == -2).sum())
        return idx

    def _reseat(self, j: int, z: np.ndarray, e: float) -> None:
        """Keep the smaller of two representatives of image point j. Why: the fibers of maps
        with symmetries are non-compact (a GL_a orbit for attention), loops carry
        representatives far out on them (measured on (3,1,3): paths failed with min_step at
        |x| ~ 1e3), and any preimage serves: the image path of a tracked point depends only on
        its image point, so trace values already computed for j stay valid."""
        if np.linalg.norm(z[:self.n]) < np.linalg.norm(self.Z[j, :self.n]):
            self.Z[j] = z
            self.err[j] = e


class _Pencil:
    """Parallel L's: w-rows' right-hand side b + t v, t in (0, t1, t2), on the base slice or on
    an independent random slice reached by one fixed homotopy; fixed gammas, so every
    representative has one trace value per t whenever it is added (as ``monodromy._Pencil``).
    Values are the w-coordinates."""

    def __init__(self, run: _Run, A, b, base: bool):
        self.run, self.A_base, self.b_base, self.base = run, A, b, base
        self.draws = 0
        self.draw()

    def draw(self) -> None:
        run = self.run
        if self.base:
            self.A, self.b, self.reach = self.A_base, self.b_base, None
        else:
            self.A, self.b = run.slice(size=float(np.linalg.norm(self.b_base[run.rx:])))
            self.reach = random_gamma(run.rng)
        v, self.ts = random_pencil(run.rng, run.k)
        # the pencil moves L by a step of the size of its right-hand side: a unit step on
        # image points of size ~1e4 was a relative move of 1e-4 whose nonlinearity (one point
        # of the parabola (s, 1e4 s^2)) fell below the trace tolerance: degree 1 "certified"
        size = max(1.0, float(np.linalg.norm(self.b[run.rx:])))
        self.v = np.concatenate([np.zeros(run.rx, complex), size * v])
        self.gamma = random_gamma(run.rng)
        self.values = [np.zeros((0, run.q), complex) for _ in range(3)]
        self.points = [np.zeros((0, run.n + run.q), complex) for _ in range(3)]
        self.err = [np.zeros(0) for _ in range(3)]
        self.acc = [np.zeros(0) for _ in range(3)]   # raw, on the w scale (trace_noise)
        self.ok = np.zeros(0, bool)
        self.draws += 1

    def compute(self) -> None:
        """Trace values of the representatives not done yet."""
        run, start = self.run, len(self.ok)
        if start >= len(run.Z):
            return
        Z = run.Z[start:]
        ok = np.ones(len(Z), bool)
        err0 = run.err[start:]
        if not self.base:
            tr = run.track(self.A_base, self.b_base, self.A, self.b, Z, self.reach,
                           reroute=False)
            Z, ok, acc0 = tr.endpoints, tr.ok.copy(), tr.accuracy
            err0 = run.w_errors(Z, tr.accuracy)
        else:          # the representatives' own accuracy: Newton on the slice
            Z, acc0 = newton_on_slice(run.G, self.A, self.b, Z, iterations=2,
                                      options=run.options)
        vals, errs, pts, accs = [Z[:, run.n:]], [err0], [Z], [run.w_scale(Z, acc0)]
        p = len(Z)                          # both translates in one batch, one fixed gamma
        targets = np.stack([self.b + t * self.v for t in self.ts[1:]])
        tr = run.track(self.A, self.b, np.stack([self.A, self.A]), targets, np.vstack([Z, Z]),
                       self.gamma, which=np.repeat([0, 1], p), reroute=False)
        for j in (0, 1):
            part = slice(j * p, (j + 1) * p)
            vals.append(tr.endpoints[part, run.n:])
            pts.append(tr.endpoints[part])
            errs.append(run.w_errors(tr.endpoints[part], tr.accuracy[part]))
            accs.append(run.w_scale(tr.endpoints[part], tr.accuracy[part]))
            ok &= tr.ok[part]
        ok &= ~self._collides(vals, errs)
        for j in range(3):
            self.values[j] = np.vstack([self.values[j], vals[j]])
            self.points[j] = np.vstack([self.points[j], pts[j]])
            self.err[j] = np.concatenate([self.err[j], errs[j]])
            self.acc[j] = np.concatenate([self.acc[j], accs[j]])
        self.ok = np.concatenate([self.ok, ok])

    def _collides(self, vals, errs) -> np.ndarray:
        """New trace values not DIFFERENT from earlier ones on the same slice or from each
        other (a path jumped, or undecided): such values are unusable. (track_slices checks
        collisions only inside one chunk.)"""
        bad = np.zeros(len(vals[0]), bool)
        for j in range(1 if self.base else 0, 3):
            I, _, _, _ = compare_pairs(vals[j], errs[j], self.values[j], self.err[j])
            bad[I] = True
            I, J, _, _ = compare_pairs(vals[j], errs[j], vals[j], errs[j])
            bad[I[I != J]] = True
        return bad

    def residual(self) -> float:
        return trace_residual(self.values, self.ts)

    def decided(self) -> tuple[float, float, int]:
        """``witness.trace.decide`` of this pencil (the w-values' rounding noise; refined on
        the graph system and the pencil's slices)."""
        run = self.run
        refine = lambda: refined_residual(run.G, (self.A, self.b, self.v),  # noqa: E731
                                          self.points, self.ts,
                                          run.options.trace.refine_digits, slice(run.n, None))
        return decide(self.residual(), trace_noise(self.values, self.ts, self.acc),
                      not self.ok.all(), refine, run.options)


def _trace(pencils: list[_Pencil], opts: Options) -> TraceTestResult:
    """Two-pencil linear trace test of all representatives (the confirmation pencil only when
    the base pencil passes; a pencil with failed paths is redrawn, at most MAX_PENCIL_DRAWS)."""
    parts, failed = [], 0
    for pen in pencils:
        pen.compute()
        if not pen.ok.all() and pen.draws < MAX_PENCIL_DRAWS:
            pen.draw()
            pen.compute()
        parts.append(pen.decided())
        failed += int((~pen.ok).sum())
        if failed or not pencil_linear(parts[-1], opts):
            break
    return verdict_of(parts, failed, opts)


def _start(run: _Run, z0: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """Base slice: M, and an L with random right-hand side, reached by one path from the
    L through the start point z0 = (x0, g(x0)) (x0 on M); ValueError-free: if 3 attempts fail,
    the slice through z0 is the base (said in the stop reason)."""
    At, bt = run.slice(through=z0)
    A0, b0 = run.slice(size=max(1.0, float(np.linalg.norm(bt[run.rx:]))))
    for _ in range(3):
        tr = run.track(At, bt, A0, b0, z0[None, :], random_gamma(run.rng))
        if tr.ok[0]:
            run.match(tr.endpoints[:1], run.w_errors(tr.endpoints[:1], tr.accuracy))
            return A0, b0, "random"
    run.match(z0[None, :], run.w_errors(z0[None, :], None))
    return At, bt, "through the start point (moving it failed 3 times)"


def _source_slice(n: int, k: int, given, rng, r: int = 0, start=None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A_x (n − r − k, n), b_x, x0): the caller's M with a random point of it, or a random M
    through a random x0 (a generic affine space: (x0, A_x) are random). With a domain (r
    equations, its point ``start``): M through ``start``, or the caller's M, which must
    contain it."""
    rows = n - r - k
    x0 = random_complex(rng, n) if start is None else start
    if given is None:
        A = random_complex(rng, rows, n)
        return A, A @ x0, x0
    A, b = (np.asarray(v, complex) for v in given)
    if A.shape != (rows, n) or b.shape != (rows,) or not (np.all(np.isfinite(A))
                                                         and np.all(np.isfinite(b))):
        raise ValueError(f"source_slice must be finite (A, b) of shapes ({rows}, {n}), "
                         f"({rows},): n - (domain equations) - dimension rows; got {A.shape}, "
                         f"{b.shape}")
    if start is not None:
        if rows and np.linalg.norm(A @ x0 - b) > 1e-10 * (1 + np.linalg.norm(b)):
            raise ValueError("source_slice does not contain the start point")
        return A, b, x0
    if rows == 0:
        return A, b, x0
    x0 = x0 + np.linalg.lstsq(A, b - A @ x0, rcond=None)[0]     # nearest point of M
    if np.linalg.norm(A @ x0 - b) > 1e-10 * (1 + np.linalg.norm(b)):
        raise ValueError("source_slice is inconsistent (rank-deficient rows)")
    return A, b, x0


def restricted_rank(f: AnyMap, A: np.ndarray, x0: np.ndarray) -> int | None:
    """``jacobian_rank`` of Df(x0) restricted to the directions of M (ker A; with a domain,
    A also holds Dh(x0), so ker A is the tangent space of X ∩ M). It must equal dim Z: then M
    meets the fibers transversally at x0 and f|M is generically finite onto a k-dimensional
    image."""
    N = np.eye(f.n_source) if not len(A) else np.linalg.svd(A)[2][len(A):].conj().T
    return jacobian_rank(f.coordinates.jacobian(x0) @ N)[0]


def _domain_start(f: AnyMap, domain: PolynomialSystem, start) -> tuple[np.ndarray, np.ndarray]:
    """(x0 (n,) complex, Dh(x0) (r, n)) after checking that ``start`` is a smooth point of the
    complete intersection X = V(h) of dimension n − r (ValueError otherwise)."""
    if tuple(domain.variables) != tuple(f.variables):
        raise ValueError(f"the domain's variables {list(domain.variables)} must be the map's "
                         f"{list(f.variables)} (same order)")
    if start is None:
        raise ValueError("a domain needs a start point on it (start=)")
    x0 = np.asarray(start, complex)
    if x0.shape != (f.n_source,) or not np.all(np.isfinite(x0)):
        raise ValueError(f"start must be a finite vector of length {f.n_source}, got shape "
                         f"{x0.shape}")
    res = float(np.max(np.abs(domain.evaluate(x0)), initial=0.0))
    if res > 1e-10 * (1 + float(np.linalg.norm(x0))):
        raise ValueError(f"start is not on the domain: max |h(start)| = {res:.1e}")
    Dh = domain.jacobian(x0)
    if jacobian_rank(Dh)[0] != domain.n_equations:
        raise ValueError(f"the domain's Jacobian at start does not have full rank "
                         f"{domain.n_equations} (undecided or smaller): X = V(h) must be a "
                         f"complete intersection, smooth at start")
    return x0, Dh


def _domain_dimension(f: AnyMap, x0: np.ndarray, Dh: np.ndarray,
                     given: int | None = None) -> ImageDimension:
    """dim of closure(f(X)) for a domain X: the numerical rank of Df(x0) on T_x0 X = ker Dh(x0)
    (the engine's rank rule; cross-checked against ``given``). x0 is the caller's start point,
    so this is the generic rank only if x0 is a generic point of X (e.g. any point of a group
    acting transitively on X)."""
    N = np.linalg.svd(Dh)[2][len(Dh):].conj().T
    num, rel = jacobian_rank(f.coordinates.jacobian(x0) @ N)
    how = "numerical rank of Df on the domain's tangent space at the start point"
    if given is not None:
        ok = num == given
        return ImageDimension(given if ok else None, None, (), num, rel, ok,
                              f"given by the caller; {how} " +
                              ("agrees" if ok else f"{num} disagrees: undecided"))
    return ImageDimension(num, None, (), num, rel, num is not None, how)


def image_degree(f: AnyMap | PolynomialSystem, *, seed: int | None = None,
                 dimension: int | None = None, source_slice=None,
                 domain: PolynomialSystem | None = None, start=None, max_loops: int = 100,
                 max_paths: int = 2_000_000, timeout: float | None = None,
                 options: Options | TrackerOptions | None = None,
                 progress: bool | None = None) -> ImageResult:
    """Dimension and degree of the closure of the image of f, by a pseudo-witness set.

    Parameters
    ----------
    f : PolynomialMap, ProgramMap or PolynomialSystem
        The map C^n → C^m (a PolynomialSystem is read as its coordinate polynomials; a
        ProgramMap is evaluated as its straight-line program, never expanded).
    seed : int, optional
        Seed of every random choice (drawn and recorded when None).
    dimension : int, optional
        The image dimension k if the caller knows it (e.g. certified by numag); then only
        cross-checked numerically. Default: computed (``image_dimension``).
    source_slice : (A (n − r − k, n), b (n − r − k,)) complex, optional
        The affine space M = {A x = b} that cuts the fibers (default: random). A caller may
        pass a special M, e.g. one fixing the gauge of a known symmetry group, when it meets
        the generic fiber transversally in finitely many points; this is checked (rank of
        Df restricted to M = k at a random point of M), else the result is undecided.
    domain : PolynomialSystem, optional
        r equations h(x) = 0 (in f's variables, same order) of the source X ⊂ C^n: the image
        is then closure(f(X)). X must be an irreducible complete intersection of dimension
        n − r (the caller's claim, e.g. a group {e det C = 1}; not checked beyond smoothness
        at ``start``), so that closure(f(X)) is irreducible and the trace test certifies it.
        Default: X = C^n (r = 0).
    start : (n,) complex, required with ``domain``
        A point of X (|h| ≤ 1e-10 (1 + |start|)) where Dh has rank r; the dimension is the
        rank of Df on T_start X, so ``start`` must be a generic point of X (any point of a
        homogeneous X, e.g. a group's identity). M passes through it.
    max_loops, max_paths, timeout : budget of the monodromy; reaching it gives
        ``certified=None`` and no degree.
    options : witness.Options (or its TrackerOptions alone): the tracker's options for every
        ``track_slices`` call, the trace test's tolerances (``TraceOptions``).
    progress : tqdm bar (None: only on a terminal).

    Returns
    -------
    ImageResult

    Raises
    ------
    ValueError
        ``dimension`` out of range 0..min(n − r, m), a malformed ``source_slice``, a domain
        in other variables, without a start point on it, or singular there.

    Examples
    --------
    >>> r = image_degree(PolynomialMap.from_strings(["t", "t^2", "t^3"]), seed=1)
    >>> (r.dimension, r.fiber_dimension, r.degree, r.certified)
    (1, 0, 3, True)

    References
    ----------
    Hauenstein, Sommese, "Witness sets of projections", Appl. Math. Comput. 217 (2010);
    Chen, Kileel, "Numerical implicitization", J. Softw. Algebra Geom. 9 (2019);
    Sommese, Verschelde, Wampler, "Symmetric functions applied to decomposing solution sets of
    polynomial systems", SIAM J. Numer. Anal. 40 (2002) (linear trace).
    """
    t0 = time.perf_counter()
    f = f if isinstance(f, (PolynomialMap, ProgramMap)) else PolynomialMap(f)
    n, m = f.n_source, f.n_target
    r = 0 if domain is None else domain.n_equations
    if dimension is not None and not 0 <= dimension <= min(n - r, m):
        raise ValueError(f"dimension must be in 0..{min(n - r, m)}, got {dimension}")
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    if domain is None:
        x0, Dh = None, np.zeros((0, n), complex)
        dim = image_dimension(f, rng, dimension)
    else:
        x0, Dh = _domain_start(f, domain, start)
        dim = _domain_dimension(f, x0, Dh, dimension)
    common = dict(variables=f.variables, n_source=n, n_target=m, domain_equations=r,
                  homogeneous_degree=f.homogeneous_degree() if domain is None else None,
                  dimension_check=dim, seed=seed)
    k = dim.dimension
    if k is None:
        return _undecided(common, "dimension undecided", t0)
    if k == 0:
        return ImageResult(**common, dimension=0, fiber_dimension=n - r, degree=1,
                           points_found=1,
                           certified=True, trace=None, loops=0, paths_tracked=0, failed_paths=0,
                           ambiguous_matches=0, stop_reason="constant map",
                           seconds=time.perf_counter() - t0)
    MA, Mb, x0 = _source_slice(n, k, source_slice, rng, r, x0)
    if restricted_rank(f, np.vstack([Dh, MA]), x0) != k:
        return _undecided(common, f"Df restricted to the source slice M does not have rank "
                                  f"{k} at a point of M (M not transverse to the fibers, "
                                  f"or the dimension is wrong)", t0)
    return _degree(f, k, x0, (MA, Mb), rng, common, max_loops, max_paths, timeout, options,
                   progress, t0, domain)


def _undecided(common: dict, reason: str, t0: float) -> ImageResult:
    d = common["dimension_check"].dimension
    return ImageResult(**common, dimension=d, fiber_dimension=None if d is None else
                       common["n_source"] - common["domain_equations"] - d, degree=None,
                       points_found=0, certified=None,
                       trace=None, loops=0, paths_tracked=0, failed_paths=0,
                       ambiguous_matches=0, stop_reason=reason, seconds=time.perf_counter() - t0)


def _projection(rng, q: int, y0: np.ndarray) -> np.ndarray | None:
    """Random P (q, m) scaled so that |P y0| ~ sqrt(q) (image points of size ~1 near the
    start), or None when q = m (w = f(x))."""
    if q == len(y0):
        return None
    P = random_complex(rng, q, len(y0))
    size = float(np.linalg.norm(P @ y0))
    return P * (math.sqrt(q) / size if size > 0 else 1.0)


def _degree(f: AnyMap, k: int, x0, M, rng, common: dict, max_loops, max_paths, timeout,
            options, progress, t0, domain=None) -> ImageResult:
    n, m = f.n_source, f.n_target
    y0 = f.coordinates.evaluate(x0)
    P = _projection(rng, min(m, k + EXTRA_COORDINATES), y0)
    G = graph_system(f, P, _fresh_names(f.variables, len(y0) if P is None else len(P)),
                     domain)
    options = resolve(options)
    run = _Run(G, n, k, M, rng, options)
    A0, b0, base = _start(run, np.concatenate([x0, y0 if P is None else P @ y0]))
    run.deadline = None if timeout is None else t0 + timeout
    size = float(np.linalg.norm(b0[run.rx:]))
    pencils = [_Pencil(run, A0, b0, base=True), _Pencil(run, A0, b0, base=False)]
    loops: list[tuple] = []
    pushed: list[int] = []                       # per loop: representatives pushed through it
    bar = tqdm(desc="image degree", unit="pt", file=sys.stderr, leave=False,
               disable=None if progress is None else not progress)
    test = trace_verdict([], 0, options)
    gamma_out = random_gamma(rng)
    try:
        while True:
            test = _trace(pencils, options)
            bar.n = len(run.Z)
            bar.set_postfix(loops=len(loops), paths=run.paths)
            if test.verdict is True:
                reason = "trace test certified the image points"
                break
            if run.paths >= max_paths:
                reason = f"path budget {max_paths}"
                break
            # a new loop whenever fewer paths are pending than points are known: one loop's
            # permutation alone walks its cycles one point per round (measured on (3,3,1):
            # 1813 batches of one path in 60 s)
            if sum(len(run.Z) - c for c in pushed) < len(run.Z):
                if len(loops) >= max_loops:
                    if all(c == len(run.Z) for c in pushed):
                        reason = f"loop budget {max_loops}"
                        break
                else:
                    loops.append((*run.slice(size=size), random_gamma(rng)))
                    pushed.append(0)
            _round(run, A0, b0, loops, pushed, gamma_out)
    except _Deadline:
        reason = f"timeout {timeout:g} s"
        test = dataclasses.replace(test, verdict=None)      # about fewer points: undecided
    bar.close()
    certified = test.verdict
    return ImageResult(**common, dimension=k,
                       fiber_dimension=n - common["domain_equations"] - k,
                       degree=len(run.Z) if certified else None, points_found=len(run.Z),
                       certified=certified, trace=test, loops=len(loops),
                       paths_tracked=run.paths, failed_paths=run.failed,
                       ambiguous_matches=run.ambiguous,
                       stop_reason=reason + ("" if base == "random" else f"; base slice {base}"),
                       seconds=time.perf_counter() - t0, points=run.Z.copy(), slice_A=A0,
                       slice_b=b0, projection=P)


def _round(run: _Run, A0, b0, loops: list, pushed: list[int], gamma_out: complex) -> None:
    """Every loop takes the representatives it has not seen yet: all out-legs (base L → each
    loop's L1, one gamma) as one batch, then each loop's back-leg (its own gamma)."""
    todo = [np.arange(c, len(run.Z)) for c in pushed]
    live = [li for li, t in enumerate(todo) if len(t)]
    for li in range(len(loops)):
        pushed[li] = len(run.Z)
    if not live:
        return
    which = np.concatenate([np.full(len(todo[li]), j) for j, li in enumerate(live)])
    out = run.track(A0, b0, np.stack([loops[li][0] for li in live]),
                    np.stack([loops[li][1] for li in live]),
                    run.Z[np.concatenate([todo[li] for li in live])], gamma_out, which=which)
    for j, li in enumerate(live):
        A1, b1, g_back = loops[li]
        sel = (which == j) & out.ok
        back = run.track(A1, b1, A0, b0, out.endpoints[sel], g_back)
        E = back.endpoints[back.ok]
        run.match(E, run.w_errors(E, back.accuracy[back.ok]))


def _fresh_names(taken, q: int) -> list[str]:
    base = "w"
    while any(f"{base}{j}" in taken for j in range(q)):
        base = "_" + base
    return [f"{base}{j}" for j in range(q)]


# ----------------------------------------------------------------------------- input / CLI
def read_map(path: str, parameters=None) -> PolynomialMap:
    """Read a map from FILE ('-': stdin) in the witness input format (``witness.inputfile``):
    optional headers ``variables: x, y, z`` (the source variables and their order; without it,
    the variables in natural order) and ``parameters: p``, then one coordinate polynomial per
    line (or ';'-separated); '#' starts a comment line. ``parameters``: the values of the
    file's parameters (mapping), if it has any.

    Raises ValueError (SystemFileError: empty file, bad header, non-UTF-8, missing parameter
    values) or PolynomialSyntaxError."""
    return PolynomialMap(read_system_file(path).specialize(parameters))


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``image`` subcommand of ``python -m witness`` (the caller adds FILE, --parameters and
    --json, common to every subcommand); returns the parser."""
    p = sub.add_parser("image", help="dimension and degree of the image of a polynomial map",
                       description="Dimension, generic fiber dimension and degree of the "
                                   "closure of the image of a polynomial map C^n -> C^m "
                                   "(pseudo-witness set, certified by the trace test). FILE: "
                                   "'variables: x, y' header, then one coordinate polynomial "
                                   "per line.")
    p.add_argument("--seed", type=int, default=1, help="seed (default 1; recorded in the output)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds of monodromy before giving up (undecided); default 600")
    p.add_argument("--points", action="store_true",
                   help="with --json: include the pseudo-witness set (points and slice)")
    return p


def run_cli(args, system: PolynomialSystem) -> ImageResult:
    """What ``python -m witness image`` computes for the map whose coordinates are ``system``
    (ValueError on bad options or a map without variables)."""
    if not args.timeout > 0:
        raise ValueError(f"--timeout must be positive, got {args.timeout}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if system.n_vars == 0:
        raise ValueError(f"{args.file}: the map has no variables (declare them with "
                         f"'variables:')")
    return image_degree(PolynomialMap(system), seed=args.seed, timeout=args.timeout)


def render(r: ImageResult) -> str:
    """Readable lines of an ImageResult."""
    dc = r.dimension_check
    src = (f"X ⊂ C^{r.n_source} ({r.domain_equations} equations)" if r.domain_equations
           else f"C^{r.n_source}")
    rows = [("map", f"{src} -> C^{r.n_target}, variables {', '.join(r.variables)}"),
            ("dimension", f"{r.dimension}  ({dc.method})"),
            ("generic fiber dimension", r.fiber_dimension),
            ("degree", r.degree if r.degree is not None else
             f"undecided ({r.points_found} image points found: a lower bound)"),
            ("degree meaning", r.degree_meaning if r.dimension is not None else "-"),
            ("homogeneous", f"yes, degree {r.homogeneous_degree}" if r.homogeneous else "no"),
            ("certified", {True: "yes", False: "no", None: "undecided"}[r.certified]
             + f": {r.certificate}"),
            ("paths", f"{r.paths_tracked} tracked, {r.failed_paths} failed, {r.loops} loops, "
                      f"{r.ambiguous_matches} ambiguous matches"),
            ("seed", r.seed), ("time", f"{r.seconds:.2f} s")]
    w = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{w}}  {b}" for a, b in rows)
