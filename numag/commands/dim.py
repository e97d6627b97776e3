"""`numag dim`: the dimension of a neuromanifold, computed, predicted, bounded and certified."""
from __future__ import annotations

import argparse

from ..dimension import DimensionResult
from ..jobs.dim import DimOptions, run_dim
from .common import (add_architecture_options, add_option, cli_text, options_from_args,
                     print_json, table)

NAME = "dim"
HELP = ("dimension of the neuromanifold of an architecture (attention, multi-head attention, "
        "polynomial network)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_architecture_options(p, DimOptions)
    add_option(p, DimOptions, "softmax")
    add_option(p, DimOptions, "method", help="exact: rank over a random prime field, certified "
               "lower bound (every kind but softmax); mp: mpmath SVD; float: float64 SVD "
               "(default: exact, mp for softmax)")
    add_option(p, DimOptions, "seed")
    add_option(p, DimOptions, "trials", metavar="K",
               help="random points, maximum taken (default up to 3, stopping at the bound)")
    add_option(p, DimOptions, "inputs", metavar="N")
    add_option(p, DimOptions, "digits")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    result = run_dim(options_from_args(DimOptions, args))
    print_json(result.to_json()) if args.json else print(render(result))
    return 0


def _certified_text(r: DimensionResult) -> str:
    """Why the dimension is, or is not, proved."""
    if r.certified:
        return "yes: exact lower bound = proved upper bound"
    if r.method != "exact":
        why = ("the rank is numerical (softmax is not polynomial: no exact rank over F_p)"
               if r.architecture.kind == "softmax"
               else "the rank is numerical (use --method exact)")
        return f"no: {why}"
    why = f"exact lower bound {r.dimension} < proved upper bound {r.upper_bound}"
    if r.miss_probability:
        why += f"; every trial special has probability ≤ {r.miss_probability:.1e}"
    return f"no: {why}"


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
    margin = "" if trial.margin is None else (
        f", margin {trial.margin:.3g} at tolerance {r.rank_options.tolerance:.0e}")
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
        ("certified", _certified_text(r)),
        ("inputs N", f"{trial.n_inputs}" + (" (rank saturated)" if trial.saturated else "")),
        ("trials", f"{len(r.trials)} (ranks {[t.rank for t in r.trials]})"),
        ("seed", r.seed),
        ("time", f"{r.seconds:.2f} s"),
    ]
    lines = [table(rows)]
    lines += [f"  note: {cli_text(n)}" for n in (*pred.caveats, *r.notes)]
    return "\n".join(lines)
