"""HMK Figure 1: a slice of the lightning neuromanifold M_{2,1,1}, drawn from sampled points.

For (d, d', a) = (2, 1, 1) every point of M is T = S ⊗ v with S = sym(u wᵀ) ∈ Sym²(R²)
(A = u vᵀ, V = wᵀ; paper-notes §5). Writing S = [[z + x, y], [y, z − x]], det S = z² − x² − y²,
and M = {det S ≤ 0}: the level det S = −1 is the hyperboloid of one sheet x² + y² − z² = 1.
The points drawn are sampled THROUGH THE PARAMETRIZATION (random Q, K, V, T computed from them),
then normalized (|v| = 1, then S scaled by a positive factor, which stays in M since M is a cone
over positive scalings). The region det S > 0 (S definite) is drawn from the formula, labelled as
outside M, and a few of its points are checked with numag.classify's membership test.
"""
from __future__ import annotations

import numpy as np

from numag import Architecture
from numag.arith import NumpyArithmetic
from numag.classify import RankOptions, classify_tensor
from numag.jacobian import random_weights
from numag.study import Claim, StudyContext, StudyDocument, figure, md_table, study_main
from numag.tensor import tensor

NAME = "figure1_slice"
ARCH = Architecture.single(2, 1, 1)


def s_and_v(T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """T (1, 2, 2, 2) = S ⊗ v -> (S, v) with |v| = 1 and the largest |v_e| positive."""
    M = T[0].reshape(4, 2)                          # rows (b, c), columns e: rank one = s vᵀ
    _, _, Vt = np.linalg.svd(M)
    v = Vt[0] * np.sign(Vt[0][np.argmax(np.abs(Vt[0]))])
    return (M @ v).reshape(2, 2), v


def xyz(S: np.ndarray) -> np.ndarray:
    return np.array([(S[0, 0] - S[1, 1]) / 2, S[0, 1], (S[0, 0] + S[1, 1]) / 2])


def sample_item(n: int, seed: int) -> dict:
    """n points of M_{2,1,1} through the parametrization: (x, y, z) on det S = −1, and det S
    relative to |S|² before scaling."""
    rng = np.random.default_rng(seed)
    ops = NumpyArithmetic(np.float64)
    pts, rel_dets = [], []
    for _ in range(n):
        (Q, K, V), = random_weights(ARCH, ops, rng)
        S, _ = s_and_v(tensor(K.T @ Q, V))
        det = float(np.linalg.det(S))
        rel_dets.append(det / float(np.sum(S * S)))
        if det < 0:
            pts.append(xyz(S / np.sqrt(-det)).tolist())
    return {"points": pts, "relative_dets": rel_dets}


def outside_item(count: int, seed: int, digits: int) -> dict:
    """Exact rational points S ⊗ v with S definite (det S > 0) or indefinite (det S < 0),
    classified by numag.classify at `digits` digits."""
    from fractions import Fraction
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < 2 * count:
        a, b, c = (Fraction(int(x), int(y)) for x, y in zip(rng.integers(-9, 10, 3),
                                                          rng.integers(1, 5, 3)))
        det = a * c - b * b
        sign = 1 if det > 0 else -1
        if det == 0 or sum(p["det"] == sign for p in out) >= count:
            continue
        S = np.array([[a, b], [b, c]], dtype=object)
        v = np.array([Fraction(int(x), 3) for x in rng.integers(1, 10, 2)], dtype=object)
        T = S[None, :, :, None] * v[None, None, None, :]
        cl = classify_tensor(T, 1, RankOptions(digits), seed=int(rng.integers(1000)),
                             evidence=False)
        out.append({"det": sign, "S": [[str(x) for x in row] for row in S],
                    "in_M": cl.membership.in_M if cl.membership else None,
                    "labels": list(cl.labels)})
    return {"points": out}


def plot(path, pts: np.ndarray) -> None:
    with figure(path, (6.5, 5.5), projection="3d") as ax:
        _draw(ax, pts)


def _draw(ax, pts: np.ndarray) -> None:
    inside = pts[np.all(np.abs(pts) <= 2.2, axis=1)]          # the drawn box
    ax.scatter(inside[:, 0], inside[:, 1], inside[:, 2], s=5, color="C0", alpha=0.8,
               depthshade=False, label="M ∩ {det S = −1}: sampled through (Q, K, V)")
    th, r = np.meshgrid(np.linspace(0, 2 * np.pi, 30), np.linspace(0, 2.0, 8))
    for sgn in (1, -1):                              # det S = +1: z² − x² − y² = 1
        z = sgn * np.sqrt(1 + r ** 2)
        ax.plot_wireframe(r * np.cos(th), r * np.sin(th), z, color="C3", lw=0.4, alpha=0.35)
    ax.plot([], [], color="C3", lw=1, label="det S = +1 (S definite): not in M (formula)")
    ax.set_xlabel("x = (S₁₁ − S₂₂)/2")
    ax.set_ylabel("y = S₁₂")
    ax.set_zlabel("z = (S₁₁ + S₂₂)/2")
    lim = 2.5
    ax.set_xlim(-lim, lim), ax.set_ylim(-lim, lim), ax.set_zlim(-lim, lim)
    ax.view_init(elev=12, azim=35)
    ax.set_title("HMK Fig. 1: a slice of M for (d, d', a) = (2, 1, 1)")
    ax.legend(loc="upper left", fontsize=8)


def compute(ctx: StudyContext) -> StudyDocument:
    """Sample M_{2,1,1} through the parametrization, draw the slice det S = −1, and check the
    semidefinite region is outside M."""
    n = 3000 if ctx.quick else 12000
    s = ctx.run([dict(n=n, seed=ctx.seed)], sample_item, desc=NAME)[0]["result"]
    o = ctx.run([dict(count=3 if ctx.quick else 10, seed=ctx.seed, digits=50)], outside_item,
                desc=NAME)[0]["result"]["points"]
    pts = np.array(s["points"])
    fig = ctx.out / f"{NAME}.png"
    plot(fig, pts)
    quad = pts[:, 0] ** 2 + pts[:, 1] ** 2 - pts[:, 2] ** 2
    # float64 normalization S / sqrt(-det S) near the cone det S = 0 has relative error
    # ~ eps |S|^2 / |det S| = eps (x² + y² + z²): the residual is judged relative to that scale
    off = np.abs(quad - 1) / (1 + np.sum(pts ** 2, axis=1))
    theta = np.arctan2(pts[:, 1], pts[:, 0])
    bins = np.histogram(theta, bins=36, range=(-np.pi, np.pi))[0]
    worst = max(s["relative_dets"])
    definite = [p for p in o if p["det"] == 1]
    indefinite = [p for p in o if p["det"] == -1]
    claims = [
        Claim("every sampled point of M_{2,1,1} has det S ≤ 0", "HMK Fig. 1, paper-notes §5",
              worst <= 1e-12, f"{len(s['relative_dets'])} samples; largest det S/|S|² = "
                              f"{worst:.2e} (tolerance 1e-12)"),
        Claim("the slice det S = −1 of M is a hyperboloid of one sheet", "HMK Fig. 1",
              bool(off.max() < 1e-12 and bins.min() > 0 and np.min(np.abs(pts[:, 2])) < 0.2),
              f"max |x²+y²−z²−1| / (1 + x²+y²+z²) = {off.max():.1e} (tolerance 1e-12; "
              f"absolute max {np.max(np.abs(quad - 1)):.1e}); all 36 angular sectors "
              f"reached ({bins.min()} points in the emptiest); points pass z = 0 "
              f"(min |z| = {np.min(np.abs(pts[:, 2])):.2e}): one connected sheet"),
        Claim("S ⊗ v with S definite (det S > 0) is not in M; S indefinite is",
              "paper-notes §2 (boundary), numag.classify at 50 digits",
              all(p["in_M"] is False for p in definite) and all(p["in_M"] is True
                                                                for p in indefinite),
              f"definite: {sum(p['in_M'] is False for p in definite)}/{len(definite)} not in M; "
              f"indefinite: {sum(p['in_M'] is True for p in indefinite)}/{len(indefinite)} in M"),
    ]
    md = (f"{len(pts)} points of M ∩ {{det S = −1}} sampled through the parametrization "
          "(standard normal Q, K, V), in coordinates S = [[z + x, y], [y, z − x]].\n\n"
          + md_table(["quantity", "value"],
                     [["samples", len(s["relative_dets"])],
                      ["max det S / |S|²", f"{worst:.2e}"],
                      ["max |x² + y² − z² − 1| on the slice", f"{np.max(np.abs(quad - 1)):.1e}"],
                      ["z range on the slice", f"{pts[:, 2].min():.2f} .. {pts[:, 2].max():.2f}"]]))
    return ctx.finish({"points": pts[:400].tolist(), "outside": o, "max_rel_det": worst},
                      claims, md, [str(fig)], inputs={"samples": n})


if __name__ == "__main__":
    study_main(NAME, compute)
