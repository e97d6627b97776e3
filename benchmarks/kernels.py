"""Compiled kernels: numba (what witness uses) vs JAX on the same evaluation.

  python benchmarks/kernels.py [--points P]

The work of a tracker step is evaluations of a system and its Jacobian at a batch of points.
Here: the deep fiber widths 2,2,2 ranks 1,1 as the forward pass at 4 sample inputs
(numag.fiber_program), 8 random combinations of its 16 outputs, 16 unknowns; values and
Jacobians at P points.

* numba: witness.kernels.evaluate_batch on the traced program (compiled once per machine,
  cached on disk; one compiled interpreter serves every program).
* JAX: the same function written with jax.numpy, jit(vmap(jacfwd(f))) (compiled per system and
  per batch shape, not cached across processes by default).

Reported: first-call (compile) seconds, and seconds per point-evaluation after warm-up, with
the ratio. JAX is optional (``pip install jax``); skipped when absent.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from numag.architecture import Architecture  # noqa: E402
from numag.encode import fiber_system  # noqa: E402
from numag.fiber_program import fiber_program  # noqa: E402
from numag.fibers import exact_nullity  # noqa: E402
from numag.points import sample_point  # noqa: E402
from witness import kernels  # noqa: E402


def timed(fn, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=2000)
    args = ap.parse_args(argv)
    arch = Architecture.parse("2,2,2:1,1")
    fs = fiber_system(arch, sample_point(arch, "generic", 0))
    k = exact_nullity(fs, fs.base_point)
    S = fiber_program(fs, fs.system.n_vars - k, 0)
    G = S.randomize(fs.system.n_vars - k, np.random.default_rng(0))
    R = G.randomization
    rng = np.random.default_rng(1)
    X = rng.standard_normal((args.points, S.n_vars)) + 1j * rng.standard_normal((args.points,
                                                                              S.n_vars))
    P = G.program
    zs, zc = np.zeros(len(X), complex), np.zeros((len(X), 0), complex)
    t0 = time.perf_counter()
    kernels.evaluate_batch(P.arrays(), X[:2], zs[:2], zc[:2], True)
    first = time.perf_counter() - t0
    t_nb = timed(lambda: kernels.evaluate_batch(P.arrays(), X, zs, zc, True))
    f_nb, J_nb = kernels.evaluate_batch(P.arrays(), X, zs, zc, True)
    print(f"{len(P.code)} instructions, {P.n_outputs} outputs, {P.n_vars} unknowns, "
          f"{len(X)} points; load average {os.getloadavg()[0]:.1f}")
    print(f"  numba  first call {first:6.2f} s (compiled code cached on disk: a new process "
          f"pays only loading)   {1e6 * t_nb / len(X):8.2f} us per point")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("  JAX    not installed (pip install jax): skipped")
        return 0
    jax.config.update("jax_enable_x64", True)
    samples = np.asarray(S.program.info.get("sample_inputs")) if \
        "sample_inputs" in S.program.info else None
    if samples is None:
        print("  JAX    the program does not record its sample inputs: skipped")
        return 0
    w0 = np.array([complex(v) for v in fs.base_point])
    layers0 = arch.unpack(w0)

    def forward(layers, Y):
        for Q, K, V in layers:
            S_ = jnp.swapaxes(K @ Y, -1, -2) @ (Q @ Y)
            Y = (V @ Y) @ S_
        return Y
    phi0 = forward([tuple(jnp.asarray(m) for m in l) for l in layers0], jnp.asarray(samples))
    shapes = arch.layer_shapes()

    def f(w):
        layers, pos = [], 0
        for (qs, ks, vs) in shapes:
            mats = []
            for r, c in (qs, ks, vs):
                mats.append(w[pos:pos + r * c].reshape(r, c))
                pos += r * c
            layers.append(mats)
        return jnp.asarray(R) @ (forward(layers, jnp.asarray(samples)) - phi0).reshape(-1)
    g = jax.jit(jax.vmap(lambda w: (f(w), jax.jacfwd(f, holomorphic=True)(w))))
    Xj = jnp.asarray(X)
    t0 = time.perf_counter()
    g(Xj)[1].block_until_ready()
    first_j = time.perf_counter() - t0
    t_j = timed(lambda: g(Xj)[1].block_until_ready())
    f_j, J_j = g(Xj)
    err = float(np.abs(np.asarray(J_j) - J_nb[..., :S.n_vars]).max() / np.abs(J_nb).max())
    print(f"  JAX    first call {first_j:6.2f} s (per system and batch shape)"
          f"{'':>27}{1e6 * t_j / len(X):8.2f} us per point   (numba / JAX time "
          f"{t_nb / t_j:.2f}; Jacobians agree to {err:.0e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
