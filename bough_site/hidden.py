"""Names bough keeps without storing them.

A label holds directory names (a user's, a project's), and a tally holds what a
session touched: the manifest and the state keep a digest of each instead.
Discovery (a file a later build already knows, by its hidden label), the
planner (unit keys, lineage groups) and the summaries (tallies) must make the
same digest of the same name, so it is made here once.
"""

from __future__ import annotations

import functools
import hashlib


def hide(text: str) -> str:
    """A short, stable digest standing for a name that must not be stored as is."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


# A build hides each file's label (and its folder) in several stages: discovery, the
# units, their states, the lineage, the archive. At 18,000 sessions that was 120,000
# digests of 31,500 labels; remembered, each is made once (some 5 MB, in the build's
# own process, let go of once every file is read: stages._Inputs.all_read. A worker
# hides what its sessions touched with hide, which remembers nothing).
hide_label = functools.lru_cache(maxsize=1 << 16)(hide)
