"""collector.collecting: the cyclic collector on for a stretch of a build walks only
what is made meanwhile; what existed before is frozen, and thawed after."""

from __future__ import annotations

import gc
import weakref

from bough_site.collector import collecting


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def test_on_freezes_what_exists_and_collects_what_is_made_meanwhile() -> None:
    was = gc.isenabled()
    with collecting(False):
        bookkeeping = [{"n": n} for n in range(1000)]
        assert gc.get_freeze_count() == 0
        with collecting(True):
            assert gc.isenabled() and gc.get_freeze_count() > len(bookkeeping)
            made = _Node()
            gone = weakref.ref(made)
            del made
            gc.collect()
            assert gone() is None  # made meanwhile: walked, and freed
            with collecting(True):  # already on: nothing frozen again, nothing thawed early
                frozen = gc.get_freeze_count()
            assert gc.get_freeze_count() == frozen
            with collecting(False):
                assert not gc.isenabled()
            assert gc.isenabled()
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.isenabled() == was


def test_a_cycle_made_before_is_left_to_the_collector_after() -> None:
    with collecting(False):
        before = _Node()
        gone = weakref.ref(before)
        del before
        with collecting(True):
            gc.collect()
            assert gone() is not None  # frozen: not walked while the stretch lasts
    gc.collect()
    assert gone() is None
