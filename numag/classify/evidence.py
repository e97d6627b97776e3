"""Evidence on the class of φ computed independently of the rank rules.

Evidence (see `Evidence`) uses the Jacobian of the parametrization W = (Q, K, V) ↦ φ_W
(numag.jacobian, at fixed random inputs) on points of the fiber, and constructed real points of
the Zariski closure without a real preimage (numag.tensor recovery; numag.classify.boundary).

Which fiber branches and probes are examined depends on rk A and rk V. The evidence does NOT
take them from the rules' thresholded decisions: for exact input (weights or (A, V), floats read
as the rationals they are) it computes them exactly over Q (python-flint). Only for an ambient
tensor, whose (A, V) is a numerical preimage, does it reuse the rules' rank decisions, and
`Evidence.ranks_source` says so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from ..architecture import Architecture, LayerWeights
from ..formulas import single_layer
from ..jacobian import jacobian
from ..rank import Decision, json_num, RankOptions, singular_values, threshold_rank
from ..tensor import tensor
from .boundary import boundary_probe
from .fiber import FiberSample, fiber_points
from .inputs import exact_rationals
from .labels import UNDECIDED, Agreement, BoundaryVerdict, Label, SingularVerdict
from .precision import nearby_epsilon, norm, svd

NEARBY_POINTS = 3


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
                "margin": json_num(self.jacobian_rank.margin),
                "fiber_residual": self.fiber_residual}


@dataclass(frozen=True)
class Evidence:
    """Evidence computed independently of the rank rules.

    Attributes
    ----------
    dim_formula
        dim M from numag.formulas.single_layer (HMK).
    generic_rank
        Jacobian rank at a random point (the computed dim M).
    fiber
        fiber points (branches and, when rk A < a or φ = 0, random factorizations).
    joint_rank
        rank of all their tangent images together (> dim M ⇒ singular: the Zariski
        tangent space contains every image of the differential).
    nearby_joint_rank
        joint rank of the tangent spaces at random points at relative
        distance `epsilon` (only when every fiber point is critical); > dim M means the
        tangent spaces jump, so their limits span more than dim M ⇒ singular.
    singular
        SingularVerdict: singular, smooth (consistent with smooth), or inconclusive.
    boundary
        BoundaryVerdict: boundary, not boundary, not probed, or inconclusive.
    probes
        outside points of the Zariski closure tried: relative distance and membership.
    notes
        how each verdict was reached.
    ranks_source
        where the rk A, rk V that choose the branches and probes come from: "exact over Q"
        (independent of the rules) or "reused: the rules' rank decisions" (ambient tensor).
    """

    dim_formula: int
    generic_rank: Decision
    fiber: tuple[FiberPoint, ...]
    joint_rank: Decision
    singular: SingularVerdict
    boundary: BoundaryVerdict
    nearby_joint_rank: Decision | None = None
    epsilon: float | None = None
    probes: tuple[dict, ...] = ()
    notes: tuple[str, ...] = ()
    seed: int = 0
    n_inputs: int = 0
    ranks_source: str = ""

    def to_json(self) -> dict:
        return {"dim_formula": self.dim_formula, "generic_rank": self.generic_rank.to_json(),
                "fiber": [f.to_json() for f in self.fiber],
                "joint_rank": self.joint_rank.to_json(),
                "nearby_joint_rank": (self.nearby_joint_rank.to_json()
                                      if self.nearby_joint_rank else None),
                "epsilon": self.epsilon, "singular": self.singular, "boundary": self.boundary,
                "probes": list(self.probes), "notes": list(self.notes), "seed": self.seed,
                "n_inputs": self.n_inputs, "ranks_source": self.ranks_source}


def collect_evidence(A: np.ndarray, V: np.ndarray, shape: tuple[int, int, int],
                     prec: RankOptions, seed: int, decs: tuple[Decision, ...], qkv,
                     exact, exact_input: bool = True) -> Evidence:
    """Jacobian ranks on the fiber over φ = T(A, V), nearby tangent spaces and boundary probes.

    Parameters
    ----------
    A, V
        converted to prec (call inside prec.context()); exact: the input (A, V) as read.
    decs
        the rules' rank A, rank V decisions: used only when `exact_input` is False (an
        ambient tensor's numerical preimage); otherwise rk A, rk V are computed exactly.
    exact_input
        `exact` is the input as given (weights or (A, V)), not a numerical preimage.
    qkv
        the given weights (Q, K, V), or None.
    """
    d, d_out, a = shape
    exact, qkv, scaled = normalized(exact, qkv)
    A, V = prec.convert(exact[0]), prec.convert(exact[1])
    arch = Architecture.single(d, d_out, a)
    ops = prec.ops()
    rng = np.random.default_rng(seed)
    n_inputs = math.ceil((arch.n_params + 8) / (2 * d_out)) + 1
    X = ops.random(rng, (n_inputs, d, 2))
    notes: list[str] = ([f"evidence computed at (A, V) scaled by powers of two to entries of "
                          f"size ~1 ({scaled}): the same point of P(M), and every label is "
                          "invariant under scaling (M is a cone)"] if scaled else [])

    def jac(W):
        return jacobian(arch, [LayerWeights(*W)], X, ops)

    generic = _generic_rank(shape, prec, seed, arch, X)
    dim_formula = single_layer(d, d_out, a)
    if generic.decided and generic.value != dim_formula:
        notes.append(f"DISAGREEMENT: computed generic rank {generic.value} vs HMK formula "
                     f"{dim_formula}")
    dim = generic.value
    ranks, ranks_source = (_evidence_ranks(exact, decs) if exact_input else
                           ((decs[0].value, decs[1].value), REUSED_RANKS))
    notes.append(f"rk A = {ranks[0]}, rk V = {ranks[1]} ({ranks_source}) choose the branches "
                 "and probes")
    pts = fiber_points(A, V, shape, prec, rng, ranks, qkv)
    fiber, joint = _fiber_ranks(pts, jac, tensor(A, V), prec, seed)
    singular, nearby, eps = _singular_verdict(fiber, joint, dim, generic, notes), None, None
    if singular is SingularVerdict.CRITICAL:
        nearby, eps = _nearby_joint_rank(pts[0][1], jac, prec, rng)
        singular = _nearby_verdict(nearby, dim, notes)
    boundary, probes = boundary_probe(exact, shape, prec, seed, ranks, notes)
    return Evidence(dim_formula, generic, tuple(fiber), joint, singular, boundary, nearby, eps,
                    tuple(probes), tuple(notes), seed, n_inputs, ranks_source)


def _pow2(m: np.ndarray) -> Fraction:
    """2^-k with 2^k ≈ the largest |entry| of the rational array m (1 for m = 0): exact."""
    big = max((abs(x) for x in m.flat), default=Fraction(0))
    if big == 0:
        return Fraction(1)
    k = _log2(Fraction(big))
    if abs(k) <= RESCALE_BEYOND:
        return Fraction(1)
    return Fraction(1, 2 ** k) if k >= 0 else Fraction(2 ** -k)


# entries within 2^±16 of 1 are left alone: a relative threshold then still sees every block
RESCALE_BEYOND = 16


def normalized(exact, qkv) -> tuple[tuple, tuple | None, str]:
    """(A, V) and the weights (Q, K, V) rescaled by powers of two (exactly, as rationals) to
    entries of size ~1, and a description of the scaling ("" when none was needed).

    A point whose entries are ~1e308 (or 1e-300) has the same labels as its rescaling (M is a
    cone; (A, V) and (cA, V/c) give the same φ), but its Jacobian's blocks differ in size by
    powers of the scale, which a relative rank threshold reads as a rank drop.
    """
    mats = [exact_rationals(np.asarray(m, dtype=object)) for m in exact]
    if qkv is None:
        sA, sV = (_pow2(m) for m in mats)
        out_qkv = None
    else:
        ws = [exact_rationals(np.asarray(m, dtype=object)) for m in qkv]
        sQ, sK, sV = (_pow2(m) for m in ws)
        sA = sQ * sK
        out_qkv = tuple(m * s for m, s in zip(ws, (sQ, sK, sV)))
    note = "" if sA == sV == 1 else f"A by 2^{_log2(sA)}, V by 2^{_log2(sV)}"
    return (mats[0] * sA, mats[1] * sV), out_qkv, note


def _log2(s: Fraction) -> int:
    return s.numerator.bit_length() - s.denominator.bit_length()


EXACT_RANKS = "exact over Q (python-flint), independent of the rules"
REUSED_RANKS = "reused: the rules' rank decisions (ambient tensor: no exact preimage)"


def _evidence_ranks(exact, decs: tuple[Decision, ...]) -> tuple[tuple[int, int], str]:
    """(rk A, rk V) for choosing branches and probes: exact ranks over Q when the input is exact
    (Fractions, ints, floats, mpf: every one is a rational), else the rules' decisions."""
    try:
        mats = [exact_rationals(np.asarray(m, dtype=object)) for m in exact]
        ranks = tuple(flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator)
                                        if hasattr(x, "denominator") else flint.fmpq(int(x))
                                        for x in row] for row in m]).rank() for m in mats)
        return ranks, EXACT_RANKS
    except (TypeError, ValueError):
        return (decs[0].value, decs[1].value), REUSED_RANKS


def _fiber_ranks(pts: list[FiberSample], jac, T0: np.ndarray, prec: RankOptions,
                 seed: int) -> tuple[list[FiberPoint], Decision]:
    """Jacobian rank and relative residual at each fiber point, and the joint rank."""
    n0 = norm(T0)
    fiber, jacs = [], []
    for name, W, joint in pts:
        J = jac(W)
        res = norm(tensor(W[1].T.dot(W[0]), W[2]) - T0)
        rank = threshold_rank(f"Jacobian rank at {name}", singular_values(J, prec), prec)
        fiber.append(FiberPoint(name, rank, float(res / n0) if n0 != 0 else float(res)))
        if joint:
            jacs.append(J)
    if len(jacs) <= 1:
        return fiber, fiber[0].jacobian_rank
    J = _joint(jacs, prec.ops(), seed)
    return fiber, threshold_rank("joint rank of the fiber's tangent images",
                                 singular_values(J, prec), prec)


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


def _generic_rank(shape, prec: RankOptions, seed: int, arch, X) -> Decision:
    """Jacobian rank at a random point (the computed dim M); cached per shape/precision/seed."""
    key = (shape, prec, seed)
    if key not in _GENERIC_CACHE:
        ops = prec.ops()
        W = arch.unpack(ops.random(np.random.default_rng([seed, 1]), (arch.n_params,)))
        J = jacobian(arch, W, X, ops)
        _GENERIC_CACHE[key] = threshold_rank("generic Jacobian rank", singular_values(J, prec),
                                             prec)
    return _GENERIC_CACHE[key]


def _singular_verdict(fiber, joint: Decision, dim: int, generic: Decision,
                      notes: list) -> SingularVerdict:
    """Singular, smooth, inconclusive, or critical (nearby tangent spaces decide)."""
    if not generic.decided:
        notes.append("generic Jacobian rank undecided: no singularity verdict")
        return SingularVerdict.INCONCLUSIVE
    if min(joint.candidates) > dim:
        notes.append(f"joint rank of the fiber's tangent images {joint.value} > dim M = {dim}; "
                     "every image of the differential lies in the Zariski tangent space at φ, "
                     "which is therefore larger than dim M: singular")
        return SingularVerdict.SINGULAR
    full = [f.name for f in fiber if f.jacobian_rank.candidates == (dim,)]
    if max(joint.candidates) <= dim and full:
        notes.append(f"Jacobian rank dim M = {dim} at {full[0]} and joint rank {joint.value}: a "
                     "neighbourhood there maps onto a manifold of dimension dim M, and all fiber "
                     "tangent images agree (consistent with smooth)")
        return SingularVerdict.SMOOTH
    if max(joint.candidates) <= dim and all(max(f.jacobian_rank.candidates) < dim for f in fiber):
        notes.append(f"every fiber point tried is critical (Jacobian rank < dim M = {dim}): "
                     "tangent spaces at nearby points decide")
        return SingularVerdict.CRITICAL
    notes.append("Jacobian ranks undecided at this precision: no singularity verdict")
    return SingularVerdict.INCONCLUSIVE


def _nearby_joint_rank(W, jac, prec: RankOptions, rng) -> tuple[Decision, float]:
    """Joint rank of the tangent spaces (orthonormal bases) at NEARBY_POINTS random points at
    relative distance ε from W, decided at tolerance √ε: at a smooth point they differ by O(ε)."""
    eps = nearby_epsilon(prec)
    ops = prec.ops()
    nW = norm(np.concatenate([m.reshape(-1) for m in W]))
    bases = []
    for _ in range(NEARBY_POINTS):
        dW = [ops.random(rng, m.shape) for m in W]
        step = eps * nW / norm(np.concatenate([m.reshape(-1) for m in dW]))
        U, s, _ = svd(jac([m + step * dm for m, dm in zip(W, dW)]), prec)
        bases.append(U[:, :threshold_rank("nearby rank", s, prec).value])
    near = RankOptions(prec.digits, tolerance=eps ** 0.5, min_margin=10.0 if prec.digits else 3.0)
    dec = threshold_rank("joint rank of tangent spaces at nearby points",
                         singular_values(np.concatenate(bases, axis=1), near), near)
    return dec, eps


def _nearby_verdict(dec: Decision, dim: int, notes: list) -> SingularVerdict:
    if min(dec.candidates) > dim:
        notes.append(f"tangent spaces at nearby points span {dec.value} > dim M = {dim} at "
                     f"tolerance {dec.tolerance:.1e}: they jump, their limits at φ lie in the "
                     "Zariski tangent space, which is larger than dim M: singular")
        return SingularVerdict.SINGULAR
    if max(dec.candidates) <= dim:
        notes.append(f"tangent spaces at nearby points agree up to O(ε) (joint rank {dec.value} "
                     f"= dim M): no singularity detected (a cusp-like one would not show)")
        return SingularVerdict.SMOOTH
    notes.append("nearby tangent spaces: joint rank undecided")
    return SingularVerdict.INCONCLUSIVE


def agreement(labels: tuple[Label, ...], ev: Evidence | None) -> dict[str, Agreement]:
    """Rule labels vs evidence: {"singular": ..., "boundary": ...}, each agree, DISAGREE or
    the evidence's own undecided verdict (inconclusive, not probed: unchecked, not agreement);
    {} without evidence."""
    if ev is None:
        return {}
    if labels in (UNDECIDED, ()):
        return {"singular": Agreement.RULE_UNDECIDED, "boundary": Agreement.RULE_UNDECIDED}
    out = {}
    for key, verdict, yes in (("singular", ev.singular, SingularVerdict.SINGULAR),
                              ("boundary", ev.boundary, BoundaryVerdict.BOUNDARY)):
        if verdict.decided:
            out[key] = Agreement.AGREE if (verdict is yes) == (Label(key) in labels) \
                else Agreement.DISAGREE
        else:
            out[key] = Agreement(verdict.value)
    return out
