"""The `fiber` job: the fiber through a sample point of a kind, or through given weights."""
from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from ..architecture import Architecture
from ..fibers import FiberDecomposition, fiber
from ..io import load_weights
from ..options import Bound, OptionError, option, validate
from ..points import PointKind
from .architecture import (Family, activation_degree_option, architecture_of, bias_option,
                           check_family_options, family_option, heads_option)


class Blackbox(enum.StrEnum):
    """Whether to run PHCpack's blackbox decomposition as an independent check."""

    AUTO = "auto"          # on at most numag.fibers.BLACKBOX_MAX_VARS unknowns
    YES = "yes"
    NO = "no"

    @property
    def flag(self) -> bool | None:
        """numag.fibers.fiber's `blackbox` argument."""
        return {"auto": None, "yes": True, "no": False}[self.value]


@dataclass(frozen=True)
class FiberOptions:
    """Options of the `fiber` job (the flags of `numag fiber`, the keys of a sweep's fiber task).

    Either widths and ranks (W0 = a sample point of kind `point`) or `weights`, a weights file
    (format: README) whose widths and ranks define the architecture. Lightning attention only:
    the architecture options of the other families (numag.jobs.architecture) are declared so
    that the command line and the sweep refuse them with the reason.

    Raises
    ------
    OptionError
        A bad value, `point` together with `weights`, neither widths and ranks nor weights, or
        `arch` other than attention.

    Examples
    --------
    >>> FiberOptions(widths=[3, 2], ranks=[1], point="swap").point
    <PointKind.SWAP: 'swap'>
    >>> FiberOptions(widths=[3, 2])
    Traceback (most recent call last):
    ...
    numag.options.OptionError: give option 'widths' and option 'ranks', or option 'weights'
    """

    widths: tuple[int, ...] | None = option(None, help="widths d_0, ..., d_l")
    ranks: tuple[int, ...] | None = option(None, help="attention ranks a_1, ..., a_l")
    tokens: int = option(2, bound=Bound(1), help="tokens per input t")
    point: PointKind | None = option(None, help="kind of the sample point W0 (default generic)")
    weights: str | None = option(None, file=True, help="W0 from a JSON weights file")
    seed: int = option(0, bound=Bound(0), help="seed of every random choice")
    blackbox: Blackbox = option(Blackbox.AUTO, help="also run PHCpack's blackbox decomposition")
    timeout: float | None = option(None, bound=Bound(0, strict=True, inf_is_none=True),
                                   help="time budget of the whole computation, seconds (inf: no limit)")
    complete_paths: int = option(1000, bound=Bound(0),
                                 help="path budget of the completeness check (witness "
                                      "supersets of the whole fiber); 0: not checked")
    certify: bool = option(False, help="certify the witness points of each component "
                                       "(Krawczyk test, witness.certify_witness)")
    arch: Family = family_option()
    heads: int | None = heads_option()
    activation_degree: int | None = activation_degree_option()
    bias: bool = bias_option()

    def __post_init__(self) -> None:
        validate(self)
        if self.arch is not Family.ATTENTION:
            raise OptionError(f"fibers are computed for lightning attention only, not for "
                              f"{{arch}} {self.arch}: its fiber system exists "
                              f"(numag.encode.fiber_system), but the predicted components and "
                              f"monodromy start points do not (they miss the components of head "
                              f"or neuron permutations)", "arch")
        check_family_options(self)
        if self.weights is not None:
            if self.point is not None:
                raise OptionError("{point} chooses a sample point; {weights} gives W0 itself: "
                                  "use one of them", "point", "weights")
        elif self.widths is None or self.ranks is None:
            raise OptionError("give {widths} and {ranks}, or {weights}", "widths", "ranks",
                              "weights")
        else:
            self.architecture()              # sizes, ranks against widths: an input error now

    def architecture(self) -> Architecture:
        """The architecture of widths and ranks (lightning: fibers are polynomial)."""
        return architecture_of(self)


def run_fiber(options: FiberOptions, progress: bool | None = None) -> FiberDecomposition:
    """numag.fibers.fiber for `options`.

    Raises
    ------
    ValueError
        An unreadable or malformed weights file, widths or ranks that contradict it (an
        OptionError), and everything numag.fibers.fiber raises.
    """
    if options.weights is not None:
        arch, layers = load_weights(options.weights)
        given = (options.widths or arch.widths, options.ranks or arch.ranks)
        if (options.widths or options.ranks) and given != (arch.widths, arch.ranks):
            raise OptionError(f"{{widths}}/{{ranks}} {given} contradict the weights file "
                              f"({arch.widths}, {arch.ranks})", "widths", "ranks")
        if options.tokens != arch.tokens:           # the file has no tokens: the option's
            arch = replace(arch, tokens=options.tokens)
    else:
        arch, layers = options.architecture(), None
    return fiber(arch, layers, kind=options.point or PointKind.GENERIC, seed=options.seed,
                 blackbox=options.blackbox.flag, timeout=options.timeout, progress=progress,
                 complete_check=options.complete_paths, certify=options.certify)
