"""The ``monodromy`` and ``track`` commands of ``python -m witness`` (parameter families).

START.json / TARGET.json: ``{"parameters": {"p": "0"}, "solutions": [{"x": "2"}]}`` (TARGET
needs only ``"parameters"``); numbers as JSON numbers, exact strings or ``[re, im]``; points
as objects by variable name or lists in the order of ``variables``
(``witness.jsonio.points_from_json``). Parameter values enter the homotopies as complex128;
``--certify`` certifies on the system specialized at the values as given (exact strings stay
exact: ``SystemFile.specialize``).
"""
from __future__ import annotations

import numpy as np

from .certify import CertificationResult, certify
from .inputfile import SystemFile
from .jsonio import parameters_from_json, points_from_json
from .monodromy_solve import MonodromySolveResult, monodromy_solve, with_certification
from .parameters import Family, ParameterTrackResult, track_parameters
from .solve_report import format_point


def read_start(sf: SystemFile, obj, source: str, need_solutions: bool = True
               ) -> tuple[dict, np.ndarray, np.ndarray | None]:
    """(parameter values as read, their complex vector (q,), the points (k, n) or None) from a
    START / TARGET object. Raises ValueError naming the file and the entry at fault."""
    if not isinstance(obj, dict) or "parameters" not in obj:
        raise ValueError(f"{source}: expected a JSON object with key \"parameters\"")
    values = parameters_from_json(obj["parameters"], sf.parameters, f"{source}: parameters")
    p = np.array([complex(values[k]) for k in sf.parameters])
    if not need_solutions:
        return values, p, None
    if "solutions" not in obj:
        raise ValueError(f"{source}: expected key \"solutions\" (a list of start solutions)")
    X = points_from_json(obj["solutions"], sf.variables, f"{source}: solutions",
                         order=obj.get("variables"))
    if not len(X):
        raise ValueError(f"{source}: \"solutions\" is empty; give at least one start solution")
    return values, p, X


def _certification(sf: SystemFile, values: dict, X: np.ndarray) -> CertificationResult:
    return certify(sf.specialize(values), X)


def run_monodromy(sf: SystemFile, start: dict, source: str, seed: int | None,
                  certify_solutions: bool = False, stall_loops: int | None = None,
                  timeout: float | None = None) -> dict:
    """``monodromy``: ``witness.monodromy_solve.monodromy_solve`` from the start solutions."""
    family = Family.from_file(sf)
    values, p0, X0 = read_start(sf, start, source)
    kw = {} if stall_loops is None else {"stall_loops": stall_loops}
    r = monodromy_solve(family, p0, X0, seed=seed, timeout=timeout, **kw)
    if certify_solutions and len(r.solutions):
        r = with_certification(r, _certification(sf, values, r.solutions))
    out = r.to_json()
    out["parameters"] = {k: str(v) for k, v in values.items()}
    return out | {"_text": _monodromy_text(r)}


def _monodromy_text(r: MonodromySolveResult) -> list[str]:
    # monodromy never leaves the irreducible components of the solution variety through the
    # start solutions (docs/monodromy-solve.md §3): "complete" is about those only
    done = {True: "complete on the components through the start solutions",
            None: "completeness not decided", False: "incomplete"}
    lines = [f"variables: {', '.join(r.variables)}",
             f"{len(r.solutions)} solutions ({done[r.complete]}: {r.stop_reason}); trace "
             f"residual {r.trace_residual:.1e}; {r.loops} loops, {r.paths_tracked} paths, "
             f"seed {r.seed}, {r.seconds:.2f} s",
             f"last track to the given parameters: {r.accounting.summary()}"]
    lines += [f"  {format_point(x)}" + (f"  (multiplicity {m})" if m != 1 else "")
              for x, m in zip(r.solutions, r.multiplicities)]
    if r.certification is not None:
        lines.append(r.certification.summary())
    return lines


def run_track(sf: SystemFile, start: dict, start_source: str, target: dict,
              target_source: str, seed: int, certify_solutions: bool = False) -> dict:
    """``track``: ``witness.parameters.track_parameters`` from START to TARGET."""
    family = Family.from_file(sf)
    _, p0, X0 = read_start(sf, start, start_source)
    values, p1, _ = read_start(sf, target, target_source, need_solutions=False)
    r = track_parameters(family, X0, p0, p1, seed=seed)
    out = r.to_json()
    cert = None
    if certify_solutions and len(r.solutions):
        cert = _certification(sf, values, r.solutions)
        out["certification"] = cert.to_json()
    out["parameters"] = {k: str(v) for k, v in values.items()}
    return out | {"_text": _track_text(r, cert)}


def _track_text(r: ParameterTrackResult, cert: CertificationResult | None) -> list[str]:
    lines = [f"variables: {', '.join(r.variables)}", r.accounting.summary()
             + f"; seed {r.seed}, {r.seconds:.2f} s"]
    lines += [f"  {format_point(x)}" + (f"  ({m} paths: a root of multiplicity {m} or a "
                                         f"cluster of close roots, not examined; `solve` "
                                         f"decides)" if m != 1 else "")
              for x, m in zip(r.solutions, r.multiplicities)]
    if cert is not None:
        lines.append(cert.summary())
    return lines
