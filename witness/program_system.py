"""Systems given by a straight-line program instead of expanded polynomials.

``ProgramSystem(program, check=None)``: m equations in n variables computed by a ``Program``
(no constants per path), usable wherever the engine takes a system: witness sets, monodromy,
membership and trace tests, tracking. Why: expanding a composition (a network's forward pass,
degree 3 per layer) multiplies the number of terms and the rounding error of an evaluation;
the program is evaluated as written (``witness.kernels``).

``check``: the system on which points are judged (``residual``), e.g. the exact expanded
coefficient equations of a fiber when the program evaluates the network at a few sample
inputs whose equations cut out the same set only near the component being tracked (their
Jacobian rank there is what the caller verifies). Default: the program itself.

Backward error of a program (``residual``): |f_i(x)| divided by the value at max(1, |x_j|) of
the *absolute program* (every constant replaced by its modulus, every subtraction by an
addition), the bound on |f_i| that the program's own arithmetic implies. For an expanded
polynomial it is the componentwise measure of ``PolynomialSystem.residual``.
"""
from __future__ import annotations

import math
from typing import Sequence

import mpmath
import numpy as np

from .program import (ADD, CONST, MUL, SCALE, SUB, Program, ProgramBuilder, emit_program)


class ProgramSystem:
    """A system of ``program.n_outputs`` equations in ``program.n_vars`` variables.

    Attributes
    ----------
    program : Program (no constants per path)
    variables : tuple of str
    check : system used by ``residual`` (PolynomialSystem or ProgramSystem) or None
    original, randomization : set by ``randomize`` (the system combined from and the (k, m)
        complex matrix R with self = R original), as for PolynomialSystem.
    """

    def __init__(self, program: Program, variables: Sequence[str] | None = None, check=None,
                 original: "ProgramSystem | None" = None,
                 randomization: np.ndarray | None = None):
        if program.n_consts:
            raise ValueError("a system program takes no constants per path")
        self.program = program
        self.variables = tuple(variables or program.variables or
                               (f"x{i}" for i in range(program.n_vars)))
        if len(self.variables) != program.n_vars:
            raise ValueError(f"{len(self.variables)} names for {program.n_vars} variables")
        if check is not None and check.n_vars != program.n_vars:
            raise ValueError("the check system must have the same variables")
        self.check, self.original, self.randomization = check, original, randomization
        self._abs: Program | None = None

    # -- shape
    @property
    def n_vars(self) -> int:
        return self.program.n_vars

    @property
    def n_equations(self) -> int:
        return self.program.n_outputs

    @property
    def degrees(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.program.output_degrees)

    def __repr__(self) -> str:
        return (f"ProgramSystem({self.n_equations} equations in {self.n_vars} variables, "
                f"{len(self.program.code)} instructions, degrees {sorted(set(self.degrees))}"
                f"{', checked on ' + type(self.check).__name__ if self.check is not None else ''})")

    # -- numerics
    def _points(self, X):
        X = np.asarray(X, complex)
        single = X.ndim == 1
        X = np.atleast_2d(X)
        if X.shape[1] != self.n_vars or not np.all(np.isfinite(X)):
            raise ValueError(f"points must be finite with shape (p, {self.n_vars}) or "
                             f"({self.n_vars},); got {np.shape(X)}")
        return X, single

    def evaluate(self, X) -> np.ndarray:
        """Values: X (p, n) or (n,) -> complex128 (p, m) or (m,)."""
        X, single = self._points(X)
        f = self.program.evaluate(X)
        return f[0] if single else f

    def jacobian(self, X) -> np.ndarray:
        """Jacobians: X (p, n) or (n,) -> complex128 (p, m, n) or (m, n)."""
        X, single = self._points(X)
        _, J, _ = self.program.evaluate(X, jacobian=True)
        return J[0] if single else J

    def residual(self, X) -> np.ndarray:
        """Backward error per point (module docstring), on ``check`` when given: (p,) float (or
        a scalar for (n,))."""
        if self.check is not None:
            return self.check.residual(X)
        X, single = self._points(X)
        num = np.abs(self.program.evaluate(X))
        den = np.abs(self.absolute_program().evaluate(np.maximum(np.abs(X), 1.0)))
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(num == 0, 0.0, num / np.where(den == 0, 1.0, den))
        out = r.max(axis=1)
        return out[0] if single else out

    def absolute_program(self) -> Program:
        """The program with |constants| and additions only (module docstring)."""
        if self._abs is None:
            P = self.program
            code = P.code.copy()
            code[code[:, 0] == SUB, 0] = ADD
            self._abs = Program(P.n_vars, P.n_consts, code, np.abs(P.consts).astype(complex),
                                P.outputs, P.lo, P.hi, P.degrees, P.variables, P.info)
        return self._abs

    def coefficient_norms(self) -> np.ndarray:
        """A scale per equation (m,): the absolute program at x = (1, ..., 1), i.e. the sum of
        the moduli of the coefficients for an expanded polynomial (row equilibration)."""
        return np.abs(self.absolute_program().evaluate(np.ones(self.n_vars)))

    def randomize(self, k: int, rng=None, row_scale=None) -> "ProgramSystem":
        """k random complex combinations R diag(row_scale) F (as ``PolynomialSystem.randomize``);
        the result is checked on the same ``check`` (or on self)."""
        if not 1 <= k <= self.n_equations:
            raise ValueError(f"k must be in 1..{self.n_equations}, got {k}")
        rng = np.random.default_rng(rng)
        m = self.n_equations
        R = (rng.standard_normal((k, m)) + 1j * rng.standard_normal((k, m))) / math.sqrt(2)
        if row_scale is not None:
            w = np.asarray(row_scale, float)
            if w.shape != (m,) or not np.all(np.isfinite(w) & (w > 0)):
                raise ValueError(f"row_scale must be {m} positive finite numbers")
            R = R * w[None, :]
        base = self.original if self.original is not None else self
        b = ProgramBuilder(self.n_vars, 0, self.variables)
        outs = emit_program(b, self.program, b.variables())
        prog = b.build([b.linear_combination(row, outs) for row in R],
                       {**self.program.info, "randomized": k})
        Rtot = R if self.randomization is None else R @ self.randomization
        return ProgramSystem(prog, self.variables, self.check if self.check is not None
                             else base, base, Rtot)

    # -- mpmath (refinement)
    def evaluate_mp(self, x: Sequence, dps: int = 50) -> list:
        """Values at one point in mpmath with ``dps`` digits (the program interpreted)."""
        with mpmath.workdps(dps):
            return [v for v, _ in _interpret(self.program, [mpmath.mpc(v) for v in x], False)]

    def jacobian_mp(self, x: Sequence, dps: int = 50) -> "mpmath.matrix":
        """Jacobian at one point in mpmath (forward mode, the program interpreted)."""
        with mpmath.workdps(dps):
            rows = _interpret(self.program, [mpmath.mpc(v) for v in x], True)
            J = mpmath.matrix(self.n_equations, self.n_vars)
            for i, (_, g) in enumerate(rows):
                for j in range(self.n_vars):
                    J[i, j] = g[j]
            return J

    def to_phc_strings(self, *args, **kwargs):
        raise ValueError("a program system has no expanded form for PHCpack; use its check "
                         "system or an expanded PolynomialSystem")


def _interpret(P: Program, x: list, jac: bool) -> list:
    """Values (and gradients) of a program's outputs with Python scalars (mpmath): a list of
    (value, gradient list or None)."""
    n = P.n_vars
    if len(x) != n:
        raise ValueError(f"point has {len(x)} coordinates, expected {n}")
    zero = x[0] * 0
    val = list(x) + [zero]
    grad = [[zero] * n for _ in range(n + 1)] if jac else None
    if jac:
        for j in range(n):
            grad[j][j] = zero + 1
    for op, a, b in P.code:
        if op == CONST:
            v, g = zero + mpmath.mpc(P.consts[a]), [zero] * n if jac else None
        elif op in (ADD, SUB):
            sg = 1 if op == ADD else -1
            v = val[a] + sg * val[b]
            g = [ga + sg * gb for ga, gb in zip(grad[a], grad[b])] if jac else None
        elif op == MUL:
            v = val[a] * val[b]
            g = [val[a] * gb + val[b] * ga for ga, gb in zip(grad[a], grad[b])] if jac else None
        else:
            c = mpmath.mpc(P.consts[b])
            v, g = c * val[a], [c * ga for ga in grad[a]] if jac else None
        val.append(v)
        if jac:
            grad.append(g)
    return [(val[o], grad[o] if jac else None) for o in P.outputs]


def as_program(F) -> Program:
    """The program of a PolynomialSystem (cached) or ProgramSystem."""
    if isinstance(F, ProgramSystem):
        return F.program
    from .program import from_system
    return from_system(F)
