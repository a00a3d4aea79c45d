"""A Gemini CLI session's working directory, which no record stores (docs/formats-gemini.md §6).

Every session file carries ``projectHash``, the sha256 of the directory Gemini CLI
was started in, written as typed. So the directory is, in this order:

1. the root Gemini CLI wrote down for that hash (``projects.json``, a folder's
   ``.project_root``: gemini_files.folder_roots);
2. a path the session mentions, or one of its parents, whose sha256 is the hash:
   the ``directories`` of the metadata, paths in tool arguments and results, and in
   what the user typed;
3. else unknown: the session is filed under its Gemini folder's name (the slug,
   or the hash itself), and says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .gemini_files import project_hash

# A text is searched up to this many characters, and a session tries at most this
# many candidate directories: a session that mentions no path of its root within
# that is as good as one that mentions none.
_TEXT_LIMIT = 8192
_MAX_CANDIDATES = 20_000
_POSIX_PATH = re.compile(r"/[^\s'\"`<>|;,(){}\[\]*?]+")
_WINDOWS_PATH = re.compile(r"[A-Za-z]:\\[^\s'\"`<>|;,(){}\[\]*?]*")


def recover_root(wanted: str, texts: Iterable[str], roots: Mapping[str, str]) -> str | None:
    """The directory whose sha256 is ``wanted``: a known root, else a path in
    ``texts`` (or a parent of one) that hashes to it; None when none does."""
    if not wanted:
        return None
    if wanted in roots:
        return roots[wanted]
    tried: set[str] = set()
    for text in texts:
        for candidate in _directories(text[:_TEXT_LIMIT]):
            if candidate in tried:
                continue
            if len(tried) >= _MAX_CANDIDATES:
                return None
            tried.add(candidate)
            if project_hash(candidate) == wanted:
                return candidate
    return None


def _directories(text: str) -> Iterator[str]:
    """Each path in the text and its parents, longest first."""
    for match in _POSIX_PATH.finditer(text):
        path = match.group(0).rstrip(".:")
        while path:
            yield path
            if path == "/":
                break
            path = path.rsplit("/", 1)[0] or "/"
    for match in _WINDOWS_PATH.finditer(text):
        path = match.group(0).rstrip(".:\\")
        while len(path) > 2:
            yield path
            path = path.rsplit("\\", 1)[0]
        yield path + "\\"


def strings_in(value: Any, limit: int = 200) -> Iterator[str]:
    """Every string inside a JSON value (keys left out), at most ``limit`` of them."""
    stack = [value]
    count = 0
    while stack and count < limit:
        item = stack.pop()
        if isinstance(item, str):
            count += 1
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def unknown_root_note(folder: str, wanted: str) -> str:
    short = f"{wanted[:12]}…" if len(wanted) > 12 else (wanted or "none")
    return (
        "Gemini CLI does not record the working directory, and it could not be recovered for this "
        f"session (project hash {short}): it is filed under its Gemini folder, {folder}."
    )
