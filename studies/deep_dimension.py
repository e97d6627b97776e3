"""Deep lightning and softmax networks: computed dim M vs HMK's formulas and the derived forms."""
from __future__ import annotations

from numag import Architecture, dimension
from numag.formulas import deep_equal_width, deep_general
from numag.study import Claim, StudyContext, StudyDocument, md_table, study_main

NAME = "deep_dimension"


def dim_item(widths: list, ranks: list, kind: str, method: str, seed: int) -> dict:
    tokens = 3 if kind == "softmax" else 2
    r = dimension(Architecture(tuple(widths), tuple(ranks), tokens, kind), method=method,
                  seed=seed)
    return {"dimension": r.dimension, "params": r.params, "predicted": r.predicted.value,
            "certified": r.certified, "decided": r.decided, "upper_bound": r.upper_bound,
            "source": r.predicted.source}


def families(quick: bool) -> dict[str, list[tuple[tuple, tuple]]]:
    dmax = 4 if quick else 5
    equal = [((d,) * (l + 1), (a,) * l) for d in range(2, dmax + 1) for a in range(2, d + 1)
             for l in (2, 3)]
    return {
        "equal widths": equal,
        "bottleneck": [((5, 3, 5), (2, 2)), ((6, 3, 3, 6), (2, 2, 2)), ((4, 2, 4), (2, 2))],
        "expanding": [((2, 3, 4), (2, 2)), ((2, 4, 6), (2, 3))],
        "non-increasing": [((6, 5, 4, 3), (2, 2, 2)), ((5, 4, 3), (3, 2)), ((4, 3, 2), (2, 2))],
        "rank-1 caveat": [((3, 3, 3), (1, 2)), ((4, 4, 4), (1, 3)), ((3, 3, 3, 3), (2, 1, 2)),
                          ((3, 3, 3), (1, 1))],
    }


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


def _caveat_example(light: dict) -> bool:
    x = light[((3, 3, 3), (1, 2))]
    return x["dimension"] == 18 and x["predicted"] == 20


def compute(ctx: StudyContext) -> StudyDocument:
    """Equal, bottleneck, expanding and non-increasing widths and the rank-1 caveat, lightning
    (exact) and softmax (float64, numag.rank's threshold rule)."""
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

    def agree(fam):
        xs = [x for x in light.values() if x["family"] == fam]
        return xs, [x for x in xs if x["dimension"] != x["predicted"]]

    eq, eq_bad = agree("equal widths")
    eq_formula_ok = all(x["predicted"] == deep_equal_width(x["widths"][0], x["ranks"][0],
                                                          len(x["ranks"])) for x in eq)
    gen = [x for f in ("bottleneck", "expanding", "non-increasing") for x in agree(f)[0]]
    gen_bad = [x for x in gen if x["dimension"] != deep_general(tuple(x["widths"]),
                                                                tuple(x["ranks"]))]
    noninc, _ = agree("non-increasing")
    noninc_ok = all(x["dimension"] == x["params"] - sum(a * a for a in x["ranks"])
                    - sum(d * d for d in x["widths"][1:-1]) - len(x["ranks"]) for x in noninc)
    cav, _ = agree("rank-1 caveat")
    soft_pairs = [(s, light[(tuple(s["widths"]), tuple(s["ranks"]))]) for s in soft]
    soft_bad = [(s, l) for s, l in soft_pairs
                if not s["decided"] or s["dimension"] != l["dimension"] + len(s["ranks"])]
    soft_cav = [(s, l) for s, l in soft_pairs if l["family"] == "rank-1 caveat"]
    soft_main = [(s, l) for s, l in soft_pairs if l["family"] != "rank-1 caveat"]
    soft_main_bad = [p for p in soft_bad if p in soft_main]
    claims = [
        Claim("equal widths d, rank a ≥ 2: dim = d² + l(2ad − a² − 1)", "HMK deep theorem",
              not eq_bad and eq_formula_ok,
              f"{len(eq) - len(eq_bad)}/{len(eq)} agree, "
              f"{sum(x['certified'] for x in eq)} certified"),
        Claim("general widths: running-minimum form", "[derived] paper-notes §3",
              not gen_bad, f"{len(gen) - len(gen_bad)}/{len(gen)} agree (bottleneck, expanding, "
                           "non-increasing)"),
        Claim("non-increasing widths: #params − Σ a_i² − Σ_{i<l} d_i² − l",
              "[derived] paper-notes §3", noninc_ok, f"{len(noninc)} architectures"),
        Claim("widths 3,3,3, ranks 1,2: dim 18, below the formula's 20", "[derived] caveat, "
              "paper-notes §3", _caveat_example(light),
              f"computed {light[((3, 3, 3), (1, 2))]['dimension']}"),
        Claim("every non-final rank-1 layer makes dim fall below the formula", "[derived] caveat, "
              "paper-notes §3 (as worded)", all(x["dimension"] < x["predicted"] for x in cav),
              "; ".join(f"{x['widths']}/{x['ranks']}: {x['dimension']} vs {x['predicted']}"
                        for x in cav)),
        Claim("softmax: dim = lightning dim + l", "HMK conjecture (deep), proven for l = 1",
              not soft_main_bad, f"{len(soft_main) - len(soft_main_bad)}/{len(soft_main)} "
                                 "agree (float64 rank rule, all decided)"
              + (f"; with the rank-1 caveat: {sum(p not in soft_bad for p in soft_cav)}"
                 f"/{len(soft_cav)} still lightning + l" if soft_cav else "")),
    ]
    md = ("Lightning: exact rank over F_p (cert = meets the symmetry bound). Softmax: float64 "
          "SVD, rank by numag.rank's threshold rule; `predicted` is the formula the software applies "
          "(softmax: + l).\n\n" + md_table(
              ["family", "widths", "ranks", "kind", "#params", "dim", "predicted", "", "note"],
              rows))
    return ctx.finish(results, claims, md)


if __name__ == "__main__":
    study_main(NAME, compute)
