"""`numag classify`: zero / singular / boundary / smooth for points of single-layer neuromanifolds."""
from __future__ import annotations

import argparse
import json

from ..classify import Classification
from ..classify.batch import ClassificationBatch, label_text
from ..io import strict_json
from ..jobs.classify import ClassifyOptions, run_classify
from .common import add_option, cli_text, options_from_args, print_json, table

NAME = "classify"
HELP = ("classify points of a single-layer lightning neuromanifold (zero, singular, boundary, "
        "smooth) at high precision, with evidence")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_option(p, ClassifyOptions, "file", positional=True, metavar="FILE",
               help="JSON point: weights (Q, K, V), {'A', 'V'} or {'tensor'} with widths "
                    "[d, d'] and ranks [a]; JSON lines (.jsonl or --batch) for batch mode")
    add_option(p, ClassifyOptions, "digits")
    add_option(p, ClassifyOptions, "float64",
               help="decide in float64 instead (for comparison: it never certifies a special "
                    "class)")
    add_option(p, ClassifyOptions, "tolerance",
               help="relative zero tolerance (default 10^(-0.8*digits))")
    add_option(p, ClassifyOptions, "min_margin",
               help="margin needed to decide (default 10^(digits/10))")
    add_option(p, ClassifyOptions, "seed")
    add_option(p, ClassifyOptions, "no_evidence",
               help="rules only (skip Jacobian ranks and boundary probes; much faster)")
    add_option(p, ClassifyOptions, "batch",
               help="FILE holds one JSON object per line (a bad line is reported, the others "
                    "are still classified, and the exit status is 2)")
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; JSON lines in batch mode)")


def run(args: argparse.Namespace) -> int:
    result = run_classify(options_from_args(ClassifyOptions, args))
    if isinstance(result, Classification):
        print_json(result.to_json()) if args.json else print(render(result))
        return 0
    if args.json:
        for entry in result.entries:
            print(json.dumps(strict_json(entry.to_json()), default=str))
    else:
        print(render_batch(result))
    return 2 if result.failed else 0              # every line's error is bad input


def render(r: Classification) -> str:
    """Readable report of one Classification."""
    d, dp, a = r.shape
    rows = [("shape (d, d', a)", f"({d}, {dp}, {a})   input: {r.source}"),
            ("labels", label_text(r))]
    if r.kinds:
        rows.append(("kind", "; ".join(r.kinds)))
    if r.alternatives:
        rows.append(("still possible", " | ".join(", ".join(x) for x in r.alternatives)))
    if r.membership:
        m = r.membership
        rows.append(("in M", f"{ {True: 'yes', False: 'no', None: 'undecided'}[m.in_M]}  "
                             f"(residual {m.residual:.3g}; {m.reason})"))
    rows.append(("ranks", _ranks_text(r)))
    for x in r.decisions:
        state = "decided" if x.decided else f"UNDECIDED, candidates {list(x.candidates)}"
        rows.append((f"  {x.quantity}", f"{x.value}  ({state}; margin {_g(x.margin)}, "
                                        f"tolerance {x.tolerance:.1e})"))
    rows.append(("margin", f"{_g(r.margin)} at {r.precision.name}"))
    e = r.evidence
    if e:
        rows += [("evidence", f"dim M: computed {e.generic_rank.value} at a random point, "
                              f"HMK formula {e.dim_formula}"),
                 ("  Jacobian ranks", ", ".join(f"{f.jacobian_rank.value} ({f.name})"
                                                for f in e.fiber)),
                 ("  joint rank", f"{e.joint_rank.value}")]
        if e.nearby_joint_rank:
            rows.append(("  nearby tangents", f"joint rank {e.nearby_joint_rank.value} at ε = "
                                              f"{e.epsilon:.0e}"))
        for p in e.probes:
            rows.append(("  outside probe", (
                f"flattening {p['flattening']}: σ₂/‖T‖ = {p['sigma2_rel']:.3g} (outside points "
                f"at least this far; decided > 0: {p['decided_nonzero']})"
                if "flattening" in p else f"distance {p['distance']:.3g}, in M: {p['in_M']}")))
        rows.append(("  verdicts", f"singular: {e.singular}; boundary: {e.boundary}"))
        rows.append(("agreement", ", ".join(
            f"{k}: {v}" + (" (unchecked: ?)" if v.unchecked else "")
            for k, v in r.agreement.items())))
    lines = [table(rows)]
    lines += [f"  note: {cli_text(n)}" for n in (*r.notes, *(e.notes if e else ()))]
    return "\n".join(lines)


def _ranks_text(r) -> str:
    """rk A and rk V, or why there are none (a tensor outside M has no factors A, V)."""
    A, V = r.ranks.get("A"), r.ranks.get("V")
    if A is None and V is None:
        outside = r.membership is not None and r.membership.in_M is False
        return "none: the tensor is not in M, so it has no factors A, V" if outside \
            else "not computed"
    return f"A = {_s(A)}, V = {_s(V)}"


def _g(x: float, short: bool = False) -> str:
    """A margin; infinite means the deciding quantity is an exact zero."""
    if x == float("inf"):
        return "inf" if short else "inf (exact zero)"
    return f"{x:.3g}"


def render_batch(batch: ClassificationBatch) -> str:
    """Summary table of a batch: one line per point, then counts per label set."""
    head = f"{'point':<28} {'shape':<10} {'labels':<28} {'rk A':>4} {'rk V':>4} {'margin':>9}  agreement"
    out = [head, "-" * len(head)]
    for e in batch.entries:
        name = e.where if len(e.where) <= 28 else "…" + e.where[-27:]
        if e.error:
            out.append(f"{name:<28} ERROR: {e.error}")
            continue
        r = e.result
        d, dp, a = r.shape
        agree = ", ".join(f"{k[:4]}:{v}" for k, v in r.agreement.items()) or "-"
        out.append(f"{name:<28} {f'({d},{dp},{a})':<10} {label_text(r):<28} "
                   f"{_s(r.ranks.get('A')):>4} {_s(r.ranks.get('V')):>4} {_g(r.margin, short=True):>9}  {agree}")
    out.append("")
    out.append(f"{len(batch.entries)} point(s) at {batch.precision.name}: " +
               "; ".join(f"{k}: {v}" for k, v in batch.counts().items()))
    if any(e.result is not None and e.result.margin == float("inf") for e in batch.entries):
        out.append("margin inf: the deciding quantity is an exact zero")
    return "\n".join(out)


def _s(x) -> str:
    return "-" if x is None else str(x)
