"""`numag dim`: the dimension of a neuromanifold, computed, predicted, bounded and certified."""
from __future__ import annotations

import argparse
from dataclasses import replace

from ..architecture import Architecture
from ..dimension import METHODS, DimensionResult, dimension
from .common import (add_architecture_arguments, architecture_from, nonnegative_int,
                     positive_int, print_json, table)

NAME = "dim"
HELP = ("dimension of the neuromanifold of an architecture (attention, multi-head attention, "
        "polynomial network)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_architecture_arguments(p)
    p.add_argument("--method", choices=METHODS, default=None,
                   help="exact (rank over F_p; lightning only; default for lightning), "
                        "mp (mpmath SVD; default for softmax) or float (float64 SVD)")
    p.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of every random choice (default 0)")
    p.add_argument("--trials", type=positive_int, default=None,
                   help="random points (default: up to 3, stopping at the symmetry bound)")
    p.add_argument("--inputs", type=positive_int, default=None, metavar="N",
                   help="number of inputs N (default: grown until the rank saturates)")
    p.add_argument("--digits", type=positive_int, default=30, help="mpmath digits for --method mp")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    result = compute(args)
    if args.json:
        print_json(result.to_json())
    else:
        print(render(result))
    return 0


def json_result(args: argparse.Namespace) -> dict:
    """What `--json` prints (the hook numag.sweep calls for 'dim' tasks)."""
    return compute(args).to_json()


def compute(args: argparse.Namespace) -> DimensionResult:
    arch = architecture_from(args)
    method = args.method or ("exact" if arch.polynomial else "mp")
    result = dimension(arch, method=method, seed=args.seed, trials=args.trials,
                       n_inputs=args.inputs, dps=args.digits)
    return replace(result, notes=(*rank_notes(arch), *result.notes))


def rank_notes(arch: Architecture) -> list[str]:
    """A note per layer whose attention rank a_i exceeds its input width d_{i-1}: the
    architecture is legitimate, but A_i = K_iᵀ Q_i has rank at most d_{i-1}."""
    notes = []
    for i, (a, d) in enumerate(zip(arch.ranks, arch.widths[:-1]), start=1):   # () for a pnn
        if a > d:
            layer = "" if arch.depth == 1 else f"layer {i}: "
            notes.append(f"{layer}attention rank a = {a} exceeds d = {d}: A = KᵀQ has rank at "
                         f"most {d}, so for A this architecture behaves like a = {d}")
    return notes


def render(r: DimensionResult) -> str:
    """Readable table of a DimensionResult."""
    trial = max(r.trials, key=lambda t: t.rank)
    how = {"exact": f"exact rank over F_{trial.prime}", "mp": f"mpmath SVD, {r.dps} digits",
           "float": "float64 SVD"}[r.method]
    pred = r.predicted
    if r.defect is not None:
        verdict = "  ✓ reaches it" if r.defect == 0 else (
            f"  DEFECTIVE by {r.defect}" if r.defect > 0 else "  ✗ ABOVE the expected value")
    else:
        verdict = "" if r.agrees_with_prediction is None else (
            "  ✓ agrees" if r.agrees_with_prediction else "  ✗ DISAGREES")
    label = "expected" if pred.status == "expected" else "predicted"
    margin = "" if trial.gap is None else f", singular-value gap {trial.gap:.3g}"
    rows = [
        ("architecture", str(r.architecture)),
        ("computed dimension", f"{r.dimension}  ({how}{margin})"),
        ("#params", r.params),
        ("generic fiber dimension", r.fiber_dimension),
        (label, f"{pred.value}  ({pred.source}){verdict}"),
        ("upper bound", f"{r.upper_bound}  (least of #params − orbit dimension "
                        f"{r.symmetry_orbit_dimension} = {r.params - r.symmetry_orbit_dimension}"
                        + (f", ambient {r.ambient_dimension}" if r.ambient_dimension else "")
                        + ", and the bounds of paper-notes §3.2, §8, §9.2)"),
        ("certified", "yes: exact lower bound = proved upper bound" if r.certified else
         "no" + (f" (every trial special: probability ≤ {r.miss_probability:.1e})"
                 if r.miss_probability else "")),
        ("inputs N", f"{trial.n_inputs}" + (" (rank saturated)" if trial.saturated else "")),
        ("trials", f"{len(r.trials)} (ranks {[t.rank for t in r.trials]})"),
        ("seed", r.seed),
        ("time", f"{r.seconds:.2f} s"),
    ]
    lines = [table(rows)]
    lines += [f"  note: {n}" for n in (*pred.caveats, *r.notes)]
    return "\n".join(lines)
