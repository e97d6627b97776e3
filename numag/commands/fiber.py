"""`numag fiber`: witness sets of a fiber of the parametrization and the symmetry comparison."""
from __future__ import annotations

import argparse

from ..fibers import FiberDecomposition, fiber
from ..io import load_weights
from ..points import KINDS
from .common import (add_architecture_arguments, architecture_from, nonnegative_int,
                     positive_float, print_json, table)

NAME = "fiber"
HELP = ("irreducible components of the fiber {W : φ_W = φ_W0} (monodromy from W0; lightning "
        "attention)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_architecture_arguments(p, softmax=False, required=False)
    p.add_argument("--point", choices=KINDS, default=None,
                   help="kind of the sample point W0 (default generic; not with --weights)")
    p.add_argument("--weights", metavar="FILE", help="W0 from a JSON weights file instead "
                   "(format: README); its widths and ranks define the architecture")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of every random choice")
    p.add_argument("--blackbox", choices=("auto", "yes", "no"), default="auto",
                   help="also run PHCpack's blackbox decomposition as a check (auto: on at "
                        "most 6 unknowns)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="monodromy budget per start point (a partial result is flagged)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    result = compute(args)
    if args.json:
        print_json(to_cli_json(result))
    else:
        print(render(result))
    return 0


def json_result(args: argparse.Namespace) -> dict:
    """What `--json` prints (the hook numag.sweep calls for 'fiber' tasks)."""
    return to_cli_json(compute(args))


def compute(args: argparse.Namespace) -> FiberDecomposition:
    if args.weights:
        if args.point is not None:
            raise ValueError("--point chooses a sample point; --weights gives W0 itself: "
                             "use one of them")
        arch, layers = load_weights(args.weights)
        if args.widths or args.ranks:
            given = (tuple(args.widths or arch.widths), tuple(args.ranks or arch.ranks))
            if given != (arch.widths, arch.ranks):
                raise ValueError(f"--widths/--ranks {given} contradict the weights file "
                                 f"({arch.widths}, {arch.ranks})")
    else:
        if not args.widths or (not args.ranks and args.arch != "pnn"):
            raise ValueError("give --widths and --ranks, or --weights FILE")
        arch, layers = architecture_from(args), None
    if arch.kind != "lightning":
        raise ValueError(f"numag fiber computes lightning attention only: for {arch.kind} "
                         f"the fiber system exists (numag.encode.fiber_system), but "
                         f"the predicted components and monodromy start points do not (they miss "
                         f"the components of head or neuron permutations)")
    blackbox = {"auto": None, "yes": True, "no": False}[args.blackbox]
    return fiber(arch, layers, kind=args.point or "generic", seed=args.seed, blackbox=blackbox,
                 timeout=args.timeout)


def to_cli_json(r: FiberDecomposition) -> dict:
    """The documented keys first (dimension, components, paths_tracked, seconds, seed,
    expected), then everything else of FiberDecomposition.to_json()."""
    full = r.to_json()
    comps = [{"dim": c["dim"], "degree": c["degree"], "trace_test": c["trace_test"],
              "label": c["label"], "stop_reason": c["stop_reason"], "points": c["points"]}
             for c in full["components"]]
    return {"dimension": r.dimension, "components": comps,
            "paths_tracked": r.paths_tracked, "seconds": full["seconds"], "seed": r.seed,
            "expected": {"components": full["expected"], "matches": r.matches,
                         "verdict": r.verdict},
            **{k: v for k, v in full.items() if k not in ("components", "expected")}}


TRACE_WORDS = {True: "passed", False: "NOT passed: incomplete", None: "UNDECIDED"}


def render(r: FiberDecomposition) -> str:
    rows = [("architecture", str(r.architecture)), ("point type", r.point_type),
            ("fiber dimension", f"{r.dimension} (exact Jacobian nullity at W0"
             + (f"; {r.tangent_dimension} before deflation)" if r.tangent_dimension != r.dimension
                else ")"))]
    for c in r.components:
        t = c.trace_test
        rows.append(("component", f"dim {c.dim}, degree {c.degree}, trace test "
                     f"{TRACE_WORDS[t['verdict']]} (residual {t['residual']:.1e}"
                     f", tolerance {t['tolerance']:.0e})  [{c.label}]"))
    rows += [("expected", "; ".join(f"{e.label}: dim {e.dim if e.dim is not None else '?'}"
                                    for e in r.expected)),
             ("verdict", r.verdict),
             ("paths tracked", f"{r.paths_tracked} ({r.failed_paths} failed)"),
             ("seed", r.seed), ("time", f"{r.seconds:.2f} s")]
    if r.blackbox:
        rows.append(("blackbox check", f"{r.blackbox['components']} "
                     f"({'agrees' if r.blackbox['agrees'] else 'disagrees'})"))
    return table(rows) + "\n" + "\n".join(f"  evidence: {e}" for e in r.evidence)
