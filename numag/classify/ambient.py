"""Membership of an ambient point T in M_{d,d',a}, by recovering a real preimage (A, V)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..rank import Decision, RankOptions, singular_values, threshold_rank, threshold_zero
from ..tensor import PreimageData, preimage_candidates, tensor
from .precision import fmt, norm, svd, work_digits


@dataclass(frozen=True)
class Membership:
    """Is an ambient point in M? (preimage recovery, numag.tensor.preimage_candidates)

    Attributes
    ----------
    in_M
        True, False, or None (undecided).
    residual
        relative residual ‖T(A, V) − T‖/‖T‖ of the best real candidate preimage (an
        upper bound on the relative distance to M when rk A ≤ a).
    reason
        why (e.g. semidefinite contraction: no real preimage).
    residual_decision
        the residual, decided against the tolerance.
    eigenvalues
        normalized eigenvalues of the random contraction (first three).
    rank_A
        rk A of the recovered preimage, decided against the tolerance (T ∈ M needs
        rk A ≤ a as well as residual 0); the classification reads it from here.
    """

    in_M: bool | None
    residual: float
    reason: str
    residual_decision: Decision | None = None
    eigenvalues: tuple[float, ...] = ()
    rank_A: Decision | None = None

    @property
    def preimage_fits(self) -> bool:
        """The recovered preimage reproduces T (residual decided 0), whatever rk A is."""
        d = self.residual_decision
        return d is not None and d.decided and d.value == 0

    def to_json(self) -> dict:
        return {"in_M": self.in_M, "residual": self.residual, "reason": self.reason,
                "eigenvalues": [float(x) for x in self.eigenvalues],
                "residual_decision": (self.residual_decision.to_json()
                                      if self.residual_decision else None),
                "rank_A": self.rank_A.to_json() if self.rank_A else None}


def membership(T: np.ndarray, a: int, prec: RankOptions, seed: int = 0,
               attempts: int = 2) -> tuple[Membership, tuple[np.ndarray, np.ndarray] | None]:
    """Decide whether a nonzero ambient point T (d', d, d, d) lies in M_{d,d',a}.

    Recovers real preimages (numag.tensor.preimage_candidates, [derived] method there) at
    2·digits + 10 working digits, with `attempts` random contractions (seeded), and decides the
    best residual against prec.tolerance. Returns the Membership and the best (A, V) (or None).
    """
    d_out, d = T.shape[0], T.shape[1]
    wprec = RankOptions(work_digits(prec), prec.tolerance, prec.min_margin)
    rng = np.random.default_rng(seed)
    with wprec.context():
        Tw = wprec.convert(T)
        data = _best_recovery(Tw, rng, attempts)
        if not data.candidates:
            return Membership(False, 1.0, "no candidate preimage (contraction vanished)"), None
        best = data.candidates[0]
        A, V = best.A, best.V
        res = threshold_zero("relative residual", best.residual, prec)
        eig = tuple(float(x) for x in data.eigenvalues[:3])
        rank_a = threshold_rank("rank A of the recovered preimage", singular_values(A, wprec), prec)
        limit = min(a, d)
        fits = res.decided and res.value == 0
        if fits and min(rank_a.candidates) > limit:
            A = _truncate(A, limit, wprec)
            r2 = float(norm(tensor(A, V) - Tw) / norm(Tw))
            r = (f"rk A = {rank_a.value}" if rank_a.decided else
                 f"rk A in {list(rank_a.candidates)} (undecided, every candidate)")
            return Membership(False, r2, f"the preimage has {r} > a = {a}: in "
                              f"M_{{{d},{d_out},{max(rank_a.candidates)}}} but not in "
                              f"M_{{{d},{d_out},{a}}}; residual after truncating A to rank a",
                              res, eig, rank_a), (A, V)
        if fits and max(rank_a.candidates) > limit:
            # the fiber over T is {(λA, V/λ)}, plus the swap (w vᵀ, c uᵀ) when rk A = rk V = 1
            # (numag.classify.fiber), so rk A is a property of T: an undecided rank reaching
            # above a is an undecided membership
            return Membership(None, float(best.residual), (
                f"undecided: a real preimage reproduces T, but its rk A is undecided among "
                f"{list(rank_a.candidates)} (margin {fmt(rank_a.margin)}) and rk A > a = {a} "
                f"would put T outside M_{{{d},{d_out},{a}}}"), res, eig, rank_a), (A, V)
    reason = _reason(data, res, prec)            # at the caller's precision, as decided
    in_M = None if not res.decided else res.value == 0
    return Membership(in_M, float(best.residual), reason, res, eig, rank_a), (A, V)


def _best_recovery(T: np.ndarray, rng: np.random.Generator, attempts: int) -> PreimageData:
    """The recovery (of `attempts` random contractions) whose best candidate fits T best."""
    datas = [preimage_candidates(T, rng) for _ in range(attempts)]
    datas = [x for x in datas if x.candidates] or datas
    return min(datas, key=lambda x: x.candidates[0].residual if x.candidates else math.inf)


def _reason(data: PreimageData, res: Decision, prec: RankOptions) -> str:
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


def _truncate(A: np.ndarray, r: int, prec: RankOptions) -> np.ndarray:
    """The best rank-r approximation of A (truncated SVD)."""
    U, s, Vt = svd(A, prec)
    return (U[:, :r] * np.array(s[:r], dtype=A.dtype)[None, :]).dot(Vt[:r])
