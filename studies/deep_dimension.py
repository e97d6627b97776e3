"""Deep lightning and softmax networks: computed dim M vs HMK's formulas, the derived forms, and
the rank-1 theorem over every deep net with l ≤ 3 and widths ≤ 4.

Every claim compares a *computed* dimension (exact rank over F_p, with its certificate: the
lower bound meets a proved upper bound) with a closed form evaluated here; no claim compares the
prediction numag applies (numag.formulas.predict) with the formula it is made of.
"""
from __future__ import annotations

import itertools

from numag import Architecture, dimension
from numag.formulas import deep_equal_width, deep_general, deep_general_uncorrected
from numag.study import Claim, StudyContext, StudyDocument, md_table, study_main

NAME = "deep_dimension"
SWEEP_WIDTH = 4          # widths 1..4 (the sweep), depths 2 and 3, every rank a_i ≤ d_{i−1}


def dim_item(widths: list, ranks: list, kind: str, method: str, seed: int) -> dict:
    tokens = 3 if kind == "softmax" else 2
    r = dimension(Architecture(tuple(widths), tuple(ranks), tokens, kind), method=method,
                  seed=seed)
    return {"dimension": r.dimension, "params": r.params, "predicted": r.predicted.value,
            "certified": r.certified, "decided": r.decided, "upper_bound": r.upper_bound,
            "source": r.predicted.source}


def sweep_item(widths: list, tokens: int, seed: int) -> dict:
    """Every rank tuple (a_i ≤ d_{i−1}) of one width tuple: computed (exact), certified."""
    out = []
    for ranks in itertools.product(*[range(1, d + 1) for d in widths[:-1]]):
        r = dimension(Architecture(tuple(widths), ranks, tokens), method="exact", seed=seed)
        out.append({"ranks": list(ranks), "dimension": r.dimension,
                    "certified": r.certified, "upper_bound": r.upper_bound})
    return {"archs": out}


def families(quick: bool) -> dict[str, list[tuple[tuple, tuple]]]:
    dmax = 4 if quick else 5
    equal = [((d,) * (l + 1), (a,) * l) for d in range(2, dmax + 1) for a in range(2, d + 1)
             for l in (2, 3)]
    return {
        "equal widths": equal,
        "bottleneck": [((5, 3, 5), (2, 2)), ((6, 3, 3, 6), (2, 2, 2)), ((4, 2, 4), (2, 2))],
        "expanding": [((2, 3, 4), (2, 2)), ((2, 4, 6), (2, 3))],
        "non-increasing": [((6, 5, 4, 3), (2, 2, 2)), ((5, 4, 3), (3, 2)), ((4, 3, 2), (2, 2))],
        "rank-1 layer": [((3, 3, 3), (1, 2)), ((4, 4, 4), (1, 3)), ((3, 3, 3, 3), (2, 1, 2)),
                         ((3, 3, 3), (1, 1)), ((5, 5, 5), (1, 4))],
    }


def sweep_grid(quick: bool, seed: int) -> list[dict]:
    """Width tuples of the rank-1 sweep: l = 2, 3, widths ≤ 4 (quick: l = 3 with widths ≤ 3);
    t = 2, and t = 1 (every layer symmetric) in full mode."""
    items = []
    for tokens in ((2,) if quick else (2, 1)):
        for l in (2, 3):
            top = 3 if quick and l == 3 else SWEEP_WIDTH
            for w in itertools.product(range(1, top + 1), repeat=l + 1):
                items.append(dict(widths=list(w), tokens=tokens, seed=seed))
    return items


def grid(quick: bool, seed: int) -> list[dict]:
    items = []
    for fam, archs in families(quick).items():
        for w, r in archs:
            items.append(dict(widths=list(w), ranks=list(r), kind="lightning", method="exact",
                              seed=seed))
            if fam != "equal widths" or max(w) <= 4:
                items.append(dict(widths=list(w), ranks=list(r), kind="softmax", method="float",
                                  seed=seed))
    return items


def _sweep_claims(sweep: list[dict], quick: bool) -> tuple[list[Claim], list[dict], str]:
    rows, bad, uncert, corrected = [], [], [], 0
    for rec in sweep:
        w, t = tuple(rec["widths"]), rec["tokens"]
        for x in rec["archs"]:
            r = tuple(x["ranks"])
            formula, old = deep_general(w, r, t), deep_general_uncorrected(w, r)
            row = {"widths": list(w), "ranks": list(r), "tokens": t, **x, "formula": formula,
                   "uncorrected": old}
            rows.append(row)
            bad += [row] if x["dimension"] != formula else []
            uncert += [row] if not x["certified"] else []
            corrected += formula != old and t == 2
    n2 = sum(x["tokens"] == 2 for x in rows)
    n1 = len(rows) - n2
    fmt = lambda xs: "; ".join(f"{x['widths']}/{x['ranks']} t={x['tokens']}: {x['dimension']} "
                               f"vs {x['formula']}" for x in xs[:8])
    claims = [
        Claim(f"rank-1 theorem: every deep net (l = 2 with widths ≤ 4, l = 3 with widths ≤ "
              f"{3 if quick else SWEEP_WIDTH}, every rank) has dim = the running-minimum form "
              "with layers after a rank-1 layer counted as symmetric",
              "[derived] paper-notes §3.1",
              not bad, f"{len(rows) - len(bad)}/{len(rows)} agree ({n2} with t = 2, {n1} with "
                       f"t = 1); {corrected} of the t = 2 nets differ from the uncorrected form"
              + (f"; disagreements: {fmt(bad)}" if bad else "")),
        Claim("each of them is proved: exact lower bound = proved upper bound (symmetries with "
              "O(a, a) after a rank-1 layer, reduced architecture)", "paper-notes §3.1, §3.2, §6",
              not uncert, f"{len(rows) - len(uncert)}/{len(rows)} certified"
              + (f"; not certified: {fmt(uncert)}" if uncert else "")),
    ]
    md = [[",".join(map(str, x["widths"])), ",".join(map(str, x["ranks"])), x["tokens"],
           x["dimension"], x["formula"], x["uncorrected"], "cert" if x["certified"] else ""]
          for x in rows if x["formula"] != x["uncorrected"] and len(x["widths"]) == 3
          and x["tokens"] == 2 and max(x["widths"]) <= 3]
    text = ("\n\n## Rank-1 sweep\n\nWhere the correction matters (l = 2, t = 2, widths ≤ 3 "
            "shown; all in the JSON):\n\n" + md_table(
                ["widths", "ranks", "t", "dim", "formula", "uncorrected", ""], md))
    return claims, rows, text


def compute(ctx: StudyContext) -> StudyDocument:
    """Equal, bottleneck, expanding and non-increasing widths and rank-1 layers, lightning (exact)
    and softmax (float64, numag.rank's threshold rule); the rank-1 sweep over every deep net with
    widths ≤ 4."""
    fam_of = {(tuple(w), tuple(r)): f for f, archs in families(ctx.quick).items()
              for w, r in archs}
    recs = ctx.run(grid(ctx.quick, ctx.seed), dim_item, desc=NAME)
    results = [{**rec["params"], **rec["result"],
                "family": fam_of[(tuple(rec["params"]["widths"]), tuple(rec["params"]["ranks"]))]}
               for rec in recs]
    light = {(tuple(x["widths"]), tuple(x["ranks"])): x for x in results
             if x["kind"] == "lightning"}
    soft = [x for x in results if x["kind"] == "softmax"]
    rows = [[x["family"], ",".join(map(str, x["widths"])), ",".join(map(str, x["ranks"])),
             x["kind"], x["params"], x["dimension"], x["predicted"],
             "✓" if x["dimension"] == x["predicted"] else "✗",
             "cert" if x["certified"] else ("" if x["decided"] else "undecided")]
            for x in results]

    def fam(name):
        return [x for x in light.values() if x["family"] == name]

    def against(xs, formula):
        return [x for x in xs if x["dimension"] != formula(x)]

    eq = fam("equal widths")
    eq_bad = against(eq, lambda x: deep_equal_width(x["widths"][0], x["ranks"][0],
                                                    len(x["ranks"])))
    gen = [x for f in ("bottleneck", "expanding", "non-increasing") for x in fam(f)]
    gen_bad = against(gen, lambda x: deep_general(tuple(x["widths"]), tuple(x["ranks"])))
    noninc = fam("non-increasing")
    noninc_bad = against(noninc, lambda x: x["params"] - sum(a * a for a in x["ranks"])
                         - sum(d * d for d in x["widths"][1:-1]) - len(x["ranks"]))
    r1 = fam("rank-1 layer")
    r1_bad = against(r1, lambda x: deep_general(tuple(x["widths"]), tuple(x["ranks"])))
    ex = light[((3, 3, 3), (1, 2))]
    soft_pairs = [(s, light[(tuple(s["widths"]), tuple(s["ranks"]))]) for s in soft]
    soft_main = [(s, l) for s, l in soft_pairs if l["family"] != "rank-1 layer"]
    soft_main_bad = [(s, l) for s, l in soft_main
                     if not s["decided"] or s["dimension"] != l["dimension"] + len(s["ranks"])]
    soft_r1 = [(s, l) for s, l in soft_pairs if l["family"] == "rank-1 layer"]
    soft_r1_bad = [(s, l) for s, l in soft_r1 if not s["decided"] or s["dimension"] !=
                   deep_general_uncorrected(tuple(s["widths"]), tuple(s["ranks"]))
                   + len(s["ranks"])]
    sweep = ctx.run(sweep_grid(ctx.quick, ctx.seed), sweep_item, desc=f"{NAME} sweep")
    sweep_claims, sweep_rows, sweep_md = _sweep_claims(
        [{**rec["params"], **rec["result"]} for rec in sweep], ctx.quick)
    cert = lambda xs: f"{sum(x['certified'] for x in xs)} certified"
    claims = [
        Claim("equal widths d, rank a ≥ 2: dim = d² + l(2ad − a² − 1)", "HMK deep theorem",
              not eq_bad, f"computed vs formula: {len(eq) - len(eq_bad)}/{len(eq)} agree, "
                          + cert(eq)),
        Claim("general widths: running-minimum form", "[derived] paper-notes §3",
              not gen_bad, f"computed vs formula: {len(gen) - len(gen_bad)}/{len(gen)} agree "
                           f"(bottleneck, expanding, non-increasing), " + cert(gen)),
        Claim("non-increasing widths: #params − Σ a_i² − Σ_{i<l} d_i² − l",
              "[derived] paper-notes §3", not noninc_bad,
              f"computed vs formula: {len(noninc) - len(noninc_bad)}/{len(noninc)} agree"),
        Claim("widths 3,3,3, ranks 1,2: dim 18, below the uncorrected form's 20",
              "[derived] rank-1 theorem, paper-notes §3.1",
              ex["dimension"] == 18 and deep_general_uncorrected((3, 3, 3), (1, 2)) == 20,
              f"computed {ex['dimension']} ({'certified' if ex['certified'] else 'not certified'}"
              f"), uncorrected form {deep_general_uncorrected((3, 3, 3), (1, 2))}"),
        Claim("after a rank-1 layer, later layers count as symmetric (t = 1 like)",
              "[derived] rank-1 theorem, paper-notes §3.1", not r1_bad,
              "; ".join(f"{x['widths']}/{x['ranks']}: {x['dimension']} (uncorrected "
                        f"{deep_general_uncorrected(tuple(x['widths']), tuple(x['ranks']))})"
                        for x in r1)),
        *sweep_claims,
        Claim("softmax: dim = lightning dim + l", "HMK conjecture (deep), proven for l = 1",
              not soft_main_bad, f"{len(soft_main) - len(soft_main_bad)}/{len(soft_main)} agree "
                                 "(float64 rank rule, all decided)"),
        Claim("softmax after a rank-1 layer: dim = uncorrected running-minimum form + l (the "
              "softmax output keeps full rank, so no layer turns symmetric)",
              "[derived] paper-notes §3.1", not soft_r1_bad,
              f"{len(soft_r1) - len(soft_r1_bad)}/{len(soft_r1)} agree"),
    ]
    md = ("Lightning: exact rank over F_p (cert = meets a proved upper bound). Softmax: float64 "
          "SVD, rank by numag.rank's threshold rule; `predicted` is the formula the software "
          "applies (softmax: + l).\n\n" + md_table(
              ["family", "widths", "ranks", "kind", "#params", "dim", "predicted", "", "note"],
              rows) + sweep_md)
    return ctx.finish({"families": results, "rank_one_sweep": sweep_rows}, claims, md)


if __name__ == "__main__":
    study_main(NAME, compute)
