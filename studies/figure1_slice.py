"""HMK Figure 1: a slice of the lightning neuromanifold M_{2,1,1}, drawn from sampled points.

For (d, d', a) = (2, 1, 1) every point of M is T = S ⊗ v with S = sym(u wᵀ) ∈ Sym²(R²)
(A = u vᵀ, V = wᵀ; paper-notes §5). Writing S = [[z + x, y], [y, z − x]], det S = z² − x² − y²,
and M = {det S ≤ 0}: the level det S = −1 is the hyperboloid of one sheet x² + y² − z² = 1.
The points drawn are sampled THROUGH THE PARAMETRIZATION (random Q, K, V, T computed from them),
then normalized (|v| = 1, then S scaled by a positive factor, which stays in M since M is a cone
over positive scalings). The region det S > 0 (S definite) is drawn from the formula, labelled as
outside M, and a few of its points are checked with numag.classify's membership test.

The normalization puts every drawn point on x² + y² − z² = 1 by construction, so that equation
is not checked (it would be an identity). What can fail, and is checked: the sampled points
reach every cell of a grid on the hyperboloid (angle × asinh z), a coverage that the same check
denies to half of the samples; exact rational points of the hyperboloid chosen on a grid (not
sampled) are in M by numag.classify's preimage recovery (which never looks at det S), and the
points of the sheet det S = +1 at the same grid parameters are rejected by it.
"""
from __future__ import annotations

from fractions import Fraction

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


GRID_ANGLES, GRID_BANDS, GRID_Z = 12, 6, 2.0      # coverage cells on |z| ≤ 2


def coverage(pts: np.ndarray) -> np.ndarray:
    """Sample counts per cell of the hyperboloid x² + y² − z² = 1 between z = −GRID_Z and GRID_Z:
    GRID_ANGLES sectors of arctan2(y, x) times GRID_BANDS bands of equal width in asinh z (the
    hyperboloid's arc length along a meridian)."""
    theta, u = np.arctan2(pts[:, 1], pts[:, 0]), np.arcsinh(pts[:, 2])
    lim = float(np.arcsinh(GRID_Z))
    return np.histogram2d(theta, u, bins=[GRID_ANGLES, GRID_BANDS],
                          range=[[-np.pi, np.pi], [-lim, lim]])[0].astype(int)


def sheet_point(t: Fraction, m: Fraction, sheet: int) -> tuple[Fraction, Fraction, Fraction]:
    """An exact rational point (x, y, z) of x² + y² − z² = sheet (±1): with r = (t² + 1)/(2t),
    s = (t² − 1)/(2t) (r² − s² = 1) and (c, σ) = ((1 − m²), 2m)/(1 + m²) on the unit circle,
    sheet +1 (det S = −1, one sheet) is (r c, r σ, s) and sheet −1 (det S = +1) is (s c, s σ, r)."""
    c, sn = (1 - m * m) / (1 + m * m), 2 * m / (1 + m * m)
    r, s = (t * t + 1) / (2 * t), (t * t - 1) / (2 * t)
    return (r * c, r * sn, s) if sheet == 1 else (s * c, s * sn, r)


def slice_grid_item(quick: bool, seed: int, digits: int) -> dict:
    """Classify exact points of det S = −1 and of det S = +1 (same grid parameters t, m) with
    numag.classify (membership by preimage recovery at `digits` digits)."""
    ts = [Fraction(1, 2), Fraction(1), Fraction(2)] if quick else \
        [Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3)]
    ms = [Fraction(0), Fraction(1), Fraction(-1), Fraction(5)] if quick else \
        [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(3), Fraction(-1, 3), Fraction(-1),
         Fraction(-3), Fraction(9)]
    v = np.array([Fraction(2, 3), Fraction(-5, 7)], dtype=object)
    out = []
    for sheet in (1, -1):
        for t in ts:
            for m in ms:
                x, y, z = sheet_point(t, m, sheet)
                S = np.array([[z + x, y], [y, z - x]], dtype=object)
                T = S[None, :, :, None] * v[None, None, None, :]
                cl = classify_tensor(T, 1, RankOptions(digits), seed=seed, evidence=False)
                out.append({"det": -sheet, "xyz": [str(x), str(y), str(z)],
                            "in_M": cl.membership.in_M if cl.membership else None})
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
    g = ctx.run([dict(quick=ctx.quick, seed=ctx.seed, digits=50)], slice_grid_item,
                desc=NAME)[0]["result"]["points"]
    quad = pts[:, 0] ** 2 + pts[:, 1] ** 2 - pts[:, 2] ** 2    # 1 by construction: shown only
    cells = coverage(pts)
    half = coverage(pts[pts[:, 2] > 0])          # the control: half of M's slice must fail
    on = [p for p in g if p["det"] == -1]
    off_sheet = [p for p in g if p["det"] == 1]
    worst = max(s["relative_dets"])
    definite = [p for p in o if p["det"] == 1]
    indefinite = [p for p in o if p["det"] == -1]
    claims = [
        Claim("every sampled point of M_{2,1,1} has det S ≤ 0", "HMK Fig. 1, paper-notes §5",
              worst <= 1e-12, f"{len(s['relative_dets'])} samples; largest det S/|S|² = "
                              f"{worst:.2e} (tolerance 1e-12)"),
        Claim("the slice det S = −1 of M is the whole hyperboloid of one sheet "
              "x² + y² − z² = 1 (and nothing of det S = +1)", "HMK Fig. 1",
              bool(cells.min() > 0 and half.min() == 0 and
                   all(p["in_M"] is True for p in on) and
                   all(p["in_M"] is False for p in off_sheet)),
              f"sampled points reach all {cells.size} cells ({GRID_ANGLES} angles × "
              f"{GRID_BANDS} bands of asinh z, |z| ≤ {GRID_Z:g}; {cells.min()} points in the "
              f"emptiest; control: the samples with z > 0 leave {int((half == 0).sum())} cells "
              f"empty); grid points of the hyperboloid in M (numag.classify, 50 digits): "
              f"{sum(p['in_M'] is True for p in on)}/{len(on)}; points of det S = +1 at the "
              f"same grid parameters rejected: "
              f"{sum(p['in_M'] is False for p in off_sheet)}/{len(off_sheet)}"),
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
                      ["max |x² + y² − z² − 1| on the slice (1 by construction)",
                       f"{np.max(np.abs(quad - 1)):.1e}"],
                      ["coverage cells reached", f"{int((cells > 0).sum())}/{cells.size}"],
                      ["z range on the slice", f"{pts[:, 2].min():.2f} .. {pts[:, 2].max():.2f}"]]))
    return ctx.finish({"points": pts[:400].tolist(), "outside": o, "max_rel_det": worst,
                       "coverage": cells.tolist(), "grid": g},
                      claims, md, [str(fig)], inputs={"samples": n})


if __name__ == "__main__":
    study_main(NAME, compute)
