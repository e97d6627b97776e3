"""The measurement behind numag.rank's default tolerances: where the zero and the nonzero
normalized singular values of numag's Jacobians lie, against the undecided band of RankOptions.

For every Jacobian numag dim ranks (float64: the deep_dimension grid, lightning and softmax, the
architectures of benchmarks/dimension.py and HMK Fig. 3 with N = 250; mpmath: small ones), the true rank r is known
independently: the exact rank over F_p for lightning, and for softmax that rank plus the depth l
(HMK; the deep_dimension study checks it; softmax nets with a non-final rank-1 layer, where
that fails, are left out). The normalized singular values s_1 ≥ ... are split at
r: s_r is the smallest nonzero one, s_{r+1} the largest zero one (rounding error). The report
prints the extremes per group and whether each Jacobian's values lie outside the band
(tolerance / min_margin, tolerance · min_margin), i.e. whether the rule decides it right.
Run: .venv/bin/python benchmarks/rank_margins.py [--quick] [--seeds N]
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "studies"), str(ROOT / "benchmarks")]

from numag import Architecture  # noqa: E402
from numag.rank import RankOptions, numerical_rank  # noqa: E402

dim_module = importlib.import_module("numag.dimension")


def recorded_ranks(arch: Architecture, method: str, seed: int, options: RankOptions,
                   **kwargs) -> list:
    """The rank Decisions of the final Jacobian of each trial of numag dim."""
    seen = []

    def record(J, opts, equilibrated=True, quantity="rank"):
        seen.append(numerical_rank(J, opts, equilibrated, quantity))
        return seen[-1]
    finals = []
    trial = dim_module._trial

    def last_of_trial(*args, **kwargs):
        out = trial(*args, **kwargs)
        finals.append(seen[-1])
        return out
    dim_module.numerical_rank, dim_module._trial = record, last_of_trial
    try:
        dim_module.dimension(arch, method=method, seed=seed, rank_options=options, **kwargs)
    finally:
        dim_module.numerical_rank, dim_module._trial = numerical_rank, trial
    return finals


def truth(arch: Architecture) -> int:
    """The rank over F_p (lightning; a lower bound that meets the symmetry bound except in the
    rank-1 caveat of paper-notes §3, where it is the generic rank found by every method), plus l
    for softmax."""
    light = Architecture(arch.widths, arch.ranks, 2, "lightning")
    exact = dim_module.dimension(light, method="exact", seed=0)   # certified or, rank-1
    return exact.dimension + (arch.depth if arch.kind == "softmax" else 0)


def split(decision, r: int) -> tuple[float, float]:
    """(smallest nonzero, largest zero) normalized singular value, for true rank r."""
    s = decision.values
    return (s[r - 1] if r else 1.0), (s[r] if r < len(s) else 0.0)


def float_cases(quick: bool) -> list[tuple[Architecture, dict]]:
    """(architecture, numag.dimension keywords): the deep_dimension grid, the architectures of
    benchmarks/dimension.py and HMK Fig. 3 as the normalized_conjecture study computes it
    (N = 250 inputs, 5 trials)."""
    deep = importlib.import_module("deep_dimension")
    bench = importlib.import_module("dimension")
    fig3 = importlib.import_module("normalized_conjecture")
    out = []
    for item in deep.grid(quick, 0):
        tokens = 3 if item["kind"] == "softmax" else 2
        out.append(Architecture(tuple(item["widths"]), tuple(item["ranks"]), tokens,
                                item["kind"]))
    if not quick:
        out += [Architecture(w, r) for w, r in bench.LIGHTNING]
        out += [Architecture(w, r, 3, "softmax") for w, r in bench.SOFTMAX]
    cases = [(arch, {}) for arch in dict.fromkeys(out)]
    return cases + [(Architecture((x["delta"],) * 3, (2, 2), 3, "softmax"),
                     {"n_inputs": x["n_inputs"], "trials": x["trials"]})
                    for x in fig3.grid(quick, 0) if x["method"] == "float"]


def mp_cases(quick: bool) -> list[tuple[Architecture, dict]]:
    out = [Architecture((3, 2), (1,)), Architecture((3, 3, 3), (2, 2)),
           Architecture((2, 2, 2), (1, 1)), Architecture((3, 3, 3), (2, 2), 3, "softmax")]
    out += [] if quick else [Architecture((4, 4, 4), (2, 2), 3, "softmax"),
                             Architecture((3, 3, 3, 3), (2, 2, 2), 3, "softmax")]
    return [(arch, {}) for arch in out]


def measure(cases, method: str, options: RankOptions, seeds: range) -> None:
    lo, hi = options.tolerance / options.min_margin, options.tolerance * options.min_margin
    print(f"\n{method} at {options.name}: band ({lo:.1e}, {hi:.1e})")
    print(f"  {'architecture':<34} {'seed':>4} {'rank':>5} {'min nonzero':>12} "
          f"{'max zero':>10}  rule")
    worst_nz, worst_z, wrong = (1.0, None), (0.0, None), 0
    for arch, kwargs in cases:
        if arch.kind == "softmax" and 1 in arch.ranks[:-1]:
            continue            # rank-1 caveat: softmax dim ≠ lightning dim + l, no known truth
        r = truth(arch)
        name = f"{arch}" + (f" N={kwargs['n_inputs']}" if kwargs.get("n_inputs") else "")
        for seed in seeds:
            for dec in recorded_ranks(arch, method, seed, options, **kwargs):
                nz, z = split(dec, r)
                ok = dec.decided and dec.rank == r
                wrong += not ok
                if nz < worst_nz[0]:
                    worst_nz = (nz, f"{name} seed {seed}")
                if z > worst_z[0]:
                    worst_z = (z, f"{name} seed {seed}")
                verdict = "right" if ok else ("UNDECIDED" if not dec.decided else
                                              f"WRONG ({dec.rank})")
                print(f"  {name:<34} {seed:>4} {r:>5} {nz:>12.2e} {z:>10.2e}  {verdict}")
    print(f"  smallest nonzero {worst_nz[0]:.2e} ({worst_nz[1]}): {worst_nz[0] / hi:.3g} × the "
          f"band's top")
    print(f"  largest zero     {worst_z[0]:.2e} ({worst_z[1]}): {lo / max(worst_z[0], 1e-300):.3g}"
          f" × below the band's bottom")
    print(f"  Jacobians not decided right: {wrong}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the quick deep_dimension grid, 2 seeds")
    p.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1 (default 5; quick 2)")
    args = p.parse_args(argv)
    seeds = range(args.seeds or (2 if args.quick else 5))
    measure(float_cases(args.quick), "float", dim_module.rank_options_for("float"), seeds)
    measure(mp_cases(args.quick), "mp", dim_module.rank_options_for("mp"), seeds)


if __name__ == "__main__":
    main()
