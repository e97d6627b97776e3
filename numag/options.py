"""Options of numag's jobs: typed, range-checked dataclass fields, one rule per option.

A job's options are a frozen dataclass whose fields are declared with `option(...)` (a default,
a range, whether it names an input file, a help text) and whose `__post_init__` calls
`validate(self)`. The one declaration serves every caller:

* the library: constructing the options checks and normalizes every value (a list becomes a
  tuple, "3,2" becomes (3, 2), a string becomes the enum member) or raises `OptionError`;
* the sweep: `from_mapping(cls, {"widths": [3, 2], ...})` takes a task's JSON options, refusing
  unknown keys by name;
* the command line: `cli_type(cls, name)` is the argparse `type=` of the option's flag, so a bad
  value is reported by argparse as `argument --seed: must be >= 0, got -1`.

An `OptionError` names options by field; `str(exc)` says `option 'seed': ...`, and the command
line renders the same error with its flags (`exc.render(flag)`), so library messages never
name a command-line flag.
"""
from __future__ import annotations

import argparse
import dataclasses
import enum
import math
import numbers
import types
import typing
from typing import Any, Callable, Mapping


class OptionError(ValueError):
    """A bad option value or combination, naming the options by field.

    Parameters
    ----------
    template : str
        The message, with a placeholder {name} for each option it names.
    *names : str
        The option names of the placeholders.

    Examples
    --------
    >>> e = OptionError("give {widths} and {ranks}", "widths", "ranks")
    >>> str(e)
    "give option 'widths' and option 'ranks'"
    >>> e.render(lambda name: "--" + name)
    'give --widths and --ranks'
    """

    def __init__(self, template: str, *names: str):
        self.template, self.names = template, names
        super().__init__(self.render(lambda name: f"option {name!r}"))

    def render(self, name: Callable[[str], str]) -> str:
        """The message with each option written as name(option)."""
        return self.template.format(**{n: name(n) for n in self.names})


@dataclasses.dataclass(frozen=True)
class Bound:
    """A range for a number: >= low (> low if strict), and < high when high is given."""

    low: float
    high: float | None = None
    strict: bool = False
    inf_is_none: bool = False      # inf is accepted and means None ("no limit": a timeout)

    @property
    def rule(self) -> str:
        if self.high is None:
            none = " (or inf: no limit)" if self.inf_is_none else ""
            return f"{'>' if self.strict else '>='} {self.low}{none}"
        return f"in {'(' if self.strict else '['}{self.low}, {self.high})"

    def holds(self, value: float) -> bool:
        return math.isfinite(value) and (value > self.low if self.strict else
                                          value >= self.low) and (
            self.high is None or value < self.high)


def option(default: Any = dataclasses.MISSING, *, bound: Bound | None = None,
           file: bool = False, help: str = "") -> Any:
    """A dataclass field of a job's options.

    Parameters
    ----------
    default : optional
        The default (no default: the option is required).
    bound : Bound, optional
        Range of a number (checked when the value is not None).
    file : bool
        The value is the path of an input file (the sweep resolves it and keys tasks by the
        file's content).
    help : str
        What the option means (the command line's help text may say more).
    """
    meta = {"bound": bound, "file": file, "help": help}
    return dataclasses.field(default=default, metadata=meta)


def validate(obj: Any) -> None:
    """Normalize and check every field of a frozen options dataclass in place (its
    __post_init__ calls this).

    Raises
    ------
    OptionError
        A value of the wrong type, out of its range, or not one of an enum's values.
    """
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value = coerce(f.name, hints[f.name], getattr(obj, f.name))
        bound = f.metadata.get("bound")
        value = _inf_to_none(bound, value)
        if bound is not None and value is not None and not bound.holds(value):
            raise OptionError(f"{{{f.name}}}: must be {bound.rule}, got {value}", f.name)
        object.__setattr__(obj, f.name, value)


def coerce(name: str, kind: Any, value: Any) -> Any:
    """`value` as the field type `kind` (int, float, bool, str, tuple[int, ...], an enum, or
    any of these | None); raises OptionError naming the option."""
    optional = _optional(kind)
    kind = _strip_none(kind)
    where = "{" + name + "}"
    if value is None:
        if optional:
            return None
        raise OptionError(f"{where}: a value is required", name)
    if kind is bool:
        if not isinstance(value, bool):
            raise OptionError(f"{where}: a flag: true or false, got {value!r}", name)
        return value
    if isinstance(value, bool):
        raise OptionError(f"{where}: takes a value, got {value!r}", name)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        try:
            return kind(value)
        except ValueError:
            choices = ", ".join(repr(m.value) for m in kind)
            raise OptionError(f"{where}: invalid choice: {value!r} (choose from {choices})",
                              name) from None
    if kind is int:
        if not isinstance(value, numbers.Integral):
            raise OptionError(f"{where}: expected an integer, got {value!r}", name)
        return int(value)
    if kind is float:
        if not isinstance(value, numbers.Real):
            raise OptionError(f"{where}: expected a number, got {value!r}", name)
        return float(value)
    if kind is str:
        if not isinstance(value, str):
            raise OptionError(f"{where}: expected a string, got {value!r}", name)
        return value
    if typing.get_origin(kind) is tuple:
        return _int_tuple(name, value)
    raise TypeError(f"option {name!r}: unsupported field type {kind!r}")


def _optional(kind: Any) -> bool:
    return typing.get_origin(kind) in (typing.Union, types.UnionType) and \
        type(None) in typing.get_args(kind)


def _strip_none(kind: Any) -> Any:
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        rest = [k for k in typing.get_args(kind) if k is not type(None)]
        return rest[0] if len(rest) == 1 else kind
    return kind


def _int_tuple(name: str, value: Any) -> tuple[int, ...]:
    """A list of integers, or comma-separated integers such as '3,2,3', as a tuple."""
    where = "{" + name + "}"
    if isinstance(value, str):
        parts = [x.strip() for x in value.split(",")]
        if "" in parts:
            raise OptionError(f"{where}: empty entry in {value!r} (expected comma-separated "
                              f"integers such as 3,2,3)", name)
        try:
            return tuple(int(x) for x in parts)
        except ValueError:
            raise OptionError(f"{where}: expected comma-separated integers, got {value!r}",
                              name) from None
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in value):
        raise OptionError(f"{where}: expected a list of integers, got {value!r}", name)
    return tuple(int(x) for x in value)


def fields_of(cls: type) -> dict[str, dataclasses.Field]:
    """The options of `cls` by name."""
    return {f.name: f for f in dataclasses.fields(cls)}


def required(cls: type) -> list[str]:
    """Options without a default."""
    return [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING]


def file_options(cls: type) -> list[str]:
    """Options that name input files."""
    return [f.name for f in dataclasses.fields(cls) if f.metadata.get("file")]


def list_options(cls: type) -> list[str]:
    """Options that take a list per task (tuple fields such as widths)."""
    hints = typing.get_type_hints(cls)
    return [n for n in fields_of(cls) if typing.get_origin(_strip_none(hints[n])) is tuple]


def from_mapping(cls: type, values: Mapping[str, Any]) -> Any:
    """Options of `cls` from a JSON-like mapping (a sweep task); '-' in keys reads as '_'.

    Raises
    ------
    OptionError
        An unknown key (named, with the known ones), a missing required option, a bad value.
    """
    values = {str(k).replace("-", "_"): v for k, v in values.items()}
    known = fields_of(cls)
    for name in values:
        if name not in known:
            raise OptionError(f"unknown option {name!r} (options: {', '.join(sorted(known))})")
    missing = [n for n in required(cls) if values.get(n) is None]
    if missing:
        raise OptionError(f"missing option(s) {', '.join(map(repr, missing))}")
    for name, value in values.items():
        if isinstance(value, dict):
            raise OptionError(f"{{{name}}}: must be a number, string or list, got an object",
                              name)
    return cls(**{k: v for k, v in values.items() if v is not None})


def to_json(options: Any) -> dict:
    """The options as JSON values (tuples as lists, enums as their values)."""
    def conv(v):
        if isinstance(v, enum.Enum):
            return v.value
        if isinstance(v, (tuple, list)):
            return [conv(x) for x in v]
        return v
    return {f.name: conv(getattr(options, f.name)) for f in dataclasses.fields(options)}


def cli_type(cls: type, name: str) -> Callable[[str], Any]:
    """argparse `type=` for option `name` of `cls`: parses the text by the field's type and
    checks its range, so argparse reports `argument --NAME: <problem>`."""
    f = fields_of(cls)[name]
    kind = _strip_none(typing.get_type_hints(cls)[name])
    bound = f.metadata.get("bound")

    def parse(text: str) -> Any:
        try:
            value = _parse_text(kind, text)
            value = coerce(name, kind, value)
        except OptionError as exc:
            raise argparse.ArgumentTypeError(exc.render(lambda n: "").lstrip(": ")) from None
        value = _inf_to_none(bound, value)
        if value is None:
            return None
        if bound is not None and not bound.holds(value):
            raise argparse.ArgumentTypeError(f"must be {bound.rule}, got {text}")
        return value

    parse.__name__ = getattr(kind, "__name__", name)
    return parse


def _inf_to_none(bound: Bound | None, value: Any) -> Any:
    """+inf for a bound with ``inf_is_none`` (``--timeout inf``: no budget) -> None."""
    if bound is not None and bound.inf_is_none and isinstance(value, float) and value == math.inf:
        return None
    return value


def _parse_text(kind: Any, text: str) -> Any:
    noun = {int: "an integer", float: "a number"}.get(kind)
    if noun is None:
        return text                             # str, enums and comma lists parse from text
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
