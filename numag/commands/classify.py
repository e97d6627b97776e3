"""`numag classify`: zero / singular / boundary / smooth for points of single-layer neuromanifolds."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from tqdm.auto import tqdm

from ..classify import Classification, Precision, classify_point
from ..io import BadLine, load_points, single_layer_point_from_json
from .common import bounded, nonnegative_int, print_json, table

NAME = "classify"
HELP = ("classify points of a single-layer lightning neuromanifold (zero, singular, boundary, "
        "smooth) at high precision, with evidence")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE",
                   help="JSON point: weights (Q, K, V), {'A', 'V'} or {'tensor'} with widths "
                        "[d, d'] and ranks [a]; JSON lines (.jsonl or --batch) for batch mode")
    p.add_argument("--digits", type=bounded(int, 15), default=50,
                   help="mpmath digits of every decision (default 50; at least 15)")
    p.add_argument("--float64", action="store_true",
                   help="decide in float64 instead (for comparison: it never certifies a "
                        "special class)")
    p.add_argument("--tolerance", type=bounded(float, 0, 1, strict=True), default=None,
                   help="relative zero tolerance (default 10^(-0.8*digits))")
    p.add_argument("--min-margin", type=bounded(float, 1), default=None,
                   help="margin needed to decide (default 10^(digits/10))")
    p.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the evidence's random choices")
    p.add_argument("--no-evidence", action="store_true",
                   help="rules only (skip Jacobian ranks and boundary probes; much faster)")
    p.add_argument("--batch", action="store_true",
                   help="FILE holds one JSON object per line (exit status 1 if a line fails)")
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; JSON lines in batch mode)")


def run(args: argparse.Namespace) -> int:
    prec = Precision(None if args.float64 else args.digits, args.tolerance, args.min_margin)
    points = load_points(args.file, batch=True if args.batch else None, keep_bad_lines=True)
    batch = len(points) > 1 or args.batch or str(args.file).endswith(".jsonl")
    if not batch:
        where, obj = points[0]
        result = classify_point(_point(obj, where), prec, args.seed, not args.no_evidence)
        print_json(result.to_json()) if args.json else print(render(result))
        return 0
    rows = []
    bar = tqdm(points, desc="classify", disable=None, leave=False)
    for where, obj in bar:
        try:
            result = classify_point(_point(obj, where), prec, args.seed, not args.no_evidence)
        except ValueError as exc:        # one bad line must not hide the others
            rows.append((where, None, str(exc)))
            if args.json:
                print(json.dumps({"where": where, "error": str(exc)}))
            continue
        rows.append((where, result, None))
        if args.json:
            print(json.dumps({"where": where, **result.to_json()}, default=str))
    if not args.json:
        print(render_batch(rows, prec))
    return 1 if any(err for _, _, err in rows) else 0


def _point(obj: Any, where: str):
    if isinstance(obj, BadLine):
        raise ValueError(f"{where}: {obj.message}")
    return single_layer_point_from_json(obj, where)


def _labels(r: Classification) -> str:
    return ", ".join(r.labels) if r.labels else "not in M"


def render(r: Classification) -> str:
    """Readable report of one Classification."""
    d, dp, a = r.shape
    rows = [("shape (d, d', a)", f"({d}, {dp}, {a})   input: {r.source}"),
            ("labels", _labels(r))]
    if r.kinds:
        rows.append(("kind", "; ".join(r.kinds)))
    if r.alternatives:
        rows.append(("still possible", " | ".join(", ".join(x) for x in r.alternatives)))
    if r.membership:
        m = r.membership
        rows.append(("in M", f"{ {True: 'yes', False: 'no', None: 'undecided'}[m.in_M]}  "
                             f"(residual {m.residual:.3g}; {m.reason})"))
    rows.append(("ranks", f"A = {r.ranks.get('A')}, V = {r.ranks.get('V')}"))
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
            rows.append(("  outside probe", f"distance {p['distance']:.3g}, in M: {p['in_M']}"))
        rows.append(("  verdicts", f"singular: {e.singular}; boundary: {e.boundary}"))
        rows.append(("agreement", ", ".join(f"{k}: {v}" for k, v in r.agreement.items())))
    lines = [table(rows)]
    lines += [f"  note: {n}" for n in (*r.notes, *(e.notes if e else ()))]
    return "\n".join(lines)


def _g(x: float) -> str:
    return "inf (exact zero)" if x == float("inf") else f"{x:.3g}"


def render_batch(rows, prec: Precision) -> str:
    """Summary table of a batch: one line per point, then counts per label set."""
    head = f"{'point':<28} {'shape':<10} {'labels':<28} {'rk A':>4} {'rk V':>4} {'margin':>9}  agreement"
    out = [head, "-" * len(head)]
    counts: Counter = Counter()
    for where, r, err in rows:
        name = where if len(where) <= 28 else "…" + where[-27:]
        if err:
            out.append(f"{name:<28} ERROR: {err}")
            counts["error"] += 1
            continue
        d, dp, a = r.shape
        agree = ", ".join(f"{k[:4]}:{v}" for k, v in r.agreement.items()) or "-"
        out.append(f"{name:<28} {f'({d},{dp},{a})':<10} {_labels(r):<28} "
                   f"{_s(r.ranks.get('A')):>4} {_s(r.ranks.get('V')):>4} {_g(r.margin)[:9]:>9}  {agree}")
        counts[_labels(r)] += 1
    out.append("")
    out.append(f"{len(rows)} point(s) at {prec.name}: " +
               "; ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    return "\n".join(out)


def _s(x) -> str:
    return "-" if x is None else str(x)
