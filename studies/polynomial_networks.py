"""Polynomial neural networks: published dimensions recomputed, and every defective architecture
with h ≤ 3 layers, widths ≤ 4 and r ∈ {2, 3} listed with the proved bound that explains it.

Published values (r = 2, no biases, widths input first, affine dimension of the neurovariety):
quoted from Dao–Rodriguez, "Minimal Filling Architectures of Polynomial Neural Networks:
Counterexamples, Frontier Search, and Defects", arXiv 2605.09609 (2026), as listed in issue 14;
their tables were not available to us, so each value is also derived by hand (paper-notes §9.3).
Expected dimension: Kileel–Trager–Bruna, arXiv 1905.12207; equi-width theorem: Finkel–Rodriguez–
Wu–Yahl, arXiv 2408.04569.
"""
from __future__ import annotations

import itertools

from numag import Architecture, dimension
from numag.formulas import pnn_ambient, pnn_recursive_bound
from numag.study import Claim, StudyContext, StudyDocument, md_table, study_main

NAME = "polynomial_networks"
PUBLISHED = [((2, 2, 1), 3), ((2, 2, 2, 1), 5), ((2, 3, 3, 2, 1), 9), ((2, 2, 3, 4, 1), 7),
             ((2, 3, 2, 3), 10), ((3, 2, 1), 5)]
SOURCE = "Dao–Rodriguez, arXiv 2605.09609 (values as quoted in issue 14)"


def _record(widths, r: int, bias: bool, seed: int) -> dict:
    res = dimension(Architecture.pnn(widths, r, bias), method="exact", seed=seed)
    return {"widths": list(widths), "r": r, "bias": bias, "dimension": res.dimension,
            "params": res.params, "expected": res.predicted.value, "defect": res.defect,
            "upper_bound": res.upper_bound, "certified": res.certified,
            "recursive_bound": pnn_recursive_bound(widths, r, bias),
            "miss_probability": res.miss_probability}


def published_item(widths: list, seed: int) -> dict:
    return _record(tuple(widths), 2, False, seed)


def sweep_item(r: int, h: int, d0: int, bias: bool, seed: int) -> dict:
    """Every architecture (d0, d_1, ..., d_h) with 1 ≤ d_i ≤ 4."""
    return {"archs": [_record((d0,) + rest, r, bias, seed)
                      for rest in itertools.product(range(1, 5), repeat=h)]}


def sweep_grid(quick: bool, seed: int) -> list[dict]:
    return [dict(r=r, h=h, d0=d0, bias=bias, seed=seed)
            for bias in ((False,) if quick else (False, True)) for r in (2, 3)
            for h in (1, 2, 3) for d0 in range(1, 5)]


def squares_with_filling_part(x: dict, by_widths: dict) -> int | None:
    """r = 2, one output: f = Σ_j c_j F_j² (+ b) = Σ_j G_j² (+ b) with G = (√c_j F_j) in
    V(d_0, ..., d_{h−1}). When that network is certified to fill its ambient space (every
    k-tuple of forms), O(k) acts on G with finite stabilizers (k ≤ the forms' dimension), so
    dim ≤ dim V(d_0, ..., d_{h−1}) − k(k−1)/2 (+ 1) [derived; paper-notes §9.2]. None when the
    condition is not met or the smaller network was not computed."""
    w = tuple(x["widths"])
    if x["r"] != 2 or w[-1] != 1 or len(w) < 4:
        return None
    sub = by_widths.get((w[:-1], x["bias"]))
    k = w[-2]
    forms = pnn_ambient(w[:-1], 2, x["bias"]) // k       # dimension of the space of each G_j
    if not sub or not sub["certified"] or sub["dimension"] != k * forms or k > forms:
        return None
    return sub["dimension"] - k * (k - 1) // 2 + (1 if x["bias"] else 0)


def explain(x: dict, by_widths: dict) -> str:
    """Why a defective architecture is defective, from the bound its computed value meets."""
    if x["dimension"] == x["recursive_bound"]:
        return "recursive bound (certified)"
    bound = squares_with_filling_part(x, by_widths)
    if bound is not None and bound == x["dimension"]:
        return "sum of squares over a filling network (certified)"
    return "UNEXPLAINED"


def compute(ctx: StudyContext) -> StudyDocument:
    """Published PNN dimensions and the defective architectures of the sweep h ≤ 3, widths ≤ 4,
    r ∈ {2, 3} (full mode: with and without biases)."""
    pub = [rec["result"] for rec in ctx.run([dict(widths=list(w), seed=ctx.seed)
                                             for w, _ in PUBLISHED], published_item,
                                            desc=f"{NAME} published")]
    recs = ctx.run(sweep_grid(ctx.quick, ctx.seed), sweep_item, desc=f"{NAME} sweep")
    archs = [x for rec in recs for x in rec["result"]["archs"]]
    by_widths = {(tuple(x["widths"]), x["bias"]): x for x in archs if x["r"] == 2}
    for x in archs:
        x["explanation"] = explain(x, by_widths) if x["defect"] else ""
    defective = [x for x in archs if x["defect"]]
    unexplained = [x for x in defective if x["explanation"] == "UNEXPLAINED"]
    over = [x for x in archs if x["dimension"] > min(x["expected"], x["recursive_bound"])]
    equi = [x for x in archs if len(set(x["widths"])) == 1 and len(x["widths"]) >= 3]
    pub_ok = [(x, v) for x, (_, v) in zip(pub, PUBLISHED) if x["dimension"] == v]
    fmt = lambda xs: ", ".join(f"{tuple(x['widths'])} r={x['r']}{' b' if x['bias'] else ''}: "
                               f"{x['dimension']}" for x in xs[:10])
    claims = [
        Claim("published dimensions (r = 2): (2,2,1) → 3, (2,2,2,1) → 5, (2,3,3,2,1) → 9, "
              "(2,2,3,4,1) → 7, (2,3,2,3) → 10, (3,2,1) → 5", SOURCE,
              len(pub_ok) == len(PUBLISHED),
              "computed " + ", ".join(f"{tuple(x['widths'])} → {x['dimension']}"
                                      f"{' (cert)' if x['certified'] else ''}" for x in pub)),
        Claim("the expected dimension min(#params − Σ hidden widths, ambient) and the recursive "
              "bounds are upper bounds", "KTB; [derived] paper-notes §9.2", not over,
              f"{len(archs) - len(over)}/{len(archs)} architectures at or below both"
              + (f"; above: {fmt(over)}" if over else "")),
        Claim("equi-width architectures reach the expected dimension (activation degree "
              "threshold 1)", "FRWY (arXiv 2408.04569)", all(not x["defect"] for x in equi),
              f"{sum(not x['defect'] for x in equi)}/{len(equi)} equi-width architectures"),
        Claim("every defective architecture of the sweep is certified by a proved bound",
              "[derived] paper-notes §9.2", not unexplained,
              f"{len(defective)} of {len(archs)} defective; "
              f"{sum(x['explanation'].startswith('recursive') for x in defective)} by the "
              f"recursive bounds, {sum(x['explanation'].startswith('sum') for x in defective)} "
              f"by sums of squares" + (f"; unexplained: {fmt(unexplained)}" if unexplained
                                       else "")),
    ]
    md = ("Exact rank over F_p; `cert` = meets a proved upper bound. Dimensions are affine "
          "(the cone over the projective neurovariety), widths input first.\n\n"
          "## Published values\n\n" + md_table(
              ["widths", "published", "computed", "expected", "defect", ""],
              [[",".join(map(str, x["widths"])), v, x["dimension"], x["expected"], x["defect"],
                "cert" if x["certified"] else ""] for x, (_, v) in zip(pub, PUBLISHED)])
          + "\n\n## Defective architectures (h ≤ 3, widths ≤ 4)\n\n" + md_table(
              ["widths", "r", "biases", "dim", "expected", "defect", "explanation"],
              [[",".join(map(str, x["widths"])), x["r"], "yes" if x["bias"] else "", x["dimension"],
                x["expected"], x["defect"], x["explanation"]] for x in defective]))
    return ctx.finish({"published": pub, "sweep": archs}, claims, md,
                      inputs={"published_source": SOURCE, "sweep": "h ≤ 3, widths ≤ 4, r ∈ {2, 3}"
                              + ("" if ctx.quick else ", with and without biases")})


if __name__ == "__main__":
    study_main(NAME, compute)
