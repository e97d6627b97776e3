"""Polynomial systems: sparse polynomials with exact or complex coefficients.

``PolynomialSystem`` holds variable names and, per equation, a dictionary
``{exponent tuple: coefficient}``; coefficients are ``fractions.Fraction`` (exact rationals) or
``complex``. It is built from strings (``x^2 - y`` and ``x**2 - y`` are both accepted; ``i``/``I``
and a trailing ``j`` on a number denote the imaginary unit, so ``i``, ``I`` are not variable
names) or from coefficient dictionaries, and offers

* vectorized evaluation / Jacobian in numpy: ``evaluate(X)`` (p, n) -> (p, m),
  ``jacobian(X)`` (p, n) -> (p, m, n), from a precomputed table of distinct monomials;
* evaluation / Jacobian in mpmath at a requested number of digits;
* PHCpack's string form (``to_phc_strings``);
* ``randomize(k, rng)``: k random complex combinations of the equations (keeps ``original``);
* ``residual(X)``: componentwise relative backward error of each point (see its docstring).

A malformed polynomial raises ``PolynomialSyntaxError`` naming the polynomial index and the
character position.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from numbers import Number
from typing import Iterable, Mapping, Sequence

import mpmath
import numpy as np
import scipy.sparse as sp


Coeff = Fraction | complex
Poly = dict[tuple[int, ...], Coeff]

RESERVED_NAMES = {"i", "I"}          # imaginary unit
# read as variables these turned a NaN coefficient into a silent extra unknown
NOT_NUMBERS = {"nan", "inf", "infinity"}
NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")    # a variable or parameter name
_PHC_FORBIDDEN = re.compile(r"^(e|E|zz\d+|ss\d+)$")   # names PHCpack misreads (phcpy-notes.md)


def _check_double_range(p: dict, i: int, text: str) -> None:
    """Every coefficient must be a nonzero double when nonzero: tracking and PHCpack work in
    (multiples of) double precision, where 1e400 is infinite and 1e-400 is zero (both crashed or
    silently changed the system)."""
    for c in p.values():
        try:
            v = complex(c)
            bad = (not (math.isfinite(v.real) and math.isfinite(v.imag))) or (c != 0 and v == 0)
        except OverflowError:
            bad = True
        if bad:
            raise PolynomialSyntaxError(i, 0, text, "a coefficient is outside the range of double "
                                                    "precision (about 1e-308 to 1e308), which the "
                                                    "tracker and PHCpack need")


class PolynomialSyntaxError(ValueError):
    """A polynomial string could not be parsed.

    Attributes: ``index`` (0-based polynomial index), ``position`` (0-based character
    position in that string), ``text`` (the polynomial string), ``reason``.
    """

    def __init__(self, index: int, position: int, text: str, reason: str):
        self.index, self.position, self.text, self.reason = index, position, text, reason
        pointer = " " * position + "^"
        super().__init__(f"polynomial {index} at character {position}: {reason}\n"
                         f"  {text}\n  {pointer}")

    def one_line(self) -> str:
        """The error on one line (for command-line messages): where, why, and the text."""
        return (f"polynomial {self.index} at character {self.position}: {self.reason} "
                f"(in {self.text.strip()!r})")


# ----------------------------------------------------------------------------- parsing
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?j?)|"
                    r"(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>\*\*|[-+*/^()]))",
                    re.ASCII)     # \d is ASCII only: '١٢' (Arabic-Indic) was read as 12


def _tokenize(text: str, index: int) -> list[tuple[str, str, int]]:
    tokens, pos = [], 0
    text_stripped = text.rstrip().rstrip(";").rstrip()
    while pos < len(text_stripped):
        if text_stripped[pos:].strip() == "":
            break
        m = _TOKEN.match(text_stripped, pos)
        if m is None or m.end() == pos:
            bad = pos + len(text_stripped[pos:]) - len(text_stripped[pos:].lstrip())
            raise PolynomialSyntaxError(index, bad, text, f"unexpected character {text[bad]!r}")
        kind = m.lastgroup
        start = m.start(kind)
        if kind == "name" and m.group(kind).lower() in NOT_NUMBERS:
            raise PolynomialSyntaxError(index, start, text,
                                        f"{m.group(kind)!r} is not a finite number (NaN and "
                                        f"infinite coefficients are refused; no variable may "
                                        f"be named so)")
        tokens.append((kind, m.group(kind), start))
        pos = m.end()
    tokens.append(("end", "", len(text_stripped)))
    return tokens


MAX_EXPONENT = 1000          # x^k with k above: refused (x^99999999 expanded for minutes)
MAX_DECIMAL_EXPONENT = 400   # 1eK with |K| above: refused before 10^K is built (it hung)


def _number(tok: str) -> Coeff:
    """A numeral as an exact Fraction (an imaginary one 'Nj' as a complex). ValueError when its
    decimal exponent is beyond MAX_DECIMAL_EXPONENT (far outside double precision anyway)."""
    mant, _, exp = tok.rstrip("j").lower().partition("e")
    if exp and abs(int(exp)) > MAX_DECIMAL_EXPONENT:
        raise ValueError(f"the number {tok[:20]}{'…' if len(tok) > 20 else ''} is outside the "
                         f"range of double precision (about 1e-308 to 1e308)")
    if tok.endswith("j"):
        return complex(0.0, float(tok[:-1]))
    return Fraction(tok)


def _mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for e1, c1 in p.items():
        for e2, c2 in q.items():
            e = tuple(a + b for a, b in zip(e1, e2))
            out[e] = out.get(e, 0) + c1 * c2
    return {e: c for e, c in out.items() if c != 0}


def _add(p: Poly, q: Poly, sign: int = 1) -> Poly:
    out = dict(p)
    for e, c in q.items():
        out[e] = out.get(e, 0) + sign * c
    return {e: c for e, c in out.items() if c != 0}


class _Parser:
    """Recursive descent: expr := [+-] term {[+-] term}; term := unary {[*/] unary};
    unary := [+-] unary | power; power := atom [(^|**) INT]; atom := NUM | NAME | ( expr )."""

    def __init__(self, text: str, index: int, varindex: Mapping[str, int]):
        self.text, self.index, self.varindex = text, index, varindex
        self.n = len(varindex)
        self.tokens = _tokenize(text, index)
        self.k = 0

    def error(self, reason: str, tok=None) -> PolynomialSyntaxError:
        tok = tok or self.tokens[self.k]
        return PolynomialSyntaxError(self.index, tok[2], self.text, reason)

    def peek(self):
        return self.tokens[self.k]

    def take(self):
        tok = self.tokens[self.k]
        self.k += 1
        return tok

    def parse(self) -> Poly:
        if self.peek()[0] == "end":
            raise self.error("empty polynomial")
        p = self.expr()
        tok = self.peek()
        if tok[0] != "end":
            what = "implicit multiplication is not allowed (write '*')" \
                if tok[0] in ("num", "name") or tok[1] == "(" else f"unexpected {tok[1]!r}"
            raise self.error(what)
        return p

    def const(self, c: Coeff) -> Poly:
        return {(0,) * self.n: c} if c != 0 else {}

    def expr(self) -> Poly:
        p = self.term()
        while self.peek()[1] in ("+", "-"):
            sign = 1 if self.take()[1] == "+" else -1
            p = _add(p, self.term(), sign)
        return p

    def term(self) -> Poly:
        p = self.unary()
        while self.peek()[1] in ("*", "/"):
            op = self.take()
            rhs_tok = self.peek()
            q = self.unary()
            if op[1] == "*":
                p = _mul(p, q)
            else:
                if any(any(e) for e in q) or not q:
                    raise self.error("division only by a nonzero constant", rhs_tok)
                c = next(iter(q.values()))
                p = {e: v / c for e, v in p.items()}
        return p

    def unary(self) -> Poly:
        if self.peek()[1] in ("+", "-"):
            sign = 1 if self.take()[1] == "+" else -1
            return {e: sign * c for e, c in self.unary().items()}
        return self.power()

    def power(self) -> Poly:
        p = self.atom()
        if self.peek()[1] in ("^", "**"):
            self.take()
            tok = self.take()
            if tok[0] != "num" or not tok[1].isdigit():
                raise self.error("exponent must be a nonnegative integer", tok)
            k = int(tok[1]) if len(tok[1]) < 8 else MAX_EXPONENT + 1
            if k > MAX_EXPONENT:
                raise self.error(f"exponent above {MAX_EXPONENT} (a total degree this high is "
                                 f"beyond what the tracker can solve)", tok)
            out = self.const(Fraction(1))
            for _ in range(k):
                out = _mul(out, p)
            return out
        return p

    def atom(self) -> Poly:
        tok = self.take()
        kind, val, pos = tok
        if kind == "num":
            try:
                return self.const(_number(val))
            except ValueError as exc:
                raise self.error(str(exc), tok) from None
        if kind == "name":
            if val in RESERVED_NAMES:
                return self.const(1j)
            e = [0] * self.n
            e[self.varindex[val]] = 1
            return {tuple(e): Fraction(1)}
        if val == "(":
            p = self.expr()
            if self.peek()[1] != ")":
                raise self.error("missing ')'")
            self.take()
            return p
        if kind == "end":
            raise self.error("unexpected end of polynomial (a term is missing)", tok)
        raise self.error(f"unexpected {val!r} (a term is missing)", tok)


def names_in(text: str, index: int = 0) -> list[str]:
    """The names (variables or parameters) a polynomial string uses, in order, repeats kept;
    ``i``/``I`` (the imaginary unit) excluded. Raises PolynomialSyntaxError (with ``index``)
    for a character no polynomial may contain."""
    return [t[1] for t in _tokenize(text, index) if t[0] == "name" and t[1] not in RESERVED_NAMES]


def _clean_coeff(c) -> Coeff:
    if isinstance(c, Fraction):
        return c
    if isinstance(c, (int, np.integer)):
        return Fraction(int(c))
    if isinstance(c, (float, complex, np.floating, np.complexfloating)):
        c = complex(c)
        if not (math.isfinite(c.real) and math.isfinite(c.imag)):
            raise ValueError(f"coefficient {c} is not finite")
        return c
    if isinstance(c, Number):
        return complex(c)
    raise TypeError(f"coefficient {c!r} is not a number")


# Significant decimal digits written for a coefficient that PHCpack cannot read exactly, per
# precision (double, double-double, quad-double). PHCpack's double-precision parser keeps only
# about 18 digits of a number's integer part and of its fractional part and silently drops the
# rest, so a long integer or a long numerator/denominator is read wrong by powers of ten
# (measured; docs/input-format.md §2). 17 significant digits identify a double; 34 and 66 are a
# little more than the ~32 and ~64 digits of dd and qd, whose parsers read long numbers in full.
PHC_DIGITS = {"d": 17, "dd": 34, "qd": 66}
_PHC_EXACT_DIGITS = 17       # integers / numerators / denominators this short are written as is


def monomial_exponents(n: int, d: int) -> list[tuple[int, ...]]:
    """Exponent vectors (length n) of the C(n + d - 1, d) monomials of degree exactly d."""
    out = []
    for c in itertools.combinations_with_replacement(range(n), d):
        e = [0] * n
        for j in c:
            e[j] += 1
        out.append(tuple(e))
    return out


def natural_key(name: str) -> tuple:
    """Sort key putting x2 before x10 (runs of digits compare as integers); ties by the name."""
    parts = re.split(r"(\d+)", name) + [""]          # text, digits, text, ..., text, ""
    pairs = tuple((parts[k], int(parts[k + 1]) if parts[k + 1] else -1)
                  for k in range(0, len(parts) - 1, 2))
    return pairs + (name,)


def decimal_string(q: Fraction, digits: int) -> str:
    """``q`` correctly rounded to ``digits`` significant decimal digits, as ``d.ddd…E±k``
    (round half to even; exact integer arithmetic, no float on the way)."""
    if q == 0:
        return "0.0E+00"
    sign, q = ("-" if q < 0 else ""), abs(q)
    e = len(str(q.numerator)) - len(str(q.denominator))
    if q < Fraction(10) ** e:
        e -= 1                                   # now 10^e <= q < 10^(e+1)
    m = round(q / Fraction(10) ** (e - digits + 1))
    if m == 10 ** digits:                        # rounded up to the next power of ten
        m, e = m // 10, e + 1
    s = str(m)
    return f"{sign}{s[0]}.{s[1:] or '0'}E{e:+03d}"


def _phc_real(q: Fraction, digits: int) -> str:
    if len(str(abs(q.numerator))) <= _PHC_EXACT_DIGITS and \
            len(str(q.denominator)) <= _PHC_EXACT_DIGITS:
        return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
    return decimal_string(q, digits)


def _phc_coeff(c: Coeff, digits: int) -> str:
    """Coefficient in PHCpack syntax, always parenthesized: short rationals exactly, anything
    longer (and every float) rounded to ``digits`` significant digits."""
    if isinstance(c, Fraction):
        return f"({_phc_real(c, digits)})"
    re_, im = (decimal_string(Fraction(v), digits) for v in (c.real, abs(c.imag)))
    return f"({re_}{'+' if c.imag >= 0 else '-'}{im}*i)"


# ----------------------------------------------------------------------------- the system
@dataclass(frozen=True, eq=False)
class PolynomialSystem:
    """m polynomial equations in n named variables.

    ``polynomials``: tuple of m dictionaries {exponent tuple (length n): coefficient}, coefficients
    Fraction or complex. ``original``/``randomization``: set by ``randomize`` (the system this one
    was combined from, and the (k, m) complex matrix R with self = R @ original).
    """

    variables: tuple[str, ...]
    polynomials: tuple[Poly, ...]
    original: "PolynomialSystem | None" = field(default=None, repr=False)
    randomization: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        names = tuple(self.variables)
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate variable names in {names}")
        for v in names:
            if not NAME.fullmatch(v) or v in RESERVED_NAMES:
                raise ValueError(f"invalid variable name {v!r} (identifier, not i or I)")
        object.__setattr__(self, "variables", names)
        object.__setattr__(self, "polynomials", tuple(dict(p) for p in self.polynomials))
        if not self.polynomials:
            raise ValueError("a polynomial system needs at least one polynomial")
        if not names:
            raise ValueError("a polynomial system needs at least one variable")

    # ---- construction
    @classmethod
    def from_strings(cls, polys: Sequence[str] | str,
                     variables: Sequence[str] | None = None) -> "PolynomialSystem":
        """Parse polynomials given as strings (or one string separated by ';' / newlines).

        ``variables``: explicit order; default = the names that occur, in natural order
        (``natural_key``: x2 before x10; not the order of first appearance). Raises
        PolynomialSyntaxError (polynomial index + character position) on malformed input,
        ValueError for an unknown variable when ``variables`` is given.
        """
        if isinstance(polys, str):
            polys = [p for p in re.split(r"[;\n]", polys) if p.strip()]
        polys = list(polys)
        if not polys:
            raise ValueError("no polynomials given")
        found: list[str] = []
        for i, text in enumerate(polys):
            if not isinstance(text, str):
                raise TypeError(f"polynomial {i} is not a string: {text!r}")
            for name in names_in(text, i):
                if name not in found:
                    found.append(name)
        if variables is None:
            variables = sorted(found, key=natural_key)
        else:
            variables = list(variables)
            unknown = [v for v in found if v not in variables]
            if unknown:
                i, pos = next((i, m.start()) for i, t in enumerate(polys)
                              for m in NAME.finditer(t)
                              if m.group() == unknown[0])
                raise PolynomialSyntaxError(i, pos, polys[i],
                                            f"unknown variable {unknown[0]!r} (variables: "
                                            f"{', '.join(variables)})")
        varindex = {v: k for k, v in enumerate(variables)}
        parsed = [_Parser(t, i, varindex).parse() for i, t in enumerate(polys)]
        for i, p in enumerate(parsed):
            _check_double_range(p, i, polys[i])
        return cls(tuple(variables), tuple(parsed))

    @classmethod
    def from_dicts(cls, variables: Sequence[str],
                   polys: Iterable[Mapping[Sequence[int], object]]) -> "PolynomialSystem":
        """Build from dictionaries {exponent tuple: coefficient (int/Fraction/float/complex)}.

        Raises ValueError for exponents of the wrong length or negative, non-finite coefficients.
        """
        n = len(variables)
        out = []
        for i, p in enumerate(polys):
            q: Poly = {}
            for e, c in dict(p).items():
                e = tuple(int(a) for a in e)
                if len(e) != n or min(e, default=0) < 0:
                    raise ValueError(f"polynomial {i}: exponent {e} is not {n} nonnegative ints")
                try:
                    c = _clean_coeff(c)
                except (ValueError, TypeError) as err:
                    raise ValueError(f"polynomial {i}, exponent {e}: {err}") from None
                q[e] = q.get(e, 0) + c
            out.append({e: c for e, c in q.items() if c != 0})
        return cls(tuple(variables), tuple(out))

    # ---- basic properties
    @property
    def n_vars(self) -> int:
        return len(self.variables)

    @property
    def n_equations(self) -> int:
        return len(self.polynomials)

    @property
    def degrees(self) -> tuple[int, ...]:
        return tuple(max((sum(e) for e in p), default=0) for p in self.polynomials)

    @property
    def is_exact(self) -> bool:
        return all(isinstance(c, Fraction) for p in self.polynomials for c in p.values())

    @property
    def has_real_coefficients(self) -> bool:
        """True when every coefficient is real (then zeros come in conjugate pairs)."""
        return all(isinstance(c, Fraction) or c.imag == 0
                   for p in self.polynomials for c in p.values())

    @property
    def monomial_tree(self) -> tuple[list[tuple[int, ...]], list]:
        """(order, levels) of the monomial tree of the equations and their first partial
        derivatives (``_monomial_tree``): order[r] is the exponent of monomial r (order[0] the
        constant 1); levels: per degree d >= 1, (start, stop, g, h) with monomial r = g[r -
        start] * h[r - start] (d = 1: h holds the variable index, g is None). For evaluators in
        other arithmetics (ball arithmetic in ``witness.certify``)."""
        levels, *_, index = self._compiled
        return sorted(index, key=index.__getitem__), levels

    def substitute(self, values: Mapping[str, object]) -> "PolynomialSystem":
        """Replace the named variables by numbers: a system in the remaining variables (same
        order). Values: int / Fraction (kept exact), float / complex, or an exact string such as
        "-3/7" or "1.5e-3". Raises ValueError for an unknown name, a non-finite value, or when
        no variable would be left."""
        unknown = sorted(set(values) - set(self.variables), key=natural_key)
        if unknown:
            raise ValueError(f"cannot substitute {', '.join(unknown)}: not among the variables "
                             f"{', '.join(self.variables)}")
        vals = {}
        for k, v in values.items():
            try:
                vals[k] = _clean_coeff(_number(v.strip()) if isinstance(v, str) else v)
                _check_double_range({(): vals[k]}, 0, str(v))
            except (ValueError, TypeError, ZeroDivisionError):
                raise ValueError(f"value of {k} is not a finite number in double precision's "
                                 f"range: {str(v)[:40]!r}") from None
        keep = [k for k, v in enumerate(self.variables) if v not in vals]
        gone = [(k, vals[v]) for k, v in enumerate(self.variables) if v in vals]
        polys = []
        for p in self.polynomials:
            q: Poly = {}
            for e, c in p.items():
                for k, v in gone:
                    c = c * v ** e[k] if e[k] else c
                f = tuple(e[k] for k in keep)
                q[f] = q.get(f, 0) + c
            polys.append({e: c for e, c in q.items() if c != 0})
        for i, p in enumerate(polys):              # a product of values can leave the range
            try:
                _check_double_range(p, i, f"polynomial {i} after substitution")
            except PolynomialSyntaxError:
                raise ValueError(f"polynomial {i}: a coefficient after substituting the values "
                                 f"is outside the range of double precision") from None
        return PolynomialSystem(tuple(self.variables[k] for k in keep), tuple(polys))

    def __repr__(self) -> str:
        shown = "; ".join(self.to_strings()[:3])
        more = f"; ... ({self.n_equations} equations)" if self.n_equations > 3 else ""
        return (f"PolynomialSystem(vars={list(self.variables)}, degrees={list(self.degrees)}: "
                f"{shown[:200]}{more})")

    # ---- string forms
    def to_strings(self) -> list[str]:
        """Human-readable strings (``^`` powers), parseable by ``from_strings``."""
        return [self._poly_str(p, self.variables) for p in self.polynomials]

    def to_phc_strings(self, names: Sequence[str] | None = None,
                       precision: str = "d") -> list[str]:
        """PHCpack input strings, each ending in ';'.

        ``names``: variable names to write (default: ``variables``). ``precision``: the PHCpack
        precision that will read them ('d', 'dd', 'qd'): a rational whose numerator or
        denominator has more than 17 digits, and every float, is written correctly rounded to
        ``PHC_DIGITS[precision]`` significant digits in scientific notation (PHCpack's double
        parser silently truncates longer digit strings: docs/input-format.md §2); shorter
        rationals are written exactly. Raises ValueError for names that PHCpack misreads (e, E,
        zz<digits>, ss<digits>: pass safe ``names`` instead) or an unknown precision.
        """
        names = list(names or self.variables)
        if len(names) != self.n_vars:
            raise ValueError(f"{len(names)} names for {self.n_vars} variables")
        bad = [v for v in names if _PHC_FORBIDDEN.match(v)]
        if bad:
            raise ValueError(f"variable names {bad} are misread by PHCpack; pass names=")
        if precision not in PHC_DIGITS:
            raise ValueError(f"precision must be one of {tuple(PHC_DIGITS)}, got {precision!r}")
        return [self._poly_str(p, names, PHC_DIGITS[precision]) + ";" for p in self.polynomials]

    @staticmethod
    def _poly_str(p: Poly, names: Sequence[str], phc_digits: int | None = None) -> str:
        """Readable form (``phc_digits`` None) or PHCpack form with that many digits."""
        if not p:
            return "0"
        terms = []
        phc = phc_digits is not None
        for e, c in sorted(p.items(), key=lambda t: (-sum(t[0]), t[0])):
            mono = "*".join(f"{v}^{k}" if k > 1 else v for v, k in zip(names, e) if k)
            if phc:
                cs = _phc_coeff(c, phc_digits)
                terms.append(f"{cs}*{mono}" if mono else cs)
                continue
            neg = isinstance(c, Fraction) and c < 0
            a = -c if neg else c
            cs = _readable(a)
            t = mono if (a == 1 and mono) else (f"{cs}*{mono}" if mono else cs)
            terms.append(("- " if neg else "+ ") + t)
        if phc:
            return " + ".join(terms)
        out = " ".join(terms)
        return out[2:] if out.startswith("+ ") else "-" + out[2:]

    # ---- compiled numeric form
    @cached_property
    def _compiled(self):
        """Monomial tree and linear maps monomials -> values / Jacobian entries.

        Returns (levels, u, MF, MJ, MA, index): the distinct monomials of the equations and of their
        partial derivatives, closed so that every monomial of degree d >= 2 is the product of
        two lower-degree members, and ordered by total degree (``_monomial_tree``); ``levels``
        is one (start, stop, g, h) slice per degree. Evaluating all u monomials then costs one
        multiplication each (was: one gather-multiply per distinct variable of the monomial,
        2.3x slower on the 16-unknown (2,2,2) fiber system, measured).
        MF (m, u), MJ (m n, u), MA (m, u) sparse CSR (|coefficients| for the residual); index:
        exponent tuple -> row of the tree."""
        m, n = self.n_equations, self.n_vars
        needed: set[tuple[int, ...]] = set()
        for p in self.polynomials:
            for e in p:
                needed.add(e)
                for k in range(n):
                    if e[k]:
                        needed.add(e[:k] + (e[k] - 1,) + e[k + 1:])
        order, levels = _monomial_tree(needed, n)
        index = {e: r for r, e in enumerate(order)}
        f_rows, f_cols, f_vals, a_vals = [], [], [], []
        j_rows, j_cols, j_vals = [], [], []
        for i, p in enumerate(self.polynomials):
            for e, c in p.items():
                c = complex(c)
                f_rows.append(index[e]); f_cols.append(i); f_vals.append(c); a_vals.append(abs(c))
                for k in range(n):
                    if e[k]:
                        d = e[:k] + (e[k] - 1,) + e[k + 1:]
                        j_rows.append(index[d]); j_cols.append(i * n + k); j_vals.append(c * e[k])
        u = len(order)

        def mat(r, c, v, cols, dtype=complex):
            # stored (cols, u) in CSR: sparse products need no BLAS, whose threads cost 30x on
            # these tiny products when the cores are busy (measured)
            return sp.csr_matrix((np.asarray(v, dtype=dtype), (c, r)), shape=(cols, u))
        return (levels, u, mat(f_rows, f_cols, f_vals, m), mat(j_rows, j_cols, j_vals, m * n),
                mat(f_rows, f_cols, a_vals, m, float), index)

    @staticmethod
    def _apply(monT: np.ndarray, Mt) -> np.ndarray:
        """Monomial table monT (u, p) through the linear map Mt (cols, u) -> (p, cols)."""
        return (Mt @ monT).T

    def _monomials(self, X: np.ndarray) -> np.ndarray:
        """All monomials of the tree at X (p, n) -> table (u, p), one multiplication each (the
        variables themselves are copied)."""
        levels, u, *_ = self._compiled
        mon = np.empty((u, X.shape[0]), dtype=X.dtype)
        mon[0] = 1
        for start, stop, g, h in levels:
            if g is None:       # degree 1: h holds the variable of each monomial
                mon[start:stop] = X.T[h]
            else:
                np.multiply(mon[g], mon[h], out=mon[start:stop])
        return mon

    def _check_points(self, X) -> tuple[np.ndarray, bool]:
        X = np.asarray(X)
        single = X.ndim == 1
        X = np.atleast_2d(X).astype(complex, copy=False)
        if X.ndim != 2 or X.shape[1] != self.n_vars:
            raise ValueError(f"points must have shape (p, {self.n_vars}) or ({self.n_vars},); "
                             f"got {np.shape(X)}")
        if not np.all(np.isfinite(X)):
            raise ValueError("points contain NaN or infinite coordinates")
        return X, single

    def evaluate(self, X) -> np.ndarray:
        """Values at points. X: complex (p, n) or (n,) -> complex128 (p, m) or (m,).

        Raises ValueError for a wrong shape or NaN/inf coordinates."""
        X, single = self._check_points(X)
        out = self.evaluate_fast(X)
        return out[0] if single else out

    def jacobian(self, X) -> np.ndarray:
        """Jacobians at points. X: (p, n) or (n,) -> complex128 (p, m, n) or (m, n)."""
        X, single = self._check_points(X)
        out = self.jacobian_fast(X)
        return out[0] if single else out

    def evaluate_fast(self, X: np.ndarray) -> np.ndarray:
        """Unchecked ``evaluate`` for (p, n) complex128 input (numpy; checks and residuals. The
        tracker evaluates the system's program, ``witness.program.from_system``)."""
        return self.evaluate_and_jacobian(X, jacobian=False)[0]

    def jacobian_fast(self, X: np.ndarray) -> np.ndarray:
        return self.evaluate_and_jacobian(X)[1]

    def evaluate_and_jacobian(self, X: np.ndarray, jacobian: bool = True
                              ) -> tuple[np.ndarray, np.ndarray | None]:
        """Both at once from one monomial table: (p, m), (p, m, n). Unchecked input.

        A randomized system is evaluated through its sparse original and R (cheaper than its
        dense expanded form)."""
        if self.randomization is not None:
            f, J = self.original.evaluate_and_jacobian(X, jacobian)
            R = self.randomization
            return (np.matmul(f, R.T), np.matmul(R, J) if jacobian else None)
        _, _, MF, MJ, *_ = self._compiled
        mon = self._monomials(X)
        f = self._apply(mon, MF)
        if not jacobian:
            return f, None
        return f, self._apply(mon, MJ).reshape(X.shape[0], self.n_equations, self.n_vars)

    def residual(self, X) -> np.ndarray:
        """Backward error per point: max_i |f_i(x)| / sum_t |c_it| prod_j max(1, |x_j|)^e_tj.

        A mixed absolute/relative measure: relative to the size of the terms for large
        coordinates, relative to the coefficients near 0 (where a purely componentwise measure
        would reject every approximation of a root at 0). Cf. the scaled residuals of Bertini
        and PHCpack; Higham, *Accuracy and Stability of Numerical Algorithms*, §7.2.
        X: (p, n) -> float64 (p,) (or a scalar for (n,))."""
        X, single = self._check_points(X)
        _, _, MF, _, MA, _ = self._compiled
        num = np.abs(self._apply(self._monomials(X), MF))
        den = self._apply(self._monomials(np.maximum(np.abs(X), 1.0)).real, MA)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(num == 0, 0.0, num / np.where(den == 0, 1.0, den))
        out = r.max(axis=1)
        return out[0] if single else out

    # ---- mpmath
    def _coeff_mp(self, c: Coeff):
        if isinstance(c, Fraction):
            return mpmath.mpf(c.numerator) / c.denominator
        return mpmath.mpc(c.real, c.imag)

    def evaluate_mp(self, x: Sequence, dps: int = 50) -> list:
        """Values at one point in mpmath with ``dps`` digits: list of m mpc."""
        with mpmath.workdps(dps):
            xs = [mpmath.mpc(v) for v in x]
            if len(xs) != self.n_vars:
                raise ValueError(f"point has {len(xs)} coordinates, expected {self.n_vars}")
            out = []
            for p in self.polynomials:
                s = mpmath.mpc(0)
                for e, c in p.items():
                    t = self._coeff_mp(c)
                    for v, k in zip(xs, e):
                        if k:
                            t *= v ** k
                    s += t
                out.append(s)
            return out

    def jacobian_mp(self, x: Sequence, dps: int = 50) -> "mpmath.matrix":
        """Jacobian at one point in mpmath: mpmath.matrix (m, n)."""
        with mpmath.workdps(dps):
            xs = [mpmath.mpc(v) for v in x]
            if len(xs) != self.n_vars:
                raise ValueError(f"point has {len(xs)} coordinates, expected {self.n_vars}")
            J = mpmath.matrix(self.n_equations, self.n_vars)
            for i, p in enumerate(self.polynomials):
                for e, c in p.items():
                    for k in range(self.n_vars):
                        if not e[k]:
                            continue
                        t = self._coeff_mp(c) * e[k]
                        for j, (v, a) in enumerate(zip(xs, e)):
                            a = a - 1 if j == k else a
                            if a:
                                t *= v ** a
                        J[i, k] += t
            return J

    # ---- derived systems
    def randomize(self, k: int, rng: np.random.Generator | int | None = None,
                  row_scale: Sequence[float] | None = None) -> "PolynomialSystem":
        """k random complex combinations R @ diag(row_scale) @ F (R: (k, m), entries standard
        complex normal; row_scale (m,) positive, default all ones).

        Returns a new system with ``original=self`` (or ``self.original`` if already randomized)
        and ``randomization`` = R diag(row_scale). Components of V(F) of dimension >= n - k stay
        components of V(R F) (Bertini's theorem; Sommese–Wampler 2005, §13.5); new spurious
        ones may appear and must be removed by checking ``original``. Raises ValueError unless
        1 <= k <= m, or for a row_scale of the wrong length or not positive and finite."""
        if not 1 <= k <= self.n_equations:
            raise ValueError(f"k must be in 1..{self.n_equations}, got {k}")
        rng = np.random.default_rng(rng)
        R = (rng.standard_normal((k, self.n_equations))
             + 1j * rng.standard_normal((k, self.n_equations))) / math.sqrt(2)
        if row_scale is not None:
            w = np.asarray(row_scale, float)
            if w.shape != (self.n_equations,) or not np.all(np.isfinite(w) & (w > 0)):
                raise ValueError(f"row_scale must be {self.n_equations} positive finite numbers")
            R = R * w[None, :]
        return self.combined(R)

    def combined(self, R: np.ndarray) -> "PolynomialSystem":
        """The system R F (R: (k, m) complex; zero entries skipped), remembering the original
        system and the total randomization (R times self's, if self is randomized)."""
        polys = []
        for row in R:
            q: Poly = {}
            for r, p in zip(row, self.polynomials):
                if r == 0:
                    continue
                for e, c in p.items():
                    q[e] = q.get(e, 0) + complex(r) * complex(c)
            polys.append(q)
        base = self.original if self.original is not None else self
        Rtot = R if self.randomization is None else R @ self.randomization
        return PolynomialSystem(self.variables, tuple(polys), original=base, randomization=Rtot)

    def coefficient_norms(self) -> np.ndarray:
        """2-norm of each equation's coefficient vector (m,) float."""
        return np.array([math.sqrt(sum(abs(complex(c)) ** 2 for c in p.values()))
                         for p in self.polynomials])

    def to_json(self) -> dict:
        return {"variables": list(self.variables), "polynomials": self.to_strings()}


def _readable(c: Coeff) -> str:
    if isinstance(c, Fraction):
        return f"({c})" if c.denominator != 1 else str(c)
    if c.imag == 0:
        return f"({c.real!r})"
    return f"({c.real!r}{'+' if c.imag >= 0 else '-'}{abs(c.imag)!r}*I)"


def _monomial_tree(needed: set[tuple[int, ...]], n: int) -> tuple[list, list]:
    """Close ``needed`` under splitting off one or two variables and order it by degree.

    Every monomial f of degree >= 1 gets a factorization f = g * h with h = x_k or h = x_k x_j
    and g, h lower-degree members of the set: a g already in the set is preferred (the
    derivative monomials of a system's terms are such g), otherwise f - e_k is added (a chain
    of intermediates). Returns (order, levels): order[0] is the constant monomial; levels: per
    degree d >= 1 the slice (start, stop) of order holding degree d and, per monomial there, the
    indices of g and h in order (int arrays)."""
    zero = (0,) * n
    closed = set(needed) | {zero}
    unit = [tuple(int(i == k) for i in range(n)) for k in range(n)]
    closed.update(unit)
    split: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def minus(f, h):
        return tuple(a - b for a, b in zip(f, h))
    for e in sorted(closed, key=sum, reverse=True):
        todo = [e]
        while todo:
            f = todo.pop()
            if sum(f) <= 1 or f in split:
                continue
            ks = [k for k in range(n) if f[k]]
            pick = next(((minus(f, unit[k]), unit[k]) for k in ks
                         if minus(f, unit[k]) in closed), None)
            if pick is None:
                pairs = [(k, j) for k in ks for j in ks if k <= j and (k < j or f[k] >= 2)]
                pick = next(((minus(f, h), h) for h in
                             (tuple(a + b for a, b in zip(unit[k], unit[j])) for k, j in pairs)
                             if sum(f) > 2 and minus(f, h) in closed), None)
            if pick is None:
                pick = (minus(f, unit[ks[-1]]), unit[ks[-1]])
            split[f] = pick
            for part in pick:
                if part not in closed:
                    closed.add(part)
                    todo.append(part)
    order = sorted(closed, key=lambda e: (sum(e), e))
    index = {e: r for r, e in enumerate(order)}
    degs = np.array([sum(e) for e in order])
    levels = []
    for d in range(1, int(degs.max(initial=0)) + 1):
        start, stop = int(np.searchsorted(degs, d)), int(np.searchsorted(degs, d, "right"))
        if d == 1:      # the variables themselves
            levels.append((start, stop, None,
                           np.array([e.index(1) for e in order[start:stop]], dtype=np.int64)))
            continue
        block = [split[e] for e in order[start:stop]]
        levels.append((start, stop, np.array([index[g] for g, _ in block], dtype=np.int64),
                       np.array([index[h] for _, h in block], dtype=np.int64)))
    return order, levels


