"""Command line: ``python -m witness decompose|solve FILE [--seed S] [--precision d|dd|qd]
[--json]`` and ``python -m witness image FILE [--seed S] [--json]`` (witness.image).

FILE holds one polynomial per line or ';'-separated polynomials ('-' reads stdin; lines starting
with '#' are comments). With ``--json`` the output is one JSON object with the key
``components`` (a list of {"dim", "degree", "points", ...}) and, for ``solve``, ``solutions``.
Exit codes: 0 ok, 2 bad input, 3 PHCpack failure.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

from . import image, phc
from .decompose import decompose
from .system import PolynomialSyntaxError, PolynomialSystem
from .tracking import RESIDUAL_TOL


def read_system(path: str) -> PolynomialSystem:
    """Parse FILE (or stdin for '-') into a PolynomialSystem."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    polys = [p.strip() for ln in lines for p in ln.split(";") if p.strip()]
    if not polys:
        raise ValueError(f"{path}: no polynomials found")
    return PolynomialSystem.from_strings(polys)


def _pts(X) -> list:
    return [[[float(z.real), float(z.imag)] for z in x] for x in np.atleast_2d(X)]


def run_solve(F: PolynomialSystem, seed: int, precision: str) -> dict:
    """Isolated solutions by PHCpack's blackbox solver, each checked on F (backward error <
    RESIDUAL_TOL); rejected ones are counted, not returned."""
    r = phc.solve(F, precision=precision, seed=seed)
    ok = r.residuals < RESIDUAL_TOL
    sols = [{"point": _pts(x)[0], "multiplicity": int(m), "residual": float(res)}
            for x, m, res in zip(r.points[ok], r.multiplicities[ok], r.residuals[ok])]
    comps = [{"dim": 0, "degree": 1, "multiplicity": s["multiplicity"], "points": [s["point"]]}
             for s in sols]
    return {"variables": list(F.variables), "solutions": sols, "components": comps,
            "rejected": int((~ok).sum()), "residual_tol": RESIDUAL_TOL, "seed": r.seed,
            "precision": precision, "seconds": r.seconds}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m witness",
                                 description="Witness sets and numerical irreducible "
                                             "decomposition of polynomial systems.")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, helptext in (("decompose", "numerical irreducible decomposition"),
                           ("solve", "isolated solutions of a square system")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("file", help="one polynomial per line or ';'-separated ('-': stdin)")
        p.add_argument("--seed", type=int, default=1, help="seed (recorded in the output)")
        p.add_argument("--precision", choices=phc.PRECISIONS, default="d")
        p.add_argument("--json", action="store_true", help="print one JSON object")
    image.add_parser(sub)
    args = ap.parse_args(argv)
    try:
        if args.command == "image":
            r = image.run_cli(args)
            out = {"_text": image.render(r), **r.to_json(points=args.points)}
        elif args.command == "solve":
            out = run_solve(read_system(args.file), args.seed, args.precision)
        else:
            out = decompose(read_system(args.file), seed=args.seed,
                            precision=args.precision).to_json()
    except (PolynomialSyntaxError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except phc.PHCError as err:
        print(f"PHCpack failure: {err}", file=sys.stderr)
        return 3
    try:
        if args.json:
            json.dump({k: v for k, v in out.items() if k != "_text"}, sys.stdout)
            print()
        elif args.command == "image":
            print(out["_text"])
        else:
            _print_text(args.command, out)
        sys.stdout.flush()              # a closed pipe shows here, not at exit
    except BrokenPipeError:             # e.g. `python -m witness ... | head -2`: exit quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _print_text(command: str, out: dict) -> None:
    print(f"variables: {', '.join(out['variables'])}")
    if command == "solve":
        print(f"{len(out['solutions'])} solutions ({out['rejected']} rejected by the residual "
              f"check), seed {out['seed']}")
        for s in out["solutions"]:
            coords = ", ".join(f"{complex(*z):.6g}" for z in s["point"])
            print(f"  m={s['multiplicity']}  ({coords})  residual {s['residual']:.1e}")
        return
    print(f"certified: {out['certified']}, seeds {out['seeds']}")
    for c in out["components"]:
        mult = f", multiplicity {c['multiplicity']}" if c["multiplicity"] != 1 else ""
        print(f"  dim {c['dim']}, degree {c['degree']}{mult}, trace residual "
              f"{c['trace']['residual']:.1e}")
    for ck in out["checks"]:
        print(f"  [{'ok' if ck['passed'] else '!!'}] {ck['name']}: {ck['detail']}")
