"""Multi-head lightning attention: dim M for d ≤ 4, d' ≤ 3, a ≤ 2, H ≤ 3 against the expected
min(H · dim M_single, ambient), every defective case listed with the proved bound behind it.

Each head h has its own Q_h, K_h (rank a) and V_h; φ(X) = Σ_h V_h X (Xᵀ K_hᵀ Q_h X)
(paper-notes §8). The computed dimension is the exact rank over F_p; `certified` means it meets a
proved upper bound (symmetries: GL_a and scaling per head; ambient space; the rank-≤H and
isotropic-subspace bounds of paper-notes §8).
"""
from __future__ import annotations

from numag import Architecture, dimension
from numag.formulas import (multihead_expected, multihead_isotropic_bound, multihead_rank_bound,
                            single_layer)
from numag.study import Claim, StudyContext, StudyDocument, md_table, study_main

NAME = "multihead_dimension"


def dim_item(d: int, d_out: int, a: int, heads: int, seed: int) -> dict:
    r = dimension(Architecture.multihead((d, d_out), (a,), heads), method="exact", seed=seed)
    return {"dimension": r.dimension, "params": r.params, "expected": r.predicted.value,
            "defect": r.defect, "upper_bound": r.upper_bound, "certified": r.certified,
            "ambient": r.ambient_dimension}


def grid(quick: bool, seed: int) -> list[dict]:
    return [dict(d=d, d_out=e, a=a, heads=H, seed=seed) for d in range(1, 5)
            for e in range(1, 4) for a in range(1, 3) for H in range(1, 4)]


def explain(x: dict) -> str:
    """Which proved bound the computed value of a defective case meets."""
    rank = multihead_rank_bound(x["d"], x["d_out"], x["heads"])
    iso = multihead_isotropic_bound(x["d"], x["d_out"], x["heads"])
    if rank is not None and x["dimension"] == rank:
        return f"heads mix: Σ_h V_h ⊗ A_h has rank ≤ H, H(dd' + d² − H) = {rank}"
    if iso is not None and x["dimension"] == iso:
        return f"isotropic subspaces of dim d − H in every output row: {iso}"
    return "UNEXPLAINED"


def compute(ctx: StudyContext) -> StudyDocument:
    """Exact dim of every multi-head layer with d ≤ 4, d' ≤ 3, a ≤ 2, H ≤ 3."""
    recs = ctx.run(grid(ctx.quick, ctx.seed), dim_item, desc=NAME)
    rows = [{**rec["params"], **rec["result"]} for rec in recs]
    for x in rows:
        x["explanation"] = explain(x) if x["defect"] else ""
    one = [x for x in rows if x["heads"] == 1]
    one_bad = [x for x in one if x["dimension"] != single_layer(x["d"], x["d_out"], x["a"])]
    over = [x for x in rows if x["dimension"] > multihead_expected(x["d"], x["d_out"], x["a"],
                                                                   x["heads"])]
    defective = [x for x in rows if x["defect"]]
    unexplained = [x for x in defective if x["explanation"] == "UNEXPLAINED"]
    uncert = [x for x in rows if not x["certified"]]
    fmt = lambda xs: ", ".join(f"({x['d']},{x['d_out']},{x['a']},H={x['heads']}): "
                               f"{x['dimension']}" for x in xs[:10])
    claims = [
        Claim("one head: dim = 2ad + dd' − a² − 1 (a ≤ d)", "HMK single-layer theorem",
              not one_bad, f"computed vs formula: {len(one) - len(one_bad)}/{len(one)} agree"),
        Claim("dim ≤ min(H · dim M_single, ambient d'·d·d(d+1)/2)", "paper-notes §8",
              not over, f"{len(rows) - len(over)}/{len(rows)} at or below"),
        Claim("every defective case meets a proved bound (heads mixing, isotropic subspaces)",
              "[derived] paper-notes §8", not unexplained,
              f"{len(defective)} of {len(rows)} defective: {fmt(defective)}"
              + (f"; unexplained: {fmt(unexplained)}" if unexplained else "")),
        Claim("every dimension of the grid is proved (exact lower bound = proved upper bound)",
              "paper-notes §6, §8", not uncert,
              f"{len(rows) - len(uncert)}/{len(rows)} certified"
              + (f"; not certified: {fmt(uncert)}" if uncert else "")),
    ]
    md = ("Exact rank over F_p; expected = min(H · dim M_single, ambient); `cert` = meets a "
          "proved upper bound.\n\n## Defective cases\n\n" + md_table(
              ["d", "d'", "a", "H", "#params", "dim", "expected", "defect", "explanation"],
              [[x["d"], x["d_out"], x["a"], x["heads"], x["params"], x["dimension"],
                x["expected"], x["defect"], x["explanation"]] for x in defective])
          + "\n\n## All\n\n" + md_table(
              ["d", "d'", "a", "H", "#params", "dim", "expected", "ambient", ""],
              [[x["d"], x["d_out"], x["a"], x["heads"], x["params"], x["dimension"],
                x["expected"], x["ambient"], "cert" if x["certified"] else ""] for x in rows]))
    return ctx.finish(rows, claims, md, inputs={"grid": "d ≤ 4, d' ≤ 3, a ≤ 2, H ≤ 3"})


if __name__ == "__main__":
    study_main(NAME, compute)
