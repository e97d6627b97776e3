"""The `dim` job: dim M of an architecture given by its family, widths, ranks, tokens, heads,
activation degree and bias (numag.jobs.architecture)."""
from __future__ import annotations

from dataclasses import dataclass

from ..architecture import Architecture
from ..dimension import DimensionResult, Method, dimension
from ..options import Bound, option, validate
from ..rank import MAX_DIGITS, MIN_DIGITS, RankOptions
from .architecture import (Family, activation_degree_option, architecture_of, bias_option,
                           family_option, heads_option)


@dataclass(frozen=True)
class DimOptions:
    """Options of the `dim` job (the flags of `numag dim`, the keys of a sweep's dim task).

    Examples
    --------
    >>> print(DimOptions(widths="3,2", ranks=[1]).architecture())
    lightning 3,2:1 (t=2)
    >>> DimOptions(widths=[3, 2, 1], arch="pnn").architecture().n_params
    8
    >>> DimOptions(widths=[3, 2], ranks=[1], heads=2)
    Traceback (most recent call last):
    ...
    numag.options.OptionError: option 'heads' is an option of option 'arch' multihead
    """

    widths: tuple[int, ...] = option(help="widths d_0, ..., d_l (d_0 = token or input "
                                          "dimension)")
    ranks: tuple[int, ...] | None = option(None, help="attention ranks a_1, ..., a_l (attention "
                                                      "and multihead; a pnn has none)")
    tokens: int = option(2, bound=Bound(1), help="tokens per input t (attention; t = 1 is "
                                                 "degenerate)")
    softmax: bool = option(False, help="normalized (softmax) attention instead of lightning")
    method: Method | None = option(None, help="exact (F_p), mp or float; default exact for "
                                               "the polynomial kinds, mp for softmax")
    seed: int = option(0, bound=Bound(0), help="seed of every random choice")
    trials: int | None = option(None, bound=Bound(1), help="random points (default up to 3)")
    inputs: int | None = option(None, bound=Bound(1), help="number of inputs N (default: grown "
                                                           "until the rank saturates)")
    digits: int = option(50, bound=Bound(MIN_DIGITS, MAX_DIGITS + 1),
                         help="mpmath digits of method mp")
    arch: Family = family_option()
    heads: int | None = heads_option()
    activation_degree: int | None = activation_degree_option()
    bias: bool = bias_option()

    def __post_init__(self) -> None:
        validate(self)
        self.architecture()                  # sizes, ranks against widths: an input error now

    def architecture(self) -> Architecture:
        """The architecture the options describe (numag.jobs.architecture.architecture_of)."""
        return architecture_of(self, softmax=self.softmax)


def run_dim(options: DimOptions, progress: bool | None = None) -> DimensionResult:
    """numag.dimension for `options` (mpmath at options.digits for method 'mp').

    Examples
    --------
    >>> r = run_dim(DimOptions(widths=(3, 3, 3), ranks=(1, 2)))
    >>> r.dimension, r.predicted.value, r.certified      # the rank-1 theorem (paper-notes §3.1)
    (18, 18, True)
    """
    arch = options.architecture()
    method = options.method or (Method.EXACT if arch.polynomial else Method.MP)
    rank = RankOptions(options.digits) if method is Method.MP else None
    return dimension(arch, method=method, seed=options.seed, trials=options.trials,
                     n_inputs=options.inputs, rank_options=rank, progress=progress)
