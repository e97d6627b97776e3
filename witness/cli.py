"""Command line: ``python -m witness decompose|solve FILE [--seed S] [--precision d|dd|qd]
[--parameters VALUES] [--json]``, ``solve ... --certify`` and
``python -m witness certify FILE --solutions SOLS.json [--max-precision BITS] [--json]``,
``python -m witness monodromy FILE --start START.json [--seed S] [--json] [--certify]`` and
``python -m witness track FILE --start START.json --target TARGET.json [--json] [--certify]``
(parameter families: ``witness.parameter_cli``).
``python -m witness image FILE [--seed S] [--timeout SECONDS] [--json]``: dimension, fiber
dimension and degree of the image of a polynomial map (``witness.image``).

FILE holds one polynomial per line or ';'-separated polynomials, after optional headers
``variables: x, y, z`` and ``parameters: p`` ('-' reads stdin; lines starting with '#' are
comments; format: ``witness.inputfile``, docs/input-format.md). Parameter values come from
``--parameters`` (a JSON object such as '{"p": "1/2"}', or a JSON file holding one, or holding
``{"parameters": {...}}``) or, for ``certify``, from the ``"parameters"`` of SOLS.json.

With ``--json`` the output is one JSON object: ``decompose``: ``components`` (a list of {"dim",
"degree", "points", ...}); ``solve``: ``complete``, ``paths`` (number of start paths, start
system, counts per end state, failure reasons), ``solutions`` (each {"point", "real",
"multiplicity" (= paths), "status", "paths", "residual", "refinement"}),
``positive_dimensional``, ``undecided``, ``check`` (PHCpack's blackbox in ``--precision``
compared with ours; ``witness.solve_report``), ``real``, ``rejected``, ... and with
``--certify`` ``certification``;
``certify``: counts ``certified``, ``distinct``, ``real``, ``nonreal`` and per solution its
status and box radius (``witness.certify.CertificationResult.to_json``); ``monodromy``:
``solutions``, ``complete`` (true / null), ``trace_residual``, ``loops``, ``paths_tracked``,
``seed``, ``seconds``, ... (``witness.monodromy_solve.MonodromySolveResult.to_json``);
``track``: ``solutions``, ``multiplicities``, ``paths`` (regular / singular / at infinity /
failed) (``witness.parameters.ParameterTrackResult.to_json``). Points are lists of
``[re, im]`` pairs in the order of ``variables``. Exit codes: 0 ok, 2 bad input, 3 PHCpack
failure (``decompose``; ``solve`` reports a PHCpack failure as its check "not run").
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from . import image, phc
from .certify import CertificationResult, certify
from .decompose import decompose
from .inputfile import SystemFile, read_system_file
from .jsonio import parameters_from_json, points_from_json
from .parameter_cli import run_monodromy, run_track
from .solve import solve_paths
from .solve_report import display_digits, format_point, phc_check_deadline, solve_report
from .system import PolynomialSyntaxError


def _load_json(path: str, what: str):
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON for {what} ({exc.msg} at line {exc.lineno} "
                         f"column {exc.colno})") from None


def parameter_values(sf: SystemFile, option: str | None, fallback=None) -> dict | None:
    """Values of the file's parameters from ``--parameters`` (inline JSON object or a JSON
    file) or ``fallback`` (a ``"parameters"`` object from another input); None when the file
    has no parameters. Raises ValueError naming what is missing or wrong."""
    if option is not None:
        if option.lstrip().startswith("{"):
            try:
                obj = json.loads(option)
            except json.JSONDecodeError as exc:
                raise ValueError(f"--parameters: not a valid JSON object ({exc.msg} at "
                                 f"character {exc.pos})") from None
        else:
            obj = _load_json(option, "--parameters")
        if isinstance(obj, dict) and isinstance(obj.get("parameters"), dict):
            obj = obj["parameters"]
        where = "--parameters"
    else:
        obj, where = fallback, "parameters"
    if not sf.parameters:
        if obj:
            raise ValueError(f"{sf.source} declares no parameters, but {where} gives values")
        return None
    if obj is None:
        raise ValueError(f"{sf.source} declares parameters {', '.join(sf.parameters)}: give "
                         f"their values with --parameters '{{\"{sf.parameters[0]}\": ...}}'")
    return parameters_from_json(obj, sf.parameters, where)


def _as_strings(values: dict | None) -> dict | None:
    return None if values is None else {k: str(v) for k, v in values.items()}


def _phc_seed(seed: int) -> int:
    """PHCpack's seed for our ``seed``: itself when in PHCpack's range [1, 2^31) (seed 0 makes
    its deflation do nothing), else one drawn from it (recorded in the check's JSON)."""
    if 1 <= seed < 2 ** 31:
        return seed
    return int(np.random.default_rng(seed).integers(1, 2 ** 31 - 1))


def run_solve(sf: SystemFile, values: dict | None, seed: int, precision: str,
              certify_solutions: bool = False) -> dict:
    """``solve``: our total-degree solve with every path accounted (``witness.solve.
    solve_paths``), PHCpack's blackbox in ``precision`` as the independent check, then
    ``solve_report`` (refinement, residual check, comparison, real points, optional
    certification). A PHCpack failure makes the check "not run", not the command fail."""
    t0 = time.perf_counter()
    F = sf.specialize(values)
    paths = solve_paths(F, seed=seed)
    r, err = None, ""
    try:
        r = phc.solve(F, precision=precision, seed=_phc_seed(seed),
                      timeout=phc_check_deadline(time.perf_counter() - t0))
    except phc.PHCError as exc:
        err = f"{type(exc).__name__}: {exc}"
    rep = solve_report(F, paths, r, phc_error=err, precision=precision,
                       certify_solutions=certify_solutions, parameters=_as_strings(values),
                       seconds=time.perf_counter() - t0)
    return rep.to_json() | {"_text": rep.text()}


def run_certify(sf: SystemFile, sols_path: str, option: str | None,
                max_precision: int) -> dict:
    """``certify``: read SOLS.json (``solve --json`` output, or {"solutions": [...]} with
    points as lists or as objects by variable name, and "parameters" when the file has them)."""
    obj = _load_json(sols_path, "--solutions")
    if not isinstance(obj, dict) or "solutions" not in obj:
        raise ValueError(f"{sols_path}: expected a JSON object with key \"solutions\"")
    values = parameter_values(sf, option, obj.get("parameters"))
    F = sf.specialize(values)
    X = points_from_json(obj["solutions"], sf.variables, f"{sols_path}: solutions",
                         order=obj.get("variables"))
    res = certify(F, X, max_precision=max_precision)
    out = res.to_json()
    if values is not None:
        out["parameters"] = _as_strings(values)
    return out | {"_text": _certify_text(res)}


def _certify_text(res: CertificationResult) -> list[str]:
    lines = [f"variables: {', '.join(res.variables)}", res.summary()]
    shown = [c for c in res.certificates if c.certified]
    digits = display_digits([c.center for c in shown], [c.real for c in shown])
    for c in res.certificates:
        if not c.certified:
            lines.append(f"  #{c.index}  not certified: {c.reason}")
            continue
        kind = {True: "real", False: "non-real", None: "real?"}[c.real]
        dup = f", same zero as #{c.duplicate_of}" if c.duplicate_of is not None else ""
        lines.append(f"  #{c.index}  certified {kind:8s} box radius {c.radius:.1e}{dup}  "
                     f"({format_point(c.center, digits=digits, real=c.real)})")
    return lines


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="polynomials, one per line or ';'-separated, after optional "
                                "'variables:' / 'parameters:' headers ('-': stdin)")
    p.add_argument("--parameters", metavar="VALUES",
                   help="parameter values: a JSON object such as '{\"p\": \"1/2\"}' or a JSON "
                        "file holding one")
    p.add_argument("--json", action="store_true", help="print one JSON object")


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse with a one-line error (exit 2) instead of the usage block before it."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _parser() -> argparse.ArgumentParser:
    ap = OneLineErrorParser(prog="python -m witness",
                                 description="Witness sets and numerical irreducible "
                                             "decomposition of polynomial systems.")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, helptext in (("decompose", "numerical irreducible decomposition"),
                           ("solve", "isolated solutions of a square system")):
        p = sub.add_parser(name, help=helptext)
        _add_common(p)
        p.add_argument("--seed", type=int, default=1,
                       help="seed (default 1; recorded in the output)")
        p.add_argument("--precision", choices=phc.PRECISIONS, default="d",
                       help="PHCpack's precision: double, double-double, quad-double "
                            "(default d)")
        if name == "solve":
            p.add_argument("--certify", action="store_true",
                           help="prove the solutions with the Krawczyk test (witness.certify)")
    p = sub.add_parser("certify", help="prove approximate solutions (Krawczyk test in ball "
                                       "arithmetic): certified, distinct, real")
    _add_common(p)
    p.add_argument("--solutions", required=True, metavar="SOLS.json",
                   help="`solve --json` output, or {\"solutions\": [...]} (points as lists of "
                        "numbers / [re, im], or objects by variable name)")
    p.add_argument("--max-precision", type=int, default=256, metavar="BITS",
                   help="highest precision tried for hard candidates (>= 53, default 256)")
    p = sub.add_parser("monodromy", help="all solutions of a parametrized system from one "
                                         "(or more) start solutions, by monodromy loops")
    _add_family(p)
    p.add_argument("--seed", type=int, default=None,
                   help="seed (default: drawn; recorded in the output)")
    p.add_argument("--stall-loops", type=int, default=None, metavar="K",
                   help="stopping rule: stop after K rounds in a row without a new solution "
                        "(default 40)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS")
    p = sub.add_parser("track", help="parameter homotopy of start solutions to target "
                                     "parameters, with endgame and path accounting")
    _add_family(p)
    p.add_argument("--target", required=True, metavar="TARGET.json",
                   help='{"parameters": {...}}: the target parameter values')
    p.add_argument("--seed", type=int, default=1,
                   help="seed (default 1; recorded in the output)")
    _add_common(image.add_parser(sub))
    return ap


def _add_family(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="polynomials with a 'parameters:' header ('-': stdin)")
    p.add_argument("--start", required=True, metavar="START.json",
                   help='{"parameters": {"p": "0"}, "solutions": [{"x": "2"}]}')
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--certify", action="store_true",
                   help="prove the solutions with the Krawczyk test (witness.certify)")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        sf = read_system_file(args.file)
        if args.command == "image":
            r = image.run_cli(args, sf.specialize(parameter_values(sf, args.parameters)))
            out = {"_text": image.render(r).splitlines(), **r.to_json(points=args.points)}
        elif args.command == "certify":
            out = run_certify(sf, args.solutions, args.parameters, args.max_precision)
        elif args.command == "monodromy":
            out = run_monodromy(sf, _load_json(args.start, "--start"), args.start, args.seed,
                                args.certify, args.stall_loops, args.timeout)
        elif args.command == "track":
            out = run_track(sf, _load_json(args.start, "--start"), args.start,
                            _load_json(args.target, "--target"), args.target, args.seed,
                            args.certify)
        else:
            values = parameter_values(sf, args.parameters)
            if args.command == "solve":
                out = run_solve(sf, values, args.seed, args.precision, args.certify)
            else:
                out = decompose(sf.specialize(values), seed=args.seed,
                                precision=args.precision).to_json()
                if values is not None:
                    out["parameters"] = _as_strings(values)
    except PolynomialSyntaxError as err:
        print(f"error: {err.one_line()}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except phc.PHCError as err:
        print(f"PHCpack failure: {err}", file=sys.stderr)
        return 3
    text = out.pop("_text", None)
    try:
        if args.json:
            json.dump({k: v for k, v in out.items() if k != "_text"}, sys.stdout)
            print()
        else:
            print("\n".join(text) if text is not None else _decompose_text(out))
        sys.stdout.flush()              # a closed pipe shows here, not at exit
    except BrokenPipeError:             # e.g. `python -m witness ... | head -2`: exit quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _decompose_text(out: dict) -> str:
    failed = [ck["name"] for ck in out["checks"] if ck["passed"] is False]
    # certified speaks for our own checks; a failed independent check is said next to it
    caveat = (f" (our checks passed; {', '.join(failed)} FAILED: see below)"
              if out["certified"] and failed else "")
    lines = [f"variables: {', '.join(out['variables'])}",
             f"certified: {out['certified']}{caveat}, seeds {out['seeds']}; PHCpack check runs "
             f"finished: {[r['source'] for r in out['runs'] if r.get('finished')] or 'none'}, "
             f"not finished: {[r['source'] for r in out['runs'] if not r.get('finished')] or 'none'}"]
    for c in out["components"]:
        mult = f", multiplicity {c['multiplicity']}" if c["multiplicity"] != 1 else ""
        if c.get("path_multiplicity", c["multiplicity"]) != c["multiplicity"]:
            mult += (f" ({c['path_multiplicity']} paths per witness point of the randomized "
                     f"system)")
        lines.append(f"  dim {c['dim']}, degree {c['degree']}{mult}, trace residual "
                     f"{c['trace']['residual']:.1e}")
    for ck in out["checks"]:
        mark = {True: "ok", False: "!!", None: "--"}[ck["passed"]]    # --: not checked
        lines.append(f"  [{mark}] {ck['name']}: {ck['detail']}")
    return "\n".join(lines)
