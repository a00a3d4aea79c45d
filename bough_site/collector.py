"""Python's cyclic garbage collector, paused or not for a stretch of a build."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collecting(on: bool) -> Iterator[None]:
    """Python's cyclic garbage collector on or off meanwhile, then as it was. Off
    for the build's own bookkeeping: the manifest, the archive's index, units,
    plans, summaries and identities are hundreds of thousands of objects without a
    cycle, which it would otherwise walk again and again. On while reading and
    rendering, which do make cycles (the workers too): for what is made meanwhile
    only. What exists when it is turned on is frozen (``gc.freeze``): at 18,000
    sessions, walking the bookkeeping was two seconds of an append's seven, and a
    worker forked meanwhile would copy every page of it that a walk touched."""
    was = gc.isenabled()
    thaw = on and not was
    if thaw:
        gc.freeze()
    (gc.enable if on else gc.disable)()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()
        if thaw:
            gc.unfreeze()
