"""Degrees of deep fiber components by exact computation over prime fields (Singular), an
independent check of the monodromy degrees of `numag fiber`.

  python benchmarks/orbit_degree.py [--specs 2,1,2:1,1 2,2,2:1,1 ...] [--seed 0]
                                    [--primes 32003,1000003] [--timeout 3600]

For a generic W0 the fiber component through W0 is the closure Z of the orbit G°·W0 of the
identity component of the symmetry group ((S1)–(S3), numag.symmetry) whenever the fiber's
Jacobian nullity at W0 equals the orbit's dimension (what `numag fiber` proves exactly:
"fiber dimension k (exact Jacobian nullity at W0)" = orbit dimension). G° acts linearly on
the weights,

    Q_i ↦ λ_i G_i Q_i C_{i-1}^{-1},  K_i ↦ G_i^{-T} K_i C_{i-1}^{-1},  V_i ↦ C_i V_i C_{i-1}^{-1} / λ_i

(G_i ∈ GL(a_i), λ_i ∈ C*, C_i ∈ GL(d_i) for 0 < i < l, C_0 = C_l = I). A generic affine space L
of codimension k = dim Z meets Z in deg Z points, all in the open orbit (Z minus the orbit has
smaller dimension), so

    deg Z = #{g ∈ G° : g·W0 ∈ L} / #Stab(W0),    Stab(W0) = {g ∈ G° : g·W0 = W0}  (finite)

[derived]. Both sets are zero-dimensional schemes in the entries of G_i, λ_i, C_i and one more
unknown e per factor with e det = 1 (inverses e adj, so the maps are polynomial). Their
lengths are `vdim` of a Gröbner basis (`slimgb`) in Singular over F_p, with L random over F_p;
the count is the characteristic-0 count unless p or L is unlucky (the unlucky L lie on a
proper Zariski-closed set, finitely many p are bad reductions; no bound is claimed), so the
degree is reported only when two primes with independent L agree. No homotopy, no trace
test, no floating point. With ``--msolve PATH`` the count is msolve's degree of the ideal (F4;
much faster: 2,2,2 in 4 s instead of 30 s), the generators expanded by Singular. Neither is a
dependency of numag: without Singular the script says so and exits 0 (`apt-get install
singular`; msolve: https://msolve.lip6.fr, built from source, e.g. v0.6.5 with Debian's
libflint-dev 2.9).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

import numpy as np  # noqa: E402

from numag.architecture import Architecture  # noqa: E402
from numag.fibers import orbit_dimension  # noqa: E402
from numag.fibers import fiber  # noqa: E402
from numag.orbit import layer_orbit_map, orbit_map  # noqa: E402
from numag.points import sample_point  # noqa: E402

# 2,2,2,2:1,1,1 (22 unknowns before the torus form of the rank-one layers, 19 after) did not
# finish in 3600 s for one prime (slimgb, 7.7 GB, load 3-5) in the 22-unknown form
SPECS = ["2,1,1:1,1", "2,1,2:1,1", "2,2,2:1,1", "3,2,3:1,1"]
PRIMES = (32003, 1000003)


def parse_spec(spec: str) -> Architecture:
    widths, ranks = spec.split(":")
    return Architecture(tuple(int(w) for w in widths.split(",")),
                        tuple(int(a) for a in ranks.split(",")))


def _singular(poly: dict, names: tuple[str, ...]) -> str:
    """A PolynomialSystem polynomial ({exponents: Fraction}) as a Singular expression."""
    terms = []
    for e, c in poly.items():
        mono = "*".join(f"{v}^{k}" if k > 1 else v for v, k in zip(names, e) if k)
        terms.append(f"({Fraction(c)})" + (f"*{mono}" if mono else ""))
    return "+".join(terms) or "0"


def parametrization(arch: Architecture, layers, form: str):
    """(form used, f, h) of G°·W0: 'layer' (numag.orbit.layer_orbit_map: fewer unknowns, lower
    degrees; rank-one chains with square inner V_i), 'group' (numag.orbit.orbit_map), 'auto':
    layer where it applies."""
    if form == "auto":
        try:
            return ("layer", *layer_orbit_map(arch, layers)[:2])
        except ValueError:
            form = "group"
    return (form, *(layer_orbit_map if form == "layer" else orbit_map)(arch, layers)[:2])


def singular_script(arch: Architecture, layers, k: int, p: int, rng, target: str,
                    f, h) -> tuple[str, list[str]]:
    """(Singular lines defining the ideal I of {g : g·W0 ∈ L} (target 'slice', L random over
    F_p) or of Stab(W0) (target 'stabilizer'), the unknowns). f, h: the orbit map and the
    equations of its domain (``parametrization``: numag.orbit's constructions, one for both
    routes; their φ-invariance is tested in tests/test_orbit.py)."""
    names = tuple(h.variables)
    coords = [_singular(c, names) for c in f.coordinates.polynomials]
    ideal = [_singular(e, names) for e in h.polynomials]
    if target == "stabilizer":
        base = arch.pack(layers)
        ideal += [f"{e}-({Fraction(v)})" for e, v in zip(coords, base)]
    else:
        for _ in range(k):
            coef = rng.integers(1, p, len(coords))
            ideal.append("+".join(f"{int(c)}*({e})" for c, e in zip(coef, coords))
                         + f"-{int(rng.integers(1, p))}")
    lines = [f"ring R = {p}, ({', '.join(names)}), dp;", "option(redSB);",
             f"ideal I = {', '.join(ideal)};"]
    return "\n".join(lines) + "\n", list(names)


def run_singular(script: str, timeout: float) -> tuple[int, int]:
    """(dim, vdim) of the ideal by a Gröbner basis in Singular."""
    script += "ideal J = slimgb(I);\nprint(string(dim(J)) + \" \" + string(vdim(J)));\nquit;\n"
    out = subprocess.run(["Singular", "-q", "--no-warn"], input=script, text=True,
                         capture_output=True, timeout=timeout, check=True).stdout.split()
    return int(out[-2]), int(out[-1])


def run_msolve(script: str, names: list[str], p: int, msolve: str, timeout: float
               ) -> tuple[int, int]:
    """(0, degree) of a zero-dimensional ideal by msolve (F4, multi-threaded), the generators
    expanded by Singular; (dim > 0 or -1, 0) otherwise."""
    script += ('int i; for (i = 1; i <= size(I); i++) { print(string(I[i])); }\nquit;\n')
    polys = [line.strip() for line in subprocess.run(
        ["Singular", "-q", "--no-warn"], input=script, text=True, capture_output=True,
        timeout=timeout, check=True).stdout.splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.ms"), os.path.join(tmp, "out.ms")
        with open(src, "w") as fh:
            fh.write(",".join(names) + f"\n{p}\n" + ",\n".join(polys) + "\n")
        subprocess.run([msolve, "-f", src, "-o", dst, "-t", str(os.cpu_count() or 1)],
                       capture_output=True, timeout=timeout, check=True)
        numbers = re.findall(r"-?\d+", open(dst).read()[:200])
    if numbers[0] != "0":                # [1, ...]: positive-dimensional; [-1]: empty
        return int(numbers[0]), 0
    return 0, int(numbers[3])           # [0, [p, nvars, deg, ...]]


def degree(spec: str, seed: int, primes, timeout: float, msolve: str | None = None,
           form: str = "auto") -> dict:
    """deg Z for one architecture (module docstring), with Singular's or msolve's counts."""
    arch = parse_spec(spec)
    layers = sample_point(arch, "generic", seed)
    k = orbit_dimension(arch, layers)
    rng = np.random.default_rng(seed)
    used, f, h = parametrization(arch, layers, form)
    t0 = time.perf_counter()
    counts = []

    def count(p: int, target: str) -> tuple[int, int]:
        script, names = singular_script(arch, layers, k, p, rng, target, f, h)
        return (run_singular(script, timeout) if msolve is None else
                run_msolve(script, names, p, msolve, timeout))
    for p in primes:
        d_s, stab = count(p, "stabilizer")
        d_l, pts = count(p, "slice")
        if d_s != 0 or d_l != 0:
            raise RuntimeError(f"{spec} mod {p}: not zero-dimensional (dims {d_s}, {d_l})")
        counts.append((p, stab, pts))
    agree = len({(s, c) for _, s, c in counts}) == 1 and counts[0][2] % counts[0][1] == 0
    return {"spec": spec, "seed": seed, "dim": k, "counts": counts,
            "degree": counts[0][2] // counts[0][1] if agree else None,
            "seconds": time.perf_counter() - t0,
            "form": f"{used} coordinates, {len(h.variables)} unknowns"}


def compare_fiber(spec: str, seed: int, exact: int | None, timeout: float) -> str:
    """`numag fiber` on the same W0: its component 'orbit of W0' (degree, certified) against the
    exact deg Z, with numag fiber's own check of its witness points against G°·W0
    (trace_test['orbit_check'], numag.fibers._orbit_check; layer coordinates only). A certified
    degree other than the exact count is reported as a DISAGREEMENT."""
    arch = parse_spec(spec)
    layers = sample_point(arch, "generic", seed)
    t0 = time.perf_counter()
    fd = fiber(arch, layers, seed=seed, timeout=timeout, progress=False, complete_check=0)
    comps = [c for c in fd.components if c.label == "orbit of W0"]
    if not comps:
        return f"    fiber: no component 'orbit of W0' ({fd.verdict})"
    c = comps[0]
    line = (f"    fiber (numag fiber, seed {seed}, {time.perf_counter() - t0:.1f} s): 'orbit of W0' "
            f"degree {c.degree}, certified {c.certified}")
    check = c.trace_test.get("orbit_check")
    if check is not None:
        fmt = lambda v: "-" if v is None else f"{v:.1e}"  # noqa: E731
        line += (f"; {check['on_orbit']} of its {check['points']} witness points on G°·W0 "
                 f"(residual <= {fmt(check['max_on'])}, others >= {fmt(check['min_off'])})")
    if exact is not None and c.certified:
        line += ("; agrees with the exact count" if c.degree == exact else
                 f"; DISAGREES with the exact count {exact}")
    return line


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--specs", nargs="+", default=SPECS)
    ap.add_argument("--seed", type=int, default=0, help="seed of W0 (numag.points.sample_point)")
    ap.add_argument("--primes", default=",".join(map(str, PRIMES)))
    ap.add_argument("--timeout", type=float, default=3600, help="per Singular run, s")
    ap.add_argument("--msolve", help="path of an msolve binary (https://msolve.lip6.fr, built "
                                     "from source): its F4 instead of Singular's slimgb")
    ap.add_argument("--form", choices=("auto", "layer", "group"), default="auto",
                    help="coordinates of G°·W0: layer (rank-one chains with square inner V_i, "
                         "numag.orbit.layer_orbit_map), group (numag.orbit.orbit_map), auto: "
                         "layer where it applies")
    ap.add_argument("--fiber", type=float, metavar="SECONDS",
                    help="also run numag fiber on W0 with this budget and compare (module "
                         "compare_fiber)")
    args = ap.parse_args()
    if shutil.which("Singular") is None:
        print("Singular not installed (apt-get install singular): nothing measured")
        return 0
    primes = [int(p) for p in args.primes.split(",")]
    how = "Singular vdim (slimgb)" if args.msolve is None else "msolve degree (F4)"
    print(f"deg of the orbit closure through W0 = sample_point(generic, seed {args.seed}), "
          f"{how} over F_p, p in {primes}")
    for spec in args.specs:
        try:
            r = degree(spec, args.seed, primes, args.timeout, args.msolve, args.form)
        except subprocess.TimeoutExpired:
            print(f"  {spec}: Singular did not finish in {args.timeout:g} s", flush=True)
            continue
        counts = "; ".join(f"mod {p}: #Stab {s}, #(orbit ∩ L) {c}" for p, s, c in r["counts"])
        deg = r["degree"] if r["degree"] is not None else "undecided (primes disagree)"
        print(f"  {spec}: dim {r['dim']}, degree {deg}  ({counts}; {r['seconds']:.1f} s; {r['form']})",
              flush=True)
        if args.fiber:
            print(compare_fiber(spec, args.seed, r["degree"], args.fiber), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
