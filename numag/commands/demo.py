"""`numag demo`: the main job on built-in defaults (see README)."""
from __future__ import annotations

import argparse

from ..architecture import Architecture
from ..dimension import dimension
from .dim import render

NAME = "demo"
HELP = "run the main jobs on built-in default examples"

EXAMPLES = [
    (Architecture((3, 2), (1,)), "exact"),
    (Architecture((4, 4, 4), (2, 2)), "exact"),
    (Architecture((3, 3, 3), (1, 2)), "exact"),      # the rank-1 caveat: reported, not hidden
    (Architecture((3, 3, 3), (2, 2), 3, "softmax"), "mp"),
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    for arch, method in EXAMPLES:
        print(f"$ numag dim --widths {','.join(map(str, arch.widths))} "
              f"--ranks {','.join(map(str, arch.ranks))} --tokens {arch.tokens}"
              + (" --softmax" if arch.kind == "softmax" else "") + f" --method {method}")
        print(render(dimension(arch, method=method, seed=args.seed)))
        print()
    return 0
