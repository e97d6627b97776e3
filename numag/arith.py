"""Number systems the model is evaluated over: numpy float64/complex128, mpmath, a prime field.

The model (numag/model.py) is written once against this small interface: `mm` (matrix product,
broadcasting like np.matmul), `red` (bring a sum or product back into the number system: the
identity except modulo p), `mul` (elementwise product), `softmax` and its derivative. All values
are numpy arrays: float64/complex128, object arrays of mpmath numbers, or int64 residues in
[0, p).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import flint

# Residues live in int64: a product of two is < p^2 and a matrix product sums `inner` of them,
# so p^2 * inner < 2^63 keeps everything exact. p < 2^25 allows inner dimensions up to 8192.
PRIME_BITS = 25
MAX_INNER = 2 ** (63 - 2 * PRIME_BITS)


class Arithmetic:
    """Base class: numpy semantics, no reduction."""

    name = "abstract"
    exact = False

    def red(self, x: np.ndarray) -> np.ndarray:
        return x

    def mm(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.matmul(a, b)

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a * b

    def zeros(self, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def random(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def convert(self, x: Any) -> np.ndarray:
        raise NotImplementedError

    def exp(self, x: np.ndarray) -> np.ndarray:
        raise ValueError(f"softmax needs exp, which {self.name} arithmetic does not have")

    def softmax(self, S: np.ndarray, axis: int = -2) -> np.ndarray:
        """Column softmax over `axis`, max-shifted (by real parts) for stability."""
        shift = np.max(_real(S), axis=axis, keepdims=True)
        E = self.exp(S - shift)
        return E / E.sum(axis=axis, keepdims=True)

    def softmax_jvp(self, P: np.ndarray, dS: np.ndarray, axis: int = -2) -> np.ndarray:
        """dP for P = softmax(S): dP_k = P_k (dS_k - Σ_l P_l dS_l) (standard)."""
        return P * (dS - (P * dS).sum(axis=axis, keepdims=True))


def _real(S: np.ndarray) -> np.ndarray:
    if S.dtype == object:
        return np.vectorize(lambda z: mpmath.re(z), otypes=[object])(S)
    return S.real


class NumpyArithmetic(Arithmetic):
    """float64 or complex128 (dtype given), float32 for the paper-script reimplementation."""

    def __init__(self, dtype: Any = np.float64):
        self.dtype = np.dtype(dtype)
        self.name = self.dtype.name

    def zeros(self, shape):
        return np.zeros(shape, dtype=self.dtype)

    def random(self, rng, shape):
        if np.issubdtype(self.dtype, np.complexfloating):
            z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
            return (z / np.sqrt(2)).astype(self.dtype)
        return rng.standard_normal(shape).astype(self.dtype)

    def convert(self, x):
        x = np.asarray(x)
        # object arrays (Fractions, mp numbers) convert element by element through float/complex
        return x.astype(self.dtype)

    def exp(self, x):
        return np.exp(x)


class MpArithmetic(Arithmetic):
    """mpmath numbers (mpf, or mpc when complex=True) in object arrays at `dps` digits.

    Callers must run computations inside `mpmath.workdps(self.dps)`; `context()` returns it.
    """

    def __init__(self, dps: int = 50, complex: bool = False):
        if dps < 15:
            raise ValueError(f"mpmath precision must be at least 15 digits, got {dps}")
        self.dps = int(dps)
        self.complex = complex
        self.name = f"mpmath({self.dps} digits)"
        self._exp = np.vectorize(mpmath.exp, otypes=[object])

    def context(self):
        return mpmath.workdps(self.dps)

    def zeros(self, shape):
        return self.convert(np.zeros(shape))

    def random(self, rng, shape):
        # Normal doubles are exact binary numbers; as mp numbers they are as generic as any.
        x = rng.standard_normal(shape)
        if self.complex:
            x = (x + 1j * rng.standard_normal(shape)) / np.sqrt(2)
        return self.convert(x)

    def convert(self, x):
        x = np.asarray(x, dtype=object)
        with self.context():
            return np.vectorize(_to_mp(self.complex), otypes=[object])(x) if x.size else x

    def exp(self, x):
        return self._exp(x)


def _to_mp(complex_: bool):
    def f(v):
        if isinstance(v, Fraction):
            v = mpmath.mpf(v.numerator) / v.denominator
        elif isinstance(v, (np.integer, int)):
            v = int(v)
        elif isinstance(v, (np.floating, np.complexfloating)):
            v = v.item()
        return mpmath.mpc(v) if complex_ else mpmath.mpf(v)
    return f


@dataclass(frozen=True)
class ModularArithmetic(Arithmetic):
    """The prime field F_p, residues in int64 [0, p). Lightning only (no exp).

    Exactness: see PRIME_BITS; `mm` refuses inner dimensions above MAX_INNER.
    """

    p: int

    def __post_init__(self):
        if not (2 < self.p < 2 ** PRIME_BITS) or not flint.fmpz(self.p).is_prime():
            raise ValueError(f"p must be an odd prime below 2^{PRIME_BITS}, got {self.p}")

    exact = True

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"F_{self.p}"

    def red(self, x):
        return np.remainder(x, self.p)

    def mm(self, a, b):
        if a.shape[-1] > MAX_INNER:
            raise ValueError(f"inner dimension {a.shape[-1]} exceeds {MAX_INNER}: int64 overflow")
        return np.remainder(np.matmul(a, b), self.p)

    def mul(self, a, b):
        return np.remainder(a * b, self.p)

    def zeros(self, shape):
        return np.zeros(shape, dtype=np.int64)

    def random(self, rng, shape):
        return rng.integers(0, self.p, size=shape, dtype=np.int64)

    def convert(self, x):
        """Integers or Fractions (denominators must be units mod p) to residues."""
        arr = np.asarray(x, dtype=object)
        p = self.p

        def res(v):
            v = Fraction(v)
            if v.denominator % p == 0:
                raise ValueError(f"{v} has a denominator divisible by p = {p}")
            return v.numerator * pow(v.denominator, -1, p) % p
        return np.vectorize(res, otypes=[np.int64])(arr) if arr.size else arr.astype(np.int64)

    def softmax(self, S, axis=-2):
        raise ValueError("softmax attention is not polynomial: it has no prime-field model; "
                         "use method 'mp' or 'float'")


def random_prime(rng: np.random.Generator, bits: int = PRIME_BITS) -> int:
    """A random prime in [2^(bits-1), 2^bits), drawn with `rng` (reproducible from its seed)."""
    n = int(rng.integers(2 ** (bits - 1), 2 ** bits)) | 1
    while not flint.fmpz(n).is_prime():
        n += 2
        if n >= 2 ** bits:
            n = 2 ** (bits - 1) + 1
    return n


class PolynomialArithmetic(Arithmetic):
    """Polynomials over Q (python-flint fmpq_mpoly) in named variables: runs the model
    symbolically, e.g. to read off the coefficients of φ_W(X) as polynomials in W (numag.encode).

    Lightning only (softmax is not polynomial).
    """

    name = "Q[variables]"
    exact = True

    def __init__(self, variables: tuple[str, ...]):
        self.ctx = flint.fmpq_mpoly_ctx.get(tuple(variables), "lex")
        self.gens = self.ctx.gens()

    def variables(self, start: int, shape: tuple[int, ...]) -> np.ndarray:
        """Object array of the generators start, start+1, ... in the given shape."""
        out = np.empty(int(np.prod(shape)), dtype=object)
        for i in range(out.size):
            out[i] = self.gens[start + i]
        return out.reshape(shape)

    def zeros(self, shape):
        out = np.empty(shape, dtype=object)
        out.fill(self.ctx.from_dict({}))
        return out

    def convert(self, x):
        x = np.asarray(x, dtype=object)
        out = np.empty(x.shape, dtype=object)
        for idx, v in np.ndenumerate(x):
            f = Fraction(v)
            out[idx] = self.ctx.constant(flint.fmpq(f.numerator, f.denominator))
        return out

    def random(self, rng, shape):
        raise ValueError("polynomial arithmetic has no random elements")

    def softmax(self, S, axis=-2):
        raise ValueError("softmax attention is not polynomial")


class RationalArithmetic(Arithmetic):
    """Exact rationals (fractions.Fraction in object arrays): slow, for small exact checks such
    as the symmetry orbit's tangent space at a given rational point."""

    name = "Q"
    exact = True

    def zeros(self, shape):
        out = np.empty(shape, dtype=object)
        out.fill(Fraction(0))
        return out

    def convert(self, x):
        x = np.asarray(x, dtype=object)
        out = np.empty(x.shape, dtype=object)
        for idx, v in np.ndenumerate(x):
            out[idx] = Fraction(v)
        return out

    def random(self, rng, shape):
        raise ValueError("use numag.points for random rational weights")

    def softmax(self, S, axis=-2):
        raise ValueError("softmax attention is not rational")
