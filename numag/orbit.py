"""The orbit closure Z = closure(G°·W0) of a lightning-attention network's weights, and its
degree by a pseudo-witness set of the orbit map g ↦ g·W0.

G° is the identity component of the symmetry group (S1)–(S3) (numag.symmetry; paper-notes
§3.3). It acts linearly on the weights,

    Q_i ↦ λ_i G_i Q_i C_{i-1}^{-1},  K_i ↦ G_i^{-T} K_i C_{i-1}^{-1},  V_i ↦ C_i V_i C_{i-1}^{-1} / λ_i

(G_i ∈ GL(a_i), λ_i ∈ C*, C_i ∈ GL(d_i) for 0 < i < l, C_0 = C_l = I). As a variety G° is a
complete intersection X ⊂ C^N: per factor GL(n) the n² entries of C and one more unknown e with
e det C = 1 (so C^{-1} = e adj C is polynomial); a layer with a_i = 1 acts by the 2-torus
(Q, K, V) ↦ (u Q, v K, w V), u v w = 1 (u = λ G, v = G^{-1}, w = 1/λ: an isomorphism of tori).
X is irreducible (a product of GL's and tori) and homogeneous, so its identity is a generic
point of it. The orbit map f(g) = g·W0 is polynomial on X and Z = closure(f(X)) is irreducible.

When the fiber's exact Jacobian nullity at W0 equals dim G°·W0 (what `numag fiber` proves:
"Jacobian nullity k proved exactly"), Z is an irreducible component of the fiber through W0
(Z ⊂ fiber, both of dimension k at W0, Z irreducible and closed) [derived; paper-notes §3.3].
Its degree is then the degree of that fiber component, computed here on 14 + 5 unknowns for
widths 2,2,2,2 ranks 1,1,1 instead of the fiber system's 24 unknowns and 16,240 equations:
``witness.image.image_degree`` with the domain X (monodromy on the image points, certified by
the linear trace test in the image). benchmarks/orbit_degree.py counts the same points exactly
over F_p (Gröbner bases, Singular or msolve) where that finishes. ``layer_orbit_map`` gives the
same orbit in layer coordinates (the inner value matrices V_i' as unknowns; rank-one chains
with square inner V_i; docs/orbit-layer-coordinates.md): 17 unknowns of lower degree for
2,2,2,2.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import flint
import numpy as np

from witness.image import ImageResult, PolynomialMap, image_degree
from witness.options import Options
from witness.system import PolynomialSystem

from .architecture import Architecture, LayerWeights


class _Group:
    """Unknowns and equations of G° as fmpq_mpoly matrices (module docstring)."""

    def __init__(self, arch: Architecture):
        names: list[str] = []
        self.blocks: list[tuple[str, int]] = []        # GL factors: (prefix, size)
        for i, a in enumerate(arch.ranks, 1):
            if a == 1:
                names += [f"t{i}u", f"t{i}v", f"t{i}w"]
            else:
                self.blocks += [(f"g{i}", a), (f"l{i}", 1)]
        self.blocks += [(f"c{i}", arch.widths[i]) for i in range(1, arch.depth)]
        for p, n in self.blocks:
            names += [f"{p}_{r}_{c}" for r in range(n) for c in range(n)] + [f"{p}e"]
        self.names = tuple(names)
        self.ctx = flint.fmpq_mpoly_ctx.get(self.names, "lex")
        self.gen = dict(zip(self.names, self.ctx.gens()))

    def matrix(self, p: str, n: int) -> list[list]:
        return [[self.gen[f"{p}_{r}_{c}"] for c in range(n)] for r in range(n)]

    def inverse(self, p: str, n: int) -> list[list]:
        """e adj C (= C^{-1} on X)."""
        M = self.matrix(p, n)
        e = self.gen[f"{p}e"]
        return [[e * _cofactor(M, c, r) for c in range(n)] for r in range(n)]

    def equations(self, arch: Architecture) -> list:
        eqs = []
        for i, a in enumerate(arch.ranks, 1):
            if a == 1:
                eqs.append(self.gen[f"t{i}u"] * self.gen[f"t{i}v"] * self.gen[f"t{i}w"] - 1)
        for p, n in self.blocks:
            eqs.append(self.gen[f"{p}e"] * _det(self.matrix(p, n)) - 1)
        return eqs

    def identity(self) -> np.ndarray:
        """The identity of G° as a point of X (e = 1, C = I, u = v = w = 1)."""
        x = np.zeros(len(self.names), complex)
        for j, name in enumerate(self.names):
            parts = name.split("_")
            x[j] = (1.0 if len(parts) == 1 or parts[1] == parts[2] else 0.0)
        return x


def _det(M: list[list]):
    if len(M) == 1:
        return M[0][0]
    return sum((-1) ** c * M[0][c] * _det(_minor(M, 0, c)) for c in range(len(M)))


def _minor(M, r: int, c: int):
    return [[M[i][j] for j in range(len(M)) if j != c] for i in range(len(M)) if i != r]


def _cofactor(M, r: int, c: int):
    return (-1) ** (r + c) * (_det(_minor(M, r, c)) if len(M) > 1 else 1)


def _matmul(A: list[list], B: list[list]) -> list[list]:
    return [[sum(A[i][t] * B[t][j] for t in range(len(B))) for j in range(len(B[0]))]
            for i in range(len(A))]


def _const(ctx, M) -> list[list]:
    return [[ctx.constant(flint.fmpq(Fraction(v).numerator, Fraction(v).denominator))
             for v in row] for row in np.asarray(M, dtype=object)]


def _transpose(M: list[list]) -> list[list]:
    return [list(r) for r in zip(*M)]


def _check(arch: Architecture, layers: Sequence[LayerWeights]) -> None:
    if arch.kind != "lightning":
        raise ValueError(f"the orbit map is implemented for lightning attention, got "
                         f"{arch.kind!r}")
    shapes = arch.layer_shapes()
    if len(layers) != len(shapes) or any(np.shape(m) != s for l, sh in zip(layers, shapes)
                                         for m, s in zip(l, sh)):
        raise ValueError(f"layers must have the block shapes {shapes}")


def orbit_map(arch: Architecture, layers: Sequence[LayerWeights]
              ) -> tuple[PolynomialMap, PolynomialSystem, np.ndarray]:
    """(f, h, identity): the orbit map f(g) = g·W0 (coordinates in Architecture.pack order), the
    equations h of G° ⊂ C^N and the identity of G° (N,) complex (module docstring).

    Raises
    ------
    ValueError
        not a (single-head) lightning-attention architecture, or layers of other shapes.
    """
    _check(arch, layers)
    grp = _Group(arch)
    ctx, gen = grp.ctx, grp.gen
    coords = []
    for i, (Q, K, V) in enumerate(layers, 1):
        Q, K, V = (_const(ctx, m) for m in (Q, K, V))
        if i > 1:
            E = grp.inverse(f"c{i - 1}", arch.widths[i - 1])
            Q, K, V = _matmul(Q, E), _matmul(K, E), _matmul(V, E)
        if i < arch.depth:
            V = _matmul(grp.matrix(f"c{i}", arch.widths[i]), V)
        if arch.ranks[i - 1] == 1:
            u, v, w = gen[f"t{i}u"], gen[f"t{i}v"], gen[f"t{i}w"]
            blocks = [[[u * x for x in r] for r in Q], [[v * x for x in r] for r in K],
                      [[w * x for x in r] for r in V]]
        else:
            a = arch.ranks[i - 1]
            lam, mu = gen[f"l{i}_0_0"], gen[f"l{i}e"]
            GQ = _matmul(grp.matrix(f"g{i}", a), Q)
            HK = _matmul(_transpose(grp.inverse(f"g{i}", a)), K)
            blocks = [[[lam * x for x in r] for r in GQ], HK, [[mu * x for x in r] for r in V]]
        coords += [x for B in blocks for r in B for x in r]
    f = PolynomialMap(_system(grp.names, coords))
    h = _system(grp.names, grp.equations(arch))
    return f, h, grp.identity()


def layer_orbit_map(arch: Architecture, layers: Sequence[LayerWeights]
                    ) -> tuple[PolynomialMap, PolynomialSystem, np.ndarray]:
    """(f, h, start): the orbit G°·W0 in layer coordinates, for rank-one chains with square
    V_1, ..., V_{l-1} (d_0 = ... = d_{l-1} = d, a_i = 1, l ≥ 2; d_l any). Same variety Z and
    same fibers Stab(W0) as ``orbit_map``, on 2l + 1 + (l-1)(d² + 1) unknowns of lower degree.

    The inner value matrices themselves are unknowns, M_i = V_i' (i < l), and the scalars are
    read off relative to them [derived; docs/orbit-layer-coordinates.md]:

        Q_1' = u_1 Q_1,  K_1' = v_1 K_1,  V_i' = M_i (i < l),
        Q_i' = u_i Q_i P_{i-1} A_{i-1},  K_i' = v_i K_i P_{i-1} A_{i-1}  (1 < i ≤ l),
        V_l' = w V_l P_{l-1} A_{l-1},

    P_i = V_i ⋯ V_1 (of W0), A_i = adj M_1 ⋯ adj M_i, with the equations h of the domain
    E_i = u_i v_i E_{i-1}³ det M_i (E_0 = 1) and w u_l v_l E_{l-1}³ = 1. The change of
    variables (λ_i, G_i, C_i) ↦ (u_i, v_i, M_i, E_i, w) of the group is bijective when V_1, ...,
    V_{l-1} are invertible, with C_i = λ_i M_i C_{i-1} V_i^{-1}, E_i = λ_1⋯λ_i det M_1⋯det M_i.
    ``start`` (N,) complex is the identity's coordinates (M_i = V_i, u_i = v_i = 1/E_{i-1},
    E_i = det V_1⋯det V_i, w = 1/E_{l-1}).

    Raises
    ------
    ValueError
        not lightning attention, a rank other than 1, widths d_0, ..., d_{l-1} not all equal,
        depth 1, layers of other shapes, or a singular V_i (i < l).
    """
    _check(arch, layers)
    d, l = arch.widths[0], arch.depth
    if (l < 2 or any(a != 1 for a in arch.ranks)
            or any(w != d for w in arch.widths[:l])):
        raise ValueError(f"layer coordinates need ranks 1, depth >= 2 and d_0 = ... = d_(l-1);"
                         f" got widths {arch.widths}, ranks {arch.ranks}")
    names = [f"u{i}" for i in range(1, l + 1)] + [f"v{i}" for i in range(1, l + 1)]
    for i in range(1, l):
        names += [f"m{i}_{r}_{c}" for r in range(d) for c in range(d)] + [f"E{i}"]
    names.append("w")
    ctx = flint.fmpq_mpoly_ctx.get(tuple(names), "lex")
    gen = dict(zip(names, ctx.gens()))
    coords, eqs, start = [], [], {}
    P = A = None
    E = ctx.constant(1)
    e_value = Fraction(1)
    for i, (Q, K, V) in enumerate(layers, 1):
        u, v = gen[f"u{i}"], gen[f"v{i}"]
        start[f"u{i}"] = start[f"v{i}"] = 1 / e_value
        Qc, Kc = _const(ctx, Q), _const(ctx, K)
        if i > 1:
            Qc, Kc = _matmul(_matmul(Qc, P), A), _matmul(_matmul(Kc, P), A)
        coords += [u * x for r in Qc for x in r] + [v * x for r in Kc for x in r]
        if i < l:
            M = [[gen[f"m{i}_{r}_{c}"] for c in range(d)] for r in range(d)]
            det_v = _exact_det(V)
            if det_v == 0:
                raise ValueError(f"layer coordinates need an invertible V_{i}")
            coords += [x for r in M for x in r]
            eqs.append(gen[f"E{i}"] - u * v * E ** 3 * _det(M))
            E, e_value = gen[f"E{i}"], e_value * det_v
            start.update({f"m{i}_{r}_{c}": Fraction(V[r][c]) for r in range(d)
                          for c in range(d)})
            start[f"E{i}"] = e_value
            P = _const(ctx, V) if P is None else _matmul(_const(ctx, V), P)
            adj = [[_cofactor(M, c, r) for c in range(d)] for r in range(d)]
            A = adj if A is None else _matmul(A, adj)
        else:
            Vc = _matmul(_matmul(_const(ctx, V), P), A)
            coords += [gen["w"] * x for r in Vc for x in r]
            eqs.append(gen["w"] * u * v * E ** 3 - 1)
            start["w"] = 1 / e_value
    f = PolynomialMap(_system(tuple(names), coords))
    h = _system(tuple(names), eqs)
    return f, h, np.array([complex(start[n]) for n in names])


def orbit_residual(arch: Architecture, layers: Sequence[LayerWeights], Y: np.ndarray
                   ) -> np.ndarray:
    """How far each weight vector of Y (p, n_params) complex is from the orbit G°·W0, for the
    chains of ``layer_orbit_map``: (p,) float. y's layer coordinates x are read off block by
    block (least squares: u_1 from Q_1' ≈ u_1 Q_1, M_i = V_i', ...), and the residual is
    max(|f(x) − y| / (1 + |y|), max|h(x)|) (0 on the orbit up to rounding; points of
    closure(G°·W0) minus the orbit, which a generic slice misses, are not near 0). An
    independent check that witness points lie on Z, e.g. those of a fiber component
    [derived; docs/orbit-layer-coordinates.md, "Orbit check of witness points"]. Measured: at
    most 2.1e-9 on the orbit, at least 3.3e-2 on the other components of the same fibers
    (numag.fibers.ORBIT_RESIDUAL_TOL = 1e-6 decides between them).

    Raises ValueError as ``layer_orbit_map``, or for Y of another shape or not finite."""
    f, h, _ = layer_orbit_map(arch, layers)
    Y = np.asarray(Y, dtype=complex)
    if Y.ndim != 2 or Y.shape[1] != arch.n_params or not np.all(np.isfinite(Y)):
        raise ValueError(f"Y must be finite of shape (p, {arch.n_params}), got {Y.shape}")
    if len(Y) == 0:
        return np.zeros(0)
    X = np.array([_layer_coordinates(arch, layers, list(h.variables), y) for y in Y])
    gap = np.linalg.norm(f.coordinates.evaluate(X) - Y, axis=1) / (1 + np.linalg.norm(Y, axis=1))
    return np.maximum(gap, np.max(np.abs(h.evaluate(X)), axis=1))


def _layer_coordinates(arch: Architecture, layers, names: list[str], y: np.ndarray
                       ) -> np.ndarray:
    l = arch.depth
    x = np.zeros(len(names), complex)
    P = A = None
    e_prev = 1.0
    for i, ((Q, K, V), (Qy, Ky, Vy)) in enumerate(zip(layers, arch.unpack(y)), 1):
        Q, K, V = (np.asarray(m, dtype=complex) for m in (Q, K, V))
        if i > 1:
            Q, K = Q @ P @ A, K @ P @ A
        u, v = _ratio(Qy, Q), _ratio(Ky, K)
        x[names.index(f"u{i}")], x[names.index(f"v{i}")] = u, v
        if i < l:
            M = np.asarray(Vy, dtype=complex)
            e_prev = u * v * e_prev ** 3 * np.linalg.det(M)
            for r in range(M.shape[0]):
                for c in range(M.shape[1]):
                    x[names.index(f"m{i}_{r}_{c}")] = M[r, c]
            x[names.index(f"E{i}")] = e_prev
            P = V if P is None else V @ P
            adj = _adjugate(M)
            A = adj if A is None else A @ adj
        else:
            x[names.index("w")] = _ratio(Vy, V @ P @ A)
    return x


def _adjugate(M: np.ndarray) -> np.ndarray:
    n = M.shape[0]
    if n == 1:
        return np.ones((1, 1), complex)
    return np.array([[(-1) ** (r + c) * np.linalg.det(np.delete(np.delete(M, c, 0), r, 1))
                      for c in range(n)] for r in range(n)])


def _ratio(Y, B) -> complex:
    """The least-squares scalar c with Y ≈ c B."""
    B = np.asarray(B, dtype=complex).ravel()
    return complex(np.vdot(B, np.asarray(Y, dtype=complex).ravel()) / np.vdot(B, B))


def _exact_det(V) -> Fraction:
    M = flint.fmpq_mat([[flint.fmpq(Fraction(x).numerator, Fraction(x).denominator)
                         for x in row] for row in np.asarray(V, dtype=object)])
    det = M.det()
    return Fraction(int(det.p), int(det.q))


def _system(names: tuple[str, ...], polys: list) -> PolynomialSystem:
    return PolynomialSystem(names, tuple(
        {tuple(map(int, e)): Fraction(int(c.p), int(c.q))
         for e, c in p.to_dict().items()} for p in polys))


def orbit_degree(arch: Architecture, layers: Sequence[LayerWeights], *, seed: int = 0,
                 dimension: int | None = None, timeout: float | None = None,
                 options: Options | None = None, progress: bool | None = None,
                 coordinates: str = "group") -> ImageResult:
    """dim and degree of Z = closure(G°·W0) (module docstring), by ``witness.image.image_degree``
    on the orbit map with the domain G° and the identity as start point. ``dimension``: the
    orbit dimension if known (numag.fibers.orbit_dimension, exact), then cross-checked. The
    degree is the affine degree of Z ⊂ C^{#params}, reported only when the trace test certifies
    it (``certified``), else ``points_found`` is a lower bound. ``coordinates``: 'group'
    (``orbit_map``) or 'layer' (``layer_orbit_map``).

    Raises ValueError as ``orbit_map`` (or ``layer_orbit_map``), or for other coordinates."""
    if coordinates not in ("group", "layer"):
        raise ValueError(f"coordinates must be 'group' or 'layer', got {coordinates!r}")
    f, h, e = (orbit_map if coordinates == "group" else layer_orbit_map)(arch, layers)
    return image_degree(f, domain=h, start=e, seed=seed, dimension=dimension, timeout=timeout,
                        options=options, progress=progress)
