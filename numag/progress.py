"""Progress bars: one switch for all of numag.

Every long computation takes `progress: bool | None`: True shows a tqdm bar on stderr, False
hides it, None follows the process default, which is "only on a terminal" unless a sweep worker
process turned bars off for everything it runs (`quiet_process`).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from tqdm.auto import tqdm

_default: bool | None = None       # None: tqdm decides (a bar only when stderr is a terminal)


def enabled(progress: bool | None) -> bool | None:
    """The effective switch: `progress` if given, else the process default."""
    return _default if progress is None else progress


def bar(iterable: Any = None, progress: bool | None = None, **kwargs: Any) -> tqdm:
    """tqdm(iterable, **kwargs), shown or hidden by `progress` (see the module docstring)."""
    on = enabled(progress)
    return tqdm(iterable, disable=None if on is None else not on, **kwargs)


@contextmanager
def quiet() -> Iterator[None]:
    """No bars inside the block unless a call asks for one (the sweep running tasks in its own
    process, beside its own bar)."""
    global _default
    saved, _default = _default, False
    try:
        yield
    finally:
        _default = saved


def quiet_process() -> None:
    """No bars in this process unless a call asks for one: for worker processes, whose stderr
    is the terminal of the process that drives them."""
    global _default
    _default = False
