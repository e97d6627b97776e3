"""System files: polynomials with optional ``variables:`` and ``parameters:`` headers.

Format (docs/input-format.md §1)::

    # a comment
    variables: x, y, z, t          # optional: the variables and their order
    parameters: p                  # optional: names that are parameters, not unknowns
    x + 3 - p; y + 1               # polynomials, one per line or ';'-separated

* ``variables:`` declares the unknowns and their order; the ambient space is C^n with n the
  number declared, so a variable may occur in no polynomial (``x + 3; y + 1`` with
  ``variables: x, y, z, t`` is a plane in C^4). Every other name a polynomial uses must then be
  a parameter.
* Without ``variables:`` the unknowns are the names used that are not parameters, in natural
  order (x2 before x10: ``system.natural_key``), never in order of first appearance.
* ``parameters:`` declares names the polynomials may use as parameters of a family F(x; p)
  (parameter homotopies); ``SystemFile.specialize`` substitutes values.
* Headers come before the first polynomial, each at most once. A header line is the only
  place a ':' may appear.

Coefficients are read exactly (``Fraction``: ``1.5e-3``, ``-3/7``, 50-digit decimals); floats
appear only for complex coefficients (``2.5*i``) and float parameter values.

Every problem is a ``SystemFileError`` (a ValueError) with a one-line message naming the source,
the line and the problem.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .system import (NAME, RESERVED_NAMES, PolynomialSyntaxError, PolynomialSystem,
                     names_in, natural_key)

HEADERS = ("variables", "parameters")
_HEADER = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*:(.*)$")


class SystemFileError(ValueError):
    """A system file that cannot be read; the message is one line naming source and line."""


@dataclass(frozen=True)
class SystemFile:
    """A parsed system file.

    Attributes
    ----------
    system : PolynomialSystem
        The polynomials over ``variables + parameters`` (in that order): F(x; p) is
        ``system.evaluate(np.hstack([X, P]))`` for X (k, n) and P (k, len(parameters)).
    variables : tuple of str
        The unknowns, in the declared order or natural order.
    parameters : tuple of str
        The declared parameters (possibly unused), in declared order.
    declared : bool
        True when the variables came from a ``variables:`` header.
    source : str
        The file name ('<stdin>' or '<string>' otherwise), for messages.
    """

    system: PolynomialSystem
    variables: tuple[str, ...]
    parameters: tuple[str, ...]
    declared: bool
    source: str

    @property
    def n_vars(self) -> int:
        return len(self.variables)

    def specialize(self, values: Mapping[str, object] | None = None) -> PolynomialSystem:
        """The system in the variables with every parameter replaced by its value.

        Parameters
        ----------
        values : mapping of str to number, optional
            A value for each parameter: int / Fraction / exact string (kept exact), float or
            complex. May be omitted when there are no parameters.

        Returns
        -------
        PolynomialSystem in ``variables``.

        Raises
        ------
        SystemFileError
            A parameter without a value, a value for a name that is not a parameter, or a value
            that is not a finite number.
        """
        values = dict(values or {})
        missing = [p for p in self.parameters if p not in values]
        extra = sorted(set(values) - set(self.parameters), key=natural_key)
        if missing:
            raise SystemFileError(f"{self.source}: no value for the parameter(s) "
                                  f"{', '.join(missing)}")
        if extra:
            known = ", ".join(self.parameters) or "none"
            raise SystemFileError(f"{self.source}: {', '.join(extra)} is not a declared "
                                  f"parameter (parameters: {known})")
        if not self.parameters:
            return self.system
        try:
            return self.system.substitute(values)
        except ValueError as err:
            raise SystemFileError(f"{self.source}: {err}") from None

    def to_json(self) -> dict:
        return {"variables": list(self.variables), "parameters": list(self.parameters),
                "polynomials": self.system.to_strings(), "source": self.source}


def read_system_file(path: str) -> SystemFile:
    """Read a system file ('-' reads stdin). Raises SystemFileError (also for a file that is not
    UTF-8 text) and OSError for a file that cannot be opened."""
    if path == "-":
        return parse_system_text(sys.stdin.read(), "<stdin>")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SystemFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
                              ) from None
    return parse_system_text(text, path)


def parse_system_text(text: str, source: str = "<string>") -> SystemFile:
    """Parse the text of a system file (format: module docstring). Raises SystemFileError."""
    headers: dict[str, tuple[int, tuple[str, ...]]] = {}
    polys: list[tuple[int, str]] = []            # (line number, polynomial text)
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{source}, line {lineno}"
        if ":" in line:
            name, names = _header(line, where, headers, polys)
            headers[name] = (lineno, names)
            continue
        polys += [(lineno, p.strip()) for p in line.split(";") if p.strip()]
    if not polys:
        raise SystemFileError(f"{source}: no polynomials found")
    params = headers.get("parameters", (0, ()))
    declared = headers.get("variables")
    _check_disjoint(declared, params, source)
    variables = declared[1] if declared else _natural_variables(polys, params[1], source)
    _check_names_declared(polys, variables, params[1], source, declared is not None)
    try:
        F = PolynomialSystem.from_strings([p for _, p in polys],
                                          variables=list(variables) + list(params[1]))
    except PolynomialSyntaxError as err:
        raise SystemFileError(f"{source}, line {polys[err.index][0]}: {err.one_line()}"
                              ) from None
    return SystemFile(F, tuple(variables), params[1], declared is not None, source)


def _header(line: str, where: str, seen: dict, polys: list) -> tuple[str, tuple[str, ...]]:
    m = _HEADER.match(line)
    if m is None:
        raise SystemFileError(f"{where}: ':' is allowed only in a header line such as "
                              f"'variables: x, y' or 'parameters: p'")
    name, rest = m.group(1), m.group(2)
    if name not in HEADERS:
        raise SystemFileError(f"{where}: unknown header '{name}:' (known headers: "
                              f"{', '.join(h + ':' for h in HEADERS)})")
    if name in seen:
        raise SystemFileError(f"{where}: second '{name}:' header (the first is on line "
                              f"{seen[name][0]})")
    if polys:
        raise SystemFileError(f"{where}: header '{name}:' after the first polynomial "
                              f"(line {polys[0][0]}); headers come first")
    entries = [e.strip() for e in rest.split(",")]
    if entries == [""]:
        raise SystemFileError(f"{where}: '{name}:' declares no names")
    if "" in entries:
        raise SystemFileError(f"{where}: empty name in '{name}:' (a stray comma?)")
    for e in entries:
        if not NAME.fullmatch(e):
            raise SystemFileError(f"{where}: {e!r} in '{name}:' is not a name (letters, "
                                  f"digits and '_', not starting with a digit)")
        if e in RESERVED_NAMES:
            raise SystemFileError(f"{where}: {e!r} in '{name}:' is reserved (the imaginary "
                                  f"unit i, I)")
    dup = next((e for k, e in enumerate(entries) if e in entries[:k]), None)
    if dup is not None:
        raise SystemFileError(f"{where}: {dup!r} is declared twice in '{name}:'")
    return name, tuple(entries)


def _check_disjoint(declared, params, source: str) -> None:
    if declared is None:
        return
    both = [v for v in declared[1] if v in params[1]]
    if both:
        raise SystemFileError(f"{source}: {both[0]!r} is declared both as a variable (line "
                              f"{declared[0]}) and as a parameter (line {params[0]})")


def _used_names(polys: list[tuple[int, str]], source: str) -> list[tuple[int, str]]:
    """(line, name) for every name the polynomials use, first occurrence first."""
    out: list[tuple[int, str]] = []
    seen: set[str] = set()
    for k, (lineno, text) in enumerate(polys):
        try:
            names = names_in(text, k)
        except PolynomialSyntaxError as err:
            raise SystemFileError(f"{source}, line {lineno}: {err.one_line()}") from None
        for v in names:
            if v not in seen:
                seen.add(v)
                out.append((lineno, v))
    return out


def _natural_variables(polys, params: tuple[str, ...], source: str) -> tuple[str, ...]:
    names = [v for _, v in _used_names(polys, source) if v not in params]
    if not names:
        raise SystemFileError(f"{source}: the polynomials use no variable (only parameters "
                              f"or constants)")
    return tuple(sorted(names, key=natural_key))


def _check_names_declared(polys, variables, params, source: str, declared: bool) -> None:
    if not declared:
        return
    for lineno, v in _used_names(polys, source):
        if v not in variables and v not in params:
            known = f"variables: {', '.join(variables)}"
            if params:
                known += f"; parameters: {', '.join(params)}"
            raise SystemFileError(f"{source}, line {lineno}: {v!r} is not declared ({known})")
