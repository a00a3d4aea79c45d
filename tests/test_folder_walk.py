"""folder_walk: the folders under a root as a walk saw them, and a walk that starts
from an earlier one listing only the folders whose time changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bough_site import folder_walk
from bough_site.folder_walk import Listing, files_in, times, walk

from .helpers import scandir_calls


def make_tree(root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "top.data").write_bytes(b"1")
    (root / "a" / "one.data").write_bytes(b"2")
    (root / "a" / "b" / "two.data").write_bytes(b"3")
    (root / "a" / "link").symlink_to(root / "a" / "one.data")
    (root / "a" / "dirlink").symlink_to(root / "a" / "b", target_is_directory=True)


def test_a_walk_sees_each_folders_time_files_and_folders_and_follows_no_link(tmp_path: Path) -> None:
    make_tree(tmp_path)
    seen = walk(tmp_path)
    assert sorted(seen) == [".", "./a", "./a/b"]
    assert seen["./a"] == Listing(os.lstat(tmp_path / "a").st_mtime_ns, frozenset({"one.data"}), ("b",))
    assert files_in(seen, "") == {"top.data"} and files_in(seen, "a/b") == {"two.data"}
    assert files_in(seen, "nowhere") == frozenset()
    assert times(seen) == [[".", os.lstat(tmp_path).st_mtime_ns], ["./a", os.lstat(tmp_path / "a").st_mtime_ns],
                           ["./a/b", os.lstat(tmp_path / "a" / "b").st_mtime_ns]]
    times_only = walk(tmp_path, files=False)  # (what the quick check asks)
    assert times(times_only) == times(seen) and not any(listing.files for listing in times_only.values())


def test_a_folder_that_cannot_be_listed_has_no_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_tree(tmp_path)
    real_scandir = os.scandir

    def refused(path: str) -> os.ScandirIterator:  # (root may list anything: chmod would not stop it)
        if os.path.normpath(path) == str(tmp_path / "a"):
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refused)
    assert walk(tmp_path) == {".": walk(tmp_path)["."], "./a": Listing(None, frozenset(), ())}
    assert walk(tmp_path / "gone") == {".": Listing(None, frozenset(), ())}


@pytest.mark.parametrize("change", ["nothing", "a file added", "a file removed", "a folder added",
                                    "a folder removed", "a folder replaced by a file"])
def test_a_walk_from_an_earlier_one_lists_only_what_changed_and_sees_what_a_fresh_walk_sees(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    make_tree(tmp_path)
    before = walk(tmp_path)
    a = tmp_path / "a"
    # Folder times are as coarse as the kernel's clock: a change is dated a second on.
    if change == "a file added":
        (a / "new.data").write_bytes(b"4")
    elif change == "a file removed":
        (a / "one.data").unlink()
    elif change == "a folder added":
        (a / "c" / "d").mkdir(parents=True)
    elif change == "a folder removed":
        (a / "b" / "two.data").unlink()
        (a / "b").rmdir()
    elif change == "a folder replaced by a file":
        (a / "b" / "two.data").unlink()
        (a / "b").rmdir()
        (a / "b").write_bytes(b"5")
    if change != "nothing":
        later = os.lstat(a).st_mtime_ns + 1_000_000_000
        os.utime(a, ns=(later, later))
    with monkeypatch.context() as patched:
        listed = scandir_calls(patched)
        again = walk(tmp_path, before)
    new_folders = [str(a / "c"), str(a / "c" / "d")] if change == "a folder added" else []
    assert listed == ([] if change == "nothing" else [str(a), *new_folders])
    assert again == walk(tmp_path)


def test_the_archives_record_is_the_fresh_walks_after_copies_were_written(tmp_path: Path) -> None:
    """quick.archive_times from the walk at a build's start (``before``) says what a
    fresh walk says once copies were written in, and lists only where they went."""
    from bough_site.quick import ArchiveWalk, archive_times

    root = tmp_path / "archive"
    (root / "claude" / "-p" / "s" / "subagents").mkdir(parents=True)
    (root / "claude" / "-q").mkdir()
    (root / ".bough-index").write_bytes(b"{}")
    walked: ArchiveWalk = {}
    start = archive_times(root, walked=walked)
    assert files_in(walked["claude"], "-p/s/subagents") == frozenset()
    (root / "claude" / "-p" / "s" / "subagents" / "agent-1.jsonl.data").write_bytes(b"copy")
    (root / "claude" / "-p" / "t").mkdir()  # a new session's folder
    for folder in ("-p/s/subagents", "-p"):  # a second on: coarse folder times
        path = root / "claude" / folder
        later = os.lstat(path).st_mtime_ns + 1_000_000_000
        os.utime(path, ns=(later, later))
    end = archive_times(root, before=walked)
    assert end == archive_times(root) != start
    assert folder_walk.walk(root / "claude", walked["claude"]) == folder_walk.walk(root / "claude")
