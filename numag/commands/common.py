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


ARCHS = ("attention", "multihead", "pnn")


def add_architecture_arguments(p: argparse.ArgumentParser, softmax: bool = True,
                               required: bool = True) -> None:
    p.add_argument("--arch", choices=ARCHS, default="attention",
                   help="attention (lightning, or --softmax; default), multihead (lightning heads "
                        "summed, --heads H) or pnn (polynomial network, --activation-degree r)")
    p.add_argument("--widths", type=int_list, required=required, metavar="D0,D1,...",
                   help="widths d_0,...,d_l (d_0 = token or input dimension)")
    p.add_argument("--ranks", type=int_list, default=None, metavar="A1,...",
                   help="attention ranks a_1,...,a_l (attention and multihead; a pnn has none)")
    p.add_argument("--tokens", type=positive_int, default=2, metavar="T",
                   help="tokens per input t (attention; default 2; t = 1 is degenerate)")
    p.add_argument("--heads", type=positive_int, default=None, metavar="H",
                   help="heads per layer (--arch multihead)")
    p.add_argument("--activation-degree", type=positive_int, default=None, metavar="R",
                   help="activation x ↦ x^r after every layer but the last (--arch pnn; "
                        "default 2)")
    p.add_argument("--bias", action="store_true", help="a bias in every layer (--arch pnn)")
    if softmax:
        p.add_argument("--softmax", action="store_true",
                       help="normalized (softmax) attention instead of lightning")


def architecture_from(args: argparse.Namespace) -> Architecture:
    """The Architecture the options describe.

    Raises:
        ValueError: a missing or misplaced option for the chosen --arch (named).
    """
    arch = getattr(args, "arch", "attention")
    softmax = getattr(args, "softmax", False)
    heads, degree = getattr(args, "heads", None), getattr(args, "activation_degree", None)
    bias = getattr(args, "bias", False)
    if arch != "pnn" and (degree is not None or bias):
        raise ValueError("--activation-degree and --bias are options of --arch pnn")
    if arch != "multihead" and heads is not None:
        raise ValueError("--heads is an option of --arch multihead")
    if arch == "pnn":
        if args.ranks is not None:
            raise ValueError("a polynomial network (--arch pnn) has no attention ranks: drop "
                             "--ranks")
        if softmax or args.tokens not in (1, 2):
            raise ValueError("--softmax and --tokens are options of attention, not of --arch pnn")
        return Architecture.pnn(tuple(args.widths), degree or 2, bias)
    if args.ranks is None:
        raise ValueError(f"--arch {arch} needs --ranks A1,... (one attention rank per layer)")
    if arch == "multihead":
        if heads is None:
            raise ValueError("--arch multihead needs --heads H")
        if softmax:
            raise ValueError("multi-head attention is lightning only here: drop --softmax")
        return Architecture.multihead(tuple(args.widths), tuple(args.ranks), heads, args.tokens)
    kind = "softmax" if softmax else "lightning"
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
