"""`numag fiber`: witness sets of a fiber of the parametrization and the symmetry comparison."""
from __future__ import annotations

import argparse

from ..fibers import FiberDecomposition
from ..jobs.fiber import FiberOptions, run_fiber
from .common import add_architecture_options, add_option, options_from_args, print_json, table

NAME = "fiber"
HELP = ("irreducible components of the fiber {W : φ_W = φ_W0} (monodromy from W0; lightning "
        "attention)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_architecture_options(p, FiberOptions)
    add_option(p, FiberOptions, "point",
               help="kind of the sample point W0 (default generic; not with --weights)")
    add_option(p, FiberOptions, "weights", metavar="FILE",
               help="W0 from a JSON weights file instead (format: README); its widths and "
                    "ranks define the architecture")
    add_option(p, FiberOptions, "seed")
    add_option(p, FiberOptions, "blackbox", help="also run PHCpack's blackbox decomposition as "
               "a check (auto: on at most 4 unknowns and without --timeout)")
    add_option(p, FiberOptions, "timeout", metavar="SECONDS",
               help="time budget of the whole computation, seconds (a partial result is "
                    "flagged; an overrun above 10 %% is reported with its cause)")
    add_option(p, FiberOptions, "complete_paths", metavar="PATHS",
               help="check completeness (witness supersets of the whole fiber at every "
                    "dimension) when it needs at most PATHS paths; 0: never")
    add_option(p, FiberOptions, "certify",
               help="certify the witness points of each component (Krawczyk test on the exact "
                    "fiber system cut by the witness slice)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    result = run_fiber(options_from_args(FiberOptions, args))
    print_json(result.to_json()) if args.json else print(render(result))
    return 0


TRACE_WORDS = {True: "passed", False: "NOT passed: incomplete", None: "UNDECIDED"}


def _dimension_prefix(r: FiberDecomposition) -> str:
    """'≤ ' when the Jacobian nullity at W0 exceeds every component found (W0 a singular point:
    the nullity bounds the local dimension only from above; a zero first layer of widths 2,1,2
    printed 'fiber dimension 10', its components have dimension 9 and 8)."""
    return "≤ " if r.components and r.dimension > max(c.dim for c in r.components) else ""


def render(r: FiberDecomposition) -> str:
    rows = [("architecture", str(r.architecture)), ("point type", r.point_type),
            ("point ranks", r.ranks),
            ("fiber dimension", _dimension_prefix(r) + f"{r.dimension} (" + (
                "an upper bound: the Jacobian nullity at W0 is NOT proven, see evidence"
                if any(e.startswith("W0: Jacobian nullity NOT") for e in r.evidence) else
                "exact Jacobian nullity at W0")
             + (f"; {r.tangent_dimension} before deflation" if r.tangent_dimension != r.dimension
                else "")
             + ("; above every component found: W0 is a singular point of the fiber, where "
                "the nullity is only an upper bound)"
                if r.components and r.dimension > max(c.dim for c in r.components) else ")"))]
    for c in r.components:
        t = c.trace_test
        rows.append(("component", f"dim {c.dim}, {_degree(c.degree, t['verdict'])}, trace test "
                     f"{TRACE_WORDS[t['verdict']]} (residual {t['residual']:.1e}"
                     f", tolerance {t['tolerance']:.0e})  [{c.label}]"
                     + (f" ({c.stop_reason} under an exact symmetry)"
                        if c.found_by == "symmetry" else "")))
        if c.certification is not None:
            rows.append(("  witness points", c.certification["summary"]
                         + (f", largest box radius {c.certification['max_radius']:.1e}"
                            if c.certification["max_radius"] is not None else "")))
    rows += [("expected", "; ".join(f"{e.label}: dim {e.dim if e.dim is not None else '?'}"
                                    f" ({e.source})" for e in r.expected)),
             ("complete", {True: "yes", False: "NOT proven", None: "not checked"}[r.complete]
              + (": " + _unprefixed(r.completeness["reason"], "not checked: ")
                 if r.completeness else "")),
             ("verdict", r.verdict),
             ("paths tracked", f"{r.paths_tracked} ({r.failed_paths} failed) by monodromy and "
                               f"trace tests"
              + _superset_paths(r.completeness)),
             ("seed", r.seed), ("time", f"{r.seconds:.2f} s")]
    if r.blackbox:
        rows.append(("blackbox check", f"{r.blackbox['components']} "
                     f"({'agrees' if r.blackbox['agrees'] else 'disagrees'})"))
    return table(rows) + "\n" + "\n".join(f"  evidence: {e}" for e in r.evidence)


def _superset_paths(completeness: dict | None) -> str:
    n = sum(d.get("paths_tracked", 0) for d in (completeness or {}).get("dims", ()))
    return f"; {n} by the completeness check's supersets" if n else ""


def _degree(points: int, verdict: bool | None) -> str:
    """The degree once the trace test has passed; before that only a lower bound (a monodromy
    run stopped by a budget holds part of the witness set)."""
    return (f"degree {points}" if verdict is True else
            f"degree >= {points} ({points} witness point{'s' if points != 1 else ''} found)")


def _unprefixed(text: str, prefix: str) -> str:
    """text without a leading prefix (the row's label already says it)."""
    return text[len(prefix):] if text.startswith(prefix) else text
