"""Argument helpers and output helpers shared by the subcommands.

A job's flags are declared from its options dataclass (numag.options): `add_option` takes the
type, range, choices, default and help of the field, so the command line and the sweep apply one
rule per option; `options_from_args` builds the options from the parsed flags.
"""
from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import re
import sys
import typing
from typing import Any, Callable

from ..io import strict_json
from ..options import Bound, cli_type, fields_of


def bounded(kind: type, low: float, high: float | None = None,
            strict: bool = False) -> Callable[[str], Any]:
    """argparse type for options that belong to no job (reproduce, sweep): a finite `kind`
    (int or float) in the Bound(low, high, strict).

    argparse puts the option's name in front of the message: 'argument --seed: must be >= 0'.
    """
    bound = Bound(low, high, strict)
    noun = "an integer" if kind is int else "a number"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
        if not bound.holds(value):
            raise argparse.ArgumentTypeError(f"must be {bound.rule}, got {text}")
        return value

    parse.__name__ = f"{kind.__name__} {bound.rule}"
    return parse


nonnegative_int = bounded(int, 0)       # seeds


def flag(name: str) -> str:
    """The command-line flag of an option: 'min_margin' -> '--min-margin'."""
    return "--" + name.replace("_", "-")


def cli_text(text: str) -> str:
    """A library message with its options named as flags: "option 'digits'" -> "--digits"."""
    return re.sub(r"option '(\w+)'", lambda m: flag(m.group(1)), text)


def add_option(p: argparse.ArgumentParser, cls: type, name: str, *flags: str,
               positional: bool = False, **kwargs: Any) -> None:
    """A flag (or positional argument) for option `name` of the options dataclass `cls`.

    Type, range, enum choices, default (shown in the help) and help text come from the field;
    `kwargs` (metavar, a longer help, ...) are passed to add_argument. An option left out on the
    command line is absent from the namespace, so the dataclass's default applies.
    """
    f = fields_of(cls)[name]
    kind = typing.get_type_hints(cls)[name]
    default = f.default
    help_text = kwargs.pop("help", f.metadata.get("help", ""))
    if not any(default is x for x in (dataclasses.MISSING, None, False)):
        help_text += f" (default {getattr(default, 'value', default)})"
    if positional:
        p.add_argument(name, type=cli_type(cls, name), help=help_text, **kwargs)
        return
    spec: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS, "help": help_text}
    if kind is bool:
        spec["action"] = "store_true"
    else:
        spec["type"] = cli_type(cls, name)
        base = next((k for k in typing.get_args(kind) or (kind,) if isinstance(k, type) and
                     issubclass(k, enum.Enum)), None)
        if base is not None:
            spec["choices"] = list(base)
            spec.setdefault("metavar", "{" + ",".join(m.value for m in base) + "}")
    spec["required"] = f.default is dataclasses.MISSING
    spec.update(kwargs)
    p.add_argument(*(flags or (flag(name),)), **spec)


def add_architecture_options(p: argparse.ArgumentParser, cls: type) -> None:
    """--arch, --widths, --ranks, --tokens, --heads, --activation-degree, --bias of a job whose
    options describe an architecture (numag.jobs.architecture)."""
    add_option(p, cls, "arch")
    add_option(p, cls, "widths", metavar="D0,D1,...")
    add_option(p, cls, "ranks", metavar="A1,...")
    add_option(p, cls, "tokens", metavar="T")
    add_option(p, cls, "heads", metavar="H")
    add_option(p, cls, "activation_degree", metavar="R")
    add_option(p, cls, "bias")


def options_from_args(cls: type, args: argparse.Namespace) -> Any:
    """The options dataclass from the parsed flags (absent flags take the field defaults)."""
    return cls(**{n: getattr(args, n) for n in fields_of(cls) if hasattr(args, n)})


def print_json(obj: Any) -> None:
    """One strict JSON object on stdout."""
    json.dump(strict_json(obj), sys.stdout, indent=2, default=str, allow_nan=False)
    sys.stdout.write("\n")


def table(rows: list[tuple[str, Any]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)
