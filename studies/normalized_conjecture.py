"""HMK Figure 3: softmax (normalized) attention, l = 2, t = 3, a = 2, widths δ: dim vs δ² + 8δ − 8."""
from __future__ import annotations

from numag import Architecture, dimension
from numag.study import Claim, StudyContext, StudyDocument, figure, md_table, study_main

NAME = "normalized_conjecture"
N_INPUTS = 250          # the paper's number of random normal inputs
TRIALS = 5              # the paper takes the maximum over 5–8 random trials


def dim_item(delta: int, kind: str, method: str, n_inputs: int | None, trials: int | None,
             seed: int) -> dict:
    arch = Architecture((delta,) * 3, (2, 2), tokens=3, kind=kind)
    r = dimension(arch, method=method, seed=seed, n_inputs=n_inputs, trials=trials)
    return {"dimension": r.dimension, "params": r.params, "decided": r.decided,
            "margins": [t.margin for t in r.trials], "ranks": [t.rank for t in r.trials],
            "certified": r.certified, "upper_bound": r.upper_bound}


def grid(quick: bool, seed: int) -> list[dict]:
    deltas = range(3, 7 if quick else 11)
    items = [dict(delta=d, kind="softmax", method="float", n_inputs=N_INPUTS, trials=TRIALS,
                  seed=seed) for d in deltas]
    items += [dict(delta=d, kind="lightning", method="exact", n_inputs=None, trials=None,
                   seed=seed) for d in deltas]
    items += [dict(delta=d, kind="softmax", method="mp", n_inputs=None, trials=1, seed=seed)
              for d in (3,) if quick] + [dict(delta=d, kind="softmax", method="mp",
                                                n_inputs=None, trials=1, seed=seed)
                                           for d in (3, 4) if not quick]
    return items


def plot(path, deltas, soft, light) -> None:
    with figure(path, (6, 4)) as ax:
        _draw(ax, deltas, soft, light)


def _draw(ax, deltas, soft, light) -> None:
    ax.plot(deltas, [d * d + 8 * d - 8 for d in deltas], "--", color="gray",
            label="formula δ² + 8δ − 8 (HMK conjecture)")
    ax.plot(deltas, soft, "o", color="C0", label="softmax, computed (float64, N = 250)")
    ax.plot(deltas, light, "s", mfc="none", color="C1", label="lightning, computed (exact)")
    ax.set_xlabel("width δ (l = 2, a = 2, t = 3)")
    ax.set_ylabel("dim M")
    ax.set_title("Normalized attention: dimension vs width (HMK Fig. 3)")
    ax.legend()


def compute(ctx: StudyContext) -> StudyDocument:
    """Figure 3: computed softmax dimension (N = 250, max over 5 trials) vs δ² + 8δ − 8, with the
    exact lightning dimension beside it and an mpmath check at small δ."""
    recs = ctx.run(grid(ctx.quick, ctx.seed), dim_item, desc=NAME)
    res = [{**r["params"], **r["result"]} for r in recs]
    soft = {x["delta"]: x for x in res if x["kind"] == "softmax" and x["method"] == "float"}
    light = {x["delta"]: x for x in res if x["kind"] == "lightning"}
    mp = {x["delta"]: x for x in res if x["method"] == "mp"}
    deltas = sorted(soft)
    expect = {d: d * d + 8 * d - 8 for d in deltas}
    rows = [[d, soft[d]["params"], soft[d]["dimension"], expect[d],
             f"{min(soft[d]['margins']):.1e}", light[d]["dimension"],
             mp[d]["dimension"] if d in mp else ""] for d in deltas]
    fig = ctx.out / f"{NAME}.png"
    plot(fig, deltas, [soft[d]["dimension"] for d in deltas],
         [light[d]["dimension"] for d in deltas])
    bad = [d for d in deltas if soft[d]["dimension"] != expect[d] or not soft[d]["decided"]]
    claims = [
        Claim("softmax, l = 2, a = 2, t = 3: dim = δ² + 8δ − 8 (Fig. 3)",
              "HMK conjecture, checked numerically in HMK Fig. 3",
              not bad, f"δ = {deltas[0]}..{deltas[-1]}: {len(deltas) - len(bad)} agree; "
                       f"smallest rank margin "
                       f"{min(min(x['margins']) for x in soft.values()):.1e}"),
        Claim("#params = 2δ² + 8δ", "HMK Fig. 3",
              all(soft[d]["params"] == 2 * d * d + 8 * d for d in deltas), "all δ"),
        Claim("softmax dim = lightning dim + l", "HMK §4",
              all(soft[d]["dimension"] == light[d]["dimension"] + 2 for d in deltas),
              "; ".join(f"δ={d}: {soft[d]['dimension']} = {light[d]['dimension']} + 2"
                        for d in deltas[:3]) + " ..."),
        Claim("the mpmath SVD agrees with float64 where both run", "[numerical check]",
              all(mp[d]["dimension"] == soft[d]["dimension"] and mp[d]["decided"] for d in mp),
              ", ".join(f"δ={d}: {mp[d]['dimension']}" for d in sorted(mp))),
    ]
    md = ("Softmax: float64 Jacobian of W ↦ (φ_W(X_n))_{n ≤ 250}, equilibrated, rank by "
          "numag.rank's threshold rule (min margin: the factor by which the singular values "
          "clear its tolerance), maximum over 5 trials. Lightning: exact rank over F_p.\n\n"
          + md_table(["δ", "#params", "softmax dim", "δ²+8δ−8", "min margin", "lightning dim",
                      "softmax (mp)"], rows))
    return ctx.finish(res, claims, md, [str(fig)],
                      inputs={"n_inputs": N_INPUTS, "trials": TRIALS, "tokens": 3})


if __name__ == "__main__":
    study_main(NAME, compute)
