"""`numag degree`: the degree of the Zariski closure of a lightning neuromanifold."""
from __future__ import annotations

import argparse

from ..degree import DegreeResult, degree
from .common import (add_architecture_arguments, architecture_from, nonnegative_int,
                     positive_float, positive_int, print_json, table)

NAME = "degree"
HELP = "degree of the neuromanifold's Zariski closure (pseudo-witness set, trace test)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_architecture_arguments(p)
    p.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of every random choice (default 0)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="monodromy budget; when reached the degree is undecided")
    p.add_argument("--max-loops", type=positive_int, default=100,
                   help="monodromy loop budget (default 100)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    arch = architecture_from(args)
    result = degree(arch, seed=args.seed, timeout=args.timeout, max_loops=args.max_loops)
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
        ("degree", f"{deg}  (of the cone M = of P(M); {r.encoding} coordinates)"),
        ("certified", {True: "yes", False: "no", None: "undecided"}[r.certified]
         + f": {img.certificate}"),
        ("closed form", f"{cf.value}  ({cf.source}){check}"),
        ("paths", f"{img.paths_tracked} tracked, {img.failed_paths} failed, {img.loops} loops; "
                  f"source slice: {r.source_slice}"),
        ("seed", r.seed),
        ("time", f"{r.seconds:.2f} s"),
    ]
    return "\n".join([table(rows)] + [f"  note: {n}" for n in r.notes])
