"""Byte strings set aside in an anonymous temporary file until they are read back,
once: what a build makes early and writes late (a search bundle) need not be held
in memory meanwhile. The file has no name on disk (``tempfile.TemporaryFile``: mode
0600, where ``TMPDIR`` or the system says) and is gone once read back, closed, or
the build ends.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import Any


class SetAside:
    """Values (bytes) by key, kept in a temporary file in the order added."""

    def __init__(self, items: list[tuple[Any, bytes]] | None = None) -> None:
        self._file = tempfile.TemporaryFile()
        self._where: list[tuple[Any, int, int]] = []  # key, offset, size
        for key, data in items or []:
            self.add(key, data)

    def add(self, key: Any, data: bytes) -> None:
        self._where.append((key, self._file.tell(), len(data)))
        self._file.write(data)

    def read(self) -> Iterator[tuple[Any, bytes]]:
        """The values back, in the order added; the file is closed once they are read
        (reading again raises ValueError)."""
        try:
            for key, offset, size in self._where:
                self._file.seek(offset)
                yield key, self._file.read(size)
        finally:
            self._file.close()

    def __iter__(self) -> Iterator[tuple[Any, bytes]]:
        return self.read()
