"""gzip's format, written by ISA-L (the ``isal`` package) where it is installed.

ISA-L's deflate writes the same format as zlib's (whatever reads gzip reads its
output), four to six times as fast: at the fastest levels, transcripts 4.5 times
as fast and a tenth smaller; Pagefind's files at ISA-L's 3 six times as fast as at
zlib's 6, 2.4% larger (docs/performance.md, "gzip written by ISA-L"). pyproject.toml
installs it on the machines it has wheels for; elsewhere the standard library's
zlib writes the same format, slower. The levels differ between the two (ISA-L's
are 0-3, zlib's 1-9), so callers name a purpose, not a number.

Reading stays with the standard library's ``gzip``: it reads what either wrote.
"""

from __future__ import annotations

from typing import IO

try:
    from isal import igzip as _gzip

    FAST, SMALL = 1, 3
except ImportError:  # no isal wheel for this machine
    import gzip as _gzip  # type: ignore[no-redef]

    FAST, SMALL = 1, 6  # zlib's 6 took half the time of 9 on Pagefind's files, for 0.4% more

WRITER = _gzip.__name__


def compress(data: bytes, level: int) -> bytes:
    """``data`` as one gzip member, with no time or name in the header (the same
    bytes always give the same output)."""
    return _gzip.compress(data, level, mtime=0)


def member_writer(out: IO[bytes], level: int) -> IO[bytes]:
    """A file object whose writes go to ``out`` as one gzip member (closed: complete)."""
    return _gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=level, mtime=0)
