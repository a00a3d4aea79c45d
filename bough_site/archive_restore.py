"""A build's private directory of decompressed archive copies (:class:`RestoreDir`).

A file the build needs from the archive is decompressed here, under its own label, and
read like any other file. Several builds may share one archive (one at a time changes
it, any may read it), so a directory left by a build that was killed must be told from
one a running build still reads: each holds an flock on a file inside for as long as
it lives.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
from pathlib import Path

RESTORE_PREFIX = ".bough-restore-"


class RestoreDir:
    """A build's private directory of decompressed copies, removed by :meth:`close`.

    It holds an flock on a file inside for as long as it lives, so another build
    can tell an abandoned one (no lock held) from one in use."""

    _LOCK = ".lock"

    def __init__(self, root: Path | None):
        self.path = Path(tempfile.mkdtemp(prefix=RESTORE_PREFIX, dir=root))  # mode 0700
        self._fd: int | None = os.open(self.path / self._LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def close(self) -> None:
        if self._fd is None:
            return
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self._fd)
        self._fd = None

    @classmethod
    def remove_if_abandoned(cls, path: Path) -> None:
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return
            fd = os.open(path / cls._LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            fd = None
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # a running build holds it
        finally:
            if fd is not None:
                os.close(fd)
        shutil.rmtree(path, ignore_errors=True)
