"""A small file of OUT, of the archive or of the build state, read as what it is:
never through a symlink (O_NOFOLLOW) and never waited on when a FIFO stands there
(O_NONBLOCK, docs/safety.md S10). The file is checked on the descriptor that reads
it, so a file swapped in after an earlier look is refused, not read through.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def read_checked(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file of at most ``limit`` bytes, and the stat of what
    was read. OSError otherwise: FileNotFoundError when nothing is there."""
    fd = os.open(path, _FLAGS)
    try:
        # Checked before a file object is made of it: open() on a folder's
        # descriptor raises IsADirectoryError, a FIFO's would read nothing.
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        with open(fd, "rb", closefd=False) as handle:
            return handle.read(), info
    finally:
        os.close(fd)


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes, else None."""
    try:
        return read_checked(path, limit)[0]
    except OSError:
        return None
