"""Degrees of lightning neuromanifolds (new: not in HMK), by pseudo-witness sets.

For every single layer (d, d', a) with d ≤ 3, d' ≤ 3, 1 ≤ a ≤ d (quick: d ≤ 2) and a few small
deep networks: the degree of the Zariski closure of M (numag.degree: exact dimension over F_p,
then a pseudo-witness set filled by monodromy and certified by the linear trace test in the
image; a budget gives "undecided", never a guessed degree). Where a closed form is known
(a ≥ d: a Segre variety; a = 1: a Segre product; derived in paper-notes §10) it is compared with
the computed value; every other value is computed knowledge, certified by the trace test only.
"""
from __future__ import annotations

from numag import Architecture
from numag.degree import degree
from numag.study import Claim, StudyContext, all_of, figure, md_table, study_main

NAME = "neuromanifold_degree"
TIMEOUT = {True: 120.0, False: 900.0}    # seconds of monodromy per item (quick, full)


def degree_item(widths: list, ranks: list, seed: int, timeout: float) -> dict:
    r = degree(Architecture(tuple(widths), tuple(ranks)), seed=seed, timeout=timeout,
               progress=False)
    img = r.image
    return {"dimension": r.dimension, "dimension_certified": r.dimension_certified,
            "params": r.params, "degree": r.degree, "certified": r.certified,
            "points_found": r.points_found, "closed_form": r.closed_form.value,
            "closed_form_source": r.closed_form.source, "agrees": r.agrees,
            "encoding": r.encoding, "source_slice": r.source_slice,
            "trace_residual": None if img.trace is None else img.trace.residual,
            "paths": img.paths_tracked, "failed_paths": img.failed_paths, "loops": img.loops,
            "stop_reason": img.stop_reason, "seconds": r.seconds, "seed": r.seed}


def grid(quick: bool, seed: int) -> list[dict]:
    """Single layers: two seeds where d ≤ 2 (quick: and d' ≤ 2; the seed-independence claim),
    one otherwise. Deep: widths with d_i ≤ 2 and ranks 1 (full mode only; minutes each)."""
    t = TIMEOUT[quick]
    dmax = 2 if quick else 3
    two = lambda d, e: d <= 2 and (e <= 2 or not quick)
    items = [dict(widths=[d, e], ranks=[a], seed=seed + s, timeout=t)
             for d in range(1, dmax + 1) for e in range(1, 4) for a in range(1, d + 1)
             for s in ((0, 1) if two(d, e) else (0,))]
    deep = [((1, 1, 1), (1, 1))] + ([] if quick else [((2, 1, 1), (1, 1)), ((2, 1, 2), (1, 1)),
                                                      ((2, 2, 1), (1, 1))])
    items += [dict(widths=list(w), ranks=list(r), seed=seed, timeout=t) for w, r in deep]
    return items


def status(x: dict) -> str:
    if x["certified"]:
        return "certified"
    return "undecided" if x["certified"] is None else "trace test failed"


def compute(ctx: StudyContext) -> dict:
    """Degree of M for d ≤ 3, d' ≤ 3, a ≤ d (quick: d ≤ 2) and small deep nets."""
    recs = ctx.run(grid(ctx.quick, ctx.seed), degree_item, desc=NAME)
    res = [{**r["params"], **r["result"]} for r in recs]
    single = [x for x in res if len(x["ranks"]) == 1]
    deep = [x for x in res if len(x["ranks"]) > 1]
    first = [x for x in single if x["seed"] == ctx.seed]
    key = lambda x: (tuple(x["widths"]), tuple(x["ranks"]))
    by_shape: dict = {}
    for x in single:
        by_shape.setdefault(key(x), []).append(x)
    pairs = [v for v in by_shape.values() if len(v) == 2]
    segre = [x for x in single if x["ranks"][0] >= x["widths"][0]]
    rank1 = [x for x in single if x["ranks"][0] == 1 and x["widths"][0] >= 2]
    ex = [x for x in first if x["widths"] == [2, 2] and x["ranks"] == [1]]
    cf_holds = lambda xs: all_of(x["agrees"] for x in xs) if xs else None
    claims = [
        Claim("deg M_{2,2,1} = 20", "issue 12 (Macaulay2's numericalImageDegree and an exact "
              "implicitization)", all_of([x["certified"] and x["degree"] == 20 for x in ex])
              if ex else None, "; ".join(f"seed {x['seed']}: {x['degree']} ({status(x)})"
                                         for x in ex)),
        Claim("a ≥ d: deg M = C(dd' + d² − 2, dd' − 1), the Segre variety P^{dd'−1} × P^{d²−1}",
              "[derived; paper-notes §10]", cf_holds(segre),
              "; ".join(f"({x['widths'][0]},{x['widths'][1]},{x['ranks'][0]}): "
                        f"{x['degree']} vs {x['closed_form']}" for x in segre
                        if x["seed"] == ctx.seed)),
        Claim("a = 1: deg M = C(dd' + 2d − 3, d − 1)·C(dd' + d − 2, d − 1) (d' ≥ 2), "
              "C(3d − 3, d − 1)·C(2d − 2, d − 1)/2 (d' = 1)", "[derived; paper-notes §10]",
              cf_holds(rank1),
              "; ".join(f"({x['widths'][0]},{x['widths'][1]},1): {x['degree']} vs "
                        f"{x['closed_form']}" for x in rank1 if x["seed"] == ctx.seed)),
        Claim("two seeds give the same certified degree", "witness.image (pseudo-witness set)",
              all_of([(a["degree"] == b["degree"]) if a["certified"] and b["certified"]
                      else None for a, b in pairs]) if pairs else None,
              f"{sum(a['degree'] == b['degree'] for a, b in pairs)}/{len(pairs)} shapes"),
    ]
    rows = [[",".join(map(str, x["widths"])), ",".join(map(str, x["ranks"])), x["params"],
             x["dimension"], x["degree"] if x["degree"] is not None else
             f"≥ {x['points_found']}", status(x),
             "-" if x["closed_form"] is None else
             f"{x['closed_form']} {'✓' if x['agrees'] else ('✗' if x['agrees'] is False else '?')}",
             "-" if x["trace_residual"] is None else f"{x['trace_residual']:.0e}", x["paths"],
             f"{x['seconds']:.1f}", x["seed"]] for x in res]
    fig = ctx.out / f"{NAME}.png"
    with figure(fig) as ax:
        for xs, mark, label in ((first, "o", "single layer"), (deep, "s", "deep")):
            done = [x for x in xs if x["certified"]]
            ax.scatter([x["dimension"] for x in done], [x["degree"] for x in done],
                       marker=mark, label=f"{label} (certified)")
            open_ = [x for x in xs if not x["certified"]]
            if open_:
                ax.scatter([x["dimension"] for x in open_], [x["points_found"] for x in open_],
                           marker=mark, facecolors="none", edgecolors="gray",
                           label=f"{label}: undecided (points found)")
        for x in first:
            ax.annotate(f"({x['widths'][0]},{x['widths'][1]},{x['ranks'][0]})",
                        (x["dimension"], max(x["degree"] or x["points_found"], 1)), fontsize=7)
        ax.set_yscale("log")
        ax.set_xlabel("dim M")
        ax.set_ylabel("deg M")
        ax.set_title("Degree of lightning neuromanifolds (trace-certified)")
        ax.legend(fontsize=8)
    md = ("Every degree is **computed** by a pseudo-witness set (witness.image: monodromy on "
          "the image points, from one random point of the parametrization, in the ambient "
          "coordinates T (single layer) or the coefficients of φ_W (deep)) and **certified** "
          "only by the linear trace test in the image on two pencils (residual < 1e-11, no "
          "failed path); `undecided` means the time budget ran out and `≥ N` is the number of "
          "image points found (a lower bound). The dimension is exact (rank over F_p, certified "
          "by the symmetry bound). The closed forms are derived by hand in paper-notes §10 "
          "(Segre varieties and their birational finite projections), independently of the "
          "computation; values for 1 < a < d and for deep networks have no closed form and are "
          "new.\n\n" + md_table(["widths", "ranks", "#params", "dim", "degree", "status",
                                  "closed form", "trace residual", "paths", "s", "seed"], rows))
    return ctx.finish(res, claims, md, figures=[fig.name],
                      inputs={"grid": f"d ≤ {2 if ctx.quick else 3}, d' ≤ 3, a ≤ d; deep "
                              f"{[x['widths'] for x in deep]}",
                              "timeout_per_item": TIMEOUT[ctx.quick]})


if __name__ == "__main__":
    study_main(NAME, compute)
