"""The `dim` job: dim M of an architecture given by widths, ranks, tokens and kind."""
from __future__ import annotations

from dataclasses import dataclass

from ..architecture import Architecture
from ..dimension import DimensionResult, Method, dimension
from ..options import Bound, option, validate
from ..rank import MIN_DIGITS, RankOptions


@dataclass(frozen=True)
class DimOptions:
    """Options of the `dim` job (the flags of `numag dim`, the keys of a sweep's dim task).

    Examples
    --------
    >>> DimOptions(widths="3,2", ranks=[1]).architecture()
    Architecture(widths=(3, 2), ranks=(1,), tokens=2, kind='lightning')
    """

    widths: tuple[int, ...] = option(help="widths d_0, ..., d_l (d_0 = token dimension)")
    ranks: tuple[int, ...] = option(help="attention ranks a_1, ..., a_l")
    tokens: int = option(2, bound=Bound(1), help="tokens per input t (t = 1 is degenerate)")
    softmax: bool = option(False, help="normalized (softmax) attention instead of lightning")
    method: Method | None = option(None, help="exact (F_p), mp or float; default exact for "
                                               "lightning, mp for softmax")
    seed: int = option(0, bound=Bound(0), help="seed of every random choice")
    trials: int | None = option(None, bound=Bound(1), help="random points (default up to 3)")
    inputs: int | None = option(None, bound=Bound(1), help="number of inputs N (default: grown "
                                                           "until the rank saturates)")
    digits: int = option(50, bound=Bound(MIN_DIGITS), help="mpmath digits of method mp")

    def __post_init__(self) -> None:
        validate(self)
        self.architecture()                  # sizes, ranks against widths: an input error now

    def architecture(self) -> Architecture:
        return Architecture(self.widths, self.ranks, self.tokens,
                            "softmax" if self.softmax else "lightning")


def run_dim(options: DimOptions, progress: bool | None = None) -> DimensionResult:
    """numag.dimension for `options` (mpmath at options.digits for method 'mp').

    Examples
    --------
    >>> r = run_dim(DimOptions(widths=(3, 3, 3), ranks=(1, 2)))
    >>> r.dimension, r.predicted.value          # the rank-1 caveat (paper-notes §3)
    (18, 20)
    """
    arch = options.architecture()
    method = options.method or (Method.MP if arch.kind == "softmax" else Method.EXACT)
    rank = RankOptions(options.digits) if method is Method.MP else None
    return dimension(arch, method=method, seed=options.seed, trials=options.trials,
                     n_inputs=options.inputs, rank_options=rank, progress=progress)
