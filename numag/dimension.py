"""dim M of a neuromanifold: computed, predicted, bounded and (when possible) proved.

Any kind of numag.architecture (attention, multi-head attention, polynomial networks).
Method (paper-notes §1, §6): dim M is the generic rank of the Jacobian of W ↦ (φ_W(X_n))_n,
with N grown until the rank saturates, maximized over random trials.
* 'exact': rank over a random prime field F_p at a random point (polynomial kinds). It never
  exceeds the generic rank over Q, so it is a certified LOWER bound. The UPPER bound is the
  least of: the symmetry orbit's (numag.symmetry), #params − rank(orbit tangents); the same for
  the reduced architecture (paper-notes §3.2); the dimension of a linear space containing M
  (numag.formulas.ambient_dimension); and numag.formulas.known_upper_bound (polynomial
  networks, multi-head layers). When the lower bound meets it, dim M is proved and `certified`
  is True. Below an 'expected' prediction, the architecture is *defective* (a finding):
  `defect` = expected − computed; the lower bound stays certified, and that the true value is
  not larger rests on the random points being generic, with the probability bound of
  `miss_probability` (Schwartz–Zippel).
* 'mp': mpmath Jacobian and SVD, rank by numag.rank's rule (tolerance and margin reported).
* 'float': float64 Jacobian and SVD, rank by the same rule.
Softmax attention is not polynomial: 'exact' is refused, and the default method is 'mp'.
"""
from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import progress as _progress
from .architecture import Architecture
from .arith import Arithmetic, ModularArithmetic, MpArithmetic, NumpyArithmetic, random_prime
from .formulas import Prediction, PredictionStatus, ambient_dimension, known_upper_bound, predict
from .jacobian import SaturatedRank, entry_degree, random_weights, saturated_rank
from .rank import RankOptions, json_num, numerical_rank, rank_mod_p
from .symmetry import orbit_tangents


class Method(enum.StrEnum):
    """How the Jacobian rank is computed."""

    EXACT = "exact"       # over F_p: a certified lower bound
    MP = "mp"             # mpmath SVD at RankOptions.digits
    FLOAT = "float"       # float64 SVD

    @property
    def is_numerical(self) -> bool:
        return self is not Method.EXACT


METHODS = tuple(m.value for m in Method)
ROWS_PER_INPUT = 4      # measured: every benchmark architecture saturates at the first N


@dataclass(frozen=True)
class TrialRecord:
    """One random point: its Jacobian rank, orbit rank and the inputs used.

    `margin` is the factor by which the singular values clear the rank tolerance (numag.rank;
    None for an exact rank)."""

    rank: int
    decided: bool
    margin: float | None
    n_inputs: int
    saturated: bool
    orbit_rank: int
    prime: int | None

    def to_json(self) -> dict:
        out = dict(self.__dict__)
        out["margin"] = None if self.margin is None else json_num(self.margin)
        return out


@dataclass(frozen=True)
class DimensionResult:
    """Result of `dimension`.

    Attributes
    ----------
    architecture : Architecture
    method : Method
        'exact', 'mp' or 'float'.
    seed : int
        Seed of every random choice (points, inputs, primes).
    dimension : int
        Computed dim M (maximum Jacobian rank over the trials).
    params : int
        #params.
    fiber_dimension : int
        params − dimension (generic fiber dimension).
    predicted : Prediction
        The closed-form prediction and its source (numag.formulas).
    symmetry_orbit_dimension : int
        Rank of the known symmetries' orbit tangents (computed, exact mod p; numag.symmetry).
    upper_bound : int
        min(params − symmetry_orbit_dimension, ambient_dimension, the same for the reduced
        architecture, numag.formulas.known_upper_bound): an upper bound on dim M.
    certified : bool
        True iff method is 'exact' and the certified lower bound meets upper_bound.
    decided : bool
        False if a numerical rank had too small a margin (then `dimension` is a guess and
        should not be used).
    agrees_with_prediction : bool or None
        computed == predicted (None when nothing is predicted).
    trials : tuple of TrialRecord
    seconds : float
    rank_options : RankOptions or None
        Tolerance and margin of the numerical ranks (None for 'exact').
    notes : tuple of str
        Disagreements, defects, caveats, degenerate t = 1, undecided ranks, ranks
        a_i > d_{i-1}.
    ambient_dimension : int or None
        Dimension of a linear space containing M (numag.formulas.ambient_dimension); None for
        softmax.
    defect : int or None
        predicted − computed when the prediction is an 'expected' value (an upper bound; > 0
        means a defective architecture, a finding), else None.
    miss_probability : float or None
        For 'exact', an upper bound on the probability that every trial under-counted the
        generic rank over F_p (Schwartz–Zippel, see `miss_probability`); 0 when certified;
        None for numerical methods.
    """

    architecture: Architecture
    method: Method
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
    rank_options: RankOptions | None = None
    notes: tuple[str, ...] = ()
    ambient_dimension: int | None = None
    defect: int | None = None
    miss_probability: float | None = None

    @property
    def dps(self) -> int | None:
        """mpmath digits of method 'mp' (None otherwise)."""
        return self.rank_options.digits if self.rank_options else None

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
            "rank_options": self.rank_options.to_json() if self.rank_options else None,
            "trials": [t.to_json() for t in self.trials],
            "n_inputs": max(t.n_inputs for t in self.trials),
            "seconds": round(self.seconds, 4),
            "notes": list(self.notes),
        }


def _backend(method: Method, rng: np.random.Generator, options: RankOptions | None):
    if method is Method.EXACT:
        ops = ModularArithmetic(random_prime(rng))
        return ops, (lambda J: rank_mod_p(J, ops.p))
    ops = NumpyArithmetic(np.float64) if options.is_float else MpArithmetic(options.digits)
    return ops, (lambda J: numerical_rank(J, options, quantity="Jacobian rank"))


def _upper_bound(arch: Architecture, orbit: int, rng: np.random.Generator) -> int:
    """min(#params − orbit, the same bound for arch.reduced() (same M; paper-notes §3.2),
    ambient dimension, numag.formulas.known_upper_bound (polynomial networks, multi-head))."""
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


def rank_options_for(method: Method | str) -> RankOptions | None:
    """The default RankOptions of a method: RankOptions() (50 digits) for 'mp', float64 for
    'float' (its random points are exact as given: rounded_input False), None for 'exact'."""
    method = Method(method)
    if method is Method.MP:
        return RankOptions()
    return RankOptions(None, rounded_input=False) if method is Method.FLOAT else None


def dimension(arch: Architecture, method: Method | str | None = None, seed: int = 0,
              trials: int | None = None, n_inputs: int | None = None,
              rank_options: RankOptions | None = None,
              progress: bool | None = None) -> DimensionResult:
    """Compute dim M for `arch`, with its prediction, bounds and certificate.

    Parameters
    ----------
    arch : Architecture
        Any kind (attention, multi-head attention, polynomial network).
    method : {'exact', 'mp', 'float'}, optional
        'exact' (F_p; every kind but softmax), 'mp' (mpmath) or 'float' (float64). Default
        'exact' for the polynomial kinds, 'mp' for softmax.
    seed : int
        Seeds every random choice (points, inputs, primes); recorded in the result.
    trials : int, optional
        Number of random points (maximum taken). Default: 3, stopping early once the rank
        reaches the upper bound (it cannot exceed it).
    n_inputs : int, optional
        Fixed number N of inputs; default grows N until the rank saturates.
    rank_options : RankOptions, optional
        Arithmetic, tolerance and margin of a numerical rank (numag.rank). Default
        `rank_options_for(method)`: 50 digits for 'mp'. Its digits must be None for 'float'
        and an integer for 'mp'.
    progress : bool, optional
        Progress bar (numag.progress; default: only on a terminal).

    Returns
    -------
    DimensionResult

    Raises
    ------
    ValueError
        Unknown method, 'exact' for softmax, trials < 1, n_inputs < 1, rank_options that do
        not fit the method.

    Examples
    --------
    >>> r = dimension(Architecture((3, 2), (1,)), seed=0)
    >>> r.dimension, r.params, r.certified          # HMK: 2ad + dd' − a² − 1 = 10
    (10, 12, True)
    >>> dimension(Architecture.pnn((3, 2, 1))).dimension   # rank-2 quadrics: a hypersurface
    5

    References
    ----------
    Henry, Marchetti, Kohn, Geometry of Lightning Self-Attention (arXiv 2408.17221), single-layer
    and deep dimension theorems; paper-notes §1, §3, §6; multi-head attention and polynomial
    networks: paper-notes §8, §9.
    """
    method = _method(arch, method, rank_options)
    if trials is not None and trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    if method.is_numerical and rank_options is None:
        rank_options = rank_options_for(method)
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    orbit = _orbit_rank(arch, rng)
    upper = _upper_bound(arch, orbit, rng)
    max_trials = trials or 3
    records: list[TrialRecord] = []
    bar = _progress.bar(total=max_trials, progress=progress, desc=f"dim {arch.spec()}",
                        delay=0.5, leave=False)
    for _ in range(max_trials):
        ops, rank_fn = _backend(method, rng, rank_options)
        sat = _trial(arch, ops, rank_fn, rng, n_inputs, upper)
        margin = sat.rank.margin if method.is_numerical else None
        records.append(TrialRecord(sat.rank.rank, sat.rank.decided, margin, sat.n_inputs,
                                   sat.saturated, orbit, sat.rank.prime))
        bar.update()
        if trials is None and sat.rank.rank >= upper:
            break
    bar.close()
    return _result(arch, method, seed, records, orbit, upper, time.perf_counter() - start,
                   rank_options if method.is_numerical else None, ambient_dimension(arch))


def _method(arch: Architecture, method, rank_options: RankOptions | None) -> Method:
    if method is None:
        method = Method.EXACT if arch.polynomial else Method.MP
    try:
        method = Method(method)
    except ValueError:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}") from None
    if method is Method.EXACT and not arch.polynomial:
        raise ValueError("softmax attention is not polynomial, so there is no exact rank over a "
                         "prime field; use method 'mp' (high-precision SVD) or 'float'")
    if rank_options is not None and (method is Method.EXACT or
                                     rank_options.is_float != (method is Method.FLOAT)):
        raise ValueError(f"rank_options at {rank_options.name} do not fit method {method!r}")
    return method


def _trial(arch, ops: Arithmetic, rank_fn, rng, n_inputs, upper) -> SaturatedRank:
    # k random combinations of each input's rows carry the same information with several times
    # fewer rows (over F_p the lower bound stays certified); see compressed_jacobian. A
    # user-given N means "the Jacobian of N inputs": all its rows are kept then.
    k = ROWS_PER_INPUT if n_inputs is None else None
    if isinstance(ops, MpArithmetic):
        with ops.context():
            return saturated_rank(arch, ops, rank_fn, rng, n_inputs, cap=upper, rows_per_input=k)
    return saturated_rank(arch, ops, rank_fn, rng, n_inputs, cap=upper, rows_per_input=k)


def rank_notes(arch: Architecture) -> list[str]:
    """A note per layer whose attention rank a_i exceeds its input width d_{i-1}: the
    architecture is legitimate, but A_i = K_iᵀ Q_i has rank at most d_{i-1}."""
    notes = []
    for i, (a, d) in enumerate(zip(arch.ranks, arch.widths[:-1]), start=1):   # () for a pnn
        if a > d:
            layer = "" if arch.depth == 1 else f"layer {i}: "
            notes.append(f"{layer}attention rank a = {a} exceeds d = {d}: A = KᵀQ has rank at "
                         f"most {d}, so for A this architecture behaves like a = {d}")
    return notes


def miss_probability(arch: Architecture, rank: int, primes: Sequence[int]) -> float:
    """Probability bound that every trial saw rank ≤ `rank` although the generic rank over F_p
    is larger.

    A nonzero (rank+1)-minor of the (compressed) Jacobian is a polynomial of degree ≤ (rank+1)·D
    in the random weights, inputs and compression coefficients (D =
    numag.jacobian.entry_degree), so it vanishes at a uniform random point of F_p with
    probability ≤ (rank+1)·D/p (Schwartz–Zippel); independent trials multiply. It assumes p is
    not one of the finitely many primes at which the generic rank drops below the one over Q.

    Parameters
    ----------
    arch : Architecture
        A polynomial kind.
    rank : int
        The largest rank the trials saw.
    primes : sequence of int
        The prime of each trial.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    Schwartz–Zippel lemma; paper-notes §6.
    """
    out = 1.0
    for p in primes:
        out *= min(1.0, (rank + 1) * entry_degree(arch) / p)
    return out


def _result(arch, method: Method, seed, records: Sequence[TrialRecord], orbit, upper, seconds,
            rank_options: RankOptions | None, ambient: int | None) -> DimensionResult:
    best = max(records, key=lambda r: r.rank)
    dim = best.rank
    pred = predict(arch)
    decided = all(r.decided for r in records)
    notes = rank_notes(arch)
    if arch.degenerate:
        notes.append("t = 1 is degenerate: only the symmetric part of each A_i is seen")
    if not decided:
        notes.append(f"UNDECIDED: a numerical rank had a singular value within the margin "
                     f"{rank_options.min_margin:g} of the tolerance {rank_options.tolerance:.0e}"
                     f"; decide it exactly (option 'method': exact, not for softmax) or with "
                     f"more digits (option 'digits')")
    if dim > upper:
        notes.append(f"computed rank {dim} exceeds the upper bound {upper}: "
                     "a numerical rank error")
    if not best.saturated and dim < upper:
        notes.append(f"the rank was not shown to saturate in the number of inputs "
                     f"(N = {best.n_inputs}); too few inputs under-count")
    agrees = None if pred.value is None else dim == pred.value
    expected = pred.status is PredictionStatus.EXPECTED
    defect = pred.value - dim if expected and pred.value is not None else None
    unsaturated = not best.saturated and dim < upper
    if defect is not None and defect > 0 and unsaturated:
        # a rank that did not saturate in the inputs is a lower bound of what N inputs see,
        # not a finding about the architecture (widths 3,3,1 with N = 1: 6 = 11 - 5)
        notes.append(f"below the expected {pred.value} by {defect}, but the rank did not "
                     f"saturate in the inputs: no defect is claimed")
        defect = None
    if unsaturated and agrees is False and dim < pred.value:
        agrees = None                    # a lower bound below the prediction decides nothing
    if defect is not None and defect > 0:
        notes.append(f"DEFECTIVE: computed {dim} < expected {pred.value} (defect {defect}): a "
                     f"finding about this architecture, not an error")
    elif agrees is False:
        notes.append(f"DISAGREEMENT: computed {dim} vs predicted {pred.value} ({pred.source})")
    certified = method is Method.EXACT and dim == upper
    miss = None
    if method is Method.EXACT and not unsaturated:
        # Schwartz–Zippel bounds the random trials only; too few inputs are not random
        miss = 0.0 if certified else miss_probability(arch, dim, [r.prime for r in records])
    if method is Method.EXACT and not certified:
        few = (f"too few inputs (N = {best.n_inputs}: the rank was not shown to saturate), or "
               if not best.saturated else "")
        chance = ("" if miss is None else f", or every trial was special (probability ≤ "
                                           f"{miss:.1e}, Schwartz–Zippel)")
        notes.append(f"not certified: exact lower bound {dim} < upper bound {upper} (symmetries, "
                     f"ambient space, recursive bounds); {few}the generic fiber is larger than "
                     f"the known symmetry orbit{chance}")
    return DimensionResult(arch, method, seed, dim, arch.n_params, arch.n_params - dim, pred,
                           orbit, upper, certified, decided, agrees, tuple(records), seconds,
                           rank_options, tuple(notes), ambient, defect, miss)
