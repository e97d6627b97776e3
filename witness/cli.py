"""Command line: ``python -m witness decompose|solve FILE [--seed S] [--precision d|dd|qd]
[--parameters VALUES] [--json]``, ``solve ... --certify`` and
``python -m witness certify FILE --solutions SOLS.json [--max-precision BITS] [--json]``.

FILE holds one polynomial per line or ';'-separated polynomials, after optional headers
``variables: x, y, z`` and ``parameters: p`` ('-' reads stdin; lines starting with '#' are
comments; format: ``witness.inputfile``, docs/input-format.md). Parameter values come from
``--parameters`` (a JSON object such as '{"p": "1/2"}', or a JSON file holding one, or holding
``{"parameters": {...}}``) or, for ``certify``, from the ``"parameters"`` of SOLS.json.

With ``--json`` the output is one JSON object: ``decompose``: ``components`` (a list of {"dim",
"degree", "points", ...}); ``solve``: ``solutions`` (each {"point", "real", "multiplicity",
"residual", "refinement"}), ``real``, ``rejected``, ... and with ``--certify`` ``certification``;
``certify``: counts ``certified``, ``distinct``, ``real``, ``nonreal`` and per solution its
status and box radius (``witness.certify.CertificationResult.to_json``). Points are lists of
``[re, im]`` pairs in the order of ``variables``. Exit codes: 0 ok, 2 bad input, 3 PHCpack
failure.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from . import phc
from .certify import CertificationResult, certify
from .decompose import decompose
from .inputfile import SystemFile, read_system_file
from .jsonio import parameters_from_json, points_from_json
from .solve_report import format_point, solve_report
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


def run_solve(sf: SystemFile, values: dict | None, seed: int, precision: str,
              certify_solutions: bool = False) -> dict:
    """``solve``: PHCpack's blackbox solver, then ``solve_report`` (refinement, residual check,
    real points, optional certification)."""
    t0 = time.perf_counter()
    F = sf.specialize(values)
    r = phc.solve(F, precision=precision, seed=seed)
    rep = solve_report(F, r, certify_solutions=certify_solutions,
                       parameters=_as_strings(values), seconds=time.perf_counter() - t0)
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
    for c in res.certificates:
        if not c.certified:
            lines.append(f"  #{c.index}  not certified: {c.reason}")
            continue
        kind = {True: "real", False: "non-real", None: "real?"}[c.real]
        dup = f", same zero as #{c.duplicate_of}" if c.duplicate_of is not None else ""
        lines.append(f"  #{c.index}  certified {kind:8s} box radius {c.radius:.1e}{dup}  "
                     f"({format_point(c.center)})")
    return lines


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="polynomials, one per line or ';'-separated, after optional "
                                "'variables:' / 'parameters:' headers ('-': stdin)")
    p.add_argument("--parameters", metavar="VALUES",
                   help="parameter values: a JSON object such as '{\"p\": \"1/2\"}' or a JSON "
                        "file holding one")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m witness",
                                 description="Witness sets and numerical irreducible "
                                             "decomposition of polynomial systems.")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, helptext in (("decompose", "numerical irreducible decomposition"),
                           ("solve", "isolated solutions of a square system")):
        p = sub.add_parser(name, help=helptext)
        _add_common(p)
        p.add_argument("--seed", type=int, default=1, help="seed (recorded in the output)")
        p.add_argument("--precision", choices=phc.PRECISIONS, default="d")
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
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        sf = read_system_file(args.file)
        if args.command == "certify":
            out = run_certify(sf, args.solutions, args.parameters, args.max_precision)
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
            json.dump(out, sys.stdout)
            print()
        else:
            print("\n".join(text) if text is not None else _decompose_text(out))
        sys.stdout.flush()              # a closed pipe shows here, not at exit
    except BrokenPipeError:             # e.g. `python -m witness ... | head -2`: exit quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _decompose_text(out: dict) -> str:
    lines = [f"variables: {', '.join(out['variables'])}",
             f"certified: {out['certified']}, seeds {out['seeds']}; PHCpack check runs "
             f"finished: {[r['source'] for r in out['runs'] if r.get('finished')] or 'none'}, "
             f"not finished: {[r['source'] for r in out['runs'] if not r.get('finished')] or 'none'}"]
    for c in out["components"]:
        mult = f", multiplicity {c['multiplicity']}" if c["multiplicity"] != 1 else ""
        lines.append(f"  dim {c['dim']}, degree {c['degree']}{mult}, trace residual "
                     f"{c['trace']['residual']:.1e}")
    for ck in out["checks"]:
        lines.append(f"  [{'ok' if ck['passed'] else '!!'}] {ck['name']}: {ck['detail']}")
    return "\n".join(lines)
