"""The names bough's archive gives its own files in its folder, in one place:
the store (archive.py) writes them, and the quick check (quick.py) asks two of
them without importing the store (a build that changes nothing imports only
what its check needs: build.py). docs/state.md says what each holds."""

from __future__ import annotations

MARKER = ".bough-archive"  # the folder is bough's archive
LOCK = ".bough-lock"  # flock: one build writes it at a time
INDEX = ".bough-index"  # the records of every copy, in one file
FOLDER_TIMES = ".bough-folders"  # its folders' times as the last build left them (quick.keep_archive_times)
