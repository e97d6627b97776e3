"""Argument types and output helpers shared by the subcommands."""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..architecture import Architecture


def int_list(text: str) -> list[int]:
    """'3,2,3' -> [3, 2, 3] (argparse type; a clear message on bad input)."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")


def add_architecture_arguments(p: argparse.ArgumentParser, softmax: bool = True,
                               required: bool = True) -> None:
    p.add_argument("--widths", type=int_list, required=required, metavar="D0,D1,...",
                   help="widths d_0,...,d_l (d_0 = token dimension)")
    p.add_argument("--ranks", type=int_list, required=required, metavar="A1,...",
                   help="attention ranks a_1,...,a_l")
    p.add_argument("--tokens", type=int, default=2, metavar="T",
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
