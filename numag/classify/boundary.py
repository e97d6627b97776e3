"""Boundary probes: real points of the Zariski closure of M without a real preimage, near φ.

[derived] (paper-notes §2): the real points of the Zariski closure outside M are c ⊗ S ⊗ v with
S semidefinite of rank 2; φ is on the boundary when such points come arbitrarily close.
"""
from __future__ import annotations

import numpy as np

from ..rank import Decision, json_num, RankOptions, singular_values, threshold_zero
from ..tensor import eigh, tensor
from .ambient import membership
from .labels import BoundaryVerdict
from .precision import nearby_epsilon, norm, rank1_factors, work_digits


def boundary_probe(exact, shape: tuple[int, int, int], prec: RankOptions, seed: int,
                   ranks: tuple[int, int], notes: list) -> tuple[BoundaryVerdict, list[dict]]:
    """Boundary verdict (boundary, not boundary, inconclusive) and probes.

    Parameters
    ----------
    exact
        the input (A, V), read exactly (Fractions, ints, floats or mpf).
    ranks
        (rk A, rk V) as the evidence determined them (numag.classify.evidence).
    notes
        receives how the verdict was reached.
    """
    rA, rV = ranks
    if rA == 0 or rV == 0:
        return _probe_zero(shape, prec, seed, notes)
    if rA == 1 and rV == 1:
        return _probe_rank1(exact, shape, prec, seed, notes)
    return _probe_flattenings(exact, prec, notes)


def _probe_flattenings(exact, prec: RankOptions,
                       notes: list) -> tuple[BoundaryVerdict, list[dict]]:
    """rk A ≥ 2 or rk V ≥ 2: every outside point c ⊗ S ⊗ v has both flattenings
    (r | b c e) and (e | r b c) of rank 1, so by Eckart–Young its distance to T is at least
    σ₂ of T's flattenings. T's (r | ·) flattening has rank rk V and its (e | ·) flattening rank
    rk A (sym(x ⊗ a) ≠ 0 for x, a ≠ 0), so σ₂ > 0 of either, decided, keeps every outside
    point at a positive distance: not boundary."""
    wprec = _probe_precision(prec)
    with wprec.context():
        T = tensor(wprec.convert(exact[0]), wprec.convert(exact[1]))
        nT = norm(T)
        probes = []
        for name, F in (("(r | b c e)", T.reshape(T.shape[0], -1)),
                        ("(e | r b c)", np.moveaxis(T, 3, 0).reshape(T.shape[3], -1))):
            s = singular_values(F, wprec) if min(F.shape) >= 2 else [nT, 0]
            dec = threshold_zero(f"σ₂/σ₁ of the flattening {name}", s[1] / s[0], wprec)
            probes.append({"flattening": name, "sigma2_rel": float(s[1] / nT),
                           "decided_nonzero": dec.candidates == (1,),
                           "margin": json_num(dec.margin)})
    hit = [p for p in probes if p["decided_nonzero"]]
    if hit:
        best = max(p["sigma2_rel"] for p in hit)
        notes.append(f"σ₂ of T's flattening {hit[0]['flattening']} is nonzero (decided): every "
                     f"outside point c ⊗ S ⊗ v is at relative distance ≥ {best:.3g} "
                     "(Eckart–Young): not boundary")
        return BoundaryVerdict.NOT_BOUNDARY, probes
    notes.append("flattenings of T: σ₂ not decided nonzero: boundary not decided")
    return BoundaryVerdict.INCONCLUSIVE, probes


def _probe_precision(prec: RankOptions) -> RankOptions:
    """2·digits + 10 digits, decided at tolerance² and margin²: the probed quantities are
    quadratic in the distance to the boundary. float64 has no more digits to give, so its
    probes keep the float64 tolerance (tolerance² would sit below float64 rounding, ~1e-16,
    and call rounding noise "decided nonzero")."""
    if prec.is_float:
        return prec
    return RankOptions(work_digits(prec), prec.tolerance ** 2, prec.min_margin ** 2)


def _probe_zero(shape, prec: RankOptions, seed: int,
                notes: list) -> tuple[BoundaryVerdict, list[dict]]:
    """φ = 0: the points ε·c ⊗ S ⊗ v (S = x xᵀ + y yᵀ random) for ε and ε²."""
    d, d_out, a = shape
    eps = nearby_epsilon(prec)
    wprec = _probe_precision(prec)
    rng = np.random.default_rng([seed, 2])
    with wprec.context():
        ops = wprec.ops()
        c, v, x, y = (ops.random(rng, (n,)) for n in (d_out, d, d, d))
        psi = _outer3(c, np.outer(x, x) + np.outer(y, y), v)
        probes = [_probe(psi * s, None, a, prec, seed) for s in (eps, eps * eps)]
    if all(p["in_M"] is False for p in probes):
        notes.append("points ε·c ⊗ S ⊗ v (S semidefinite of rank 2) of the Zariski "
                     "closure have no real preimage, for ε → 0: zero is on the boundary")
        return BoundaryVerdict.BOUNDARY, probes
    notes.append("boundary probe: membership of the outside points not decided")
    return BoundaryVerdict.INCONCLUSIVE, probes


def _probe_rank1(exact, shape, prec: RankOptions, seed: int,
                 notes: list) -> tuple[BoundaryVerdict, list[dict]]:
    """rk A = rk V = 1: the nearest outside point c ⊗ S' ⊗ v.

    For A = u vᵀ, V = c wᵀ, S = sym(u wᵀ) has eigenvalues λ± with |λ₋/λ₊| = tan²(θ/2) (θ the
    angle of u, w): the outside points c ⊗ S' ⊗ v are at distance ≈ |λ₋/λ₊|, a quadratic quantity,
    so it is computed from the exact input at 2·digits + 10 digits and decided at tolerance².
    """
    d, a = shape[0], shape[2]
    eps = nearby_epsilon(prec)
    wprec = _probe_precision(prec)
    with wprec.context():
        A, V = wprec.convert(exact[0]), wprec.convert(exact[1])
        (u, v), (c, w) = rank1_factors(A, wprec), rank1_factors(V, wprec)
        S = (np.outer(u, w) + np.outer(w, u)) / 2
        vals, vecs = eigh(S)
        i, j = sorted(range(d), key=lambda k: -abs(vals[k]))[:2]
        rho = abs(vals[j]) / abs(vals[i])
        flat = threshold_zero("|λ₋/λ₊| of S = sym(u wᵀ)", rho, wprec)
        # S': λ₋ replaced by ε·|λ₊| with the sign of λ₊, so S' is semidefinite of rank 2
        sign = 1 if vals[i] > 0 else -1
        S2 = S + (sign * eps * abs(vals[i]) - vals[j]) * np.outer(vecs[:, j], vecs[:, j])
        probe = _probe(_outer3(c, S2, v), tensor(A, V), a, prec, seed)
    probe.update(eigenvalue_ratio=float(rho), eigenvalue_ratio_margin=json_num(flat.margin),
                 eigenvalue_ratio_tolerance=wprec.tolerance)
    return _rank1_verdict(probe, flat, rho, notes), [probe]


def _rank1_verdict(probe: dict, flat: Decision, rho, notes: list) -> BoundaryVerdict:
    if probe["in_M"] is not False:
        notes.append("boundary probe: the constructed outside point was not shown outside M")
        return BoundaryVerdict.INCONCLUSIVE
    if flat.candidates == (0,):
        notes.append(f"S = sym(u wᵀ) has rank 1, so c ⊗ S' ⊗ v with S' semidefinite of rank 2 at "
                     f"distance {probe['distance']:.2g} (→ 0 with ε) has no real preimage: "
                     "boundary")
        return BoundaryVerdict.BOUNDARY
    if flat.candidates == (1,):
        notes.append(f"S = sym(u wᵀ) is indefinite (|λ₋/λ₊| = {float(rho):.3g}): the nearest "
                     f"outside point c ⊗ S' ⊗ v is at relative distance {probe['distance']:.3g}; "
                     "[derived] every outside point of the Zariski closure has this form")
        return BoundaryVerdict.NOT_BOUNDARY
    return BoundaryVerdict.INCONCLUSIVE


def _outer3(c, S, v):
    """c ⊗ S ⊗ v as a (d', d, d, d) tensor; equals T(u vᵀ, c wᵀ) for S = sym(u wᵀ)."""
    return c[:, None, None, None] * S[None, :, :, None] * v[None, None, None, :]


def _probe(psi, T0, a: int, prec: RankOptions, seed: int) -> dict:
    """Membership of the outside point psi and its relative distance to T0 (or norm, T0 None)."""
    mem, _ = membership(psi, a, prec, seed)
    dist = norm(psi - T0) / norm(T0) if T0 is not None else norm(psi)
    return {"distance": float(dist), "in_M": mem.in_M, "residual": mem.residual,
            "reason": mem.reason}
