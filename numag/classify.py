"""Classify a point of a single-layer lightning neuromanifold M_{d,d',a}: zero, singular, boundary,
smooth (or undecided), with evidence computed independently of the rules.

Rules (paper-notes §2; HMK singular points "characterized via low rank of A and V", boundary
"given by rank-1 matrices"; the exact sets are [derived]), d ≥ 2, t ≥ 2, A = u vᵀ and V = c wᵀ
when rk A = rk V = 1:
* zero: A = 0 or V = 0 (singular and boundary).
* (a, d') ≠ (1, 1): singular iff (a < d and rk A < a) or (rk A ≤ 1 and rk V ≤ 1).
* a = d' = 1: singular iff zero, or d ≥ 3 and u ∥ w.
* boundary iff zero, or rk A = rk V = 1 and u ∥ w. "smooth" means "not singular"; a smooth
  boundary point gets both labels.

Decisions are made at a configurable precision (`Precision`): mpmath at `digits` digits (default
50), where the input (read exactly) is taken as exact, or float64, where the input is taken as
known only to float64 rounding. A singular value σ_i/σ_1 counts as nonzero above `tolerance`
(default 10^(−0.8·digits)) and as zero below it; each decision reports its `margin`, the factor
by which the closest singular value clears the tolerance, and is "undecided" when that factor is
below `min_margin` (default 10^(digits/10)). In float64, a value below tolerance cannot be told
from input rounding, so it is always undecided: float64 never certifies a special class.

Evidence (see `Evidence`) uses the Jacobian of the parametrization W = (Q, K, V) ↦ φ_W
(numag.jacobian, at fixed random inputs) on points of the fiber, and constructed real points of
the Zariski closure without a real preimage (numag.tensor recovery).
"""
from __future__ import annotations

import contextlib
import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import mpmath
import numpy as np

from .architecture import Architecture, LayerWeights
from .arith import MpArithmetic, NumpyArithmetic
from .formulas import single_layer
from .jacobian import jacobian
from .tensor import PreimageData, check_tensor, eigh, preimage_candidates, tensor

LABELS = ("zero", "singular", "boundary", "smooth", "undecided")
_REAL_TYPES = (int, float, np.integer, np.floating, Fraction, mpmath.mpf)


# --- precision and thresholded decisions ------------------------------------------------------

@dataclass(frozen=True)
class Precision:
    """Where decisions are made: mpmath at `digits` digits, or float64 (digits=None).

    Attributes:
        digits: mpmath decimal digits (>= 15), or None for the float64 path.
        tolerance: relative size below which a singular value counts as zero (default
            10^(−0.8·digits), 1e-40 at 50 digits; float64: 1e-10).
        min_margin: factor by which every deciding value must clear the tolerance (default
            10^(digits/10), 1e5 at 50 digits; float64: 100).
    Raises:
        ValueError: digits < 15, tolerance not in (0, 1), min_margin < 1.
    """

    digits: int | None = 50
    tolerance: float | None = None
    min_margin: float | None = None

    def __post_init__(self) -> None:
        if self.digits is not None and (not isinstance(self.digits, int) or self.digits < 15):
            raise ValueError(f"digits must be an integer >= 15 (or None for float64), "
                             f"got {self.digits!r}")
        tol = self.tolerance if self.tolerance is not None else (
            1e-10 if self.digits is None else 10.0 ** (-0.8 * self.digits))
        margin = self.min_margin if self.min_margin is not None else (
            100.0 if self.digits is None else 10.0 ** (self.digits / 10))
        if not 0 < tol < 1:
            raise ValueError(f"tolerance must lie in (0, 1), got {tol}")
        if margin < 1:
            raise ValueError(f"min_margin must be >= 1, got {margin}")
        object.__setattr__(self, "tolerance", tol)
        object.__setattr__(self, "min_margin", margin)

    @property
    def is_float(self) -> bool:
        return self.digits is None

    @property
    def name(self) -> str:
        return "float64" if self.is_float else f"{self.digits} digits"

    def ops(self):
        return NumpyArithmetic(np.float64) if self.is_float else MpArithmetic(self.digits)

    def context(self):
        return contextlib.nullcontext() if self.is_float else mpmath.workdps(self.digits)

    def convert(self, x: Any) -> np.ndarray:
        return self.ops().convert(x)

    def to_json(self) -> dict:
        return {"digits": self.digits, "tolerance": self.tolerance, "min_margin": self.min_margin}


@dataclass(frozen=True)
class Decision:
    """One thresholded decision (a rank, or whether u ∥ w).

    Attributes:
        quantity: what was decided, e.g. "rank A".
        value: the value read at the tolerance (number of normalized values above it).
        candidates: every value consistent with the margins (one value iff decided).
        decided: len(candidates) == 1.
        margin: min over values of value/tolerance or tolerance/value (inf for exact zeros;
            1.0 for float64 values below tolerance, which rounding could have produced).
        tolerance: the tolerance used.
        values: the normalized values (σ_i / σ_1) the decision was made on, as floats.
    """

    quantity: str
    value: int
    candidates: tuple[int, ...]
    margin: float
    tolerance: float
    values: tuple[float, ...] = field(repr=False, default=())

    @property
    def decided(self) -> bool:
        return len(self.candidates) == 1

    def to_json(self) -> dict:
        return {"quantity": self.quantity, "value": self.value, "decided": self.decided,
                "candidates": list(self.candidates), "margin": _num(self.margin),
                "tolerance": self.tolerance, "normalized_values": [_num(v) for v in self.values]}


def _num(x: float) -> float | str:
    """JSON-safe float: inf -> "inf"."""
    return "inf" if x == math.inf else float(x)


def threshold_rank(quantity: str, sigma: Sequence, prec: Precision) -> Decision:
    """Rank from singular values `sigma` (any order) with an explicit tolerance and a margin.

    Normalized values s_i = σ_i/σ_1 count as nonzero above prec.tolerance. Not the largest-gap
    rule of numag.rank: that rule reads σ = (1, 1e-30, 1e-50 noise) as rank 1 (gap 1e30 beats
    1e20), while exact input at 50 digits has rank 2 (issue 5, item 4).
    """
    sig = sorted((abs(s) for s in sigma), reverse=True)
    n = len(sig)
    if n == 0 or sig[0] == 0:
        if prec.is_float:
            return Decision(quantity, 0, tuple(range(n + 1)), 1.0, prec.tolerance, (0.0,) * n)
        return Decision(quantity, 0, (0,), math.inf, prec.tolerance, (0.0,) * n)
    s_exact = [x / sig[0] for x in sig]                 # mpf stays mpf: no underflow at 1e-300
    s = [float(x) for x in s_exact]
    tol, m = prec.tolerance, prec.min_margin
    value = sum(1 for x in s_exact if x > tol)
    sure = sum(1 for x in s_exact if x >= tol * m)
    maybe = n if prec.is_float and value < n else sum(1 for x in s_exact if x > tol / m)
    margins = []
    for x in s_exact:
        if x > tol:
            margins.append(float(x / tol))
        elif prec.is_float:
            margins.append(1.0)                # below float64 resolution: no margin at all
        else:
            margins.append(math.inf if x == 0 else float(tol / x))
    return Decision(quantity, value, tuple(range(sure, maybe + 1)), min(margins), tol, tuple(s))


def singular_values(M: np.ndarray, prec: Precision) -> list:
    """Singular values of a 2-D array by mpmath.svd (inside prec.context()) or numpy."""
    M = np.asarray(M)
    if M.size == 0:
        return []
    if prec.is_float:
        return list(np.linalg.svd(M.astype(float), compute_uv=False))
    mat = mpmath.matrix(M.tolist())
    if M.shape[0] < M.shape[1]:
        mat = mat.T
    return list(mpmath.svd_r(mat, compute_uv=False))


def svd(M: np.ndarray, prec: Precision) -> tuple[np.ndarray, list, np.ndarray]:
    """Full SVD M = U diag(s) Vt (U (m, k), Vt (k, n), k = min(m, n)), mpmath or numpy."""
    if prec.is_float:
        U, s, Vt = np.linalg.svd(np.asarray(M, dtype=float), full_matrices=False)
        return U, list(s), Vt
    m, n = M.shape
    if m < n:
        Vt_T, s, U_T = svd(M.T, prec)
        return U_T.T, s, Vt_T.T
    U, S, Vt = mpmath.svd_r(mpmath.matrix(M.tolist()), full_matrices=False)
    k = min(m, n)
    return (np.array([[U[i, j] for j in range(k)] for i in range(m)], dtype=object),
            [S[i] for i in range(k)],
            np.array([[Vt[i, j] for j in range(n)] for i in range(k)], dtype=object))


def _norm(x: np.ndarray):
    x = np.asarray(x).reshape(-1)
    if x.dtype == object:
        return mpmath.sqrt(mpmath.fsum(v * v for v in x))
    return float(np.linalg.norm(x))


# --- the rules ---------------------------------------------------------------------------------

def rule_labels(d: int, d_out: int, a: int, rank_A: int, rank_V: int,
                parallel: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Labels and singular kinds of a point with these ranks (paper-notes §2; rules in the module
    docstring). `parallel` (u ∥ w) matters only when rank_A = rank_V = 1.

    Returns:
        (labels, kinds): labels ⊂ LABELS in a fixed order; kinds explain 'singular'.
    """
    if rank_A == 0 or rank_V == 0:
        return ("zero", "singular", "boundary"), ("zero (fiber {A = 0} ∪ {V = 0})",)
    rank1 = rank_A == 1 and rank_V == 1
    kinds = []
    if (a, d_out) == (1, 1):
        if d >= 3 and parallel:
            kinds.append("u ∥ w with a = d' = 1, d ≥ 3")
    else:
        if a < d and rank_A < a:
            kinds.append(f"rank drop of A below a (rk A = {rank_A} < a = {a} < d = {d})")
        if rank1:
            kinds.append("rk A = rk V = 1 with u ∥ w (the two branches meet)" if parallel else
                         "self-intersection of two branches (rk A = rk V = 1, u ∦ w)")
    labels = ("singular",) if kinds else ("smooth",)
    if rank1 and parallel:
        labels += ("boundary",)
    return labels, tuple(kinds)


# --- results -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Membership:
    """Is an ambient point in M? (preimage recovery, numag.tensor.preimage_candidates)

    Attributes:
        in_M: True, False, or None (undecided).
        residual: relative residual ‖T(A, V) − T‖/‖T‖ of the best real candidate preimage (an
            upper bound on the relative distance to M when rk A ≤ a).
        reason: why (e.g. semidefinite contraction: no real preimage).
        residual_decision: the residual, decided against the tolerance.
        eigenvalues: normalized eigenvalues of the random contraction (first three).
    """

    in_M: bool | None
    residual: float
    reason: str
    residual_decision: Decision | None = None
    eigenvalues: tuple[float, ...] = ()

    def to_json(self) -> dict:
        return {"in_M": self.in_M, "residual": self.residual, "reason": self.reason,
                "eigenvalues": [float(x) for x in self.eigenvalues],
                "residual_decision": (self.residual_decision.to_json()
                                      if self.residual_decision else None)}


@dataclass(frozen=True)
class FiberPoint:
    """A point W of the fiber over φ, its Jacobian rank and how well it hits φ."""

    name: str
    jacobian_rank: Decision
    fiber_residual: float

    def to_json(self) -> dict:
        return {"name": self.name, "jacobian_rank": self.jacobian_rank.value,
                "decided": self.jacobian_rank.decided,
                "candidates": list(self.jacobian_rank.candidates),
                "margin": _num(self.jacobian_rank.margin), "fiber_residual": self.fiber_residual}


@dataclass(frozen=True)
class Evidence:
    """Evidence computed independently of the rank rules.

    Attributes:
        dim_formula: dim M from numag.formulas.single_layer (HMK).
        generic_rank: Jacobian rank at a random point (the computed dim M).
        fiber: fiber points (branches and, when rk A < a or φ = 0, random factorizations).
        joint_rank: rank of all their tangent images together (> dim M ⇒ singular: the Zariski
            tangent space contains every image of the differential).
        nearby_joint_rank: joint rank of the tangent spaces at random points at relative
            distance `epsilon` (only when every fiber point is critical); > dim M means the
            tangent spaces jump, so their limits span more than dim M ⇒ singular.
        singular: 'singular', 'smooth' (consistent with smooth), or 'inconclusive'.
        boundary: 'boundary', 'not boundary', 'not probed', or 'inconclusive'.
        probes: outside points of the Zariski closure tried: relative distance and membership.
        notes: how each verdict was reached.
    """

    dim_formula: int
    generic_rank: Decision
    fiber: tuple[FiberPoint, ...]
    joint_rank: Decision
    singular: str
    boundary: str
    nearby_joint_rank: Decision | None = None
    epsilon: float | None = None
    probes: tuple[dict, ...] = ()
    notes: tuple[str, ...] = ()
    seed: int = 0
    n_inputs: int = 0

    def to_json(self) -> dict:
        return {"dim_formula": self.dim_formula, "generic_rank": self.generic_rank.to_json(),
                "fiber": [f.to_json() for f in self.fiber],
                "joint_rank": self.joint_rank.to_json(),
                "nearby_joint_rank": (self.nearby_joint_rank.to_json()
                                      if self.nearby_joint_rank else None),
                "epsilon": self.epsilon, "singular": self.singular, "boundary": self.boundary,
                "probes": list(self.probes), "notes": list(self.notes), "seed": self.seed,
                "n_inputs": self.n_inputs}


@dataclass(frozen=True)
class Classification:
    """The class of one point of M_{d,d',a}, with its decisions, evidence and agreement.

    Attributes:
        shape: (d, d', a).
        labels: subset of LABELS; ("undecided",) when the margins do not settle the class;
            () for an ambient point that is not in M (see membership).
        kinds: kinds of singularity (rule-based).
        ranks: {"A": rank, "V": rank} read at the tolerance (see decisions for margins).
        decisions: rank A, rank V and, for rank-1 points, u ∥ w.
        margin: smallest margin among the decisions (an undecided decision that cannot change
            the labels is left out and noted).
        alternatives: the label sets still possible when undecided.
        evidence: Evidence, or None when not computed.
        agreement: {"singular": ..., "boundary": ...}: agree / DISAGREE / inconclusive / not probed.
        membership: for ambient input, the recovery result.
        source: 'weights (Q, K, V)', '(A, V)' or 'ambient tensor'.
    """

    shape: tuple[int, int, int]
    labels: tuple[str, ...]
    kinds: tuple[str, ...]
    ranks: dict
    decisions: tuple[Decision, ...]
    margin: float
    precision: Precision
    source: str
    alternatives: tuple[tuple[str, ...], ...] = ()
    evidence: Evidence | None = None
    agreement: dict = field(default_factory=dict)
    membership: Membership | None = None
    notes: tuple[str, ...] = ()
    seed: int = 0

    @property
    def digits(self) -> int | None:
        return self.precision.digits

    def to_json(self) -> dict:
        return {"labels": list(self.labels), "ranks": dict(self.ranks),
                "margin": _num(self.margin), "evidence": (self.evidence.to_json()
                                                          if self.evidence else None),
                "digits": self.digits, "precision": self.precision.to_json(),
                "shape": {"d": self.shape[0], "d_out": self.shape[1], "a": self.shape[2]},
                "kinds": list(self.kinds), "decisions": [x.to_json() for x in self.decisions],
                "alternatives": [list(x) for x in self.alternatives],
                "agreement": dict(self.agreement),
                "membership": self.membership.to_json() if self.membership else None,
                "source": self.source, "notes": list(self.notes), "seed": self.seed}

    def __repr__(self) -> str:
        d, dp, a = self.shape
        lab = ", ".join(self.labels) or "not in M"
        return (f"Classification(({d}, {dp}, {a}): {lab}; ranks A={self.ranks.get('A')}, "
                f"V={self.ranks.get('V')}; margin {_fmt(self.margin)} at {self.precision.name})")


def _fmt(x: float) -> str:
    return "inf" if x == math.inf else f"{x:.3g}"


# --- membership of an ambient point -------------------------------------------------------------

def threshold_zero(quantity: str, x, prec: Precision) -> Decision:
    """Is the relative quantity x (>= 0) zero at this precision? value 0 = zero, 1 = nonzero."""
    dec = threshold_rank(quantity, [1, x], prec)
    return Decision(quantity, dec.value - 1, tuple(c - 1 for c in dec.candidates), dec.margin,
                    dec.tolerance, dec.values[1:])


def _work_digits(prec: Precision) -> int | None:
    # A point at distance θ from the boundary has a contraction eigenvalue ~θ², whose square root
    # the recovery takes: twice the digits keep θ down to the tolerance resolvable.
    return None if prec.is_float else 2 * prec.digits + 10


def membership(T: np.ndarray, a: int, prec: Precision, seed: int = 0,
               attempts: int = 2) -> tuple[Membership, tuple[np.ndarray, np.ndarray] | None]:
    """Decide whether a nonzero ambient point T (d', d, d, d) lies in M_{d,d',a}.

    Recovers real preimages (numag.tensor.preimage_candidates, [derived] method there) at
    2·digits + 10 working digits, with `attempts` random contractions (seeded), and decides the
    best residual against prec.tolerance. Returns the Membership and the best (A, V) (or None).
    """
    d_out, d = T.shape[0], T.shape[1]
    wprec = Precision(_work_digits(prec), prec.tolerance, prec.min_margin)
    rng = np.random.default_rng(seed)
    with wprec.context():
        Tw = wprec.convert(T)
        datas = [preimage_candidates(Tw, rng) for _ in range(attempts)]
        datas = [x for x in datas if x.candidates] or datas
        data = min(datas, key=lambda x: x.candidates[0].residual if x.candidates else math.inf)
        if not data.candidates:
            return Membership(False, 1.0, "no candidate preimage (contraction vanished)"), None
        best = data.candidates[0]
        A, V = best.A, best.V
        res = threshold_zero("relative residual", best.residual, prec)
        eig = tuple(float(x) for x in data.eigenvalues[:3])
        rank_a = threshold_rank("rank A of the recovered preimage", singular_values(A, wprec), prec)
        if res.decided and res.value == 0 and rank_a.decided and rank_a.value > min(a, d):
            A = _truncate(A, min(a, d), wprec)
            r2 = float(_norm(tensor(A, V) - Tw) / _norm(Tw))
            return Membership(False, r2, f"the preimage has rk A = {rank_a.value} > a = {a}: "
                              f"in M_{{{d},{d_out},{rank_a.value}}} but not in M_{{{d},{d_out},{a}}}; "
                              "residual after truncating A to rank a", res, eig), (A, V)
    reason = _membership_reason(data, res, prec)
    in_M = None if not res.decided else res.value == 0
    return Membership(in_M, float(best.residual), reason, res, eig), (A, V)


def _membership_reason(data: PreimageData, res: Decision, prec: Precision) -> str:
    if not res.decided:
        return "undecided: the best residual is within the margin of the tolerance"
    if res.value == 0:
        return "a real preimage (A, V) reproduces T"
    ev = data.eigenvalues
    if len(ev) >= 3 and threshold_zero("λ₃", abs(ev[2]), prec).value == 1:
        return ("not in M: the contraction Σ α_r y_e T[r,:,:,e] has rank ≥ 3, so T is not "
                "sym(V ⊗ A) for any (A, V)")
    if len(ev) >= 2 and ev[0] * ev[1] > 0 and threshold_zero("λ₂", abs(ev[1]), prec).value == 1:
        return ("not in M: the contraction is semidefinite of rank 2 (eigenvalues of one sign), "
                "so its factors are complex conjugate and T has no real preimage "
                "[paper-notes §2: c ⊗ S ⊗ v with S semidefinite]")
    return "not in M: no real candidate preimage reproduces T"


def _truncate(A: np.ndarray, r: int, prec: Precision) -> np.ndarray:
    U, s, Vt = svd(A, prec)
    return (U[:, :r] * np.array(s[:r], dtype=A.dtype)[None, :]).dot(Vt[:r])


# --- classification by the rules ---------------------------------------------------------------

def classify_weights(Q: np.ndarray, K: np.ndarray, V: np.ndarray, precision: Precision | None = None,
                     seed: int = 0, evidence: bool = True) -> Classification:
    """Classify φ_W for single-layer weights W = (Q, K, V), A = Kᵀ Q (paper-notes §1).

    Args:
        Q, K: (a, d); V: (d', d). Fractions (exact, as read by numag.io), ints, floats or mpf.
        precision: Precision() (50 digits) by default.
        seed: seeds the random inputs, fiber samples and probes of the evidence.
        evidence: compute the Evidence (Jacobian ranks, probes); costly for large shapes.
    Returns:
        Classification.
    Raises:
        ValueError: inconsistent shapes, d < 2, NaN or infinite entries.
    """
    Q, K, V = (_check_matrix(m, n) for m, n in ((Q, "Q"), (K, "K"), (V, "V")))
    if Q.shape != K.shape or V.shape[1] != Q.shape[1]:
        raise ValueError(f"Q {Q.shape}, K {K.shape} must both be (a, d) and V {V.shape} (d', d)")
    a, d = Q.shape
    A = K.T.dot(Q)                                   # exact for Fraction input
    return _classify(A, V, (d, V.shape[0], a), precision or Precision(), seed, evidence,
                     "weights (Q, K, V)", qkv=(Q, K, V))


def classify_av(A: np.ndarray, V: np.ndarray, a: int, precision: Precision | None = None,
                seed: int = 0, evidence: bool = True) -> Classification:
    """Classify the point T(A, V) of M_{d,d',a} given by A (d, d) and V (d', d).

    Raises:
        ValueError: wrong shapes, d < 2, NaN/infinite entries, or rk A > a decided (then (A, V)
            is not a point of M_{d,d',a}).
    """
    A, V = _check_matrix(A, "A"), _check_matrix(V, "V")
    if A.shape[0] != A.shape[1] or V.shape[1] != A.shape[0]:
        raise ValueError(f"A must be (d, d) and V (d', d), got A {A.shape}, V {V.shape}")
    _check_a(a)
    return _classify(A, V, (A.shape[0], V.shape[0], int(a)), precision or Precision(), seed,
                     evidence, "(A, V)")


def classify_tensor(T: np.ndarray, a: int, precision: Precision | None = None, seed: int = 0,
                    evidence: bool = True) -> Classification:
    """Classify an ambient point T (d', d, d, d) (paper-notes §1): recover a real preimage, or
    report "not in M" (labels ()) with the residual.

    Raises:
        ValueError: T not of shape (d', d, d, d), not symmetric in its middle indices, NaN/inf.
    """
    T = np.asarray(T)
    _check_a(a)
    if T.ndim != 4:
        raise ValueError(f"an ambient point is a 4-index tensor (d', d, d, d), got shape {T.shape}")
    T = check_tensor(_check_array(T, "tensor"), T.shape[1], T.shape[0])
    prec = precision or Precision()
    d_out, d = T.shape[0], T.shape[1]
    shape = (d, d_out, int(a))
    _check_shape(shape)
    if all(x == 0 for x in T.flat):
        zA, zV = np.zeros((d, d), dtype=int), np.zeros((d_out, d), dtype=int)
        mem = Membership(True, 0.0, "T = 0 = T(0, V) for every V")
        return _classify(zA, zV, shape, prec, seed, evidence, "ambient tensor", member=mem)
    mem, av = membership(T, a, prec, seed)
    if mem.in_M:
        return _classify(av[0], av[1], shape, prec, seed, evidence, "ambient tensor",
                         member=mem)
    labels = ("undecided",) if mem.in_M is None else ()
    alts = (("not in M",), ("in M",)) if mem.in_M is None else ()
    margin = mem.residual_decision.margin if mem.residual_decision else math.inf
    return Classification(shape, labels, (), {"A": None, "V": None}, (), margin, prec,
                          "ambient tensor", alts, membership=mem, seed=seed,
                          notes=(mem.reason,))


def _check_matrix(m: Any, name: str) -> np.ndarray:
    m = np.asarray(m)
    if m.ndim != 2 or 0 in m.shape:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {m.shape}")
    return _check_array(m, name)


def _check_array(m: np.ndarray, name: str) -> np.ndarray:
    if m.dtype == object:
        for v in m.flat:
            if isinstance(v, bool) or not isinstance(v, _REAL_TYPES):
                raise ValueError(f"{name}: {v!r} is not a real number")
            if isinstance(v, (float, mpmath.mpf)) and not mpmath.isfinite(v):
                raise ValueError(f"{name}: {v} is not a finite number")
        return m
    if not np.issubdtype(m.dtype, np.number) or np.iscomplexobj(m):
        raise ValueError(f"{name}: expected real numbers, got dtype {m.dtype}")
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    return m


def _check_a(a: Any) -> None:
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or a < 1:
        raise ValueError(f"a must be a positive integer, got {a!r}")


def _check_shape(shape: tuple[int, int, int]) -> None:
    if shape[0] < 2:
        raise ValueError(f"d = {shape[0]}: the classification of paper-notes §2 needs d >= 2")


def _classify(A_in, V_in, shape, prec: Precision, seed: int, want_evidence: bool, source: str,
              qkv=None, member: Membership | None = None) -> Classification:
    _check_shape(shape)
    d, d_out, a = shape
    with prec.context():
        A, V = prec.convert(A_in), prec.convert(V_in)
        decs, ranks, combos = _rank_decisions(A, V, shape, prec, source)
        label_sets = {}
        for rA, rV, par in combos:
            labels, kinds = rule_labels(d, d_out, a, rA, rV, par)
            label_sets.setdefault(labels, kinds)
        notes = []
        if len(label_sets) == 1:
            (labels, kinds), = label_sets.items()
            alts = ()
        else:
            labels, kinds, alts = ("undecided",), (), tuple(sorted(label_sets))
            notes.append("undecided: the margins at this precision leave " +
                         " or ".join("{" + ", ".join(x) + "}" for x in alts))
        if prec.is_float and labels == ("undecided",):
            notes.append("float64 cannot tell a special class from a neighbour within rounding "
                         "(≈1e-16 relative): use mpmath digits on exact input")
        # an undecided rank that cannot change the labels (e.g. rk V in {3, 4}) does not count
        used = [x for x in decs if x.decided] if alts == () else list(decs)
        margin = min((x.margin for x in used), default=math.inf)
        notes += [f"{x.quantity} undecided ({list(x.candidates)}) but the labels are the same "
                  "for every candidate" for x in decs if not x.decided and alts == ()]
        ev = _evidence(A, V, shape, prec, seed, decs, qkv, (A_in, V_in)) if want_evidence else None
    agreement = _agreement(labels, ev)
    notes += [f"{k}: rule and evidence DISAGREE" for k, v in agreement.items() if v == "DISAGREE"]
    return Classification(shape, labels, kinds, ranks, decs, margin, prec, source, alts, ev,
                          agreement, member, tuple(notes), seed)


def _rank_decisions(A, V, shape, prec: Precision, source: str):
    d, d_out, a = shape
    dA = threshold_rank("rank A", singular_values(A, prec), prec)
    dV = threshold_rank("rank V", singular_values(V, prec), prec)
    cand_A = dA.candidates
    if source == "(A, V)":
        if dA.decided and dA.value > min(a, d):
            raise ValueError(f"A has rank {dA.value} > a = {a} (tolerance {prec.tolerance:.1e}, "
                             f"margin {_fmt(dA.margin)}): (A, V) is not a point of "
                             f"M_{{{d},{d_out},{a}}}")
    # rk A ≤ a holds exactly for A = KᵀQ; candidates above it are rounding artefacts
    cand_A = tuple(r for r in cand_A if r <= min(a, d)) or (min(a, d),)
    decs = [dA, dV]
    pars: tuple[bool, ...] = (False,)
    nA, nV = max(singular_values(A, prec)), max(singular_values(V, prec))
    if 1 in cand_A and 1 in dV.candidates and (nA == 0 or nV == 0):
        pars = (False, True)                   # float64 zero matrix: direction unknown
    elif 1 in cand_A and 1 in dV.candidates:
        M = np.concatenate([A / nA, V.T / nV], axis=1)
        dP = threshold_rank("rank [A/|A|, Vᵀ/|V|] (u ∥ w iff 1)", singular_values(M, prec), prec)
        decs.append(dP)
        pars = tuple(sorted({c <= 1 for c in dP.candidates}))
    combos = list(itertools.product(cand_A, dV.candidates, pars))
    return tuple(decs), {"A": dA.value, "V": dV.value}, combos


# --- evidence independent of the rules -----------------------------------------------------------

NEARBY_POINTS = 3


def _evidence(A, V, shape, prec: Precision, seed: int, decs, qkv, exact) -> Evidence:
    d, d_out, a = shape
    arch = Architecture.single(d, d_out, a)
    ops = prec.ops()
    rng = np.random.default_rng(seed)
    n_inputs = math.ceil((arch.n_params + 8) / (2 * d_out)) + 1
    X = ops.random(rng, (n_inputs, d, 2))
    notes: list[str] = []

    def jac(W):
        return jacobian(arch, [LayerWeights(*W)], X, ops)

    generic = _generic_rank(shape, prec, seed, arch, X)
    dim_formula = single_layer(d, d_out, a)
    if generic.decided and generic.value != dim_formula:
        notes.append(f"DISAGREEMENT: computed generic rank {generic.value} vs HMK formula "
                     f"{dim_formula}")
    dim = generic.value
    pts = _fiber_points(A, V, shape, prec, rng, decs, qkv)
    T0 = tensor(A, V)
    n0 = _norm(T0)
    fiber, jacs = [], []
    for name, W, joint in pts:
        J = jac(W)
        res = _norm(tensor(W[1].T.dot(W[0]), W[2]) - T0)
        fiber.append(FiberPoint(name, threshold_rank(f"Jacobian rank at {name}",
                                                     singular_values(J, prec), prec),
                                float(res / n0) if n0 != 0 else float(res)))
        if joint:
            jacs.append(J)
    joint = (threshold_rank("joint rank of the fiber's tangent images",
                            singular_values(_joint(jacs, ops, seed), prec), prec)
             if len(jacs) > 1 else fiber[0].jacobian_rank)
    singular, nearby, eps = _singular_verdict(fiber, joint, dim, generic, notes), None, None
    if singular == "critical":
        nearby, eps = _nearby_joint_rank(pts[0][1], jac, dim, prec, rng)
        singular = _nearby_verdict(nearby, dim, notes)
    boundary, probes = _boundary_probe(exact, shape, prec, seed, decs, notes)
    return Evidence(dim_formula, generic, tuple(fiber), joint, singular, boundary, nearby, eps,
                    tuple(probes), tuple(notes), seed, n_inputs)


def _joint(jacs: list, ops, seed: int) -> np.ndarray:
    """[J_1 | … | J_k], its columns compressed to as many as it has rows by a seeded Gaussian
    matrix R when wider: rank(J R) = rank(J) for generic R with rank(J) ≤ rows columns, and the
    SVD then costs rows³ instead of (k·n_params)·rows² (minutes saved at (8, 8, 4))."""
    J = np.concatenate(jacs, axis=1)
    if J.shape[1] <= J.shape[0]:
        return J
    R = ops.random(np.random.default_rng([seed, 3]), (J.shape[1], J.shape[0]))
    return ops.mm(J, R)


_GENERIC_CACHE: dict = {}


def _generic_rank(shape, prec: Precision, seed: int, arch, X) -> Decision:
    """Jacobian rank at a random point (the computed dim M); cached per shape/precision/seed."""
    key = (shape, prec, seed)
    if key not in _GENERIC_CACHE:
        ops = prec.ops()
        W = arch.unpack(ops.random(np.random.default_rng([seed, 1]), (arch.n_params,)))
        J = jacobian(arch, W, X, ops)
        _GENERIC_CACHE[key] = threshold_rank("generic Jacobian rank", singular_values(J, prec),
                                             prec)
    return _GENERIC_CACHE[key]


def _fiber_points(A, V, shape, prec: Precision, rng, decs, qkv):
    """Points W of the fiber over T(A, V): (name, (Q, K, V), use in the joint rank)."""
    d, d_out, a = shape
    ops = prec.ops()
    rA, rV = decs[0].value, decs[1].value
    if rA == 0 or rV == 0:
        def R(*s):
            return ops.random(rng, s)
        Z = ops.zeros
        return [("{A = 0}: K = 0, Q and V random", (R(a, d), Z((a, d)), R(d_out, d)), True),
                ("{A = 0}: Q = 0, K and V random", (Z((a, d)), R(a, d), R(d_out, d)), True),
                ("{V = 0}: Q, K random", (R(a, d), R(a, d), Z((d_out, d))), True),
                ("{V = 0}: Q, K random (2)", (R(a, d), R(a, d), Z((d_out, d))), True)]
    pts = _factorizations("the point", *_balance(A, V), min(rA, a), a, prec, rng)
    if rA == 1 and rV == 1:
        (u, v), (c, w) = _rank1_factors(A, prec), _rank1_factors(V, prec)
        A2, V2 = np.outer(w, v), np.outer(c, u)
        pts += _factorizations("the swap (w vᵀ, c uᵀ)", *_balance(A2, V2), 1, a, prec, rng)
    if qkv is not None:
        Q, K, Vq = (prec.convert(m) for m in qkv)
        pts.append(("the given weights (rescaled)", _rescale(Q, K, Vq), rA < a))
    return pts


def _rank1_factors(M, prec: Precision):
    """M ≈ x yᵀ from the top singular triple (x carries the scale)."""
    U, s, Vt = svd(M, prec)
    return U[:, 0] * s[0], Vt[0]


def _balance(A, V):
    """(λA, V/λ) with ‖λA‖ = ‖V/λ‖: the same φ, better conditioned Jacobians."""
    nA, nV = _norm(A), _norm(V)
    lam = (nV / nA) ** 0.5 if A.dtype != object else mpmath.sqrt(nV / nA)
    return A * lam, V / lam


def _rescale(Q, K, V):
    """Scale (Q, K) ↦ (sQ, K/s) and (A, V) ↦ (λA, V/λ) (symmetries) to balance the norms."""
    sq = _sqrt(_norm(K) / _norm(Q)) if _norm(Q) != 0 and _norm(K) != 0 else 1
    Q, K = Q * sq, K / sq
    nA, nV = _norm(K.T.dot(Q)), _norm(V)
    lam = _sqrt(nV / nA) if nA != 0 and nV != 0 else 1
    return Q * _sqrt(lam), K * _sqrt(lam), V / lam


def _sqrt(x):
    return mpmath.sqrt(x) if isinstance(x, mpmath.mpf) else math.sqrt(x)


def _factorizations(name, A, V, r, a, prec: Precision, rng):
    """A = Kᵀ Q with Q, K (a, d): the balanced SVD factorization, and when r < a three random
    ones (extra rows in Q or in K: Nᵀ P = 0), which differ in their tangent images."""
    d = A.shape[0]
    U, s, Vt = svd(A, prec)
    sq = np.array([_sqrt(x) for x in s[:r]], dtype=A.dtype)
    Q, K = prec.ops().zeros((a, d)), prec.ops().zeros((a, d))
    Q[:r], K[:r] = sq[:, None] * Vt[:r], (U[:, :r] * sq[None, :]).T
    out = [(name, (Q, K, V), True)]
    if r < a:
        scale = _norm(Q) / _sqrt(r) if r else 1
        for i, which in enumerate(("Q", "K", "Q")):
            Q2, K2 = Q.copy(), K.copy()
            extra = prec.ops().random(rng, (a - r, d)) * scale
            if which == "Q":
                Q2[r:] = extra
            else:
                K2[r:] = extra
            out.append((f"{name}, factorization {i + 1} (random extra rows of {which})",
                        (Q2, K2, V), True))
    return out


def _eps(prec: Precision) -> float:
    """Relative distance of the nearby points and probes: 10^(−digits/5) (1e-10 at 50 digits)."""
    return 1e-4 if prec.is_float else 10.0 ** (-prec.digits / 5)


def _singular_verdict(fiber, joint: Decision, dim: int, generic: Decision, notes: list) -> str:
    if not generic.decided:
        notes.append("generic Jacobian rank undecided: no singularity verdict")
        return "inconclusive"
    if min(joint.candidates) > dim:
        notes.append(f"joint rank of the fiber's tangent images {joint.value} > dim M = {dim}; "
                     "every image of the differential lies in the Zariski tangent space at φ, "
                     "which is therefore larger than dim M: singular")
        return "singular"
    full = [f.name for f in fiber if f.jacobian_rank.candidates == (dim,)]
    if max(joint.candidates) <= dim and full:
        notes.append(f"Jacobian rank dim M = {dim} at {full[0]} and joint rank {joint.value}: a "
                     "neighbourhood there maps onto a manifold of dimension dim M, and all fiber "
                     "tangent images agree (consistent with smooth)")
        return "smooth"
    if max(joint.candidates) <= dim and all(max(f.jacobian_rank.candidates) < dim for f in fiber):
        notes.append(f"every fiber point tried is critical (Jacobian rank < dim M = {dim}): "
                     "tangent spaces at nearby points decide")
        return "critical"
    notes.append("Jacobian ranks undecided at this precision: no singularity verdict")
    return "inconclusive"


def _nearby_joint_rank(W, jac, dim: int, prec: Precision, rng) -> tuple[Decision, float]:
    """Joint rank of the tangent spaces (orthonormal bases) at NEARBY_POINTS random points at
    relative distance ε from W, decided at tolerance √ε: at a smooth point they differ by O(ε)."""
    eps = _eps(prec)
    ops = prec.ops()
    nW = _norm(np.concatenate([m.reshape(-1) for m in W]))
    bases = []
    for _ in range(NEARBY_POINTS):
        dW = [ops.random(rng, m.shape) for m in W]
        step = eps * nW / _norm(np.concatenate([m.reshape(-1) for m in dW]))
        U, s, _ = svd(jac([m + step * dm for m, dm in zip(W, dW)]), prec)
        bases.append(U[:, :threshold_rank("nearby rank", s, prec).value])
    near = Precision(prec.digits, tolerance=eps ** 0.5, min_margin=10.0 if prec.digits else 3.0)
    dec = threshold_rank("joint rank of tangent spaces at nearby points",
                         singular_values(np.concatenate(bases, axis=1), near), near)
    return dec, eps


def _nearby_verdict(dec: Decision, dim: int, notes: list) -> str:
    if min(dec.candidates) > dim:
        notes.append(f"tangent spaces at nearby points span {dec.value} > dim M = {dim} at "
                     f"tolerance {dec.tolerance:.1e}: they jump, their limits at φ lie in the "
                     "Zariski tangent space, which is larger than dim M: singular")
        return "singular"
    if max(dec.candidates) <= dim:
        notes.append(f"tangent spaces at nearby points agree up to O(ε) (joint rank {dec.value} "
                     f"= dim M): no singularity detected (a cusp-like one would not show)")
        return "smooth"
    notes.append("nearby tangent spaces: joint rank undecided")
    return "inconclusive"


def _outer3(c, S, v):
    """c ⊗ S ⊗ v as a (d', d, d, d) tensor; equals T(u vᵀ, c wᵀ) for S = sym(u wᵀ)."""
    return c[:, None, None, None] * S[None, :, :, None] * v[None, None, None, :]


def _boundary_probe(exact, shape, prec: Precision, seed: int, decs, notes: list):
    """Real points of the Zariski closure without a real preimage near φ (paper-notes §2).

    For rk A = rk V = 1, S = sym(u wᵀ) has eigenvalues λ± with |λ₋/λ₊| = tan²(θ/2) (θ the
    angle of u, w): the outside points c ⊗ S' ⊗ v are at distance ≈ |λ₋/λ₊|, a quadratic quantity,
    so it is computed from the exact input at 2·digits + 10 digits and decided at tolerance².
    """
    d, d_out, a = shape
    dA, dV = decs[0], decs[1]
    eps = _eps(prec)
    wprec = Precision(_work_digits(prec), prec.tolerance ** 2, prec.min_margin ** 2)
    rng = np.random.default_rng([seed, 2])
    with wprec.context():
        ops = wprec.ops()
        A, V = wprec.convert(exact[0]), wprec.convert(exact[1])
        if dA.candidates == (0,) or dV.candidates == (0,):
            c, v, x, y = (ops.random(rng, (n,)) for n in (d_out, d, d, d))
            psi = _outer3(c, np.outer(x, x) + np.outer(y, y), v)
            probes = [_probe(psi * s, None, a, prec, seed) for s in (eps, eps * eps)]
            if all(p["in_M"] is False for p in probes):
                notes.append("points ε·c ⊗ S ⊗ v (S semidefinite of rank 2) of the Zariski "
                             "closure have no real preimage, for ε → 0: zero is on the boundary")
                return "boundary", probes
            notes.append("boundary probe: membership of the outside points not decided")
            return "inconclusive", probes
        if not (dA.candidates == (1,) and dV.candidates == (1,)):
            notes.append("no rank-1 factors (rk A or rk V ≥ 2, or undecided): no outside point "
                         "constructed ([derived] real points of the Zariski closure outside M are "
                         "c ⊗ S ⊗ v with S semidefinite of rank 2)")
            return "not probed", []
        (u, v), (c, w) = _rank1_factors(A, wprec), _rank1_factors(V, wprec)
        S = (np.outer(u, w) + np.outer(w, u)) / 2
        vals, vecs = eigh(S)
        i, j = sorted(range(d), key=lambda k: -abs(vals[k]))[:2]
        rho = abs(vals[j]) / abs(vals[i])
        flat = threshold_zero("|λ₋/λ₊| of S = sym(u wᵀ)", rho, wprec)
        sign = 1 if vals[i] > 0 else -1
        S2 = S + (sign * eps * abs(vals[i]) - vals[j]) * np.outer(vecs[:, j], vecs[:, j])
        probe = _probe(_outer3(c, S2, v), tensor(A, V), a, prec, seed)
    probe.update(eigenvalue_ratio=float(rho), eigenvalue_ratio_margin=_num(flat.margin),
                 eigenvalue_ratio_tolerance=wprec.tolerance)
    if probe["in_M"] is not False:
        notes.append("boundary probe: the constructed outside point was not shown outside M")
        return "inconclusive", [probe]
    if flat.candidates == (0,):
        notes.append(f"S = sym(u wᵀ) has rank 1, so c ⊗ S' ⊗ v with S' semidefinite of rank 2 at "
                     f"distance {probe['distance']:.2g} (→ 0 with ε) has no real preimage: boundary")
        return "boundary", [probe]
    if flat.candidates == (1,):
        notes.append(f"S = sym(u wᵀ) is indefinite (|λ₋/λ₊| = {float(rho):.3g}): the nearest "
                     f"outside point c ⊗ S' ⊗ v is at relative distance {probe['distance']:.3g}; "
                     "[derived] every outside point of the Zariski closure has this form")
        return "not boundary", [probe]
    return "inconclusive", [probe]


def _probe(psi, T0, a: int, prec: Precision, seed: int) -> dict:
    mem, _ = membership(psi, a, prec, seed)
    dist = _norm(psi - T0) / _norm(T0) if T0 is not None else _norm(psi)
    return {"distance": float(dist), "in_M": mem.in_M, "residual": mem.residual,
            "reason": mem.reason}


def _agreement(labels: tuple[str, ...], ev: Evidence | None) -> dict:
    if ev is None:
        return {}
    if labels in (("undecided",), ()):
        return {"singular": "rule undecided", "boundary": "rule undecided"}
    out = {}
    for key, yes, no in (("singular", "singular", "smooth"), ("boundary", "boundary", "not boundary")):
        verdict = getattr(ev, key)
        if verdict in (yes, no):
            out[key] = "agree" if (verdict == yes) == (key in labels) else "DISAGREE"
        else:
            out[key] = verdict
    return out


def classify_point(point, precision: Precision | None = None, seed: int = 0,
                   evidence: bool = True) -> Classification:
    """Classify a numag.io.SingleLayerPoint ('weights', 'AV' or 'tensor')."""
    d, d_out, a = point.shape
    if point.kind == "weights":
        return classify_weights(*(point.arrays[k] for k in "QKV"), precision, seed, evidence)
    if point.kind == "AV":
        return classify_av(point.arrays["A"], point.arrays["V"], a, precision, seed, evidence)
    if point.kind == "tensor":
        return classify_tensor(point.arrays["T"], a, precision, seed, evidence)
    raise ValueError(f"unknown point kind {point.kind!r}")
