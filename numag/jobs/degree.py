"""The `degree` job: deg M, the degree of the Zariski closure of a neuromanifold (numag.degree),
for an architecture given by its family, widths, ranks, tokens, heads, activation degree and
bias (numag.jobs.architecture)."""
from __future__ import annotations

from dataclasses import dataclass

from ..architecture import Architecture
from ..degree import DegreeResult, Form, degree
from ..options import Bound, option, validate
from .architecture import (Family, activation_degree_option, architecture_of, bias_option,
                           family_option, heads_option)


@dataclass(frozen=True)
class DegreeOptions:
    """Options of the `degree` job (the flags of `numag degree`).

    Examples
    --------
    >>> print(DegreeOptions(widths="2,2", ranks=[1]).architecture())
    lightning 2,2:1 (t=2)
    >>> DegreeOptions(widths=[2, 2], ranks=[1], softmax=True)
    Traceback (most recent call last):
    ...
    ValueError: softmax attention is not polynomial, so its neuromanifold has no degree; use lightning attention
    """

    widths: tuple[int, ...] = option(help="widths d_0, ..., d_l (d_0 = token or input "
                                          "dimension)")
    ranks: tuple[int, ...] | None = option(None, help="attention ranks a_1, ..., a_l (attention "
                                                      "and multihead; a pnn has none)")
    tokens: int = option(2, bound=Bound(1), help="tokens per input t (attention; t = 1 is "
                                                 "degenerate)")
    softmax: bool = option(False, help="normalized (softmax) attention: refused (not "
                                       "polynomial, no degree)")
    seed: int = option(0, bound=Bound(0), help="seed of every random choice")
    timeout: float | None = option(None, bound=Bound(0, strict=True, inf_is_none=True),
                                   help="seconds of monodromy; when reached the degree is "
                                        "undecided (default and inf: no limit)")
    max_loops: int = option(100, bound=Bound(1), help="monodromy loop budget")
    form: Form = option(Form.EXPANDED,
                        help="how the coordinates are evaluated: 'expanded' polynomials, or "
                            "'program': the forward pass at inputs proved injective (exact "
                            "rank over F_p; numag.degree_program)")
    arch: Family = family_option()
    heads: int | None = heads_option()
    activation_degree: int | None = activation_degree_option()
    bias: bool = bias_option()

    def __post_init__(self) -> None:
        validate(self)
        if self.architecture().kind == "softmax":
            raise ValueError("softmax attention is not polynomial, so its neuromanifold has no "
                             "degree; use lightning attention")

    def architecture(self) -> Architecture:
        """The architecture the options describe (numag.jobs.architecture.architecture_of)."""
        return architecture_of(self, softmax=self.softmax)


def run_degree(options: DegreeOptions, progress: bool | None = None) -> DegreeResult:
    """numag.degree for `options`.

    Examples
    --------
    >>> r = run_degree(DegreeOptions(widths=(2, 1), ranks=(1,)))
    >>> r.degree, r.closed_form.value, r.certified      # closed form: paper-notes §10
    (3, 3, True)
    """
    return degree(options.architecture(), seed=options.seed, timeout=options.timeout,
                  max_loops=options.max_loops, progress=progress, form=options.form)
