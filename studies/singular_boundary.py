"""Singular and boundary points of single-layer neuromanifolds (HMK; paper-notes §2).

Points of every class are constructed exactly (numag.points), classified at 50 digits by the
rules (ranks of A and V with margins, u ∥ w) and, independently, by evidence: Jacobian ranks of
the parametrization at each fiber branch, the joint rank of their tangent images, tangent spaces
at nearby points, and real points of the Zariski closure outside M near the point. The claims
are decided from the EVIDENCE (ranks and probes), and rule/evidence agreement is a claim of its
own. A last item perturbs special points by an exact 1e-30 and compares 50 digits with float64.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from numag import Architecture
from numag.classify import (Agreement, BoundaryVerdict, Label, RankOptions, SingularVerdict,
                            classify_weights)
from numag.points import sample_point
from numag.study import Claim, StudyContext, StudyDocument, md_table, study_main

NAME = "singular_boundary"
CLASSES = ("generic", "zero", "swap", "parallel", "rank drop")


def point(shape: tuple, kind: str, seed: int):
    """Exact weights of a class; 'rank drop': rk A = 1 < a < d with rk V ≥ 2."""
    arch = Architecture.single(*shape)
    if kind != "rank drop":
        return sample_point(arch, kind, seed)[0]
    Q, K, V = sample_point(arch, "generic", seed)[0]
    Q = np.outer(np.ones(Q.shape[0], dtype=object), Q[0])      # rank-1 Q: rk A = 1
    return Q, K, V


def classify_item(d: int, d_out: int, a: int, kind: str, seed: int) -> dict:
    Q, K, V = point((d, d_out, a), kind, seed)
    c = classify_weights(Q, K, V, RankOptions(50), seed=seed, evidence=True)
    ev = c.evidence
    return {"labels": list(c.labels), "kinds": list(c.kinds), "ranks": c.ranks,
            "margin": float(c.margin), "agreement": c.agreement,
            "dim": ev.generic_rank.value, "fiber_ranks": [f.jacobian_rank.value for f in ev.fiber],
            "joint_rank": ev.joint_rank.value,
            "nearby_joint_rank": ev.nearby_joint_rank.value if ev.nearby_joint_rank else None,
            "evidence_singular": ev.singular, "evidence_boundary": ev.boundary,
            "evidence_ranks": ev.ranks_source}


def noise_item(seed: int) -> dict:
    """(3, 2, 1) u ∥ w point and the same point moved off u ∥ w by an exact 1e-30."""
    Q, K, V = point((3, 2, 1), "parallel", seed)
    V2 = V.copy()
    V2[0, 0] += Fraction(1, 10 ** 30)
    out = {}
    for name, VV in (("special", V), ("perturbed", V2)):
        for digits in (50, None):
            c = classify_weights(Q, K, VV, RankOptions(digits), seed=seed, evidence=False)
            out[f"{name}_{'50' if digits else 'float64'}"] = {
                "labels": list(c.labels), "margin": float(c.margin)}
    return out


def grid(quick: bool, seed: int) -> list[dict]:
    shapes = [(2, 1, 1), (3, 1, 1), (3, 2, 1), (3, 2, 2)] + ([] if quick else [(4, 3, 2),
                                                                              (4, 4, 2)])
    items = []
    for d, e, a in shapes:
        for kind in CLASSES:
            if kind == "rank drop" and not (a >= 2 and a < d):
                continue
            if kind == "generic" and a == e == 1:
                continue                     # every point is rank one: 'swap' is the generic one
            items.append(dict(d=d, d_out=e, a=a, kind=kind, seed=seed))
    return items


def compute(ctx: StudyContext) -> StudyDocument:
    """Classify constructed points of every class; decide the paper's statements from evidence."""
    recs = ctx.run(grid(ctx.quick, ctx.seed), classify_item, desc=NAME)
    res = [{**r["params"], **r["result"]} for r in recs]
    noise = ctx.run([dict(seed=ctx.seed)], noise_item, desc=NAME)[0]["result"]
    pick = lambda kind, cond=lambda x: True: [x for x in res if x["kind"] == kind and cond(x)]
    not11 = lambda x: (x["a"], x["d_out"]) != (1, 1)
    swaps = pick("swap", not11)
    pars = pick("parallel")
    pars1 = [x for x in pars if x["a"] == 1]
    drops = pick("rank drop")
    a11 = pick("parallel", lambda x: (x["a"], x["d_out"]) == (1, 1))
    # agreement counts only decided evidence that agrees; "not probed" / "inconclusive" are
    # unchecked (?), and one unchecked point makes the claim ? rather than ✓
    agree = [x for x in res if all(Agreement(v).consistent for v in x["agreement"].values())]
    clash = [x for x in res if any(Agreement(v).conflict for v in x["agreement"].values())]
    unchecked = [x for x in res if x not in agree and x not in clash]
    singular = lambda x: x["evidence_singular"] == SingularVerdict.SINGULAR    # noqa: E731
    boundary = lambda x: x["evidence_boundary"] == BoundaryVerdict.BOUNDARY    # noqa: E731
    rows = [[f"({x['d']},{x['d_out']},{x['a']})", x["kind"], ", ".join(x["labels"]),
             f"{x['ranks']['A']}/{x['ranks']['V']}", x["dim"], x["fiber_ranks"], x["joint_rank"],
             x["nearby_joint_rank"] if x["nearby_joint_rank"] is not None else "",
             f"{x['evidence_singular']}, {x['evidence_boundary']}",
             ", ".join(f"{k} {v if Agreement(v) in (Agreement.AGREE, Agreement.DISAGREE) else '? (' + v + ')'}"
                       for k, v in x["agreement"].items())] for x in res]
    claims = [
        Claim("rk A = rk V = 1, u ∦ w, (a, d') ≠ (1, 1): a self-intersection (two branches, "
              "joint tangent rank > dim M)", "HMK; paper-notes §2",
              all(x["joint_rank"] > x["dim"] and len(x["fiber_ranks"]) >= 2 for x in swaps),
              "; ".join(f"({x['d']},{x['d_out']},{x['a']}): branches {x['fiber_ranks']}, joint "
                        f"{x['joint_rank']} vs dim {x['dim']}" for x in swaps)),
        Claim("a = 1: at u ∥ w the differential drops rank by d − 1", "paper-notes §2",
              all(x["fiber_ranks"][0] == x["dim"] - (x["d"] - 1) for x in pars1),
              "; ".join(f"({x['d']},{x['d_out']},{x['a']}): {x['fiber_ranks'][0]} = "
                        f"{x['dim']} − {x['d'] - 1}" for x in pars1)
              + "".join(f"; not claimed for a ≥ 2, where rk A = 1 < a too: "
                        f"({x['d']},{x['d_out']},{x['a']}) drops {x['dim'] - x['fiber_ranks'][0]}"
                        for x in pars if x["a"] >= 2)),
        Claim("a < d and rk A < a: singular (rank drop)", "HMK; paper-notes §2",
              all(singular(x) for x in drops) if drops else None,
              f"{sum(singular(x) for x in drops)}/{len(drops)} singular by evidence"),
        Claim("a = d' = 1: u ∥ w is smooth for d = 2 and singular for d ≥ 3", "paper-notes §2",
              all(singular(x) == (x["d"] >= 3) for x in a11),
              "; ".join(f"d={x['d']}: {x['evidence_singular']}" for x in a11)),
        Claim("boundary points: u ∥ w and 0 (real points outside M nearby); u ∦ w is not",
              "HMK; paper-notes §2",
              all(boundary(x) for x in pars + pick("zero"))
              and not any(boundary(x) for x in pick("swap")),
              f"u ∥ w: {sum(map(boundary, pars))}/{len(pars)}; "
              f"zero: {sum(map(boundary, pick('zero')))}/{len(pick('zero'))}; u ∦ w boundary: "
              f"{sum(map(boundary, pick('swap')))}"),
        Claim("rule-based labels and independent evidence agree", "numag.classify",
              False if clash else (True if len(agree) == len(res) else None),
              f"{len(agree)}/{len(res)} points agree on both questions, {len(clash)} disagree, "
              f"{len(unchecked)} unchecked (evidence not probed or inconclusive: ?)"
              + "".join(f"; ({x['d']},{x['d_out']},{x['a']}) {x['kind']}: {x['agreement']}"
                        for x in unchecked + clash)),
        Claim("an exact 1e-30 perturbation changes the label at 50 digits; float64 does not "
              "claim either", "numag.classify (decisions at 50 digits vs float64)",
              noise["special_50"]["labels"] != noise["perturbed_50"]["labels"]
              and Label.UNDECIDED in noise["special_float64"]["labels"]
              and Label.UNDECIDED in noise["perturbed_float64"]["labels"],
              ", ".join(f"{k}: {v['labels']} (margin {v['margin']:.1e})" for k, v in noise.items())),
    ]
    md = ("Constructed exact points classified at 50 digits; `fiber ranks` are the Jacobian ranks "
          "at each fiber branch, `joint` the rank of all their tangent images.\n\n" + md_table(
              ["shape", "class", "labels", "rk A/rk V", "dim M", "fiber ranks", "joint",
               "nearby joint", "evidence", "agreement"], rows))
    return ctx.finish({"points": res, "noise": noise}, claims, md)


if __name__ == "__main__":
    study_main(NAME, compute)
