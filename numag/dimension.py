"""dim M of a neuromanifold: computed, predicted, bounded and (when possible) proved.

Any kind of numag.architecture (attention, multi-head attention, polynomial networks).
Method (paper-notes §1, §6): dim M is the generic rank of the Jacobian of W ↦ (φ_W(X_n))_n,
with N grown until the rank saturates, maximized over random trials.
* 'exact': rank over a random prime field F_p at a random point (polynomial kinds). It never
  exceeds the generic rank over Q, so it is a certified LOWER bound. Two UPPER bounds: the
  symmetry orbit (numag.symmetry), #params − rank(orbit tangents), the dimension of a linear
  space containing M (numag.formulas.ambient_dimension), and for polynomial networks the
  recursive bound of numag.formulas.pnn_recursive_bound. When the lower bound meets the smaller
  upper bound, dim M is proved and `certified` is True. Below both, the architecture is
  *defective* (a finding): `defect` = expected − computed; the lower bound stays certified, and
  that the true value is not larger rests on the random points being generic, with the
  probability bound of `miss_probability` (Schwartz–Zippel).
* 'mp': mpmath Jacobian and SVD at `dps` digits with the largest-gap rule (margin reported).
* 'float': float64 Jacobian and SVD with the largest-gap rule (margin reported).
Softmax attention is not polynomial: 'exact' is refused.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from tqdm.auto import tqdm

from .architecture import Architecture
from .arith import Arithmetic, ModularArithmetic, MpArithmetic, NumpyArithmetic, random_prime
from .formulas import Prediction, ambient_dimension, known_upper_bound, predict
from .jacobian import SaturatedRank, entry_degree, random_weights, saturated_rank
from .rank import rank_float, rank_mod_p, rank_mp
from .symmetry import orbit_tangents

METHODS = ("exact", "mp", "float")
ROWS_PER_INPUT = 4      # measured: every benchmark architecture saturates at the first N


@dataclass(frozen=True)
class TrialRecord:
    """One random point: its Jacobian rank, orbit rank and the inputs used."""

    rank: int
    decided: bool
    gap: float | None
    n_inputs: int
    saturated: bool
    orbit_rank: int
    prime: int | None

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class DimensionResult:
    """Result of `dimension`.

    Attributes:
        dimension: computed dim M (maximum Jacobian rank over the trials).
        params: #params.
        fiber_dimension: params − dimension (generic fiber dimension).
        predicted: the closed-form prediction and its source (numag.formulas).
        symmetry_orbit_dimension: rank of the known symmetries' orbit tangents (computed, exact
            mod p; numag.symmetry).
        ambient_dimension: dimension of a linear space containing M, or None (softmax).
        upper_bound: min(params − symmetry_orbit_dimension, ambient_dimension, the same for the
            reduced architecture, the recursive bound of polynomial networks): an upper bound
            on dim M.
        certified: True iff method is 'exact' and the certified lower bound meets upper_bound.
        defect: predicted − computed when the prediction is an 'expected' value (an upper
            bound; > 0 means a defective architecture, a finding), else None.
        miss_probability: for 'exact', an upper bound on the probability that every trial
            under-counted the generic rank over F_p (Schwartz–Zippel, see `miss_probability`);
            0 when certified; None for numerical methods.
        decided: False if a numerical rank had too small a margin (then `dimension` is a guess
            and should not be used).
        agrees_with_prediction: computed == predicted (None when nothing is predicted).
        notes: disagreements, caveats, degenerate t = 1, undecided ranks.
    """

    architecture: Architecture
    method: str
    seed: int
    dimension: int
    params: int
    fiber_dimension: int
    predicted: Prediction
    symmetry_orbit_dimension: int
    upper_bound: int
    certified: bool
    decided: bool
    agrees_with_prediction: bool | None
    trials: tuple[TrialRecord, ...]
    seconds: float
    dps: int | None = None
    notes: tuple[str, ...] = ()
    min_gap: float | None = field(default=None)
    ambient_dimension: int | None = None
    defect: int | None = None
    miss_probability: float | None = None

    def to_json(self) -> dict:
        return {
            "architecture": self.architecture.to_json(),
            "dimension": self.dimension,
            "params": self.params,
            "fiber_dimension": self.fiber_dimension,
            "predicted": self.predicted.value,
            "prediction_source": self.predicted.source,
            "prediction_caveats": list(self.predicted.caveats),
            "prediction_status": self.predicted.status,
            "agrees_with_prediction": self.agrees_with_prediction,
            "defect": self.defect,
            "symmetry_orbit_dimension": self.symmetry_orbit_dimension,
            "ambient_dimension": self.ambient_dimension,
            "upper_bound": self.upper_bound,
            "certified": self.certified,
            "miss_probability": self.miss_probability,
            "decided": self.decided,
            "method": self.method,
            "seed": self.seed,
            "dps": self.dps,
            "min_gap": self.min_gap,
            "trials": [t.to_json() for t in self.trials],
            "n_inputs": max(t.n_inputs for t in self.trials),
            "seconds": round(self.seconds, 4),
            "notes": list(self.notes),
        }


def _backend(method: str, rng: np.random.Generator, dps: int, min_gap: float | None):
    if method == "exact":
        ops = ModularArithmetic(random_prime(rng))
        return ops, (lambda J: rank_mod_p(J, ops.p))
    if method == "mp":
        ops = MpArithmetic(dps)
        return ops, (lambda J: rank_mp(J, dps, min_gap))
    ops = NumpyArithmetic(np.float64)
    return ops, (lambda J: rank_float(J, min_gap) if min_gap else rank_float(J))


def _upper_bound(arch: Architecture, orbit: int, rng: np.random.Generator) -> int:
    """min(#params − orbit, the same bound for arch.reduced() (same M; paper-notes §3.2),
    ambient dimension, numag.formulas.known_upper_bound (polynomial networks))."""
    bounds = [arch.n_params - orbit]
    known = known_upper_bound(arch)
    if known is not None:
        bounds.append(known)
    reduced = arch.reduced()
    if reduced != arch:
        bounds.append(reduced.n_params - _orbit_rank(reduced, rng))
    ambient = ambient_dimension(arch)
    if ambient is not None:
        bounds.append(ambient)
    return min(bounds)


def _orbit_rank(arch: Architecture, rng: np.random.Generator) -> int:
    """Rank of the symmetry orbit tangents at a random point of F_p (see numag.symmetry)."""
    ops = ModularArithmetic(random_prime(rng))
    T = orbit_tangents(arch, random_weights(arch, ops, rng), ops)
    return rank_mod_p(T, ops.p).rank


def dimension(arch: Architecture, method: str = "exact", seed: int = 0, trials: int | None = None,
              n_inputs: int | None = None, dps: int = 30, min_gap: float | None = None,
              progress: bool | None = None) -> DimensionResult:
    """Compute dim M for `arch`, with its prediction, bounds and certificate.

    Args:
        arch: any kind (attention, multi-head, polynomial network).
        method: 'exact' (F_p; every kind but softmax), 'mp' (mpmath at `dps` digits) or 'float'.
        seed: seeds every random choice (points, inputs, primes); recorded in the result.
        trials: number of random points (maximum taken). Default: 3, stopping early once the
            rank reaches the symmetry upper bound (it cannot exceed it).
        n_inputs: fixed number N of inputs; default grows N until the rank saturates.
        min_gap: singular-value gap needed to decide a numerical rank (defaults in numag.rank).
        progress: show a progress bar (default: only on a terminal, after a moment).
    Returns:
        DimensionResult.
    Raises:
        ValueError: unknown method, 'exact' for softmax, trials < 1.

    Examples:
        >>> dimension(Architecture.pnn((3, 2, 1))).dimension   # rank-2 quadrics: a hypersurface
        5
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "exact" and not arch.polynomial:
        raise ValueError("softmax attention is not polynomial, so there is no exact rank over a "
                         "prime field; use --method mp (high-precision SVD with a gap) or float")
    if trials is not None and trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    orbit = _orbit_rank(arch, rng)
    upper = _upper_bound(arch, orbit, rng)
    max_trials = trials or 3
    records: list[TrialRecord] = []
    bar = tqdm(total=max_trials, desc=f"dim {arch.spec()}", disable=_no_bar(progress),
               delay=0.5, leave=False)
    for _ in range(max_trials):
        ops, rank_fn = _backend(method, rng, dps, min_gap)
        sat = _trial(arch, ops, rank_fn, rng, n_inputs, upper)
        records.append(TrialRecord(sat.rank.rank, sat.rank.decided, sat.rank.gap, sat.n_inputs,
                                   sat.saturated, orbit, getattr(ops, "p", None)))
        bar.update()
        if trials is None and sat.rank.rank >= upper:
            break
    bar.close()
    return _result(arch, method, seed, records, orbit, upper, time.perf_counter() - start,
                   dps if method == "mp" else None, min_gap, ambient_dimension(arch))


def _no_bar(progress: bool | None) -> bool | None:
    return None if progress is None else not progress


def _trial(arch, ops: Arithmetic, rank_fn, rng, n_inputs, upper) -> SaturatedRank:
    # k random combinations of each input's rows carry the same information with several times
    # fewer rows (over F_p the lower bound stays certified); see compressed_jacobian. A
    # user-given N means "the Jacobian of N inputs": all its rows are kept then.
    k = ROWS_PER_INPUT if n_inputs is None else None
    if isinstance(ops, MpArithmetic):
        with ops.context():
            return saturated_rank(arch, ops, rank_fn, rng, n_inputs, cap=upper, rows_per_input=k)
    return saturated_rank(arch, ops, rank_fn, rng, n_inputs, cap=upper, rows_per_input=k)


def miss_probability(arch: Architecture, rank: int, primes: Sequence[int]) -> float:
    """Probability bound that every trial saw rank ≤ `rank` although the generic rank over F_p
    is larger: a nonzero (rank+1)-minor of the (compressed) Jacobian is a polynomial of degree
    ≤ (rank+1)·D in the random weights, inputs and compression coefficients (D =
    numag.jacobian.entry_degree), so it vanishes at a uniform random point of F_p with
    probability ≤ (rank+1)·D/p (Schwartz–Zippel); independent trials multiply. It assumes p is
    not one of the finitely many primes at which the generic rank drops below the one over Q.
    """
    out = 1.0
    for p in primes:
        out *= min(1.0, (rank + 1) * entry_degree(arch) / p)
    return out


def _result(arch, method, seed, records: Sequence[TrialRecord], orbit, upper, seconds, dps,
            min_gap, ambient) -> DimensionResult:
    best = max(records, key=lambda r: r.rank)
    dim = best.rank
    pred = predict(arch)
    decided = all(r.decided for r in records)
    notes = []
    if arch.degenerate:
        notes.append("t = 1 is degenerate: only the symmetric part of each A_i is seen")
    if not decided:
        notes.append("UNDECIDED: a numerical rank had a singular-value gap below the threshold; "
                     "use --method exact (lightning) or more digits")
    if dim > upper:
        notes.append(f"computed rank {dim} exceeds the symmetry upper bound {upper}: "
                     "a numerical rank error")
    if not best.saturated and dim < upper:
        notes.append(f"the rank was not shown to saturate in the number of inputs "
                     f"(N = {best.n_inputs}); too few inputs under-count")
    agrees = None if pred.value is None else dim == pred.value
    defect = pred.value - dim if pred.status == "expected" and pred.value is not None else None
    if defect is not None and defect > 0:
        notes.append(f"DEFECTIVE: computed {dim} < expected {pred.value} (defect {defect}): a "
                     f"finding about this architecture, not an error")
    elif agrees is False:
        notes.append(f"DISAGREEMENT: computed {dim} vs predicted {pred.value} ({pred.source})")
    certified = method == "exact" and dim == upper
    miss = None
    if method == "exact":
        miss = 0.0 if certified else miss_probability(arch, dim, [r.prime for r in records])
    if method == "exact" and not certified:
        notes.append(f"not certified: exact lower bound {dim} < upper bound {upper} (symmetries, "
                     f"ambient space, recursive bounds); the generic fiber is larger than the "
                     f"known symmetry orbit, or every trial was special (probability ≤ {miss:.1e}, "
                     "Schwartz–Zippel)")
    return DimensionResult(arch, method, seed, dim, arch.n_params, arch.n_params - dim, pred,
                           orbit, upper, certified, decided, agrees, tuple(records), seconds,
                           dps, tuple(notes), min_gap, ambient, defect, miss)
