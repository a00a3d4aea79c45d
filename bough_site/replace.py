"""A file of OUT (or of the archive) replaced atomically: written to a temporary
file beside it, then renamed over it, so that a reader sees the old bytes or the
new ones, never half a file; from bytes, or from chunks of them never all held.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from .state_paths import TMP_PREFIX

Data = bytes | bytearray | memoryview | Iterable[bytes]  # what a file is written from: bytes, or chunks of them


def replace_file(parent: Path, name: str, data: Data, *, durable: bool = False, mode: int = 0o666) -> None:
    """Write data (bytes, or chunks of them) to a temporary file in parent, then
    rename it over parent/name (atomic): a reader sees the old bytes or the new ones,
    never half a file. ``durable`` fsyncs before the rename; ``mode`` is filtered by
    the umask."""
    tmp = write_temp(parent, data, durable=durable, mode=mode)
    try:
        os.replace(tmp, parent / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def replace_from_chunks(parent: Path, name: str, chunks: Iterable[bytes], *,
                        durable: bool = False, mode: int = 0o666) -> bool:
    """:func:`replace_file` from chunks, never all held, compared with what
    parent/name holds as they are written: False, and the file left alone, when it
    held exactly these bytes (a 45 MB file is neither held whole nor read whole)."""
    with _Compared(parent / name) as compared:
        tmp = write_temp(parent, compared.passed(chunks), mode=mode)
        same = compared.same()
    _replace_unless(same, tmp, parent / name, durable=durable)
    return not same


def _replace_unless(same: bool, tmp: Path, path: Path, *, durable: bool) -> None:
    """The temporary file ``tmp`` renamed over ``path`` (fsynced first when
    ``durable``), or only removed when ``path`` holds the ``same`` bytes."""
    try:
        if not same:
            if durable:
                fd = os.open(tmp, os.O_RDONLY | os.O_CLOEXEC)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            os.replace(tmp, path)
            return
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.unlink(tmp)


class _Compared(contextlib.AbstractContextManager["_Compared"]):
    """Chunks on their way to a file, compared with what ``path`` holds (a regular
    file, no symlink followed) as they pass."""

    def __init__(self, path: Path) -> None:
        self._handle: BinaryIO | None = None
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
            if stat.S_ISREG(os.fstat(fd).st_mode):
                self._handle = open(fd, "rb")
            else:
                os.close(fd)
        self._equal = self._handle is not None

    def passed(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            if self._equal and self._handle is not None and self._handle.read(len(chunk)) != chunk:
                self._equal = False
            yield chunk

    def same(self) -> bool:
        return self._equal and self._handle is not None and self._handle.read(1) == b""

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            self._handle.close()


def write_temp(parent: Path, data: Data, *, durable: bool = False, mode: int = 0o666) -> Path:
    """A new temporary file in parent holding data (fsynced when ``durable``);
    nothing is left behind when writing fails."""
    fd, tmp = create_temp(parent, mode)
    try:
        with open(fd, "wb") as f:
            if isinstance(data, (bytes, bytearray, memoryview)):
                f.write(data)
            else:
                f.writelines(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def create_temp(parent: Path, mode: int = 0o666) -> tuple[int, Path]:
    """A new temporary file in parent, named so that bough never mistakes it for output.
    The default mode is that of any new file (mkstemp would give 0o600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        tmp = parent / f"{TMP_PREFIX}{secrets.token_hex(8)}"
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
