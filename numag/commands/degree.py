"""`numag degree`: the degree of the Zariski closure of a lightning neuromanifold."""
from __future__ import annotations

import argparse

from ..degree import DegreeResult
from ..jobs.degree import DegreeOptions, run_degree
from .common import add_architecture_options, add_option, options_from_args, print_json, table

NAME = "degree"
HELP = ("degree of the neuromanifold's Zariski closure (pseudo-witness set, trace test; "
        "lightning, multi-head attention and polynomial networks)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_architecture_options(p, DegreeOptions)
    add_option(p, DegreeOptions, "softmax")
    add_option(p, DegreeOptions, "seed")
    add_option(p, DegreeOptions, "timeout", metavar="SECONDS")
    add_option(p, DegreeOptions, "max_loops", metavar="L")
    add_option(p, DegreeOptions, "form")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    result = run_degree(options_from_args(DegreeOptions, args))
    print_json(result.to_json()) if args.json else print(render(result))
    return 0


def render(r: DegreeResult) -> str:
    """Readable table of a DegreeResult."""
    img = r.image
    cf = r.closed_form
    check = "" if r.agrees is None else ("  ✓ agrees" if r.agrees else "  ✗ DISAGREES")
    deg = (f"{r.degree}" if r.degree is not None else
           f"undecided ({r.points_found} image points found: a lower bound)")
    rows = [
        ("architecture", str(r.architecture)),
        ("dimension", f"{r.dimension}  (exact rank over F_p"
                      + (", certified by the symmetry bound)" if r.dimension_certified else ")")),
        ("#params", r.params),
        ("generic fiber dimension", r.fiber_dimension),
        ("degree", f"{deg}  (of the cone M = of P(M); coordinates: {r.encoding}, {r.form})"),
        ("certified", {True: "yes", False: "no", None: "undecided"}[r.certified]
         + f": {img.certificate}"),
        ("closed form", f"{cf.value}  ({cf.source}){check}" if cf.value is not None
         else f"none ({cf.source})"),
        ("paths", f"{img.paths_tracked} tracked, {img.failed_paths} failed, {img.loops} loops; "
                  f"source slice: {r.source_slice}"),
        ("seed", r.seed),
        ("time", f"{r.seconds:.2f} s"),
    ]
    return "\n".join([table(rows)] + [f"  note: {n}" for n in r.notes])
