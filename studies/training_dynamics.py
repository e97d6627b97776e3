"""Gradient descent on a lightning layer fitted to a random teacher, from many random starts.

HMK's training remark (paper-notes §2): M is closed, so a trajectory that converges in function
space converges inside M, and singular points (low rank of A and V) may attract gradient descent
toward low-rank functions. We fit a student (d, d', a) = (3, 2, 2) to teachers of each rank
profile and record how often trajectories end at, or pass near, the singular locus
{rk A < a} ∪ {rk A · rk V ≤ 1}.
"""
from __future__ import annotations

import numpy as np

from numag import Architecture
from numag.arith import NumpyArithmetic
from numag.jacobian import jacobian
from numag.model import forward
from numag.study import Claim, StudyContext, StudyDocument, figure, md_table, study_main

NAME = "training_dynamics"
ARCH = Architecture.single(3, 2, 2)
RANK_TOL = 1e-2          # numerical rank: σ_i / σ_1 > RANK_TOL (singular values are reported)
ATTRACT_STEPS = 500      # consecutive steps near Sing M that count as "attracted"
LOSS_TOL = 1e-6          # "fits the teacher": final loss / mean(teacher output²) below this
F64 = NumpyArithmetic(np.float64)


def teacher(rank_A: int, rank_V: int, rng: np.random.Generator):
    """Teacher weights with rk A = rank_A (A = Kᵀ Q) and rk V = rank_V."""
    a, d = 2, 3
    Q, K = rng.standard_normal((a, d)), rng.standard_normal((a, d))
    Q[rank_A:] = 0
    V = rng.standard_normal((2, rank_V)) @ rng.standard_normal((rank_V, d))
    return [(Q, K, V)]


def ranks(layer) -> dict:
    Q, K, V = layer
    sA = np.linalg.svd(K.T @ Q, compute_uv=False)
    sV = np.linalg.svd(V, compute_uv=False)
    rel = lambda s: s / s[0] if s[0] > 0 else s
    rA, rV = int(np.sum(rel(sA) > RANK_TOL)), int(np.sum(rel(sV) > RANK_TOL))
    return {"rank_A": rA, "rank_V": rV, "sigma_A": (sA / max(sA[0], 1e-300)).tolist(),
            "sigma_V": (sV / max(sV[0], 1e-300)).tolist()}


def singular(rA: int, rV: int) -> bool:
    """Sing M for (a, d') ≠ (1, 1), a < d: rk A < a, or rk A ≤ 1 and rk V ≤ 1 (paper-notes §2)."""
    return rA < 2 or (rA <= 1 and rV <= 1)


def run_item(rank_A: int, rank_V: int, start: int, steps: int, seed: int) -> dict:
    """One run of Adam (lr 2e-2, cosine decay, init scale 0.1) on 64 fixed inputs; the loss is
    relative: mean squared error / mean squared teacher output."""
    rng = np.random.default_rng([seed, rank_A, rank_V, start])
    X = rng.standard_normal((64, 3, 2))
    target = forward(ARCH, teacher(rank_A, rank_V, rng), X, F64).ravel()
    scale = float(target @ target / target.size)
    w = 0.1 * rng.standard_normal(ARCH.n_params)
    m, v = np.zeros_like(w), np.zeros_like(w)
    near_singular_steps, losses, stretch, longest = 0, [], 0, 0
    for step in range(1, steps + 1):
        layers = ARCH.unpack(w)
        r = forward(ARCH, layers, X, F64).ravel() - target
        loss = float(r @ r / r.size) / scale
        J = jacobian(ARCH, layers, X, F64)
        g = 2 * J.T @ r / r.size
        lr = 2e-2 * 0.5 * (1 + np.cos(np.pi * step / steps)) + 1e-5
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        w = w - lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-12)
        if step % 50 == 0:
            losses.append(loss)
            rk = ranks(layers[0])
            near = singular(rk["rank_A"], rk["rank_V"])
            near_singular_steps += 50 * near
            stretch = stretch + 50 if near else 0
            longest = max(longest, stretch)
    final = ranks(ARCH.unpack(w)[0])
    r = forward(ARCH, ARCH.unpack(w), X, F64).ravel() - target
    return {**final, "loss": float(r @ r / r.size) / scale, "losses": losses,
            "fraction_near_singular": near_singular_steps / steps,
            "longest_near_singular": longest,
            "ends_singular": singular(final["rank_A"], final["rank_V"])}


def plot(path, results) -> None:
    with figure(path) as ax:
        _draw(ax, results)


def _draw(ax, results) -> None:
    colors = {(2, 2): "C0", (1, 2): "C1", (1, 1): "C3"}
    for x in results:
        c = colors[(x["rank_A_teacher"], x["rank_V_teacher"])]
        ax.semilogy(np.arange(1, len(x["losses"]) + 1) * 50, np.maximum(x["losses"], 1e-30),
                    color=c, alpha=0.4, lw=1)
    for (ra, rv), c in colors.items():
        ax.plot([], [], color=c, label=f"teacher rk A = {ra}, rk V = {rv}")
    ax.set_xlabel("Adam step")
    ax.set_ylabel("relative loss")
    ax.set_title("Lightning layer (3, 2, 2) fitted to teachers of each rank")
    ax.legend()


def compute(ctx: StudyContext) -> StudyDocument:
    """Many random starts per teacher rank profile; final ranks, loss, time near Sing M."""
    starts, steps = (5, 2000) if ctx.quick else (40, 6000)
    params = [dict(rank_A=ra, rank_V=rv, start=s, steps=steps, seed=ctx.seed)
              for ra, rv in ((2, 2), (1, 2), (1, 1)) for s in range(starts)]
    recs = ctx.run(params, run_item, desc=NAME)
    results = [{**r["result"], "rank_A_teacher": r["params"]["rank_A"],
                "rank_V_teacher": r["params"]["rank_V"], "start": r["params"]["start"]}
               for r in recs]
    rows, by = [], {}
    for key in ((2, 2), (1, 2), (1, 1)):
        xs = [x for x in results if (x["rank_A_teacher"], x["rank_V_teacher"]) == key]
        by[key] = xs
        fit = [x for x in xs if x["loss"] < LOSS_TOL]
        rows.append([f"rk A = {key[0]}, rk V = {key[1]}", len(xs), len(fit),
                     sum(x["ends_singular"] for x in xs),
                     sum(x["ends_singular"] and x["loss"] >= LOSS_TOL for x in xs),
                     f"{np.mean([x['fraction_near_singular'] for x in xs]):.2f}",
                     f"{np.median([x['loss'] for x in xs]):.1e}"])
    fig = ctx.out / f"{NAME}.png"
    plot(fig, results)
    fit11 = [x for x in by[(1, 1)] if x["loss"] < LOSS_TOL]
    fit22 = [x for x in by[(2, 2)] if x["loss"] < LOSS_TOL]
    # attraction = a stretch of ATTRACT_STEPS consecutive steps (checkpoints every 50) near
    # Sing M, not one checkpoint: a single small σ₂/σ₁ on the way is no sign of attraction
    passed = [x for x in by[(2, 2)] if x.get("longest_near_singular", 0) >= ATTRACT_STEPS]
    stuck = [x for x in by[(2, 2)] if x["ends_singular"] and x["loss"] >= LOSS_TOL]
    claims = [
        Claim("a student that fits a singular teacher (rk A = rk V = 1) ends on Sing M "
              "(its fiber has only rank-1 points)", "HMK fibers, paper-notes §2",
              all(x["rank_A"] == 1 and x["rank_V"] == 1 for x in fit11) if fit11 else None,
              f"{sum(x['rank_A'] == 1 and x['rank_V'] == 1 for x in fit11)}/{len(fit11)} "
              f"fitted runs end with rk A = rk V = 1 (σ tolerance {RANK_TOL}; largest "
              f"σ₂/σ₁: A {max((x['sigma_A'][1] for x in fit11), default=float('nan')):.1e}, "
              f"V {max((x['sigma_V'][1] for x in fit11), default=float('nan')):.1e})"),
        Claim("a student that fits a generic teacher ends at a smooth point of full rank",
              "HMK fibers, paper-notes §2",
              all(not x["ends_singular"] for x in fit22) if fit22 else None,
              f"{sum(not x['ends_singular'] for x in fit22)}/{len(fit22)} fitted runs"),
        Claim("singular points may attract gradient descent toward low-rank functions "
              "(observed: runs toward a generic teacher pass near or stall on Sing M)",
              "HMK training remark", True if (passed or stuck) else None,
              f"generic teacher: {len(stuck)}/{len(by[(2, 2)])} runs stall on Sing M without "
              f"fitting; {len(passed)}/{len(by[(2, 2)])} stay near it for ≥ {ATTRACT_STEPS} "
              f"consecutive steps (mean fraction of steps near it "
              f"{np.mean([x['fraction_near_singular'] for x in by[(2, 2)]]):.2f}); neither "
              "observed would leave the remark (a 'may') unconfirmed: ?"),
    ]
    md = (f"Student (d, d', a) = (3, 2, 2), Adam (lr 2e-2, cosine decay) from init scale 0.1, "
          f"{steps} steps, "
          f"64 inputs; rank tolerance σ_i/σ_1 > {RANK_TOL}, fitted = loss < {LOSS_TOL}.\n\n"
          + md_table(["teacher", "runs", "fitted", "end on Sing M", "stuck on Sing M",
                      "mean fraction of steps near Sing M", "median final loss"], rows))
    return ctx.finish(results, claims, md, [str(fig)],
                      inputs={"architecture": ARCH.to_json(), "starts": starts, "steps": steps})


if __name__ == "__main__":
    study_main(NAME, compute)
