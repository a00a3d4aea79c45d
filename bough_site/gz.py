"""gzip's format, written by ISA-L (the ``isal`` package) where it is installed.

ISA-L's deflate writes the same format as zlib's (whatever reads gzip reads its
output), four to six times as fast: at the fastest levels, transcripts 4.5 times
as fast and a tenth smaller (docs/performance.md, "gzip written by ISA-L").
pyproject.toml installs it on the machines it has wheels for; elsewhere the
standard library's zlib writes the same format, slower. The levels differ between
the two (ISA-L's are 0-3, zlib's 1-9): callers name a purpose (``FAST``), not a number.

Reading stays with the standard library's ``gzip``: it reads what either wrote.

What is published is written by zlib (:func:`compress_published`): ISA-L chooses
its deflate's code by the CPU it runs on, and writes other bytes on another CPU
(example_output/'s Pagefind files, made on one machine, differed in every file on
an AMD EPYC, the same data once decompressed). A site built twice from the same
history is the same bytes on any machine; the archive, which is never published,
keeps ISA-L's speed.
"""

from __future__ import annotations

import zlib
from typing import IO

try:
    from isal import igzip as _gzip
except ImportError:  # no isal wheel for this machine
    import gzip as _gzip  # type: ignore[no-redef]

WRITER = _gzip.__name__
FAST = 1  # the fastest level of either


def compress_published(data: bytes) -> bytes:
    """``data`` as one gzip member written by zlib at its level 6 (no time in the
    header): the same bytes on every machine with zlib's deflate."""
    return zlib.compress(data, 6, wbits=31)


def member_writer(out: IO[bytes], level: int) -> IO[bytes]:
    """A file object whose writes go to ``out`` as one gzip member (closed: complete)."""
    return _gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=level, mtime=0)
