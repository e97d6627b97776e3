"""The architecture options shared by the `dim` and `fiber` jobs: one declaration per option.

`arch` chooses the family (attention, multihead, pnn); `heads` belongs to multihead,
`activation_degree` and `bias` to pnn, `ranks` to the attention families. The fields are
declared here once (`family_option`, `heads_option`, ...) and used by both jobs' options
dataclasses, so the command-line flags and the sweep keys of both come from the same
declarations; `architecture_of` checks the combination and builds the numag.Architecture.
"""
from __future__ import annotations

import enum
from typing import Any

from ..architecture import Architecture
from ..options import Bound, OptionError, option


class Family(enum.StrEnum):
    """The family of an architecture (option 'arch'; numag.architecture has the kinds)."""

    ATTENTION = "attention"      # lightning self-attention, or softmax (option 'softmax')
    MULTIHEAD = "multihead"      # H lightning heads per layer, summed (paper-notes §8)
    PNN = "pnn"                  # polynomial network, activation x ↦ x^r (paper-notes §9)


def family_option() -> Any:
    return option(Family.ATTENTION, help="attention (lightning, or softmax), multihead "
                                         "(lightning heads summed, with heads) or pnn "
                                         "(polynomial network, with activation_degree)")


def heads_option() -> Any:
    return option(None, bound=Bound(1), help="heads per layer (arch multihead)")


def activation_degree_option() -> Any:
    return option(None, bound=Bound(1), help="activation x ↦ x^r after every layer but the "
                                             "last (arch pnn; default 2)")


def bias_option() -> Any:
    return option(False, help="a bias in every layer (arch pnn)")


def check_family_options(o: Any) -> None:
    """Refuse an option of another family (heads without multihead, activation_degree or bias
    without pnn).

    Raises
    ------
    OptionError
        Naming the misplaced option and the family it belongs to.
    """
    if o.arch is not Family.PNN and (o.activation_degree is not None or o.bias):
        raise OptionError("{activation_degree} and {bias} are options of {arch} pnn",
                          "activation_degree", "bias", "arch")
    if o.arch is not Family.MULTIHEAD and o.heads is not None:
        raise OptionError("{heads} is an option of {arch} multihead", "heads", "arch")


def architecture_of(o: Any, softmax: bool = False) -> Architecture:
    """The Architecture that options `o` (fields widths, ranks, tokens, arch, heads,
    activation_degree, bias) describe.

    Parameters
    ----------
    o
        A jobs options dataclass with the architecture fields of this module.
    softmax : bool
        Normalized attention (arch attention only).

    Returns
    -------
    Architecture

    Raises
    ------
    OptionError
        A missing or misplaced option for the family (named).
    ValueError
        Sizes that make no architecture (numag.architecture.Architecture names them).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> architecture_of(NS(widths=(3, 2, 1), ranks=None, tokens=2, arch=Family.PNN, heads=None,
    ...                    activation_degree=None, bias=False)).n_params
    8
    """
    check_family_options(o)
    if o.arch is Family.PNN:
        if o.ranks is not None:
            raise OptionError("a polynomial network ({arch} pnn) has no attention ranks: drop "
                              "{ranks}", "arch", "ranks")
        if softmax or o.tokens not in (1, 2):
            raise OptionError("{softmax} and {tokens} are options of attention, not of {arch} "
                              "pnn", "softmax", "tokens", "arch")
        return Architecture.pnn(o.widths, o.activation_degree or 2, o.bias)
    if o.ranks is None:
        raise OptionError(f"{{arch}} {o.arch} needs {{ranks}} A1,... (one attention rank per "
                          f"layer)", "arch", "ranks")
    if o.arch is Family.MULTIHEAD:
        if o.heads is None:
            raise OptionError("{arch} multihead needs {heads}", "arch", "heads")
        if softmax:
            raise OptionError("multi-head attention is lightning only here: drop {softmax}",
                              "softmax")
        return Architecture.multihead(o.widths, o.ranks, o.heads, o.tokens)
    return Architecture(o.widths, o.ranks, o.tokens, "softmax" if softmax else "lightning")
