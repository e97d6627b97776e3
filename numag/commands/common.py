"""Argument types and output helpers shared by the subcommands."""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Callable

from ..architecture import Architecture


def int_list(text: str) -> list[int]:
    """'3,2,3' -> [3, 2, 3] (argparse type; a clear message on bad input, e.g. an empty entry)."""
    parts = [x.strip() for x in text.split(",")]
    if "" in parts:
        raise argparse.ArgumentTypeError(f"empty entry in {text!r} (expected comma-separated "
                                         f"integers such as 3,2,3)")
    try:
        return [int(x) for x in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")


def bounded(kind: type, low: float, high: float | None = None,
            strict: bool = False) -> Callable[[str], Any]:
    """argparse type: a finite `kind` (int or float) >= low (> low if strict), < high if given.

    argparse puts the option's name in front of the message: 'argument --seed: must be >= 0'.
    """
    noun = "an integer" if kind is int else "a number"
    rule = (f"{'>' if strict else '>='} {low}" if high is None
            else f"in {'(' if strict else '['}{low}, {high})")

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
        ok = math.isfinite(value) and (value > low if strict else value >= low) and (
            high is None or value < high)
        if not ok:
            raise argparse.ArgumentTypeError(f"must be {rule}, got {text}")
        return value

    parse.__name__ = f"{kind.__name__} {rule}"
    return parse


nonnegative_int = bounded(int, 0)       # seeds
positive_int = bounded(int, 1)
positive_float = bounded(float, 0, strict=True)   # seconds


def add_architecture_arguments(p: argparse.ArgumentParser, softmax: bool = True,
                               required: bool = True) -> None:
    p.add_argument("--widths", type=int_list, required=required, metavar="D0,D1,...",
                   help="widths d_0,...,d_l (d_0 = token dimension)")
    p.add_argument("--ranks", type=int_list, required=required, metavar="A1,...",
                   help="attention ranks a_1,...,a_l")
    p.add_argument("--tokens", type=positive_int, default=2, metavar="T",
                   help="tokens per input t (default 2; t = 1 is degenerate)")
    if softmax:
        p.add_argument("--softmax", action="store_true",
                       help="normalized (softmax) attention instead of lightning")


def architecture_from(args: argparse.Namespace) -> Architecture:
    kind = "softmax" if getattr(args, "softmax", False) else "lightning"
    return Architecture(tuple(args.widths), tuple(args.ranks), args.tokens, kind)


def strict_json(obj: Any) -> Any:
    """Replace non-finite floats (not valid JSON) by the strings "inf", "-inf", "nan"."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if obj != obj else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict_json(v) for v in obj]
    return obj


def print_json(obj: Any) -> None:
    """One strict JSON object on stdout."""
    json.dump(strict_json(obj), sys.stdout, indent=2, default=str, allow_nan=False)
    sys.stdout.write("\n")


def table(rows: list[tuple[str, Any]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)
