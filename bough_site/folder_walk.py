"""The folders under a root as one walk saw them: each one's time, the names of
its regular files and of its folders, by its path under the root ("." for the
root, "./a/b" below it), no link followed.

A walk can start from an earlier one: a folder whose time is the same holds the
same names (a name added, taken or renamed changes its folder's time, as the
quick check trusts: quick.py), so it is not listed again, only asked its time.
The archive is walked so at the start of a build (its copies are found in the
listing) and again at its end (its times, for the quick check's record): the
second walk lists only the folders the build wrote in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple


# What a walk saw of a file (quick.py's walk of the sources, discovery).
class FileStat(NamedTuple):
    """What the build asks of a file's ``os.stat``: an os.stat_result kept for each
    of 28,000 files held 20 MB."""

    st_mode: int
    st_size: int
    st_mtime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileStat:
        return cls(info.st_mode, info.st_size, info.st_mtime_ns)


class Listing(NamedTuple):
    mtime: int | None  # None: the folder could not be looked at or listed
    files: frozenset[str]  # its regular files (no links)
    folders: tuple[str, ...]  # its folders (no links)


_UNREADABLE = Listing(None, frozenset(), ())

Walk = dict[str, Listing]  # a folder's path under the root -> what was seen in it


def walk(root: Path | str, before: Mapping[str, Listing] | None = None, *, files: bool = True) -> Walk:
    """Every folder under ``root`` (itself included), listed unless ``before`` saw it
    at the same time; without the names of its files unless ``files`` (the quick
    check, which asks only times, does without them)."""
    base, earlier = os.fspath(root), before or {}
    seen: Walk = {}
    pending = ["."]
    while pending:
        folder = pending.pop()
        listing = seen[folder] = _listing(os.path.join(base, folder), earlier.get(folder), files)
        pending += [os.path.join(folder, name) for name in listing.folders]
    return seen


def _listing(path: str, old: Listing | None, files: bool) -> Listing:
    try:
        mtime = os.lstat(path).st_mtime_ns
        if old is not None and old.mtime == mtime:
            return old
        with os.scandir(path) as scan:
            entries = list(scan)
        folders = tuple(entry.name for entry in entries if entry.is_dir(follow_symlinks=False))
        if not files:
            return Listing(mtime, frozenset(), folders)
        regular = frozenset(entry.name for entry in entries if entry.is_file(follow_symlinks=False))
        return Listing(mtime, regular, folders)
    except OSError:
        return _UNREADABLE


def times(seen: Walk) -> list[list[Any]]:
    """Each folder and its time, in the order of their paths."""
    return [[folder, seen[folder].mtime] for folder in sorted(seen)]


def files_in(seen: Walk, folder: str) -> frozenset[str]:
    """The regular files a walk (with ``files``) saw in ``folder``, a relative path
    ("" for the root): none when it saw no such folder."""
    listing = seen.get(os.path.join(".", folder) if folder else ".")
    return listing.files if listing is not None else frozenset()
